#!/usr/bin/env bash
# grove bench skew: usage errors, and small runs whose exit status says
# every reported bound held against the injected (true) offsets.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench skew --help
grep -q -- "--inject-step" "$tmp/out" || fail "help lacks --inject-step"
expect_status 2 bench skew --rounds 0
expect_status 2 bench skew --rounds 5000
expect_status 2 bench skew --inject-step 12ms
expect_status 2 bench skew --bogus 1
grep -q "unknown option" "$tmp/err" || fail "no message for a bad option"

expect_status 0 bench skew --topology flat --backends 4 --repeat 2
grep -q "bounds violated   0 of 8; unmeasured 0" "$tmp/out" ||
	fail "flat run: $(cat "$tmp/out")"
expect_status 0 bench skew --topology kary:2 --backends 6 --rounds 4 \
	--inject-step -1500000 --json
grep -q '"violations": 0' "$tmp/out" || fail "kary run: $(cat "$tmp/out")"
grep -q '"unmeasured": 0' "$tmp/out" || fail "kary run: $(cat "$tmp/out")"
grep -q '"inject_step_ns": -1500000' "$tmp/out" ||
	fail "kary run: $(cat "$tmp/out")"
echo "bench skew OK"
