#!/usr/bin/env bash
# `grove demo` (the TBON walk-through the tutorial and docs point to) must
# keep working and checking its own results (it exits non-zero on any
# mismatch).  It runs with GROVE_LOG=info: a clean run logs no error, and
# a clean shutdown no "unauthenticated connection" for the tree's own,
# long-authenticated links.
set -euo pipefail
build=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for spec in "kary:4 16" "flat 8" "kary:2 8"; do
	set -- $spec
	if ! GROVE_LOG=info timeout 120 "$build/grove" demo --topology "$1" --backends "$2" \
	    >"$out" 2>&1; then
		cat "$out" >&2
		echo "FAIL: grove demo --topology $1 --backends $2" >&2
		exit 1
	fi
	grep -q "all 11 results OK" "$out" || {
		cat "$out" >&2
		echo "FAIL: demo on $1/$2 did not report all results OK" >&2
		exit 1
	}
	if grep -E "unauthenticated connection|\] error|ERROR" "$out" >&2; then
		echo "FAIL: demo on $1/$2 logged the lines above" >&2
		exit 1
	fi
done
echo "demo OK"
