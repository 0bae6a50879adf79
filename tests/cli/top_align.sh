#!/usr/bin/env bash
# grove top and time alignment: --once waits for an interval every agent
# is in; one agent whose clock runs a second ahead does not hide the
# others; an agent killed mid-run leaves no fake minimum behind.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
export GROVE_AGENT="$build/grove-agent"

# JSON lines of $1: every interval's contributors, backends, mem min/max.
check_json() {
	python3 - "$@" <<'PYEOF'
import json, sys
path, what = sys.argv[1], sys.argv[2]
ds = [json.loads(l) for l in open(path) if l.strip()]
assert ds, "no interval"
if what == "once":
    n = int(sys.argv[3])
    assert len(ds) == 1, len(ds)
    d = ds[0]
    assert d["backends"] == n and d["contributors"] == n, d
    assert d["missing"] == 0, d
elif what == "nofakemin":
    # All agents read the same host, so the memory in use is close on
    # all of them; a rank that covered a sliver of an interval (its last
    # sample, or its first: grove top does not show the interval the
    # agents started in) would show as a minimum far below the maximum.
    for d in ds:
        m = d["metrics"]["mem"]
        assert m["min"] > 0.5 * m["max"], (d["interval_start_ns"], m)
PYEOF
}

# --- --once on a flat tree of 8: one interval with all 8 agents
timeout 120 "$grove" top --once --json --interval 200 --backends 8 \
	--topology flat >"$tmp/once.json" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "top --once flat 8"; }
check_json "$tmp/once.json" once 8 || fail "top --once flat 8: not complete"

# --- rank 3's clock one second (5 intervals, more than the lag of 3)
# ahead: the others are still shown with it
GROVE_CLOCK_INJECT_NS=3:1000000000 timeout 120 "$grove" top --once --json \
	--interval 200 --backends 4 --topology flat >"$tmp/fast.json" \
	2>"$tmp/err" || { cat "$tmp/err" >&2; fail "top with a fast clock"; }
check_json "$tmp/fast.json" once 4 ||
	fail "top with one clock ahead: the others were dropped"

# --- kill one agent while it runs: no fake minimum from its last sample
timeout -s INT 60 "$grove" top --json --interval 200 --backends 4 \
	--topology flat --seconds 4 >"$tmp/die.json" 2>"$tmp/err" &
top_pid=$!
trap 'kill -INT $top_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 300); do
	[ "$(grep -c . "$tmp/die.json" 2>/dev/null || true)" -ge 3 ] && break
	sleep 0.1
done
# An agent that descends from this grove top (not from another run).
victim=
for p in $(pgrep -x grove-agent || true); do
	anc=$p
	while [ -n "$anc" ] && [ "$anc" -gt 1 ]; do
		[ "$anc" = "$top_pid" ] && { victim=$p; break 2; }
		anc=$(ps -o ppid= -p "$anc" | tr -d ' ')
	done
done
[ -n "$victim" ] || { kill -INT $top_pid; fail "no agent under grove top"; }
kill -9 "$victim"
status=0
wait "$top_pid" || status=$?
trap 'rm -rf "$tmp"' EXIT
((status == 0)) || { cat "$tmp/err" >&2; fail "top with a dead agent: exit $status"; }
check_json "$tmp/die.json" nofakemin || fail "a dead agent left a fake minimum"
echo "top_align: ok"
