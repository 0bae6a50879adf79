#!/usr/bin/env bash
# grove bench bcast: a small run of every scheme (fast emulated WAN, so it
# takes about a second) must check its back-ends' digests, print one JSON
# object per size and scheme with the documented fields, and refuse bad
# options.  No timing is checked: the numbers are the benchmark's output.
set -euo pipefail
build=$1
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { cat "$out" "$err" >&2; echo "FAIL: $*" >&2; exit 1; }

timeout 120 "$build/grove" bench bcast --clusters 3 --per-cluster 3 \
    --sizes 1K,70001 --scheme all --reps 1 --wan-latency-ms 1 \
    --wan-bandwidth-MBps 50 --json >"$out" 2>"$err" ||
	fail "grove bench bcast exited non-zero"
[ "$(wc -l <"$out")" -eq 6 ] || fail "expected 6 JSON lines"
for scheme in original optimized whole-nonblocking; do
	for size in 1024 70001; do
		grep -q "\"size\": $size, \"scheme\": \"$scheme\"" "$out" ||
			fail "no line for $scheme at $size bytes"
	done
done
for field in clusters per_cluster measured_s model_s rel_err segment d_wan; do
	[ "$(grep -c "\"$field\": " "$out")" -eq 6 ] || fail "field $field missing"
done
grep -q '"clusters": 3, "per_cluster": 3' "$out" || fail "configuration"

# Text output names the schemes too.
timeout 120 "$build/grove" bench bcast --clusters 2 --sizes 2K --reps 1 \
    --scheme both --wan-latency-ms 1 --wan-bandwidth-MBps 50 >"$out" \
    2>"$err" || fail "text run"
grep -q "original" "$out" && grep -q "optimized" "$out" ||
	fail "text output lacks a scheme"

# Bad options are usage errors (exit 2) with a message.
# A size whose K/M suffix would overflow 64 bits is too large, not wrapped;
# a list of commas (or nothing) holds no size.
for args in "--clusters 1" "--sizes 0" "--sizes 1Q" "--scheme fast" \
    "--reps 0" "--wan-latency-ms -3" "--bogus 1" \
    "--sizes 18014398509481985K" "--sizes 17592186044417M" "--sizes ,,," \
    "--sizes $(printf '1,%.0s' $(seq 300))"; do
	set +e
	"$build/grove" bench bcast $args >"$out" 2>"$err"
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "'$args' exited $rc, not 2"
	grep -q "grove bench bcast" "$err" || fail "'$args' gave no message"
done
set +e
"$build/grove" bench bcast --sizes "" >"$out" 2>"$err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--sizes '' exited $rc, not 2"
grep -q "holds no size" "$err" || fail "--sizes '' gave no message"
"$build/grove" bench bcast --params /nonexistent/params >"$out" 2>"$err" &&
	fail "a missing parameter file was accepted"
grep -q "/nonexistent/params" "$err" || fail "missing file not named"
# The tree goes to a file in TMPDIR: a directory that does not exist is
# named with the reason, not as a file that was never made.
nodir="/nonexistent-grove-test-$$"
TMPDIR=$nodir timeout 120 "$build/grove" bench bcast --clusters 2 \
    --sizes 2K --reps 1 --wan-latency-ms 1 >"$out" 2>"$err" &&
	fail "TMPDIR=$nodir was accepted"
grep -q "cannot create a file in $nodir: No such file or directory" "$err" ||
	fail "TMPDIR=$nodir: no reason given"
grep -q "grove-bcast-" "$err" && fail "TMPDIR=$nodir named a file never made"
# A CP that runs out of memory (address space limited by a wrapper, so
# a 64 MiB receive buffer cannot be had) closes its link: the run stops
# at the loss, naming the node, instead of waiting out its 2 minutes for
# answers that never come; the CP says what failed (an error, on stderr
# with GROVE_LOG=error).  Not under a sanitizer, whose shadow memory
# needs more address space than any such limit leaves.
if nm "$build/grove-commnode" 2>/dev/null | grep __asan_init >/dev/null; then
	echo "bench bcast OK (the out-of-memory case skipped: sanitizer build)"
	exit 0
fi
wrap=$(mktemp)
trap 'rm -f "$out" "$err" "$wrap"' EXIT
printf '#!/bin/sh\nulimit -v 30000\nexec "%s/grove-commnode" "$@"\n' \
    "$(cd "$build" && pwd)" >"$wrap"
chmod +x "$wrap"
set +e
GROVE_COMMNODE=$wrap GROVE_LOG=error timeout 300 "$build/grove" bench bcast \
    --clusters 2 --per-cluster 3 --sizes 64M --reps 1 --scheme original \
    --wan-latency-ms 1 --wan-bandwidth-MBps 1000 >"$out" 2>"$err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "a CP out of memory: exited $rc, not 1"
grep -q "grove bench bcast: node 1 (cp for ranks 0..2 on [^)]*) lost: " "$err" ||
	fail "a CP out of memory: the lost node is not named"
grep -q "E cp\[1\] .*the link to the parent failed here: out of memory" \
    "$err" || fail "a CP out of memory: no error from the CP"
echo "bench bcast OK"
