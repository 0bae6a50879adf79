#!/usr/bin/env bash
# The MagPIe experiment with Grove MPI (the P-LogP paper's Figure 4):
# MPI_Bcast of 1 KiB .. 4 MiB from rank 0 over 4 and 8 emulated clusters
# joined by an emulated WAN of 10 ms and 1 MB/s, with the P-LogP plan,
# one binomial tree over all ranks, and MagPIe's original scheme, and the
# model's predicted times (docs/mpi.md, "Clusters").
#
#   scripts/bench-magpie.sh [--quick] [--reps N] [--clusters "4 8"]
#                           [--per-cluster N] [--sizes 1K,...,4M]
#                           [--wan 10ms,1MB/s] [--out FILE] [--build DIR]
#                           [--timeout SECONDS]
#
# Each repetition runs, for each cluster count, each algorithm once
# (bench/mpi/bcast_wan over all sizes, under `grove run` with
# GROVE_MPI_CLUSTERS=<clusters>x<per-cluster>, GROVE_MPI_WAN and
# GROVE_MPI_BCAST); the algorithm that goes first rotates from one
# repetition to the next, so the ratios compare runs interleaved in one
# sitting.  It prints, per cluster count and size, the medians over the
# repetitions, the ratios binomial/plan and magpie/plan, and how far the
# model's prediction is from the measured median.
#
# The clusters are emulated on this host (docs/mpi.md): the WAN is Grove
# MPI's shaper, a link per pair of clusters, not a network.  Every run's
# lines go to FILE (default docs/results/magpie-bench.jsonl, BUILD/
# magpie-bench/quick.jsonl with --quick; the file is rewritten), each
# with the sitting, the commit, the machine, the load before the run and
# the repetition.  Needs the build of the README (BUILD/grove and
# BUILD/bench-mpi/bcast_wan).  A run has a time limit (--timeout, default
# 300 s); one that hits it is reported as timed out, never as a number.
#
# --quick: 4 clusters, 1 KiB, 64 KiB and 1 MiB, one repetition: a smoke
# run of this script (about half a minute).  Not for figures.
set -euo pipefail

usage() {
	sed -n '/^#   scripts/,/^#  *\[--timeout/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build quick=0 reps='' out='' limit=300 clusters='' per=2 sizes=''
wan=10ms,1MB/s
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=${2:?--reps needs a number}; shift ;;
	--clusters) clusters=${2:?--clusters needs a list}; shift ;;
	--per-cluster) per=${2:?--per-cluster needs a number}; shift ;;
	--sizes) sizes=${2:?--sizes needs a list}; shift ;;
	--wan) wan=${2:?--wan needs latency,bandwidth}; shift ;;
	--out) out=${2:?--out needs a file}; shift ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--timeout) limit=${2:?--timeout needs seconds}; shift ;;
	-h | --help) usage ;;
	*) echo "bench-magpie: unknown option $1" >&2; usage ;;
	esac
	shift
