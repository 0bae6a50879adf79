#!/usr/bin/env bash
# Benchmarks of BCS mode (docs/bcs.md, "Benchmarks"), interleaved in one
# sitting on this machine:
#
#   scripts/bench-bcs.sh [--quick] [--reps N] [--slice DURATION]
#                        [--ranks N] [--out FILE] [--build DIR]
#                        [--timeout SECONDS]
#
#   (i)   validation (bcs-mpi.txt 5.3, Figures 5.3-5.5): bench/mpi/
#         bcs_validate at 8 ranks (--ranks) under --bcs with the per-slice metrics
#         (EMDS) recorded for 10000 slices; from them the mean GETTS, the
#         share of slices whose length is within 10% of the slice, and
#         whether NCOLLMSM and NP2PDEM follow the program (a barrier every
#         nine slices, point-to-point descriptors in the others)
#   (ii)  blocking against non-blocking (6.3): bench/mpi/stencil at 8
#         ranks in both modes, direct and BCS, for grains of 1, 10 and 20
#         slices: BCS/direct per mode, and the measured cost of a blocking
#         call in slices against the predicted 1.5
#   (iii) MDS overhead (6.4, Table 6.1): the non-blocking stencil (grain
#         10 slices) and bench/mpi/allreduce_heavy under --bcs with no
#         monitoring, with --stats (MMDS) and with --emds (EMDS)
#   (iv)  the ping-pong (1 B, 1 MiB, 2 ranks), allreduce and barrier
#         (8 ranks) of scripts/bench-mpi.sh, direct and under --bcs
#
# Each repetition runs every measurement once; within a repetition, the
# variants of a measurement run back to back and the one that goes first
# rotates from one repetition to the next, so a slow minute on a shared
# machine hits all of them.  Tables give medians over the repetitions.
#
# --slice: the BCS time slice (default 1ms); grains and the prediction
# are in slices of it.  --ranks: the ranks of every part but the
# ping-pong (default 8, the paper's validation; on a machine with fewer
# cores than ranks a step's computation is spread over their turns, and
# a blocking call's cost includes waiting for neighbours that are not
# running).  --reps: default 3.  --timeout: limit per run in
# seconds (default 120; a run that hits it is reported as timed out,
# never as a number).  --quick: one repetition, shorter runs (EMDS over
# 2000 slices), a smoke run of this script, not for figures.
#
# Needs the build of the README (BUILD/grove, BUILD/mpicc and the
# programs of bench/mpi/bcs.cmake in BUILD/bench-mpi/).  Every run's
# figures are appended to FILE as JSON lines (default docs/results/
# bcs-bench.jsonl; BUILD/bcs-bench/quick.jsonl with --quick), each with
# the sitting, the commit, the machine, the launch mode and the run's
# status.  The validation's EMDS files stay in BUILD/bcs-bench/
# (validate.global.csv, validate.local.csv) for scripts/plot-bcs.sh.
set -euo pipefail

usage() {
	sed -n '/^#   scripts/,/^#  *\[--timeout/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build quick=0 reps='' out='' limit=120 slice=1ms ranks=8
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=${2:?--reps needs a number}; shift ;;
	--slice) slice=${2:?--slice needs a duration}; shift ;;
	--ranks) ranks=${2:?--ranks needs a number}; shift ;;
	--out) out=${2:?--out needs a file}; shift ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--timeout) limit=${2:?--timeout needs seconds}; shift ;;
	-h | --help) usage ;;
	*) echo "bench-bcs: unknown option $1" >&2; usage ;;
	esac
	shift
