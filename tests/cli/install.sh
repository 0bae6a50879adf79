#!/usr/bin/env bash
# An installed tree works on its own: `cmake --install` to a scratch
# prefix, then that prefix's `grove demo` finds its back-end (installed in
# libexec/grove, off PATH) and grove-commnode (beside grove).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log" >&2
	fail "cmake --install $build --prefix $prefix"
}
[ -x "$prefix/libexec/grove/be_worker" ] ||
	fail "be_worker is not installed in libexec/grove"
[ ! -e "$prefix/bin/be_worker" ] || fail "be_worker is installed on PATH"
grove=$prefix/bin/grove
unset GROVE_WORKER GROVE_COMMNODE
# Run from the scratch directory, so nothing is found by accident in the
# current one.
cd "$tmp"
expect_status 0 demo --topology kary:2 --backends 4
grep -q "all 11 results OK" "$tmp/out" || {
	cat "$tmp/out" "$tmp/err" >&2
	fail "installed grove demo did not report all results OK"
}
echo "install OK"
