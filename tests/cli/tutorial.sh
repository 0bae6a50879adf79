#!/usr/bin/env bash
# The tutorial (docs/tutorial.md) and its programs: tutorial_fe in spawn
# mode and in attach mode gives the expected answers; GROVE_TRACE_DUMP and
# GROVE_TRACE_STATS work as the tutorial says; the code listed in the
# tutorial is the code of examples/; the tutorial's build commands work
# against an installed Grove.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The answers: back-end r sends 10 * r + round; 8 back-ends.
check_output() {
	local out=$1
	for line in \
	    "round 1: above(35) = 4 of 8 values, 4 so far" \
	    "round 1: sum = 288" \
	    "round 2: above(15) = 6 of 8 values, 10 so far" \
	    "round 2: sum = 296" \
	    "done"; do
		grep -qxF "$line" "$out" || {
			cat "$out" >&2
			fail "output lacks '$line'"
		}
	done
	if grep -q "^event:" "$out"; then
		cat "$out" >&2
		fail "unexpected event"
	fi
}

# --- spawn mode from the build tree --------------------------------------
"$build/tutorial_fe" >"$tmp/spawn.out" 2>"$tmp/spawn.err" || {
	cat "$tmp/spawn.out" "$tmp/spawn.err" >&2
	fail "tutorial_fe exited $?"
}
check_output "$tmp/spawn.out"
grep -q "^network [0-9a-f]*: 8 back-ends, topology kary:2$" \
    "$tmp/spawn.out" || fail "no network line"

# --- attach mode: back-ends started by a shell loop ----------------------
"$build/tutorial_fe" --attach "$tmp/conn" >"$tmp/attach.out" \
    2>"$tmp/attach.err" &
fe=$!
pids+=("$fe")
for _ in $(seq 300); do
	[ -s "$tmp/conn" ] && break
	kill -0 "$fe" 2>/dev/null || break
	sleep 0.1
done
[ -s "$tmp/conn" ] || fail "no connection file"
[ "$(stat -c %a "$tmp/conn")" = 600 ] || fail "connection file not 0600"
grep -q "^secret [0-9a-f]\{64\}$" "$tmp/conn" || fail "no secret line"
grep -q "^backends 8$" "$tmp/conn" || fail "no backends line"
for r in $(seq 0 7); do
	"$build/tutorial_be" --attach "$tmp/conn" --rank "$r" &
	pids+=("$!")
done
st=0
wait "$fe" || st=$?
[ "$st" -eq 0 ] || {
	cat "$tmp/attach.out" "$tmp/attach.err" >&2
	fail "tutorial_fe --attach exited $st"
}
check_output "$tmp/attach.out"
[ ! -e "$tmp/conn" ] || fail "connection file left behind"

# --- tracing: Perfetto JSON and statistics -------------------------------
GROVE_TRACE_DUMP="$tmp/trace.json" GROVE_TRACE_STATS="$tmp/stats.txt" \
    "$build/tutorial_fe" >"$tmp/trace.out" 2>&1 || {
	cat "$tmp/trace.out" >&2
	fail "tutorial_fe with tracing failed"
}
check_output "$tmp/trace.out"
grep -q '"traceEvents"' "$tmp/trace.json" || fail "no trace events"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
	    "$tmp/trace.json" || fail "trace.json is not JSON"
fi
grep -q "^fe 0 " "$tmp/stats.txt" || fail "statistics lack the FE"
grep -q "^be 7 " "$tmp/stats.txt" || fail "statistics lack BE 7"
grep -q "^filter_transform " "$tmp/stats.txt" ||
	fail "statistics lack filter_transform"

# --- the tutorial lists the real code ------------------------------------
# A listing follows a line "<!-- file: PATH -->" and is the ```c block
# right after it.
for f in examples/tutorial_fe.c examples/tutorial_be.c \
    examples/filter_tutorial.c; do
	awk -v want="<!-- file: $f -->" '
		$0 == want { armed = 1; next }
		armed && /^```c$/ { inside = 1; armed = 0; next }
		inside && /^```$/ { exit }
		inside { print }
	' "$src/docs/tutorial.md" >"$tmp/listing.c"
	[ -s "$tmp/listing.c" ] || fail "docs/tutorial.md lists no $f"
	diff -u "$src/$f" "$tmp/listing.c" >&2 ||
		fail "docs/tutorial.md's listing of $f differs from the file"
done

# --- building against an installed Grove, as the tutorial shows (with
# its pkg-config file) --------------------------------------------------
if command -v cc >/dev/null && command -v cmake >/dev/null; then
	prefix="$tmp/prefix"
	cmake --install "$build" --prefix "$prefix" >/dev/null
	mkdir "$tmp/mytool"
	cd "$tmp/mytool"
	libdir=$(dirname "$(find "$prefix" -name libgrove.so -print -quit)")
	if command -v pkg-config >/dev/null; then
		export PKG_CONFIG_PATH=$libdir/pkgconfig
		read -r -a cflags <<<"$(pkg-config --cflags grove)"
		read -r -a libs <<<"$(pkg-config --libs grove)"
	else
		cflags=(-I"$prefix/include")
		libs=(-L"$libdir" -lgrove)
	fi
	flags=("${cflags[@]}" -Wl,-rpath,"$libdir")
	# A sanitizer build's library needs its runtime in the program too.
	if grep -q '^GROVE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
		flags+=(-fsanitize=address,undefined)
	fi
	cc -o tutorial_fe "$src/examples/tutorial_fe.c" "${flags[@]}" "${libs[@]}"
	cc -o tutorial_be "$src/examples/tutorial_be.c" "${flags[@]}" "${libs[@]}"
	cc -shared -fPIC -o filter_tutorial.so \
	    "$src/examples/filter_tutorial.c" "${cflags[@]}"
	./tutorial_fe >"$tmp/installed.out" 2>&1 || {
		cat "$tmp/installed.out" >&2
		fail "tutorial_fe built against the install failed"
	}
	check_output "$tmp/installed.out"
fi

echo "tutorial: ok"