done
[[ $limit =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-bcs: --timeout SECONDS, a whole number >= 1" >&2; exit 2; }
[[ $ranks =~ ^[1-9][0-9]*$ && $ranks -ge 2 ]] ||
	{ echo "bench-bcs: --ranks N, N >= 2" >&2; exit 2; }
case $slice in
*us) slice_us=${slice%us} ;;
*ms) slice_us=$(awk -v v="${slice%ms}" 'BEGIN { print v * 1000 }') ;;
*) echo "bench-bcs: --slice like 1ms or 500us" >&2; exit 2 ;;
esac
[[ $slice_us =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	{ echo "bench-bcs: --slice like 1ms or 500us" >&2; exit 2; }
case $build in
/*) babs=$build ;;
*) babs=$root/$build ;;
esac
scratch=$babs/bcs-bench

# What each part runs.  The EMDS window of the validation skips the
# start-up (wire-up and the first barrier take a few slices).
if ((quick)); then
	reps=${reps:-1}
	out=${out:-$scratch/quick.jsonl}
	emds_from=500 emds_to=2499
	stencil_slices=40 mds_steps=10 heavy_iters=2000
	pingpong_t=0.05
	coll_args=(-t 0.3)
else
	reps=${reps:-3}
	out=${out:-docs/results/bcs-bench.jsonl}
	emds_from=1000 emds_to=10999
	stencil_slices=400 mds_steps=40 heavy_iters=20000
	pingpong_t=0.2
	coll_args=(-t 1)
fi
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-bcs: --reps N, N >= 1" >&2; exit 2; }
# The validation program makes about 2 slices per iteration (two
# messages, one slice each, and a barrier every fourth): enough
# iterations to pass the end of the window, whatever it costs.
validate_iters=$(((emds_to + 500) / 2))
# The whole run of an MDS measurement fits in one EMDS window.
mds_window=0:99999

grove=$babs/grove
progs=$babs/bench-mpi
for f in "$grove" "$babs/mpicc" "$progs/bcs_validate" "$progs/stencil" \
    "$progs/allreduce_heavy"; do
	[[ -x $f ]] || {
		echo "bench-bcs: $f is missing: build first (README, 'Build by" \
		    "hand'), or give --build DIR" >&2
		exit 1
	}
done
# BCS mode and its per-slice metrics may be missing from an older build:
# then the parts that need them say so instead of failing.
help=$("$grove" run --help 2>&1 || true)
has_bcs=0 has_emds=0
[[ $help == *--bcs* ]] && has_bcs=1
[[ $help == *--emds* ]] && has_emds=1
((has_bcs)) || echo "bench-bcs: this grove run has no --bcs: only the" \
    "direct runs are measured" >&2
((!has_bcs || has_emds)) || echo "bench-bcs: this grove run has no" \
    "--emds: no validation figures, no EMDS column" >&2

mkdir -p "$scratch/osu" "$(dirname "$out")"
tmp=$(mktemp -d)
# Every launch carries this variable, which the launcher hands on to the
# node manager and the ranks: what a run leaves behind is found by it.
tag="$$-$(date +%s%N)"
child=
leftovers() {
	grep -lzx "GROVE_BENCH_BCS_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null |
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
		echo "bench-bcs: killing leftover processes ${pids[*]}" >&2
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
trap 'echo "bench-bcs: interrupted" >&2; exit 130' INT TERM HUP

# The programs of scripts/bench-mpi.sh, built the way it builds them.
for p in pingpong allreduce barrier; do
	"$babs/mpicc" -O2 -std=c11 -Wall -Wextra -Werror "bench/mpi/$p.c" \
	    -o "$scratch/osu/$p" 2>"$tmp/cc.err" || {
		echo "bench-bcs: $babs/mpicc failed on bench/mpi/$p.c:" >&2
		sed 's/^/  /' "$tmp/cc.err" | head -20 >&2
		exit 1
	}
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
sitting="$(date -u +%Y%m%dT%H%M%SZ)-$$"
python3 - "$commit" "$(nproc)" "${cpu:-unknown}" "$(uname -r)" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$sitting" "$slice_us" "$quick" \
    >"$tmp/meta.json" <<'PY'
import json, sys
c, n, cpu, kernel, date, sitting, slice_us, quick = sys.argv[1:]
print(json.dumps({"sitting": sitting, "commit": c, "date": date,
                  "quick": quick == "1", "slice_us": float(slice_us),
                  "machine": {"nproc": int(n), "cpu": cpu,
                              "kernel": kernel}}))
PY

# One run's JSON line: the run's description and status, the figures of
# the program's "name key=value ..." line, and, for a run with EMDS, what
# the per-slice files say (the validation's analysis).
cat >"$tmp/emit.py" <<'PY'
import csv, json, re, statistics, sys
(meta, desc, status, rc, wall, limit, load, outf, emds, slice_us,
 every) = sys.argv[1:]
r = json.load(open(meta))
r.update(json.loads(desc))
r.update(status=status, exit_code=int(rc), run_wall_s=round(float(wall), 4),
         timeout_s=float(limit), load1_before=float(load))
found = False
for line in open(outf, errors="replace"):
    f = line.split()
    if status != "ok" or not f or f[0] != r["bench"]:
        continue
    for kv in f[1:]:
        k, _, v = kv.partition("=")
        for conv in (int, float, str):
            try:
                r[k] = conv(v)
                break
            except ValueError:
                pass
    found = True
    break  # pingpong prints a line per size: the runs keep them apart
if status == "ok" and not found:
    r["status"] = "no-output"

def name(col):  # GETTS and getts_ns are both getts (ns either way)
    return re.sub(r"_ns$", "", col.strip().lower())

def table(path):
    with open(path, newline="") as f:
        return [{name(k): float(v) for k, v in row.items() if k and v}
                for row in csv.DictReader(f)]

if emds and r["status"] == "ok":
    s_us = float(slice_us)
    try:
        g = table(emds + ".global.csv")
        loc = table(emds + ".local.csv")
    except (OSError, ValueError) as e:
        r["emds_error"] = str(e)
        g = loc = []
    if g:
        us = [x["getts"] / 1e3 for x in g if "getts" in x]
        r["emds_slices"] = len(g)
        if us:
            r["getts_mean_us"] = round(statistics.fmean(us), 3)
            r["getts_within10"] = round(
                sum(1 for v in us if abs(v - s_us) <= 0.1 * s_us) / len(us), 4)
    if loc and every:
        node = min(x["node"] for x in loc)
        mine = sorted((x for x in loc if x["node"] == node),
                      key=lambda x: x["slice"])
        coll = [x["slice"] for x in mine if x.get("ncollmsm", 0) > 0]
        gaps = [b - a for a, b in zip(coll, coll[1:])]
        r["emds_node"] = int(node)
        r["barrier_slices"] = len(coll)
        if gaps:
            mode = statistics.mode(gaps)
            r["barrier_gap_mode"] = mode
            r["barrier_gap_mean"] = round(statistics.fmean(gaps), 3)
            r["barrier_gap_9_share"] = round(
                sum(1 for v in gaps if v == 9) / len(gaps), 4)
        # Between two barriers the pairs exchange messages: point-to-
        # point descriptors in every slice but the barrier's.
        inside = [x for x in mine if coll and coll[0] < x["slice"] < coll[-1]
                  and x.get("ncollmsm", 0) == 0]
        at = [x for x in mine if x.get("ncollmsm", 0) > 0]
        if inside:
            r["np2pdem_between_median"] = statistics.median(
                x.get("np2pdem", 0) for x in inside)
            r["np2pdem_between_nonzero"] = round(
                sum(1 for x in inside if x.get("np2pdem", 0) > 0) /
                len(inside), 4)
        if at:
            r["np2pdem_at_barrier_median"] = statistics.median(
                x.get("np2pdem", 0) for x in at)
print(json.dumps(r))
PY

# A run's description as a JSON object, from KEY=VALUE words (values that
# are numbers stay numbers; none has quotes or backslashes).
desc() {
	local kv sep='' j='{'
	for kv in "$@"; do
		if [[ ${kv#*=} =~ ^[0-9]+$ ]]; then
			j+="$sep\"${kv%%=*}\":${kv#*=}"
		else
			j+="$sep\"${kv%%=*}\":\"${kv#*=}\""
		fi
		sep=,
	done
	echo "$j}"
}

# run DESC RANKS LAUNCH_OPTS PROGRAM ARGS...
#   DESC: the run's description (desc's JSON: part, bench, launch ...);
#   LAUNCH_OPTS: grove run's options, one word (split on spaces).
# Environment: EMDS_PREFIX (the run's --emds-out prefix, to analyse),
# EVERY (the validation's barrier period, to analyse its pattern).
run() {
	local desc=$1 n=$2 opts=$3 prog=$4 rc=0 status t0 t1 load
	shift 4
	read -r load _ </proc/loadavg
	local -a o=()
	[[ -z $opts ]] || read -r -a o <<<"$opts"
	t0=$(date +%s%N)
	env GROVE_BENCH_BCS_TAG="$tag" timeout -k 5 "$limit" \
	    "$grove" run -n "$n" "${o[@]}" "$prog" "$@" \
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
		echo "bench-bcs: $(basename "$prog") -n $n $opts: $status" \
		    "(exit $rc)" >&2
		tail -5 "$tmp/err" | sed 's/^/  /' >&2
	fi
	python3 "$tmp/emit.py" "$tmp/meta.json" "$desc" "$status" "$rc" \
	    "$(((t1 - t0) / 1000))e-6" "$limit" "$load" "$tmp/out" \
	    "${EMDS_PREFIX:-}" "$slice_us" "${EVERY:-}" >>"$out"
}

# The launch options of a mode: direct, bcs.
launch_opts() {
	case $1 in
	direct) echo "" ;;
	bcs) echo "--bcs --slice $slice" ;;
	esac
}
modes=(direct)
((has_bcs)) && modes+=(bcs)
# Rotates the words after $1 by $1 places.
rotate() {
	local k=$1
	shift
	local -a a=("$@")
	k=$((k % ${#a[@]}))
	echo "${a[@]:k}" "${a[@]:0:k}"
}

part_validate() { # $1 rep
	((has_bcs)) || return 0
	local opts every=4 prefix='' mds=off
	opts="$(launch_opts bcs)"
	if ((has_emds)); then
		prefix=$scratch/validate.rep$1 mds=emds
		opts+=" --emds $emds_from:$emds_to --emds-out $prefix"
	fi
	EMDS_PREFIX=$prefix EVERY=$every run \
	    "$(desc part=validate bench=bcs_validate launch=bcs mds=$mds rep=$1 ranks=$ranks)" \
	    "$ranks" "$opts" "$progs/bcs_validate" --iters "$validate_iters" \
	    --every "$every"
	# The first repetition's files are the ones to plot.
	if [[ $1 == 1 && -n $prefix && -e $prefix.global.csv ]]; then
		cp "$prefix.global.csv" "$scratch/validate.global.csv"
		cp "$prefix.local.csv" "$scratch/validate.local.csv"
	fi
}

part_stencil() { # $1 rep
	local g mode m steps
	for g in 1 10 20; do
		steps=$((stencil_slices / g))
		((steps >= 5)) || steps=5
		for mode in blocking nonblocking; do
			for m in $(rotate "$1" "${modes[@]}"); do
				run "$(desc part=stencil bench=stencil launch=$m mds=off rep=$1 ranks=$ranks grain_slices=$g mode=$mode)" \
				    "$ranks" "$(launch_opts $m)" "$progs/stencil" --mode "$mode" \
				    --grain-us "$(awk -v g="$g" -v s="$slice_us" 'BEGIN { print g * s }')" \
				    --steps "$steps" --allreduce-every 1
			done
		done
	done
}

part_mds() { # $1 rep
	((has_bcs)) || return 0
	local kinds=(off mmds) k opts
	((has_emds)) && kinds+=(emds)
	for k in $(rotate "$1" "${kinds[@]}"); do
		opts="$(launch_opts bcs)"
		case $k in
		mmds) opts+=" --stats" ;;
		emds) opts+=" --emds $mds_window --emds-out $tmp/mds" ;;
		esac
		run "$(desc part=mds bench=stencil launch=bcs mds=$k rep=$1 ranks=$ranks grain_slices=10 mode=nonblocking)" \
		    "$ranks" "$opts" "$progs/stencil" --mode nonblocking \
		    --grain-us "$(awk -v s="$slice_us" 'BEGIN { print 10 * s }')" \
		    --steps "$mds_steps" --allreduce-every 1
		run "$(desc part=mds bench=allreduce_heavy launch=bcs mds=$k rep=$1 ranks=$ranks)" \
		    "$ranks" "$opts" "$progs/allreduce_heavy" --iters "$heavy_iters"
	done
}

part_osu() { # $1 rep
	local m
	for m in $(rotate "$1" "${modes[@]}"); do
		# One run per size, so that each JSON line holds one.
		run "$(desc part=osu bench=pingpong launch=$m rep=$1 ranks=2 bytes=1)" \
		    2 "$(launch_opts $m)" "$scratch/osu/pingpong" -m 1 -M 1 \
		    -t "$pingpong_t"
		run "$(desc part=osu bench=pingpong launch=$m rep=$1 ranks=2 bytes=1048576)" \
		    2 "$(launch_opts $m)" "$scratch/osu/pingpong" -m 1048576 \
		    -M 1048576 -t "$pingpong_t"
		run "$(desc part=osu bench=allreduce launch=$m rep=$1 ranks=$ranks)" \
		    "$ranks" "$(launch_opts $m)" "$scratch/osu/allreduce" "${coll_args[@]}"
		run "$(desc part=osu bench=barrier launch=$m rep=$1 ranks=$ranks)" \
		    "$ranks" "$(launch_opts $m)" "$scratch/osu/barrier" "${coll_args[@]}"
	done
}

echo "bench-bcs: slice $slice, $reps repetition(s), limit $limit s per run," \
    "results appended to $out (sitting $sitting)" >&2
start=$(date +%s)
for ((rep = 1; rep <= reps; rep++)); do
	echo "bench-bcs: repetition $rep/$reps ($(($(date +%s) - start)) s)" >&2
	part_validate "$rep"
	part_stencil "$rep"
	part_mds "$rep"
	part_osu "$rep"
done
echo "bench-bcs: done in $(($(date +%s) - start)) s" >&2

python3 scripts/bench-bcs-table.py "$out" "$sitting"
echo "bench-bcs: raw results in $out; figures of the validation:" \
    "scripts/plot-bcs.sh --slice-us $slice_us $scratch/validate" >&2
