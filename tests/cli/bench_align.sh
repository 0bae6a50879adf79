#!/usr/bin/env bash
# grove bench align: usage errors, and small runs whose exit status says
# every shift held its bound and no arrow went backwards beyond the bounds,
# while the uncorrected realtime timeline shows the injected offsets.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench align --help
grep -q -- "--inject-step" "$tmp/out" || fail "help lacks --inject-step"
expect_status 2 bench align --repeat 0
expect_status 2 bench align --inject-step 5ms
expect_status 2 bench align --bogus 1
grep -q "unknown option" "$tmp/err" || fail "no message for a bad option"

expect_status 0 bench align --topology flat --backends 4 --repeat 2
grep -q "shifts beyond their bound 0 of 4; not aligned 0" "$tmp/out" ||
	fail "flat run: $(cat "$tmp/out")"
expect_status 0 bench align --topology kary:2 --backends 6 --repeat 2 \
	--inject-step 20000000 --json
python3 - "$tmp/out" <<'PY' || fail "kary run: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
# the FE, its CPs and 6 BEs, every one on the timeline
assert d["processes"] >= 8, d
assert d["violations"] == 0 and d["unaligned"] == 0, d
assert d["arrows"] > 0 and d["backwards"] == 0, d
# 20 ms per rank: BE -> CP arrows go back by at least that, uncorrected
assert d["realtime_backwards"] > 0, d
assert d["realtime_min_latency_ns"] < -10000000, d
PY
echo "bench align OK"
