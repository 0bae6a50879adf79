#!/usr/bin/env bash
# grove bench recovery: usage errors, and a small run (kary:2 over 8
# back-ends, two CPs killed) whose JSON names each loss with its new
# parent, times and the event's text, and no process left behind; one
# with --seq (numbered waves, checked rank by rank).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench recovery --help
grep -q -- "--kills" "$tmp/out" || fail "help lacks --kills"
expect_status 2 bench recovery --kills 0
expect_status 2 bench recovery --kills 17
expect_status 2 bench recovery --waves 10
expect_status 2 bench recovery --bogus 1
grep -q "unknown option" "$tmp/err" || fail "no message for a bad option"

setsid "$grove" bench recovery --topology kary:2 --backends 8 --kills 2 \
	--waves 300 --json >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait "$pid" || { cat "$tmp/err" >&2; fail "bench recovery failed"; }
python3 - "$tmp/out" <<'PY' || fail "kary:2 run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["benchmark"] == "recovery" and d["backends"] == 8, d
assert d["before_wps"] > 0 and d["after_wps"] > 0, d
l = d["losses"]
# kary:2 over 8: node 2 (a CP of back-ends) goes to node 1, then node 1
# to the front-end.
assert [x["node"] for x in l] == [2, 1], l
assert [x["new_parent"] for x in l] == [1, 0], l
assert [x["backends_moved"] for x in l] == [2, 4], l
for x in l:
    assert 0 < x["reparented_ms"] and 0 < x["first_wave_ms"], x
    assert x["stall_ms"] <= x["first_wave_ms"], x
    assert x["text"].startswith(f"node {x['node']} ") and "now under" in x["text"], x
assert "cpus" in d and d["numbered"] is False, d
PY
# --seq: numbered waves on a concat stream, checked rank by rank.
"$grove" bench recovery --topology kary:2 --backends 8 --kills 1 \
	--waves 200 --seq --json >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "bench recovery --seq failed"; }
python3 - "$tmp/out" <<'PY' || fail "--seq run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["numbered"] is True and d["after_wps"] > 0, d
assert [x["node"] for x in d["losses"]] == [2], d
PY
for _ in $(seq 50); do
	pgrep -s "$pid" >/dev/null || break
	sleep 0.1
done
! pgrep -s "$pid" >/dev/null || {
	pkill -9 -s "$pid" || true
	fail "processes left after bench recovery"
}
echo "bench recovery OK"