done
[[ $limit =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-magpie: --timeout SECONDS, a whole number >= 1" >&2; exit 2; }
[[ $per =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-magpie: --per-cluster N, N >= 1" >&2; exit 2; }
case $build in
/*) babs=$build ;;
*) babs=$root/$build ;;
esac
prog=$babs/bench-mpi/bcast_wan
[[ -x $babs/grove && -x $prog ]] || {
	echo "bench-magpie: $babs/grove or $prog is missing: build first" \
	     "(README)" >&2
	exit 1
}
if ((quick)); then
	reps=${reps:-1} clusters=${clusters:-4} sizes=${sizes:-1K,64K,1M}
	out=${out:-$babs/magpie-bench/quick.jsonl}
else
	reps=${reps:-3} clusters=${clusters:-4 8}
	sizes=${sizes:-1K,4K,16K,64K,256K,1M,4M}
	out=${out:-docs/results/magpie-bench.jsonl}
fi
[[ $reps =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-magpie: --reps N, N >= 1" >&2; exit 2; }
for c in $clusters; do
	[[ $c =~ ^[1-9][0-9]*$ && $c -ge 2 ]] ||
		{ echo "bench-magpie: --clusters: '$c' is not a number >= 2" >&2; exit 2; }
done
mkdir -p "$(dirname "$out")" "$babs/magpie-bench"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill -- "-$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sitting=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true || echo false)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || echo unknown)
: >"$out"
algos=(plogp binomial magpie)

run_one() { # clusters algo rep
	local c=$1 algo=$2 rep=$3 n=$(($1 * per)) load status rc=0
	read -r load _ </proc/loadavg
	set -m
	GROVE_MPI_CLUSTERS=${c}x$per GROVE_MPI_WAN=$wan GROVE_MPI_BCAST=$algo \
		timeout "$limit" "$babs/grove" run -n "$n" "$prog" --sizes "$sizes" \
		--reps 1 >"$tmp/out" 2>"$tmp/err" &
	local pid=$!
	set +m
	pids+=("$pid")
	wait "$pid" || rc=$?
	pids=("${pids[@]/$pid/}")
	case $rc in
	0) status=ok ;;
	124) status=timeout ;;
	*) status=error ;;
	esac
	if [[ $status != ok ]]; then
		echo "bench-magpie: $c clusters, $algo: $status (rc $rc)" >&2
		tail -5 "$tmp/err" >&2 || true
	fi
	python3 - "$tmp/out" "$status" "$rep" "$load" "$sitting" "$commit" \
	    "$dirty" "$(nproc)" "${cpu:-unknown}" "$os" "$(uname -r)" "$c" \
	    "$algo" "$per" >>"$out" <<'PY'
import json, sys
(outf, status, rep, load, sitting, commit, dirty, nproc, cpu, os_, kernel,
 c, algo, per) = sys.argv[1:]
meta = {"sitting": sitting, "commit": commit, "dirty": dirty == "true",
        "machine": {"nproc": int(nproc), "cpu": cpu, "os": os_,
                    "kernel": kernel},
        "rep": int(rep), "load1_before": float(load), "status": status}
lines = [l for l in open(outf) if l.startswith("{")]
if not lines:
    print(json.dumps(dict(meta, bench="bcast_wan", algo=algo,
                          clusters=int(c), per_cluster=int(per))))
for l in lines:
    r = json.loads(l)
    r.update(meta)
    r["per_cluster"] = int(per)
    print(json.dumps(r))
PY
}

echo "bench-magpie: $reps repetition(s), clusters: $clusters ($per ranks" \
     "each), WAN $wan, sizes $sizes -> $out" >&2
for ((rep = 0; rep < reps; rep++)); do
	for c in $clusters; do
		for ((i = 0; i < 3; i++)); do
			algo=${algos[$(((i + rep) % 3))]}
			echo "bench-magpie: repetition $((rep + 1)): $c clusters, $algo" >&2
			run_one "$c" "$algo" "$rep"
		done
	done
done

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if r.get("status") == "ok" and "median_us" in r]
bad = [r for r in rows if r.get("status") != "ok"]
algos = ("plogp", "binomial", "magpie")
print(f"MPI_Bcast over emulated clusters, commit "
      f"{rows[0]['commit'] if rows else '?'}; times in ms over "
      f"{max((r['rep'] for r in rows), default=0) + 1} run(s): median and "
      f"minimum; err = predicted / measured - 1")
print(f"{'clust':>5} {'bytes':>8} | {'plan':>8} {'min':>8} {'pred':>8} "
      f"{'err':>6} {'errmin':>6} | {'binom':>8} {'min':>8} | {'magpie':>8} "
      f"{'min':>8} {'pred':>8} | {'bin/plan':>8} {'mag/plan':>8}")
for c, b in sorted({(r["clusters"], r["bytes"]) for r in ok}):
    sel = {a: [r for r in ok if r["clusters"] == c and r["bytes"] == b
               and r["algo"] == a] for a in algos}
    med = {a: statistics.median([r["median_us"] for r in sel[a]])
           if sel[a] else None for a in algos}
    mn = {a: min([r["median_us"] for r in sel[a]]) if sel[a] else None
          for a in algos}
    pred = {a: next((r["predicted_us"] for r in sel[a] if "predicted_us" in r),
                    None) for a in ("plogp", "magpie")}
    f = lambda v: f"{v / 1e3:8.1f}" if v is not None else f"{'-':>8}"
    e = lambda p, m: f"{(p / m - 1) * 100:+5.1f}%" if p and m else f"{'-':>6}"
    q = lambda a: f"{med[a] / med['plogp']:8.2f}" if med[a] and med["plogp"] else f"{'-':>8}"
    print(f"{c:>5} {b:>8} | {f(med['plogp'])} {f(mn['plogp'])} "
          f"{f(pred['plogp'])} {e(pred['plogp'], med['plogp'])} "
          f"{e(pred['plogp'], mn['plogp'])} | {f(med['binomial'])} "
          f"{f(mn['binomial'])} | {f(med['magpie'])} {f(mn['magpie'])} "
          f"{f(pred['magpie'])} | {q('binomial')} {q('magpie')}")
loads = [r["load1_before"] for r in rows if "load1_before" in r]
if loads:
    print(f"load average before the runs: {min(loads):.1f} .. {max(loads):.1f}"
          f" ({rows[0]['machine']['nproc']} cores)")
if bad:
    print(f"{len(bad)} run(s) did not finish: " +
          ", ".join(f"{r['clusters']} clusters {r['algo']} ({r['status']})"
                    for r in bad))
if any(not r.get("ok", True) for r in ok):
    print("WRONG DATA in some runs (see the ok field)")
    sys.exit(1)
PY
