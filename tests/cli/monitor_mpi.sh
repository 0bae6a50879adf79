#!/usr/bin/env bash
# grove monitor on a running grove run job: tests/mpi/launch/monitor_prog
# on 4 ranks, which loops on an MPI_Iallreduce that rank 3 always starts
# last (a token passed from rank to rank orders the calls' starts) until
# a stop file appears.  `grove monitor load-balance --json --count 3`
# attaches, must name rank 3 last in every complete instance with counts
# that grow from view to view, and leaves; `grove monitor stats` attaches
# after it and must show every rank's MPI_Iallreduce path, its count
# growing.  Then the job is told to stop and must end normally with its
# output, a monitor attached without --count must leave by itself once
# the job is over, and nothing may be left: no process, event space or
# job directory.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

prog="$build/mpilaunch_monitor_prog"
[ -x "$prog" ] || fail "$prog is not built"
stop="$tmp/stop.$tag"

# ---- usage errors ------------------------------------------------------------
expect_status 2 monitor
expect_status 2 monitor load-balance
expect_status 2 monitor no-such-monitor --job abc
expect_status 2 monitor stats --job abc --interval 0
expect_status 2 monitor stats --job abc --op no-such-op
expect_status 1 monitor stats --job "no-such-job-$$" --count 1
grep -q "no event spaces" "$tmp/err" || fail "a job without spaces: $(cat "$tmp/err")"
expect_status 2 monitor stats --net abc --local --raw
expect_status 2 monitor stats --job abc --raw
expect_status 2 monitor stats --net abc --readers some
expect_status 1 monitor load-balance --net "no-such-net-$$" --count 1
grep -q "no running front-end to attach to" "$tmp/err" ||
	fail "a network without a front-end: $(cat "$tmp/err")"

# ---- the job -------------------------------------------------------------------
"$grove" run --verbose -n 4 "$prog" "$stop" >"$tmp/job.out" 2>"$tmp/job.err" &
gp=$!
for i in $(seq 1 600); do
	grep -q running "$tmp/job.out" && break
	kill -0 "$gp" 2>/dev/null || break
	sleep 0.1
done
grep -q running "$tmp/job.out" || { cat "$tmp/job.err" >&2; fail "the job did not start"; }
jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
[ -n "$jobid" ] || fail "no job id in grove run --verbose: $(cat "$tmp/job.err")"

expect_status 0 monitor load-balance --job "$jobid" --json --count 3 --pull 0.05
python3 - "$tmp/out" <<'PY'
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
assert len(views) == 3, views
assert [v["interval"] for v in views] == [1, 2, 3]
waves = []
for v in views:
    assert v["monitor"] == "load-balance" and v["procs"] >= 4, v
    for k in ("tuples", "selected", "lost", "lost_before_attach"):
        assert isinstance(v[k], int) and v[k] >= 0, (k, v)
    world = [e for e in v["balance"] if e["scope"].startswith("comm:")]
    assert world, v
    # Rank 3 starts every instance last: it is the only one ever last.
    assert [e["child"] for e in world] == ["mpi 3"], world
    assert world[0]["most"] and world[0]["last"] == world[0]["waves"], world
    assert v["instances"]["complete"] == world[0]["waves"], v
    waves.append(world[0]["waves"])
    assert v["tuples"] >= v["selected"]
assert 0 < waves[0] < waves[1] < waves[2], waves
assert views[0]["tuples"] < views[1]["tuples"] < views[2]["tuples"]
PY
[ ! -s "$tmp/err" ] || fail "grove monitor load-balance said: $(cat "$tmp/err")"
kill -0 "$gp" || fail "the job ended when the monitor left"

expect_status 0 monitor stats --job "$jobid" --json --count 2 --op mpi_call \
	--pull 0.05
python3 - "$tmp/out" <<'PY'
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
assert len(views) == 2, views
counts = []
for v in views:
    assert v["monitor"] == "stats", v
    calls = {p["proc"]: p for p in v["paths"] if p["name"] == "MPI_Iallreduce"}
    assert sorted(calls) == ["mpi 0", "mpi 1", "mpi 2", "mpi 3"], calls
    for p in calls.values():
        assert p["count"] > 0 and p["min_ns"] <= p["mean_ns"] <= p["max_ns"], p
        assert p["hotspot"] in (-1, 0, 1)
    # --op mpi_call: only the calls' spans are analysed.
    assert all(p["op"] == "mpi_call" for p in v["paths"]), v["paths"]
    counts.append(sum(p["count"] for p in calls.values()))
assert 0 < counts[0] < counts[1], counts
PY
# The text view, once.
expect_status 0 monitor stats --job "$jobid" --count 1 --rows 5
grep -q '^grove monitor stats: ' "$tmp/out" || fail "text view: $(cat "$tmp/out")"
grep -q 'MPI_' "$tmp/out" || fail "text view shows no MPI path: $(cat "$tmp/out")"
kill -0 "$gp" || fail "the job ended when the monitor left"

# ---- the job ends normally -----------------------------------------------------
# A monitor without --count stays until the job is over, then leaves.
"$grove" monitor load-balance --job "$jobid" --json --interval 0.2 \
	--pull 0.05 >"$tmp/mon.out" 2>"$tmp/mon.err" &
mp=$!
for i in $(seq 1 600); do
	[ -s "$tmp/mon.out" ] && break
	sleep 0.1
done
[ -s "$tmp/mon.out" ] || fail "the monitor showed nothing: $(cat "$tmp/mon.err")"
touch "$stop"
st=0
wait "$gp" || st=$?
[ "$st" -eq 0 ] || { cat "$tmp/job.out" "$tmp/job.err" >&2; fail "grove run exited $st"; }
grep -Eq '^monitor_prog: stopped after [0-9]+ iterations$' "$tmp/job.out" ||
	fail "the job's output: $(cat "$tmp/job.out")"
ms=0
timeout 120 tail --pid="$mp" -f /dev/null || fail "the monitor stayed after the job"
wait "$mp" || ms=$?
[ "$ms" -eq 0 ] || fail "the monitor exited $ms at the job's end: $(cat "$tmp/mon.err")"
python3 - "$tmp/mon.out" <<'PY'
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
last = [e for e in views[-1]["balance"] if e["scope"].startswith("comm:")]
assert [e["child"] for e in last] == ["mpi 3"], last
PY
check_clean "$jobid"
