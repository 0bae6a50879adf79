#!/usr/bin/env bash
# Under a moderate limit on open files, a parent whose children would not
# all fit with pipes gives the first ones pipes and the rest the Unix
# socket, and the network starts: it must never take so many descriptors
# for pipes that the next child cannot be started.  `ulimit -n` lowers the
# hard limit too, so the parent cannot raise its own.  The limits lie
# between what sockets for every child need (the pre-check: children +
# 32) and what pipes for every child would.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

run_limited() {
	local limit=$1
	shift
	local got=0
	(ulimit -n "$limit" && exec timeout 120 "$grove" "$@") \
	    >"$tmp/out" 2>"$tmp/err" || got=$?
	if [ "$got" -ne 0 ] || ! grep -q "all 11 results OK" "$tmp/out"; then
		cat "$tmp/out" "$tmp/err" >&2
		fail "ulimit -n $limit: grove $* exited $got"
	fi
}

# The FE with 64 back-ends.
for limit in 96 110 140; do
	run_limited "$limit" demo --topology flat --backends 64
done
# CPs with 60 back-ends each (started by the FE), and CPs whose CP
# children are copies of themselves (they take pipes before their own
# launch).
run_limited 100 demo --topology levels:2x60
run_limited 100 demo --topology levels:2x2x40
