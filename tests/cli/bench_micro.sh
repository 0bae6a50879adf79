#!/usr/bin/env bash
# grove bench micro: usage errors with their messages, the JSON keys the
# issue names with consistent values on a small tree, the text report,
# and no process of the tree left after the benchmark exits.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench micro --help
for opt in --topology --backends --rt-iters --thru-iters --json --cp-sched \
	--cpu-bind; do
	grep -q -- "$opt" "$tmp/out" || fail "help lacks $opt"
done
expect_status 2 bench micro --backends 0
grep -q -- "--backends" "$tmp/err" || fail "no message for --backends 0"
expect_status 2 bench micro --bogus 1
grep -q -- "--bogus" "$tmp/err" || fail "no message for a bad option"
expect_status 2 bench micro --cp-sched weird
grep -q "weird" "$tmp/err" || fail "no message for a bad --cp-sched"
expect_status 2 bench micro --cpu-bind core
grep -q -- "--cpu-bind.*core" "$tmp/err" || fail "no message for a bad --cpu-bind"
expect_status 1 bench micro --topology nonsense:3 --backends 4
grep -q "nonsense:3" "$tmp/err" || fail "no message for a bad topology"

expect_status 0 bench micro --topology kary:2 --backends 4 --rt-iters 20 \
	--thru-iters 50 --json
python3 - "$tmp/out" <<'PY' || fail "kary run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["topology"] == "kary:2" and d["backends"] == 4, d
assert d["cps"] == 2 and d["depth"] == 2, d
assert d["rt_iters"] == 20 and d["thru_iters"] == 50, d
assert d["instantiation_s"] > 0 and d["throughput_waves_per_s"] > 0, d
assert 0 < d["roundtrip_min_s"] <= d["roundtrip_median_s"] \
    <= d["roundtrip_max_s"], d
assert d["roundtrip_min_s"] <= d["roundtrip_s"] <= d["roundtrip_max_s"], d
assert d["cp_sched"] == "other", d
assert d["cpu_bind"] == "none", d
PY

expect_status 0 bench micro --topology kary:2 --backends 4 --rt-iters 10 \
	--thru-iters 20 --cpu-bind subtree --json
python3 - "$tmp/out" <<'PY' || fail "bound run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cpu_bind"] == "subtree" and d["throughput_waves_per_s"] > 0, d
PY
GROVE_CPU_BIND=subtree expect_status 0 bench micro --topology flat \
	--backends 2 --rt-iters 5 --thru-iters 5 --json
grep -q '"cpu_bind": "subtree"' "$tmp/out" || fail "GROVE_CPU_BIND not reported"

expect_status 0 bench micro --topology flat --backends 3 --rt-iters 10 \
	--thru-iters 20
for what in instantiation "round trip" throughput; do
	grep -qi "$what" "$tmp/out" || fail "text report lacks $what: $(cat "$tmp/out")"
done

# Every process of the tree is in the session setsid gives the benchmark.
setsid "$grove" bench micro --topology kary:2 --backends 8 --rt-iters 20 \
	--thru-iters 50 >/dev/null &
pid=$!
wait "$pid" || fail "bench micro failed"
for _ in $(seq 50); do
	pgrep -s "$pid" >/dev/null || { echo "bench micro OK"; exit 0; }
	sleep 0.1
done
pgrep -a -s "$pid" >&2 || true
fail "processes left after bench micro exited"
