#!/usr/bin/env bash
# A file size limit (ulimit -f) below the size of an event space: sizing
# the segment above the limit would raise SIGXFSZ, which kills the
# process.  Every process of the network must instead run with tracing
# off (one warning each with GROVE_LOG=warn) and leave nothing in
# /dev/shm; with rings small enough to fit under the limit, tracing
# stays on everywhere.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# The default event space is about 17 MB; ulimit -f counts 1 KiB blocks.
limit=10000

# run ARGS: grove ARGS under the limit, output in $tmp/out and $tmp/err;
# its exit status.
run() {
	local got=0
	(ulimit -f "$limit" && exec timeout 120 "$grove" "$@") \
		>"$tmp/out" 2>"$tmp/err" || got=$?
	return "$got"
}

got=0
GROVE_LOG=warn run demo --topology kary:2 --backends 4 || got=$?
[ "$got" -eq 0 ] || fail "demo under ulimit -f $limit exited $got: $(cat "$tmp/err")"
grep -q "all 11 results OK" "$tmp/out" || fail "demo results: $(cat "$tmp/out")"
# fe 0, cp 1 and 4, be 0-3: each says once that it traces nothing.
pat='trace: cannot create /dev/shm/(grove\.[A-Za-z0-9_-]+\.(fe|cp|be)\.[0-9]+): its [0-9]+ bytes exceed the file size limit \(ulimit -f\); tracing off in this process'
n=$(grep -cE "$pat" "$tmp/err" || true)
[ "$n" -eq 7 ] || fail "expected 7 processes with tracing off, got $n: $(cat "$tmp/err")"
for seg in $(grep -oE "$pat" "$tmp/err" | sed -E 's|.*/dev/shm/([^:]+):.*|\1|'); do
	[ ! -e "/dev/shm/$seg" ] || fail "/dev/shm/$seg was left behind"
done

# Rings of 16 tuples make a segment of about 0.6 MB: under the limit,
# every process traces.
got=0
GROVE_TRACE_SIZE=16 GROVE_TRACE_FORMAT=text GROVE_TRACE_DUMP="$tmp/t.txt" \
	run demo --topology kary:2 --backends 4 || got=$?
[ "$got" -eq 0 ] || fail "demo with small rings exited $got: $(cat "$tmp/err")"
for p in "fe 0" "cp 1" "cp 4" "be 0" "be 1" "be 2" "be 3"; do
	grep -q "^# $p: pid" "$tmp/t.txt" || fail "the trace lacks $p"
done
echo "trace under a file size limit OK"
