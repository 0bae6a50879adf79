#!/usr/bin/env bash
# The monitoring micro-benchmarks (bench/monitor/gsum.c, compute_gsum.c)
# with a coscheduled monitor attached: each program runs under grove run
# on 4 ranks (more ranks than the cores of the test machines), a `grove
# monitor ... --cosched --json` attaches while it runs and stays until it
# is over.  The programs' sums must be right, the monitor must leave by
# itself with status 0, its views must be sane (the two duplicated
# communicators' collectives complete with last arrivals, counts that
# never go back, the cosched counts with reads made while ranks were
# blocked, read through the ranks' sleeping flags), and nothing may be
# left: no process, event space or job directory.  Usage errors of the
# programs too.  Then tests/mpi/launch/monitor_prog, whose ranks wait for
# a token nearly all the time: the coscheduled monitor must, sooner or
# later, read while ranks are blocked (pulls_blocked), and still name the
# right last arrival.  No time is checked.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

gsum="$build/bench-monitor/gsum"
cgsum="$build/bench-monitor/compute_gsum"
[ -x "$gsum" ] || fail "$gsum is not built"
[ -x "$cgsum" ] || fail "$cgsum is not built"
mp=""
cleanup() {
	[ -z "$mp" ] || kill -9 "$mp" 2>/dev/null || true
	mpi_run_cleanup
}
trap cleanup EXIT

# ---- the programs alone ------------------------------------------------------
launch -n 2 "$gsum" -n 300
expect 0 gsum -n 300
grep -Eq '^gsum ranks=2 iters=300 seconds=[0-9.]+ us_per_iter=[0-9.]+ sums=ok$' \
	"$tmp/out" || fail "gsum's output: $(cat "$tmp/out")"
launch -n 2 "$cgsum" -n 300
expect 0 compute_gsum -n 300
grep -Eq '^compute-gsum ranks=2 iters=300 compute_us=[0-9.]+ .* in_allreduce=[0-9.]+ sums=ok$' \
	"$tmp/out" || fail "compute_gsum's output: $(cat "$tmp/out")"
launch -n 2 "$gsum" -n 0
expect 2 gsum -n 0
grep -q 'usage: gsum' "$tmp/err" || fail "gsum -n 0: $(cat "$tmp/err")"
launch -n 2 "$cgsum" -c -1
expect 2 compute_gsum -c -1
grep -q 'usage: compute_gsum' "$tmp/err" || fail "compute_gsum -c -1: $(cat "$tmp/err")"
check_clean

# ---- with a coscheduled monitor ----------------------------------------------
# watch MONITOR PROGRAM ARGS...: runs the program on 4 ranks, attaches the
# monitor as soon as the job runs, waits for both; the program's output in
# $tmp/job.out, the monitor's views in $tmp/mon.out.
watch() {
	local monitor=$1 i ms=0
	shift
	"$grove" run --verbose -n 4 "$@" >"$tmp/job.out" 2>"$tmp/job.err" &
	local gp=$!
	for i in $(seq 1 600); do
		grep -q '^grove run: job [0-9a-f]*: ' "$tmp/job.err" && break
		kill -0 "$gp" 2>/dev/null || break
		sleep 0.05
	done
	jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
	[ -n "$jobid" ] || { cat "$tmp/job.err" >&2; fail "no job id: $*"; }
	# The ranks' event spaces appear with MPI_Init.
	for i in $(seq 1 600); do
		ls /dev/shm/grove."$jobid".mpi.* >/dev/null 2>&1 && break
		kill -0 "$gp" 2>/dev/null || break
		sleep 0.05
	done
	"$grove" monitor "$monitor" --job "$jobid" --json --interval 0.2 \
		--cosched >"$tmp/mon.out" 2>"$tmp/mon.err" &
	mp=$!
	st=0
	wait "$gp" || st=$?
	[ "$st" -eq 0 ] || { cat "$tmp/job.out" "$tmp/job.err" >&2; fail "grove run $* exited $st"; }
	timeout 120 tail --pid="$mp" -f /dev/null || fail "the monitor stayed after the job"
	wait "$mp" || ms=$?
	mp=""
	[ "$ms" -eq 0 ] || fail "grove monitor $monitor exited $ms: $(cat "$tmp/mon.err")"
	[ ! -s "$tmp/mon.err" ] || fail "grove monitor $monitor said: $(cat "$tmp/mon.err")"
	check_clean "$jobid"
}

