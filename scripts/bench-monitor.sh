#!/usr/bin/env bash
# The cost of live monitoring on the EventSpace paper's micro-benchmarks
# (docs/monitoring.md, "Benchmarks").
#
#   scripts/bench-monitor.sh [--reps N] [--iters N] [--compute-iters N]
#                            [--ranks "2 8"] [--out FILE] [--build DIR]
#                            [--timeout S] [--wan LATENCY,BANDWIDTH]
#                            [--transport shm|tcp] [--ways "off collectors ..."]
#
# gsum and compute-gsum (bench/monitor/, built into BUILD/bench-monitor/)
# under grove run, at each number of ranks (default 2 and 8: one rank per
# core on the 2-core machine, and more ranks than cores), gsum for --iters
# iterations (default 20000, the paper's), compute-gsum for
# --compute-iters (default 5000: its grain is calibrated on the machine,
# and a loaded one makes it long), each in six ways:
#
#   off            GROVE_TRACE=0: the collectors record nothing
#   collectors     tracing on (the default), no monitor
#   lb, stats      grove monitor load-balance / stats --json attached, at
#                  their default settings (a view and a read every second)
#   lb-cosched,    the same with --cosched (SCHED_IDLE, reads while ranks
#   stats-cosched  are blocked, at most 0.1 s apart)
#
# --wan (for example 1ms,10MB/s) is the paper's two-cluster WAN setup:
# the ranks are split into two clusters (GROVE_MPI_CLUSTERS=2xHALF, so the
# allreduces run hierarchically) and every message between them goes
# through Grove MPI's WAN emulation (GROVE_MPI_WAN, docs/mpi.md
# "Clusters"); the JSON lines then carry "wan".
#
# --transport tcp runs the ranks over TCP (grove run --transport tcp), as
# the paper's ranks were, on separate hosts: each allreduce then takes
# tens of microseconds instead of a fraction of one, and waiting ranks
# sleep in poll() instead of spinning.  --ways runs a subset of the six
# ways (collectors, the baseline, is always run).
#
# A monitor attaches as soon as the job's event spaces exist (grove run
# --verbose names the job; the paper started its monitors before the
# application, which grove monitor cannot: it needs the job's id), and
# leaves by itself when the job is over.  compute-gsum's grain is
# calibrated once per number of ranks (a short compute_gsum run) and
# passed to every run with -c, so that all runs do the same work.
#
# Each repetition runs every combination once, the six ways in an order
# that rotates from one repetition to the next (interleaved).  Every run
# goes to FILE as a JSON line (default docs/results/monitor-bench.jsonl,
# rewritten) with the commit, the machine and its load average; the
# script then prints, per program and ranks, the median run time of each
# way, its ratio to collectors only, and for the monitors the tuples read
# per second of the monitor's life, the share of the tuples written while
# it was attached that it read, and the tuples lost while attached
# (medians).  A run that fails or hits --timeout (default 120 s) is
# recorded with its status and left out of the medians.
set -euo pipefail

usage() {
	sed -n '/^#   scripts/,/^#  *\[--out/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build reps=3 iters=20000 citers=5000 ranks_list="2 8"
out=docs/results/monitor-bench.jsonl
limit=120 wan="" transport=shm ways_arg=""
while (($#)); do
	case $1 in
	--reps) reps=${2:?--reps needs a number}; shift ;;
	--iters) iters=${2:?--iters needs a number}; shift ;;
	--compute-iters) citers=${2:?--compute-iters needs a number}; shift ;;
	--ranks) ranks_list=${2:?--ranks needs a list}; shift ;;
	--out) out=${2:?--out needs a file}; shift ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--timeout) limit=${2:?--timeout needs seconds}; shift ;;
	--wan) wan=${2:?--wan needs LATENCY,BANDWIDTH}; shift ;;
	--transport) transport=${2:?--transport needs shm or tcp}; shift ;;
	--ways) ways_arg=${2:?--ways needs a list}; shift ;;
	-h | --help) usage ;;
	*) echo "bench-monitor: unknown option $1" >&2; usage ;;
	esac
	shift
