#!/usr/bin/env bash
# Side-by-side MPI benchmark: Grove's MPI against Debian's Open MPI and
# MPICH, on this machine, in one sitting (docs/mpi-benchmarks.md).
#
#   scripts/bench-mpi.sh [--quick] [--reps N] [--only grove,openmpi,mpich]
#                        [--out FILE] [--build DIR] [--timeout SECONDS]
#
# Compiles the programs of bench/mpi with each MPI's own wrapper into
# BUILD/mpi-bench/<mpi>/, then runs, for each repetition, each measurement
# with each MPI in turn (the MPI that goes first rotates from one
# repetition to the next), and prints the medians over the repetitions and
# the ratios Grove/Open MPI and Grove/MPICH:
#
#   ping-pong 1 B and 1 MiB (2 ranks; the run sweeps 1 B .. 4 MiB)
#   bandwidth 256 KiB, window 64 (2 ranks; the run sweeps 1 KiB .. 4 MiB)
#   allreduce 8 B and barrier at 8 ranks (more ranks than cores here)
#   wall time of launching `hello` on 64 ranks, Init to Finalize to exit
#   CPU used by rank 0 while blocked 10 s in MPI_Recv, % of the wall time
#
# Peers are called by their own names (mpicc.openmpi, mpirun.openmpi
# --allow-run-as-root --oversubscribe, mpicc.mpich, mpirun.mpich; install
# them with scripts/install-mpi-peers.sh); Grove's column uses BUILD/mpicc
# and BUILD/mpiexec, and is skipped, with a message, until they exist.
#
# Every run has a time limit (--timeout, default 30 s; the blocked receive
# gets its duration on top): a busy-polling MPI with more ranks than cores
# can slow down by orders of magnitude.  A run that hits the limit is
# reported as timed out, never as a number.  Processes a run leaves behind
# are killed, also when the script is interrupted.
#
# Every run's measurements go to FILE as JSON lines (default
# docs/results/mpi-bench.jsonl, BUILD/mpi-bench/quick.jsonl with --quick;
# the file is rewritten), each with the commit, the machine, the MPI and
# its version, the repetition and the run's status ("ok", "timeout",
# "error", "build-failed").  scripts/plot-mpi.sh draws latency and
# bandwidth by size from it.
#
# --quick: one repetition, fewer sizes, shorter measurements, a 1 s
# blocked receive and a 15 s limit: a smoke run of this script that ends in
# well under a minute.  Not for figures.
set -euo pipefail

usage() {
	sed -n '/^#   scripts/,/^#  *\[--out/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build quick=0 reps='' only=grove,openmpi,mpich out='' limit=''
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=${2:?--reps needs a number}; shift ;;
	--only) only=${2:?--only needs a list}; shift ;;
	--out) out=${2:?--out needs a file}; shift ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--timeout) limit=${2:?--timeout needs seconds}; shift ;;
	-h | --help) usage ;;
	*) echo "bench-mpi: unknown option $1" >&2; usage ;;
	esac
	shift
done
if ((quick)); then
	reps=${reps:-1} limit=${limit:-15}
	out=${out:-$build/mpi-bench/quick.jsonl}
	blocked_s=1
	pingpong_args=(-m 1 -M 1048576 -f 4 -t 0.02)
	bandwidth_args=(-m 65536 -M 262144 -f 4 -t 0.05)
	coll_args=(-t 0.3)
else
	reps=${reps:-5} limit=${limit:-30}
	out=${out:-docs/results/mpi-bench.jsonl}
	blocked_s=10
	pingpong_args=(-t 0.1)
	bandwidth_args=(-t 0.1)
	coll_args=(-t 1)
fi
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-mpi: --reps N, N >= 1" >&2; exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-mpi: --timeout SECONDS, a whole number >= 1" >&2; exit 2; }