# The checks every view of a coscheduled monitor ($1) passes, and those
# of its last view ($2: communicators with last arrivals, default 2).
check_views() {
	python3 - "$tmp/mon.out" "$1" "${2:-2}" <<'PY'
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
kind, min_comms = sys.argv[2], int(sys.argv[3])
assert views, "no view"
prev = None
for v in views:
    assert v["monitor"] == kind, v
    for k in ("tuples", "selected", "lost", "lost_before_attach", "pulls"):
        assert isinstance(v[k], int) and v[k] >= 0, (k, v)
    assert v["selected"] <= v["tuples"], v
    c = v["cosched"]
    assert isinstance(c["sched_idle"], bool), c
    # The ranks of a grove run job: their sleeping flags are readable
    # (the first view comes before the first look at them).
    assert c["gate"] == ("sleeping-flags" if c["checks"] else "none yet"), c
    assert c["pulls_blocked"] + c["pulls_forced"] <= v["pulls"], (c, v)
    if prev:
        for k in ("tuples", "selected", "lost", "pulls"):
            assert v[k] >= prev[k], (k, prev, v)
        for k in ("checks", "pulls_blocked", "pulls_forced"):
            assert c[k] >= prev["cosched"][k], (k, prev, v)
    prev = v
last = views[-1]
assert last["tuples"] > 0, last
# How often it looked and read depends on what else runs (SCHED_IDLE):
# the monitor_prog part below checks the reads made while blocked.
if kind == "load-balance":
    comms = {e["scope"] for e in last["balance"] if e["scope"].startswith("comm:")}
    # gsum: two duplicates of MPI_COMM_WORLD (and the world's set-up).
    assert len(comms) >= min_comms, last["balance"]
    assert last["instances"]["complete"] > 0, last["instances"]
    for e in last["balance"]:
        assert 0 < e["last"] <= e["waves"], e
        assert e["child"].startswith("mpi ") or not e["scope"].startswith("comm:"), e
else:
    calls = {p["proc"] for p in last["paths"] if p["name"] == "MPI_Allreduce"}
    assert calls == {"mpi 0", "mpi 1", "mpi 2", "mpi 3"}, calls
    for p in last["paths"]:
        assert p["count"] > 0 and p["min_ns"] <= p["mean_ns"] <= p["max_ns"], p
PY
}

watch load-balance "$gsum" -n 60000
grep -Eq '^gsum ranks=4 iters=60000 .* sums=ok$' "$tmp/job.out" ||
	fail "gsum under the monitor: $(cat "$tmp/job.out")"
check_views load-balance || fail "gsum: the load-balance views"

watch stats "$cgsum" -n 20000 -c 20
grep -Eq '^compute-gsum ranks=4 iters=20000 compute_us=20.000 .* sums=ok$' \
	"$tmp/job.out" || fail "compute_gsum under the monitor: $(cat "$tmp/job.out")"
check_views stats || fail "compute_gsum: the stats views"

# ---- reads while the ranks are blocked ---------------------------------------
prog="$build/mpilaunch_monitor_prog"
[ -x "$prog" ] || fail "$prog is not built"
stop="$tmp/stop.$tag"
"$grove" run --verbose -n 4 "$prog" "$stop" >"$tmp/job.out" 2>"$tmp/job.err" &
gp=$!
for i in $(seq 1 600); do
	grep -q running "$tmp/job.out" && break
	kill -0 "$gp" 2>/dev/null || break
	sleep 0.1
done
grep -q running "$tmp/job.out" || { cat "$tmp/job.err" >&2; fail "monitor_prog did not start"; }
jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
"$grove" monitor load-balance --job "$jobid" --json --interval 0.2 \
	--cosched >"$tmp/mon.out" 2>"$tmp/mon.err" &
mp=$!
blocked=""
for i in $(seq 1 1200); do
	if grep -q '"pulls_blocked":[1-9]' "$tmp/mon.out"; then
		blocked=1
		break
	fi
	kill -0 "$mp" 2>/dev/null || break
	sleep 0.1
done
touch "$stop"
st=0
wait "$gp" || st=$?
[ "$st" -eq 0 ] || { cat "$tmp/job.out" "$tmp/job.err" >&2; fail "grove run exited $st"; }
timeout 120 tail --pid="$mp" -f /dev/null || fail "the monitor stayed after the job"
ms=0
wait "$mp" || ms=$?
mp=""
[ "$ms" -eq 0 ] || fail "the monitor exited $ms: $(cat "$tmp/mon.err")"
[ -n "$blocked" ] || fail "no read while ranks were blocked: $(tail -1 "$tmp/mon.out")"
check_views load-balance 1 || fail "monitor_prog: the load-balance views"
python3 - "$tmp/mon.out" <<'PY'
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
assert any(v["cosched"]["pulls_blocked"] > 0 for v in views)
last = [e for e in views[-1]["balance"] if e["scope"].startswith("comm:")]
# Rank 3 starts every MPI_Iallreduce last (a token orders the starts).
assert [e["child"] for e in last] == ["mpi 3"], last
PY
check_clean "$jobid"
