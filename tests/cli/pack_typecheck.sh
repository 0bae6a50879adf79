#!/usr/bin/env bash
# The typed packing API (grove/pack.h) makes the compiler refuse a value
# whose type is not the item's: the mistakes the format API cannot catch
# (an int for %lf, an int for %s, an int64_t * for %d, a writable pointer
# into a packet) do not compile, in C11 and in C++17; the right types
# compile, link against libgrove.so and round-trip through the format
# API.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$2

command -v cc >/dev/null || fail "no C compiler (cc) found"
[ -e "$build/libgrove.so" ] || fail "$build/libgrove.so not built"

# A C program whose body is $1, with a packer pk and an unpacker u.
snippet() {
	cat <<-EOT
	#include <stdint.h>
	#include <grove/grove.h>
	int main(void) {
		grove_packer *pk = 0;
		grove_unpacker u;
		int n = 5;
		int64_t l = 0;
		uint64_t n64 = 0;
		(void)pk; (void)u; (void)n; (void)l; (void)n64;
		$1
		return 0;
	}
	EOT
}

cc_c() {
	cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$src/include" "$@"
}

# Must not compile: the compiler's message names the _Generic refusal
# (C) or the deleted function (C++), not some unrelated error.
refuse() {
	local what=$1 body=$2
	snippet "$body" >"$tmp/bad.c"
	if cc_c -c "$tmp/bad.c" -o /dev/null 2>"$tmp/err"; then
		fail "C compiler accepted $what: $body"
	fi
	grep -q "_Generic" "$tmp/err" || {
		cat "$tmp/err" >&2
		fail "C: $what refused for another reason"
	}
}
refuse "an int for grove_pack_double (%lf)" 'grove_pack_double(pk, n);'
refuse "an int for grove_pack_string (%s)" 'grove_pack_string(pk, n);'
refuse "an int64_t for grove_pack_int32 (%d)" 'grove_pack_int32(pk, l);'
refuse "a double for grove_pack_float (%f)" 'grove_pack_float(pk, 1.5);'
refuse "an int64_t * for grove_unpack_int32" 'grove_unpack_int32(&u, &l);'
refuse "an int * array for grove_pack_array_double" \
	'grove_pack_array_double(pk, &n, 1);'
refuse "a writable double ** for grove_unpack_array_double" \
	'double *v; grove_unpack_array_double(&u, &v, &n64);'
refuse "an int64_t * count for grove_unpack_array_double" \
	'const double *v; grove_unpack_array_double(&u, &v, &l);'
refuse "a struct for GROVE_PACK" 'struct { int a; } s = {1}; GROVE_PACK(pk, s);'

# The right types compile and round-trip, int counts included.
snippet '
	const double v[3] = {0.5, 1.5, 2.5};
	grove_packet *p;
	if (grove_packer_create(&pk) < 0) return 1;
	grove_pack_int32(pk, n);
	grove_pack_double(pk, 2.5);
	grove_pack_string(pk, "host");
	grove_pack_array_double(pk, v, n - 2);
	if (grove_packer_finish(pk, 1, 7, &p) < 0) return 2;
	grove_packer_destroy(pk);
	int32_t a; double d; const char *s; const double *av; uint64_t an;
	if (grove_packet_unpack(p, "%d %lf %s %alf", &a, &d, &s, &av, &an))
		return 3;
	if (a != 5 || d != 2.5 || an != 3 || av[2] != 2.5) return 4;
	int cnt;
	grove_unpacker_init(&u, p);
	grove_unpack_int32(&u, &a);
	grove_unpack_double(&u, &d);
	grove_unpack_string(&u, &s);
	grove_unpack_array_double(&u, &av, &cnt);
	if (grove_unpacker_finish(&u) < 0 || cnt != 3) return 5;
	/* A mismatch is reported with both types. */
	grove_unpacker_init(&u, p);
	if (grove_unpack_int64(&u, &l) != GROVE_EFORMAT) return 6;
	grove_packet_unref(p);
	puts(grove_packet_last_error());
' >"$tmp/good.c"
sed -i 's/#include <stdint.h>/#include <stdint.h>\n#include <stdio.h>/' "$tmp/good.c"
# A sanitizer build's library needs the program built with the same
# runtime, first in the list of loaded libraries.
sanitize=()
if grep -q '^GROVE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
	sanitize=(-fsanitize=address,undefined)
fi
cc_c "$tmp/good.c" -o "$tmp/good" -L"$build" -lgrove \
	-Wl,-rpath,"$build" "${sanitize[@]}" 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	fail "the right types do not compile"
}
"$tmp/good" >"$tmp/out" || fail "round trip failed: exit $?"
grep -qF "item 1: the packet holds int32 (%d), the call asks for int64 (%ld)" \
	"$tmp/out" || { cat "$tmp/out" >&2; fail "no mismatch message"; }

if command -v c++ >/dev/null; then
	printf '#include <grove/pack.h>\nvoid f(grove_packer *pk) { %s }\n' \
		'grove_pack_double(pk, 5);' >"$tmp/bad.cpp"
	if c++ -std=c++17 -Wall -Wextra -Werror -I"$src/include" \
		-c "$tmp/bad.cpp" -o /dev/null 2>"$tmp/err"; then
		fail "C++ compiler accepted an int for grove_pack_double"
	fi
	grep -q "deleted" "$tmp/err" || {
		cat "$tmp/err" >&2
		fail "C++: int for grove_pack_double refused for another reason"
	}
	printf '#include <grove/pack.h>\nvoid f(grove_packer *pk) { %s }\n' \
		'grove_pack_double(pk, 5.0); grove_pack_int32(pk, 1);' \
		>"$tmp/good.cpp"
	c++ -std=c++17 -Wall -Wextra -Werror -I"$src/include" \
		-c "$tmp/good.cpp" -o /dev/null 2>"$tmp/err" || {
		cat "$tmp/err" >&2
		fail "C++: the right types do not compile"
	}
fi
echo "wrong argument types are compile errors; right ones round-trip"
