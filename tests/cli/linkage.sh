#!/usr/bin/env bash
# The programs started once per process of a tree load as little as they
# can: every shared library costs each of hundreds of starts its mapping
# and relocations.  grove-commnode and be_worker link Grove statically and
# need libc alone (not libm: Grove's CPs and back-ends round and take
# logarithms with src/core/fmath.h, and the model code that does need
# libm stays out of them).
# libgrove.so exports the public API (grove_*) and nothing else, so a
# tool's own function named like an internal one (sync_new, node_init)
# cannot replace Grove's; the programs that carry Grove export the same
# to the filters they load, and the OTF2 plugin needs nothing from Grove.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

command -v readelf >/dev/null || fail "readelf (binutils) not found"
command -v nm >/dev/null || fail "nm (binutils) not found"

# Defined dynamic symbols of $1 that are not grove_*: none for the
# library; for a program, only the C library's variables it copies
# (stdout, optarg, ...), which carry their version (name@GLIBC_...).
# (A sanitizer build's programs also export their runtimes' symbols.)
foreign_exports() {
	nm -D --defined-only "$1" | awk '{ print $NF }' |
		grep -v -e '^grove_' -e '@' -e '^__asan_' -e '^__ubsan_' \
			-e '^__lsan_' -e '^__sanitizer_' || true
}
lib=$build/libgrove.so
[ -e "$lib" ] || fail "$lib not built"
# (grep reads all of nm's output: with -q, nm could die of SIGPIPE.)
nm -D --defined-only "$lib" | grep -c ' grove_net_create$' >/dev/null ||
	fail "libgrove.so does not export grove_net_create"
extra=$(foreign_exports "$lib")
[ -z "$extra" ] || fail "libgrove.so exports more than grove_*:" $extra
# ... and every one of them is a name of the public headers: an internal
# function named grove_* would be replaceable by a tool's own.
src=$2
api "$lib" >"$tmp/exports"
cat "$src"/include/grove/*.h | grep -o '\bgrove_[a-z0-9_]*' | sort -u \
	>"$tmp/public"
internal=$(comm -23 "$tmp/exports" "$tmp/public")
[ -z "$internal" ] || fail "libgrove.so exports internal names:" $internal
for prog in grove grove-commnode; do
	extra=$(foreign_exports "$build/$prog")
	[ -z "$extra" ] || fail "$prog exports more than grove_*:" $extra
	nm -D --defined-only "$build/$prog" |
		grep -c ' grove_filter_emit$' >/dev/null ||
		fail "$prog does not export the filter ABI (grove_filter_emit)"
done
# A custom filter may call any of the public API inside a CP: the CP
# exports all of what libgrove.so does.
missing=$(comm -23 <(api "$lib") <(api "$build/grove-commnode"))
[ -z "$missing" ] || fail "grove-commnode lacks public functions:" $missing
if [ -e "$build/grove-otf2.so" ]; then
	undef=$(nm -D --undefined-only "$build/grove-otf2.so" |
		awk '{ print $NF }' | grep -e '^grove_' -e '^trace_' || true)
	[ -z "$undef" ] || fail "grove-otf2.so needs Grove symbols:" $undef
fi
echo "libgrove.so, grove and grove-commnode export grove_* only"

# libgrove.a holds one object whose only globals are grove_* (see
# CMakeLists.txt): a tool linked with it, with --whole-archive as the
# tutorial says, gets none of Grove's internal names, so its own
# functions named like them (log_init, buf_new, sync_new) neither clash
# nor replace Grove's.
archive=$build/libgrove.a
[ -e "$archive" ] || fail "$archive not built"
nm -g --defined-only "$archive" >"$tmp/archive_syms"
grep -c ' T grove_net_create$' "$tmp/archive_syms" >/dev/null ||
	fail "libgrove.a does not define grove_net_create"
extra=$(awk 'NF == 3 && $3 !~ /^grove_/ { print $3 }' "$tmp/archive_syms")
[ -z "$extra" ] || fail "libgrove.a has global symbols outside grove_*:" $extra
missing=$(comm -23 <(api "$lib") \
	<(awk 'NF == 3 { print $3 }' "$tmp/archive_syms" | sort))
[ -z "$missing" ] || fail "libgrove.a lacks public functions:" $missing
if command -v cc >/dev/null; then
	cat >"$tmp/clash.c" <<'C'
#include <grove/network.h>
#include <stdio.h>
/* A tool's own functions named like Grove's internal ones. */
int log_init(void) { return 7; }
void *buf_new(void) { return NULL; }
int sync_new(void) { return 9; }
int main(void)
{
	grove_net_opts o;
	grove_net_opts_init(&o);
	printf("%d %d %s\n", log_init(), sync_new(), o.topology);
	return buf_new() != NULL;
}
C
	san=()
	if grep -q '^GROVE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
		san=(-fsanitize=address,undefined)
	fi
	cc -o "$tmp/clash" "$tmp/clash.c" -I"$src/include" "${san[@]}" \
		-Wl,--whole-archive "$archive" -Wl,--no-whole-archive \
		$(pkg-config --libs libuv libsodium) -lpthread -ldl -lm -lrt \
		2>"$tmp/clash.err" || {
		cat "$tmp/clash.err" >&2
		fail "a tool defining log_init, buf_new, sync_new does not link with libgrove.a"
	}
	[ "$("$tmp/clash")" = "7 9 flat" ] ||
		fail "a tool's own log_init/sync_new are not the ones it calls"
fi
echo "libgrove.a defines grove_* only; a tool's own log_init, buf_new, sync_new link beside it"

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
