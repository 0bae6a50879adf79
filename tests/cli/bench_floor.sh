#!/usr/bin/env bash
# grove bench floor: usage errors, a small run whose numbers are
# consistent, and no process of the bare tree left behind, neither after
# a normal exit nor after the benchmark is killed.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench floor --help
grep -q -- "--rt-iters" "$tmp/out" || fail "help lacks --rt-iters"
grep -q -- "--cpu-bind" "$tmp/out" || fail "help lacks --cpu-bind"
expect_status 2 bench floor --cpu-bind core
grep -q "core" "$tmp/err" || fail "no message for a bad --cpu-bind"
expect_status 2 bench floor --backends 0
expect_status 2 bench floor --bogus 1
grep -q "unknown option" "$tmp/err" || fail "no message for a bad option"
expect_status 1 bench floor --topology nonsense:3
grep -q "nonsense" "$tmp/err" || fail "no message for a bad topology"

expect_status 0 bench floor --topology kary:3 --backends 9 --rt-iters 50 \
	--json
python3 - "$tmp/out" <<'PY' || fail "kary run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["processes"] == 12 and d["cps"] == 3 and d["depth"] == 2, d
assert 0 < d["roundtrip_min_s"] <= d["roundtrip_median_s"] \
    <= d["roundtrip_max_s"], d
assert d["roundtrip_min_s"] <= d["roundtrip_s"] <= d["roundtrip_max_s"], d
assert d["fork_tree_s"] > 0 and d["spawn_s"] > 0 and d["rt_iters"] == 50, d
assert d["cpu_bind"] == "none", d
PY
expect_status 0 bench floor --topology kary:2 --backends 4 --rt-iters 20 \
	--cpu-bind subtree --json
grep -q '"cpu_bind": "subtree"' "$tmp/out" || fail "bound run: $(cat "$tmp/out")"
expect_status 0 bench floor --topology flat --backends 3 --rt-iters 20
grep -q "round trip" "$tmp/out" || fail "no round trip: $(cat "$tmp/out")"

# Every process of the tree is in the session setsid gives the benchmark.
session_empty() {
	local sid=$1
	for _ in $(seq 50); do
		pgrep -s "$sid" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}
setsid "$grove" bench floor --topology kary:2 --backends 8 --rt-iters 20 \
	>/dev/null &
pid=$!
wait "$pid" || fail "bench floor failed"
session_empty "$pid" || fail "processes left after a normal exit"

setsid "$grove" bench floor --topology kary:2 --backends 8 \
	--rt-iters 100000000 >/dev/null &
pid=$!
for _ in $(seq 50); do
	[ "$(pgrep -c -s "$pid" || true)" -ge 15 ] && break
	sleep 0.1
done
[ "$(pgrep -c -s "$pid" || true)" -ge 15 ] || {
	pkill -9 -s "$pid" || true
	fail "the tree of 14 processes did not come up"
}
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
session_empty "$pid" || {
	pkill -9 -s "$pid" || true
	fail "processes left after the benchmark was killed"
}
echo "bench floor OK"
