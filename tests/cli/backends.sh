#!/usr/bin/env bash
# The back-end count of the commands that start networks: a levels: spec
# (levels:AxB, AxB) brings its own without --backends, held to the same
# range as --backends; the range is named when a value is out of it.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# --- a levels: spec without --backends: the spec's 4 back-ends ------------
expect_status 0 bench micro --topology 2x2 --rt-iters 5 --thru-iters 5 --json
grep -q '"topology": "2x2", "backends": 4, "cps": 2, "depth": 2' "$tmp/out" ||
	fail "bench micro 2x2: $(cat "$tmp/out")"
expect_status 0 bench floor --topology levels:2x2 --rt-iters 5 --json
grep -q '"backends": 4, "cps": 2, "depth": 2, "processes": 6' "$tmp/out" ||
	fail "bench floor levels:2x2: $(cat "$tmp/out")"
expect_status 0 bench skew --topology 2x2 --rounds 2 --repeat 1 --json
grep -q '"backends": 4,' "$tmp/out" || fail "bench skew 2x2: $(cat "$tmp/out")"
expect_status 0 bench align --topology 2x2 --repeat 1 --json
grep -q '"backends": 4, "processes": 7' "$tmp/out" ||
	fail "bench align 2x2: $(cat "$tmp/out")"
expect_status 0 bench startup --topology 2x2 --reps 1 --skew-rounds 1 --json
grep -q '"backends":4,' "$tmp/out" || fail "bench startup 2x2: $(cat "$tmp/out")"
expect_status 0 bench offered-load --topology 2x2 --metrics 1 --seconds 0.2 \
	--warmup 0 --json
grep -q '"backends":4,' "$tmp/out" ||
	fail "bench offered-load 2x2: $(cat "$tmp/out")"
# (bench trace parses the same options as micro; its run is long.)

# --backends given still has to agree with the spec.
expect_status 1 bench micro --topology 2x2 --backends 5 --rt-iters 5 \
	--thru-iters 5
grep -q "makes 4 back-ends, not 5" "$tmp/err" ||
	fail "bench micro 2x2 with 5: $(cat "$tmp/err")"

# --- a spec beyond the limit is refused before anything starts -------------
# (levels:300x300 would start 90,000 processes.)
for cmd in demo top "bench micro" "bench trace" "bench floor" "bench skew" \
	"bench startup" "bench offered-load"; do
	# shellcheck disable=SC2086
	expect_status 2 $cmd --topology levels:300x300
	grep -q "topology 'levels:300x300' makes 90000 back-ends.*1\.\.65536" \
		"$tmp/err" || fail "$cmd levels:300x300: $(cat "$tmp/err")"
done
expect_status 2 bench align --topology 100x100
grep -q "topology '100x100' makes 10000 back-ends.*1\.\.4096" "$tmp/err" ||
	fail "bench align 100x100: $(cat "$tmp/err")"
# The largest spec the topology module takes is answered from the spec
# alone (building it would take a gigabyte).
expect_status 2 demo --topology levels:4096x4096
grep -q "makes 16777216 back-ends" "$tmp/err" ||
	fail "demo levels:4096x4096: $(cat "$tmp/err")"
# A spec too large for the topology module is its error, at creation.
expect_status 1 bench floor --topology levels:5000x5000
grep -q "makes more than 16777216 back-ends" "$tmp/err" ||
	fail "bench floor levels:5000x5000: $(cat "$tmp/err")"

# --- out-of-range values name the range -----------------------------------
for cmd in "bench micro" "bench trace" "bench skew" top; do
	# shellcheck disable=SC2086
	expect_status 2 $cmd --backends 65537
	grep -q -- "--backends wants a number in 1\.\.65536, not '65537'" \
		"$tmp/err" || fail "$cmd --backends 65537: $(cat "$tmp/err")"
done
expect_status 2 bench align --backends 4097
grep -q -- "--backends wants a number in 1\.\.4096, not '4097'" "$tmp/err" ||
	fail "bench align --backends 4097: $(cat "$tmp/err")"
expect_status 2 bench micro --timeout-ms 0
grep -q -- "--timeout-ms wants a number in 1\.\.3600000" "$tmp/err" ||
	fail "bench micro --timeout-ms 0: $(cat "$tmp/err")"
expect_status 2 bench floor --backends 0
grep -q -- "--backends wants a number in 1\.\.65536, not '0'" "$tmp/err" ||
	fail "bench floor --backends 0: $(cat "$tmp/err")"
expect_status 2 bench floor --rt-iters 0
grep -q -- "--rt-iters wants a number in 1\.\.100000000, not '0'" "$tmp/err" ||
	fail "bench floor --rt-iters 0: $(cat "$tmp/err")"
expect_status 2 topo -t flat -b 4294967296
grep -q -- "--backends needs a number in 1\.\.16777216: 4294967296" \
	"$tmp/err" || fail "topo -b 4294967296: $(cat "$tmp/err")"
expect_status 2 top --seconds 1e7
grep -q -- "--seconds wants .*at most 1e6, not: 1e7" "$tmp/err" ||
	fail "top --seconds 1e7: $(cat "$tmp/err")"

# --- --timeout-ms is documented -------------------------------------------
expect_status 0 bench micro --help
grep -q -- "--timeout-ms MS" "$tmp/out" || fail "bench micro --help lacks --timeout-ms"
grep -q -- "--timeout-ms" "$2/docs/benchmarks.md" ||
	fail "docs/benchmarks.md lacks --timeout-ms"
echo "backends.sh: ok"