done
for v in "$reps" "$iters" "$citers" "$limit"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench-monitor: --reps, --iters, --compute-iters and --timeout want whole numbers >= 1" >&2; exit 2; }
done
case $transport in shm | tcp) ;; *) echo "bench-monitor: --transport wants shm or tcp" >&2; exit 2 ;; esac
grove="$build/grove"
bin="$build/bench-monitor"
for f in "$grove" "$bin/gsum" "$bin/compute_gsum"; do
	[ -x "$f" ] || { echo "bench-monitor: $f is not built (cmake --build $build)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD 2>/dev/null; then commit="$commit+dirty"; fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(. /etc/os-release && echo "$PRETTY_NAME")"
mkdir -p "$(dirname "$out")"
: >"$out"

now() { date +%s.%N; }

# wan_env RANKS: the environment of the two-cluster WAN setup (--wan), as
# NAME=VALUE words, or nothing.
wan_env() {
	[ -n "$wan" ] || return 0
	(($1 % 2 == 0)) || { echo "bench-monitor: --wan needs an even number of ranks, not $1" >&2; exit 2; }
	echo "GROVE_MPI_CLUSTERS=2x$(($1 / 2)) GROVE_MPI_WAN=$wan"
}

# run PROG RANKS WAY REP: one run, one JSON line.
run() {
	local prog=$1 n=$2 way=$3 rep=$4 args=() envs=() mon="" i
	args=(-n "$iters")
	[ "$prog" = compute_gsum ] && args=(-n "$citers" -c "${grain[$n]}")
	[ "$way" = off ] && envs=(GROVE_TRACE=0)
	# shellcheck disable=SC2207
	envs+=($(wan_env "$n"))
	case $way in
	lb) mon="load-balance" ;;
	stats) mon="stats" ;;
	lb-cosched) mon="load-balance --cosched" ;;
	stats-cosched) mon="stats --cosched" ;;
	esac
	local load t0 t1 mt0="" mt1="" st=0 ms=0 mp=""
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(now)
	env "${envs[@]}" timeout "$limit" "$grove" run --verbose -n "$n" \
		--transport "$transport" "$bin/$prog" "${args[@]}" \
		>"$tmp/job.out" 2>"$tmp/job.err" &
	local gp=$!
	pids+=("$gp")
	if [ -n "$mon" ]; then
		local id=""
		for i in $(seq 1 4000); do
			id=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
			[ -n "$id" ] && ls /dev/shm/grove."$id".mpi.* >/dev/null 2>&1 && break
			kill -0 "$gp" 2>/dev/null || break
			sleep 0.005
		done
		if [ -n "$id" ]; then
			mt0=$(now)
			# shellcheck disable=SC2086
			"$grove" monitor $mon --job "$id" --json >"$tmp/mon.out" 2>"$tmp/mon.err" &
			mp=$!
			pids+=("$mp")
		fi
	fi
	wait "$gp" || st=$?
	t1=$(now)
	if [ -n "$mp" ]; then
		timeout 60 tail --pid="$mp" -f /dev/null || kill -9 "$mp" 2>/dev/null || true
		wait "$mp" || ms=$?
		mt1=$(now)
	fi
	python3 - "$tmp" "$prog" "$n" "$way" "$rep" "$st" "$ms" "$load" \
	    "$t0" "$t1" "${mt0:-0}" "${mt1:-0}" "$commit" "$machine" \
	    "${grain[$n]}" "$mon" "$wan" "$transport" >>"$out" <<'PY'
import json, os, re, sys
(tmp, prog, n, way, rep, st, ms, load, t0, t1, mt0, mt1, commit, machine,
 grain, mon, wan, transport) = sys.argv[1:]
r = {"commit": commit, "machine": machine, "load": float(load),
     "prog": prog, "ranks": int(n), "way": way, "rep": int(rep),
     "transport": transport, "wall": round(float(t1) - float(t0), 4)}
if wan:
    r["wan"] = wan
out = open(os.path.join(tmp, "job.out")).read()
m = re.search(r"seconds=([0-9.]+) .*sums=(\w+)", out)
status = "ok"
if int(st) == 124:
    status = "timeout"
elif int(st) != 0 or not m or m.group(2) != "ok":
    status = "error"
if m:
    r["seconds"] = float(m.group(1))
if prog == "compute_gsum":
    r["compute_us"] = float(grain)
    f = re.search(r"in_allreduce=([0-9.]+)", out)
    if f:
        r["in_allreduce"] = float(f.group(1))
