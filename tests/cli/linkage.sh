#!/usr/bin/env bash
# The programs started once per process of a tree load as little as they
# can: every shared library costs each of hundreds of starts its mapping
# and relocations.  grove-commnode and be_worker link Grove statically and
# need libc alone (not libm: Grove's CPs and back-ends round and take
# logarithms with src/core/fmath.h, and the model code that does need
# libm stays out of them).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

command -v readelf >/dev/null || fail "readelf (binutils) not found"
# A sanitizer build links its runtimes (and their libm) into everything:
# what is checked here is the build that is deployed.
if grep -q '^GROVE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
	echo "sanitizer build: linkage not checked"
	exit 0
fi
for prog in grove-commnode be_worker; do
	[ -x "$build/$prog" ] || fail "$build/$prog not built"
	needed=$(readelf -d "$build/$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	for lib in $needed; do
		case $lib in
		libc.so.*|ld-linux*.so.*) ;;
		*) fail "$prog needs $lib (only libc expected): $(echo $needed)" ;;
		esac
	done
done
echo "grove-commnode and be_worker need libc only"