case $build in
/*) babs=$build ;;
*) babs=$root/$build ;;
esac
scratch=$babs/mpi-bench
mkdir -p "$scratch" "$(dirname "$out")"
tmp=$(mktemp -d)
# Every launch carries this variable; the MPI launchers hand it on to
# every process they start, so leftovers are found by it, whoever their
# parent is now, and no one else's processes are.
tag="$$-$(date +%s%N)"
child=

# Processes of our launches that are still there (their pids).
leftovers() {
	grep -lzx "GROVE_BENCH_MPI_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null |
	    cut -d/ -f3 | grep -vx "$$" || true
}
reap() { # kills what our launches left; $1: wait a little first
	local pids
	mapfile -t pids < <(leftovers)
	if ((${#pids[@]})) && [[ ${1:-} == wait ]]; then
		sleep 1
		mapfile -t pids < <(leftovers)
	fi
	if ((${#pids[@]})); then
		echo "bench-mpi: killing leftover processes ${pids[*]}" >&2
		kill -KILL "${pids[@]}" 2>/dev/null || true
	fi
}
cleanup() {
	if [[ -n $child ]]; then # timeout leads its own process group
		kill -TERM -- "-$child" 2>/dev/null || true
		sleep 0.5
		kill -KILL -- "-$child" 2>/dev/null || true
	fi
	reap
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "bench-mpi: interrupted" >&2; exit 130' INT TERM HUP

# The MPIs of this run, each with its wrapper and launcher.
declare -A cc version
mpis=()
IFS=, read -r -a wanted <<<"$only"
for m in "${wanted[@]}"; do
	case $m in
	grove)
		if [[ ! -x $build/mpicc || ! -x $build/mpiexec ]]; then
			echo "bench-mpi: $build/mpicc or $build/mpiexec does not" \
			    "exist yet (Grove's MPI is not built); skipping Grove's" \
			    "column" >&2
			continue
		fi
		cc[grove]=$babs/mpicc
		version[grove]="Grove $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
		;;
	openmpi | mpich)
		if ! command -v "mpicc.$m" >/dev/null ||
		    ! command -v "mpirun.$m" >/dev/null; then
			echo "bench-mpi: mpicc.$m or mpirun.$m missing; skipping $m" \
			    "(scripts/install-mpi-peers.sh installs it)" >&2
			continue
		fi
		cc[$m]=mpicc.$m
		if [[ $m == openmpi ]]; then
			version[$m]="Open MPI $(mpirun.openmpi --version 2>/dev/null |
			    head -1 | awk '{print $NF}')"
		else
			version[$m]="MPICH $(mpicc.mpich -v 2>/dev/null | head -1 |
			    awk '{print $NF}')"
		fi
		;;
	*) echo "bench-mpi: unknown MPI '$m' (grove, openmpi, mpich)" >&2; exit 2 ;;
	esac
	mpis+=("$m")
done
if ((${#mpis[@]} == 0)); then
	echo "bench-mpi: no MPI to measure" >&2
	exit 1
fi

launcher() { # $1: mpi, $2: ranks; sets the array `launch`
	case $1 in
	grove) launch=("$babs/mpiexec" -n "$2") ;;
	openmpi) launch=(mpirun.openmpi --allow-run-as-root --oversubscribe -n "$2") ;;
	mpich) launch=(mpirun.mpich -n "$2") ;;
	esac
}

programs=(pingpong bandwidth allreduce barrier hello blocked_recv)
declare -A built
for m in "${mpis[@]}"; do
	mkdir -p "$scratch/$m"
	for p in "${programs[@]}"; do
		if "${cc[$m]}" -O2 -std=c11 -Wall -Wextra -Werror \
		    "bench/mpi/$p.c" -o "$scratch/$m/$p" 2>"$tmp/cc.err"; then
			built[$m/$p]=1
		else
			echo "bench-mpi: ${cc[$m]} failed on bench/mpi/$p.c:" >&2
			sed 's/^/  /' "$tmp/cc.err" | head -20 >&2
			built[$m/$p]=0
		fi
	done
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
python3 - "$commit" "$(nproc)" "${cpu:-unknown}" "$(uname -r)" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/meta.json" <<'PY'
import json, sys
c, n, cpu, kernel, date = sys.argv[1:]
print(json.dumps({"commit": c, "date": date, "machine": {
    "nproc": int(n), "cpu": cpu, "kernel": kernel}}))
PY

# Turns one run's output into JSON lines: one per "name key=value ..."
# line the program printed (the run's status with it), or one line with
# the status alone when it printed nothing usable.
cat >"$tmp/emit.py" <<'PY'
import json, sys
meta, mpi, version, bench, ranks, rep, status, rc, wall, limit, load, outf = \
    sys.argv[1:]
base = json.load(open(meta))
base.update(mpi=mpi, mpi_version=version, bench=bench, ranks=int(ranks),
            rep=int(rep), status=status, exit_code=int(rc),
            run_wall_s=round(float(wall), 4), timeout_s=float(limit),
            load1_before=float(load))
lines = []
if bench == "hello":  # one line per rank; the measurement is the wall time
    n = sum(1 for l in open(outf, errors="replace") if l.startswith("hello "))
    if status == "ok" and n != int(ranks):
        base["status"] = "error"
    lines.append(dict(base, ranks_printed=n))
else:
    for l in open(outf, errors="replace"):
        f = l.split()
        if status != "ok" or not f or f[0] != bench:
            continue
        r = dict(base)
        for kv in f[1:]:
            k, _, v = kv.partition("=")
            try:
                r[k] = int(v)
            except ValueError:
                try:
                    r[k] = float(v)
                except ValueError:
                    r[k] = v
        lines.append(r)
    if not lines:
        lines.append(dict(base, status="error" if status == "ok" else status))
for r in lines:
    print(json.dumps(r))
PY

: >"$out"
run() { # $1 mpi, $2 bench, $3 ranks, $4 rep, $5 limit, rest: program args
	local m=$1 b=$2 n=$3 rep=$4 t=$5 rc=0 status t0 t1 load launch
	shift 5
	# The machine may be shared: keep the load each run started under.
	read -r load _ </proc/loadavg
	if [[ ${built[$m/$b]} != 1 ]]; then
		status=build-failed rc=-1 t0=0 t1=0
		: >"$tmp/out"
	else
		launcher "$m" "$n"
		t0=$(date +%s%N)
		env GROVE_BENCH_MPI_TAG="$tag" timeout -k 5 "$t" \
		    "${launch[@]}" "$scratch/$m/$b" "$@" \
		    >"$tmp/out" 2>"$tmp/err" </dev/null &
		child=$!
		wait "$child" || rc=$?
		t1=$(date +%s%N)
		child=
		reap wait
		case $rc in
		0) status=ok ;;
		124 | 137) status=timeout ;;
		*) status=error ;;
		esac
		if [[ $status != ok ]]; then
			echo "bench-mpi: $m $b -n $n: $status (exit $rc)" >&2
			tail -5 "$tmp/err" | sed 's/^/  /' >&2
		fi
	fi
	python3 "$tmp/emit.py" "$tmp/meta.json" "$m" "${version[$m]}" "$b" "$n" \
	    "$rep" "$status" "$rc" "$(((t1 - t0) / 1000))e-6" "$t" "$load" \
	    "$tmp/out" >>"$out"
}

echo "bench-mpi: ${mpis[*]}, $reps repetition(s), limit ${limit} s per run," \
    "results in $out" >&2
start=$(date +%s)
for ((rep = 1; rep <= reps; rep++)); do
	# Rotate which MPI goes first.
	k=$(((rep - 1) % ${#mpis[@]}))
	order=("${mpis[@]:k}" "${mpis[@]:0:k}")
	echo "bench-mpi: repetition $rep/$reps ($(($(date +%s) - start)) s)" >&2
	for m in "${order[@]}"; do run "$m" pingpong 2 "$rep" "$limit" "${pingpong_args[@]}"; done
	for m in "${order[@]}"; do run "$m" bandwidth 2 "$rep" "$limit" "${bandwidth_args[@]}"; done
	for m in "${order[@]}"; do run "$m" allreduce 8 "$rep" "$limit" "${coll_args[@]}"; done
	for m in "${order[@]}"; do run "$m" barrier 8 "$rep" "$limit" "${coll_args[@]}"; done
	for m in "${order[@]}"; do run "$m" hello 64 "$rep" "$limit"; done
	for m in "${order[@]}"; do
		run "$m" blocked_recv 2 "$rep" $((limit + blocked_s)) "$blocked_s"
	done
done
echo "bench-mpi: done in $(($(date +%s) - start)) s" >&2

python3 - "$out" "$reps" "$blocked_s" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
reps, blocked = int(sys.argv[2]), sys.argv[3]
m0 = rows[0]
print(f"MPI side by side, commit {m0['commit']}, {m0['machine']['nproc']} CPUs "
      f"({m0['machine']['cpu']}), kernel {m0['machine']['kernel']}, {m0['date']}")
versions = {}
for r in rows:
    versions[r["mpi"]] = r["mpi_version"]
print("; ".join(versions[m] for m in ("grove", "openmpi", "mpich") if m in versions))
loads = [r["load1_before"] for r in rows if "load1_before" in r]
print(f"medians of {reps} interleaved repetition(s); 1-minute load average "
      f"before the runs {min(loads):.2f} .. {max(loads):.2f}\n")

# (label, bench, ranks, selector, value key)
spec = [
    ("ping-pong 1 B, 2 ranks (us, lower is better)", "pingpong", 2,
     lambda r: r.get("bytes") == 1, "lat_us"),
    ("ping-pong 1 MiB, 2 ranks (us, lower is better)", "pingpong", 2,
     lambda r: r.get("bytes") == 1 << 20, "lat_us"),
    ("bandwidth 256 KiB, window 64, 2 ranks (GB/s, higher is better)",
     "bandwidth", 2, lambda r: r.get("bytes") == 256 << 10, "gb_s"),
    ("allreduce 8 B, 8 ranks (us, lower is better)", "allreduce", 8,
     lambda r: True, "avg_us"),
    ("barrier, 8 ranks (us, lower is better)", "barrier", 8,
     lambda r: True, "avg_us"),
    ("launch hello, 64 ranks, wall (s, lower is better)", "hello", 64,
     lambda r: True, "run_wall_s"),
    (f"CPU of rank 0 blocked {blocked} s in MPI_Recv (% of wall, lower is "
     "better)", "blocked_recv", 2, lambda r: True, "cpu_pct"),
]

def fmt(v):
    a = abs(v)
    return (f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else
            f"{v:.2f}" if a >= 1 else f"{v:.3f}")

def cell(mpi, bench, ranks, sel, key):
    """(median or None, text)"""
    runs = {}
    for r in rows:
        if r["mpi"] == mpi and r["bench"] == bench and r["ranks"] == ranks:
            runs.setdefault(r["rep"], []).append(r)
    if not runs:
        return None, "-"
    vals, bad = [], []
    for rep, rs in sorted(runs.items()):
        ok = [r for r in rs if r["status"] == "ok" and sel(r) and key in r]
        if ok:
            vals.append(ok[0][key])
        else:
            bad.append(rs[0])
    def why(r):
        if r["status"] == "timeout":
            return f">{r['timeout_s']:g} s, timed out"
        if r["status"] == "ok":
            return "not measured"
        return r["status"]
    if not vals:
        kinds = sorted({why(r) for r in bad})
        return None, "; ".join(kinds)
    med = statistics.median(vals)
    text = fmt(med)
    if bad:
        text += f" ({len(bad)}/{len(runs)} runs: " + "; ".join(
            sorted({why(r) for r in bad})) + ")"
    return med, text

mpis = [m for m in ("grove", "openmpi", "mpich") if m in versions]
head = ["measurement", "Grove", "Open MPI", "MPICH", "Grove/Open MPI",
        "Grove/MPICH"]
table = []
for label, bench, ranks, sel, key in spec:
    med = {}
    row = [label]
    for m in ("grove", "openmpi", "mpich"):
        if m in mpis:
            med[m], text = cell(m, bench, ranks, sel, key)
        else:
            med[m], text = None, "not run"
        row.append(text)
    for peer in ("openmpi", "mpich"):
        g, p = med["grove"], med[peer]
        row.append(f"{g / p:.3g}" if g is not None and p else "-")
    table.append(row)
print("| " + " | ".join(head) + " |")
print("|---|" + "---:|" * (len(head) - 1))
for row in table:
    print("| " + " | ".join(row) + " |")
PY
echo "bench-mpi: raw results in $out; figures: scripts/plot-mpi.sh $out" >&2