if mon:
    views = []
    try:
        views = [json.loads(l) for l in open(os.path.join(tmp, "mon.out")) if l.strip()]
    except ValueError:
        pass
    if int(ms) != 0 or not views:
        status = "monitor-error"
    if views:
        v = views[-1]
        life = float(mt1) - float(mt0)
        r.update({"views": len(views), "tuples": v["tuples"], "lost": v["lost"],
                  "lost_before_attach": v["lost_before_attach"],
                  "pulls": v.get("pulls"), "pull_period_s": v.get("pull_period_s"),
                  "monitor_seconds": round(life, 4),
                  "read_per_s": round(v["tuples"] / life) if life > 0 else None})
        if "cosched" in v:
            r["cosched"] = v["cosched"]
r["status"] = status
print(json.dumps(r))
PY
}

# compute-gsum's grain per number of ranks, calibrated once.
declare -A grain
for n in $ranks_list; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench-monitor: --ranks wants whole numbers" >&2; exit 2; }
	# shellcheck disable=SC2046
	g=$(env $(wan_env "$n") timeout "$limit" "$grove" run -n "$n" \
	    --transport "$transport" "$bin/compute_gsum" -n 2000 |
	    sed -n 's/.* compute_us=\([0-9.]*\) .*/\1/p')
	[ -n "$g" ] || { echo "bench-monitor: calibrating compute_gsum on $n ranks failed" >&2; exit 1; }
	grain[$n]=$g
	echo "bench-monitor: compute-gsum grain on $n ranks: $g us" >&2
done

ways=(off collectors lb lb-cosched stats stats-cosched)
if [ -n "$ways_arg" ]; then
	sel=(collectors)
	for w in $ways_arg; do
		[[ " ${ways[*]} " == *" $w "* ]] || { echo "bench-monitor: --ways: no way '$w' (${ways[*]})" >&2; exit 2; }
		[ "$w" = collectors ] || sel+=("$w")
	done
	ways=("${sel[@]}")
fi
for rep in $(seq 1 "$reps"); do
	for prog in gsum compute_gsum; do
		for n in $ranks_list; do
			for k in "${!ways[@]}"; do
				w=${ways[$(((k + rep - 1) % ${#ways[@]}))]}
				run "$prog" "$n" "$w" "$rep"
			done
		done
	done
	echo "bench-monitor: repetition $rep of $reps done" >&2
done

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if r["status"] == "ok" and "seconds" in r]
bad = [r for r in rows if r["status"] != "ok"]
first = rows[0] if rows else {}
print(f"commit {first.get('commit')}; {first.get('machine')}; "
      f"load average {min(r['load'] for r in rows):.2f}-{max(r['load'] for r in rows):.2f} "
      f"during the runs; {len(rows)} runs, {len(bad)} failed or timed out")
print()
print("| program | ranks | way | runs | median s | vs collectors | read/s | read share | lost (median, max) |")
print("|---|---|---|---|---|---|---|---|---|")
ways = ["off", "collectors", "lb", "lb-cosched", "stats", "stats-cosched"]
def med(xs):
    return statistics.median(xs) if xs else None
for prog in ("gsum", "compute_gsum"):
    for n in sorted({r["ranks"] for r in rows}):
        base = med([r["seconds"] for r in ok if r["prog"] == prog and
                    r["ranks"] == n and r["way"] == "collectors"])
        for w in ways:
            rs = [r for r in ok if r["prog"] == prog and r["ranks"] == n and r["way"] == w]
            if not rs:
                print(f"| {prog} | {n} | {w} | 0 | - | - | - | - | - |")
                continue
            m = med([r["seconds"] for r in rs])
            ratio = f"{m / base:.3f}" if base else "-"
            if "tuples" in rs[0]:
                rate = f"{med([r['read_per_s'] for r in rs if r.get('read_per_s') is not None]):.0f}"
                share = med([r["tuples"] / (r["tuples"] + r["lost"])
                             for r in rs if r["tuples"] + r["lost"] > 0])
                share = f"{share * 100:.1f}%" if share is not None else "-"
                lost = f"{med([r['lost'] for r in rs]):.0f}, {max(r['lost'] for r in rs)}"
            else:
                rate = share = lost = "-"
            print(f"| {prog} | {n} | {w} | {len(rs)} | {m:.3f} | {ratio} | {rate} | {share} | {lost} |")
for r in bad:
    print(f"failed: {r['prog']} {r['ranks']} ranks {r['way']} rep {r['rep']}: {r['status']}")
PY
