#!/usr/bin/env bash
# Every public header compiles on its own, as a tool would include it:
# strict ISO C11 (-pedantic, no POSIX or GNU feature macros) and C++17,
# without warnings.  A header that leans on another one, on a POSIX
# declaration or on a C-only keyword fails here.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$2

compilers=0
for h in "$src"/include/grove/*.h; do
	name=$(basename "$h")
	printf '#include <grove/%s>\nint main(void) { return 0; }\n' "$name" \
		>"$tmp/c.c"
	cp "$tmp/c.c" "$tmp/cxx.cpp"
	if command -v cc >/dev/null; then
		cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$src/include" \
			-c "$tmp/c.c" -o /dev/null 2>"$tmp/err" ||
			fail "$name in C11: $(cat "$tmp/err")"
		compilers=$((compilers | 1))
	fi
	if command -v c++ >/dev/null; then
		c++ -std=c++17 -Wall -Wextra -Werror -I"$src/include" \
			-c "$tmp/cxx.cpp" -o /dev/null 2>"$tmp/err" ||
			fail "$name in C++17: $(cat "$tmp/err")"
		compilers=$((compilers | 2))
	fi
done
[ $((compilers & 1)) -ne 0 ] || fail "no C compiler (cc) found"
if [ $((compilers & 2)) -eq 0 ]; then
	echo "no C++ compiler (c++): headers checked as C11 only"
else
	echo "every public header compiles alone as C11 and as C++17"
fi
