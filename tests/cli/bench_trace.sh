#!/usr/bin/env bash
# grove bench trace: usage errors, and a small run whose JSON has the keys
# the tracing targets are stated in, with summaries that are consistent
# (quartiles and bootstrap interval around the median).  No timing is
# checked: the machine is noisy.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

expect_status 0 bench trace --help
grep -q "bootstrap" "$tmp/out" || fail "help does not say how it summarises"
expect_status 2 bench trace --rounds 0
expect_status 2 bench trace --rounds 101
expect_status 2 bench trace --bogus 1

expect_status 0 bench trace --topology flat --backends 3 --rounds 3 \
	--rt-iters 20 --thru-iters 40 --json
j=$(cat "$tmp/out")
for k in ns_per_event ns_disabled overhead_roundtrip_pct \
	overhead_throughput_pct cpu_overhead_roundtrip_pct \
	cpu_overhead_throughput_pct cpu_ns_per_tuple_throughput \
	tuples_per_roundtrip tuples_per_wave cpu_us_per_wave_off \
	cpu_us_per_wave_on; do
	grep -q "\"$k\": -\?[0-9]" <<<"$j" || fail "no number for $k: $j"
done
grep -q '"rounds": 3' <<<"$j" || fail "rounds not reported: $j"
# Each summary: q1 <= median <= q3 and ci_lo <= median <= ci_hi.
for k in overhead_throughput_pct cpu_overhead_throughput_pct; do
	med=$(grep -o "\"$k\": [-0-9.]*" <<<"$j" | head -1 | awk '{print $2}')
	for s in iqr ci95 range; do
		pair=$(grep -o "\"${k}_$s\": \[[-0-9., ]*\]" <<<"$j" |
			sed 's/.*\[//; s/\]//; s/,//')
		[ -n "$pair" ] || fail "no ${k}_$s: $j"
		awk -v m="$med" -v p="$pair" 'BEGIN { split(p, a, " ");
			exit !(a[1] <= m + 0.005 && m <= a[2] + 0.005) }' ||
			fail "${k}_$s [$pair] does not hold the median $med"
	done
done
# Tracing was on in half of the runs: tuples were counted.
t=$(grep -o '"tuples_per_wave": [0-9.]*' <<<"$j" | awk '{print $2}')
awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "no tuples per wave: $j"
echo "bench trace OK"
