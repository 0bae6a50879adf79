#!/usr/bin/env bash
# README command 1 runs `grove demo`; it must keep working and checking its
# own results (it exits non-zero on any mismatch).
set -euo pipefail
build=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for spec in "kary:4 16" "flat 8" "kary:2 8"; do
	set -- $spec
	if ! timeout 120 "$build/grove" demo --topology "$1" --backends "$2" \
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
done
echo "demo OK"
