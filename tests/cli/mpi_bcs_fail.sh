#!/usr/bin/env bash
# What ends a BCS job early, and what the user is told:
#  - a deadlocked program: the node manager sees every rank waiting with
#    nothing it can complete and ends the job, naming what each waits for;
#  - the node manager killed: the job ends, naming it;
#  - a rank killed: the job ends as in direct mode, naming the rank;
#  - a usage error: the BCS options need --bcs.
# No process of a job is left behind.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
# The jobs' directories go under $tmp, which names their node managers
# (their --connect file is there): this test finds its own among others'.
export TMPDIR=$tmp
run() { timeout 60 "$build/grove" run "$@"; }
tag="bcsfail$$"

status=0
GROVE_BCS_STALL_MS=300 run --bcs -n 3 "$build/mpilaunch_deadlock" >"$tmp/d.out" 2>"$tmp/d.err" || status=$?
[ "$status" -ne 0 ] || fail "a deadlocked program succeeded"
grep -q "the job is stuck" "$tmp/d.err" || { cat "$tmp/d.err"; fail "no stuck-job report"; }
for r in 0 1 2; do
	grep -q "rank $r waits for a receive from $(( (r + 1) % 3 )) tag 4" "$tmp/d.err" ||
		{ cat "$tmp/d.err"; fail "the report does not say what rank $r waits for"; }
done
grep -Eq "the node manager \(grove-bcs-node, pid [0-9]+\) (ended \(status 1\)|is out of step)" "$tmp/d.err" ||
	{ cat "$tmp/d.err"; fail "the launcher does not name the node manager"; }

# The node manager killed while the ranks compute (they sleep 30 s).
status=0
run --bcs -n 2 "$build/mpilaunch_probe" "$tag" sleep 0 30 >"$tmp/k.out" 2>"$tmp/k.err" &
pid=$!
nm=
for _ in $(seq 100); do
	nm=$(pgrep -f "grove-bcs-node .*$tmp" || true)
	[ -n "$nm" ] && break
	sleep 0.05
done
[ -n "$nm" ] || fail "no node manager under grove run"
sleep 0.3
kill -9 "$nm"
wait "$pid" || status=$?
[ "$status" -ne 0 ] || fail "the job succeeded without its node manager"
grep -Eq "the node manager \(grove-bcs-node, pid [0-9]+\) (was killed by signal 9|is out of step)" "$tmp/k.err" ||
	{ cat "$tmp/k.err"; fail "the loss of the node manager is not said"; }

# A rank killed: named, as in direct mode.
status=0
run --bcs -n 3 "$build/mpilaunch_probe" "$tag" segv 1 >"$tmp/s.out" 2>"$tmp/s.err" || status=$?
[ "$status" -ne 0 ] || fail "a crashing rank did not fail the job"
grep -q "rank 1" "$tmp/s.err" || { cat "$tmp/s.err"; fail "the crashed rank is not named"; }

status=0
timeout 10 "$build/grove" run --record x -n 2 true 2>"$tmp/u.err" || status=$?
[ "$status" = 2 ] && grep -q -- "--record needs --bcs" "$tmp/u.err" ||
	{ cat "$tmp/u.err"; fail "--record without --bcs is not a usage error"; }

sleep 0.2
if pgrep -f "$tag|mpilaunch_deadlock|grove-bcs-node .*$tmp" >/dev/null; then
	pgrep -af "$tag|mpilaunch_deadlock|grove-bcs-node .*$tmp" >&2
	fail "processes left behind"
fi
echo "bcs failures: stuck job reported, node manager and rank losses named, nothing left"
