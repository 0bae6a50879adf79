#!/usr/bin/env bash
# An installed tree works on its own: `cmake --install` to a scratch
# prefix, then that prefix's `grove demo` finds its back-end (installed in
# libexec/grove, off PATH) and grove-commnode (beside grove); a front-end
# built with the installed grove.pc runs the installed grove-commnode,
# never the build tree's, linked with libgrove.so as with libgrove.a
# (which then loads its custom filter through the installed dynamic
# list); `grove model` finds the installed default.params; the documents
# are installed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
src=$(cd "$2" && pwd)
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log" >&2
	fail "cmake --install $build --prefix $prefix"
}
[ -x "$prefix/libexec/grove/be_worker" ] ||
	fail "be_worker is not installed in libexec/grove"
[ ! -e "$prefix/bin/be_worker" ] || fail "be_worker is installed on PATH"
libdir=$(dirname "$(find "$prefix" -name libgrove.so -print -quit)")
[ -f "$libdir/pkgconfig/grove.pc" ] || fail "no grove.pc beside libgrove.so"
[ -f "$prefix/share/grove/logp/default.params" ] ||
	fail "default.params is not installed in share/grove/logp"
for doc in api.md tutorial.md README.md; do
	[ -f "$prefix/share/doc/grove/$doc" ] ||
		fail "$doc is not installed in share/doc/grove"
done
grove=$prefix/bin/grove
unset GROVE_WORKER GROVE_COMMNODE GROVE_OTF2_PLUGIN
# Run from the scratch directory, so nothing is found by accident in the
# current one.
cd "$tmp"
expect_status 0 demo --topology kary:2 --backends 4
grep -q "all 11 results OK" "$tmp/out" || {
	cat "$tmp/out" "$tmp/err" >&2
	fail "installed grove demo did not report all results OK"
}
expect_status 0 demo --help
grep -q "libexec/grove" "$tmp/out" ||
	fail "grove demo --help does not say where be_worker is installed"

# A bare --params name is one of the installed parameter files.
expect_status 0 model bcast --params default.params --clusters 2 \
	--per-cluster 4 --size 64K
grep -q "^scheme optimized" "$tmp/out" ||
	fail "grove model bcast --params default.params printed no plan"
expect_status 1 model params --params no-such.params
grep -q "no-such.params" "$tmp/err" || fail "missing parameter file not named"

# A tool built against the installed tree, with its pkg-config file.
command -v cc >/dev/null && command -v pkg-config >/dev/null || {
	echo "no cc or pkg-config: installed front-ends not checked"
	# Grove MPI: the installed wrappers use the installed headers and
# library (not the build tree's), mpiexec runs the installed grove, and
# grove-mpi.pc gives the same flags.
for w in mpicc mpicxx mpiexec mpirun; do
	[ -x "$prefix/bin/$w" ] || fail "$w is not installed in bin"
done
[ -f "$prefix/include/mpi.h" ] || fail "mpi.h is not installed"
[ -f "$libdir/pkgconfig/grove-mpi.pc" ] || fail "no grove-mpi.pc beside libgrove.so"
"$prefix/bin/mpicc" -show x.c | grep -q -- "-I$prefix/" ||
	fail "installed mpicc does not use the installed headers: $("$prefix/bin/mpicc" -show x.c)"
cp "$src/examples/mpi/ring.c" "$tmp/ring.c"
"$prefix/bin/mpicc" -O2 "$tmp/ring.c" -o "$tmp/ring" || fail "installed mpicc failed"
if ldd "$tmp/ring" | grep -q "$build"; then
	fail "a program built with the installed mpicc loads the build tree's library"
fi
out=$(timeout 60 "$prefix/bin/mpiexec" -n 3 "$tmp/ring") ||
	fail "installed mpiexec -n 3 failed"
[ "$out" = "token 9 after 3 laps of 3 ranks; sum of ranks 3" ] ||
	fail "installed mpiexec ran ring: '$out'"
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags grove-mpi |
	grep -q -- "-I" || fail "grove-mpi.pc gives no include flags"
echo "install OK"
	exit 0
}
export PKG_CONFIG_PATH=$libdir/pkgconfig
mkdir "$tmp/tool"
cd "$tmp/tool"
sanitize=()
if grep -q '^GROVE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
	sanitize=(-fsanitize=address,undefined)
fi
read -r -a cflags <<<"$(pkg-config --cflags grove)"
read -r -a libs <<<"$(pkg-config --libs grove)"
read -r -a deps <<<"$(pkg-config --libs libuv libsodium)"
cc -o tutorial_fe "$src/examples/tutorial_fe.c" "${cflags[@]}" "${libs[@]}" \
	-Wl,-rpath,"$libdir" "${sanitize[@]}"
cc -o tutorial_be "$src/examples/tutorial_be.c" "${cflags[@]}" "${libs[@]}" \
	-Wl,-rpath,"$libdir" "${sanitize[@]}"
cc -shared -fPIC -o filter_tutorial.so "$src/examples/filter_tutorial.c" \
	"${cflags[@]}"
cc -o static_fe "$src/examples/tutorial_fe.c" "${cflags[@]}" \
	-Wl,--whole-archive "$libdir/libgrove.a" -Wl,--no-whole-archive \
	"${deps[@]}" -lpthread -ldl -lm -lrt \
	-Wl,--dynamic-list="$(pkg-config --variable=dynamic_list grove)" \
	"${sanitize[@]}"
cp tutorial_be static_be
# Linked as documented, the static front-end offers a filter the whole API.
missing=$(comm -23 <(api "$libdir/libgrove.so") <(api static_fe))
[ -z "$missing" ] || fail "static_fe lacks public functions:" $missing

# Runs front-end $1 (with the environment given after it) and checks that
# every grove-commnode it started is the installed one.
check_commnode() {
	local fe=$1
	shift
	local cmd=("./$fe" --be "$tmp/tool/tutorial_be")
	if command -v strace >/dev/null; then
		cmd=(strace -f -qq -e trace=execve -o "$tmp/$fe.strace" "${cmd[@]}")
		# LeakSanitizer cannot run under ptrace.
		set -- "$@" ASAN_OPTIONS=detect_leaks=0
	fi
	env "$@" timeout 120 "${cmd[@]}" >"$tmp/$fe.out" 2>"$tmp/$fe.err" || {
		cat "$tmp/$fe.out" "$tmp/$fe.err" >&2
		fail "$fe built against the install failed"
	}
	grep -qx "done" "$tmp/$fe.out" || fail "$fe did not finish"
	grep -q "sum = 296" "$tmp/$fe.out" || fail "$fe: wrong sum"
	[ -f "$tmp/$fe.strace" ] || {
		echo "no strace: which grove-commnode $fe ran is not checked"
		return 0
	}
	local ran
	ran=$(sed -n 's/.*execve("\([^"]*grove-commnode\)".* = 0$/\1/p' \
		"$tmp/$fe.strace" | sort -u)
	[ -n "$ran" ] || fail "$fe started no grove-commnode"
	[ "$ran" = "$prefix/bin/grove-commnode" ] ||
		fail "$fe ran $ran, not $prefix/bin/grove-commnode"
}
# libgrove.so finds bin/ relative to its own directory.
check_commnode tutorial_fe
# A program linked with libgrove.a is not in the build tree either: it
# looks beside itself, in the configured prefix, then in PATH.
check_commnode static_fe PATH="$prefix/bin:$PATH"

# The installed plugin exports OTF2 for libgrove.so, and the installed
# grove (which carries Grove itself) finds it in its lib directory: with
# the plugin, a dump of a network that is not there fails for want of
# event spaces, not of the exporter.
if [ -e "$libdir/grove-otf2.so" ]; then
	GROVE_TRACE_DUMP="$tmp/otf2" GROVE_TRACE_FORMAT=otf2 \
		timeout 120 ./tutorial_fe >"$tmp/otf2.out" 2>&1 ||
		fail "tutorial_fe with an OTF2 dump failed: $(cat "$tmp/otf2.out")"
	[ -f "$tmp/otf2/traces.otf2" ] ||
		fail "libgrove.so wrote no OTF2 archive: $(cat "$tmp/otf2.out")"
	expect_status 1 trace dump --net "none$$" --format otf2 -o "$tmp/o2"
	grep -q "no event spaces" "$tmp/err" || {
		cat "$tmp/err" >&2
		fail "installed grove does not find the OTF2 plugin"
	}
fi
# Grove MPI: the installed wrappers use the installed headers and
# library (not the build tree's), mpiexec runs the installed grove, and
# grove-mpi.pc gives the same flags.
for w in mpicc mpicxx mpiexec mpirun; do
	[ -x "$prefix/bin/$w" ] || fail "$w is not installed in bin"
done
[ -f "$prefix/include/mpi.h" ] || fail "mpi.h is not installed"
[ -f "$libdir/pkgconfig/grove-mpi.pc" ] || fail "no grove-mpi.pc beside libgrove.so"
"$prefix/bin/mpicc" -show x.c | grep -q -- "-I$prefix/" ||
	fail "installed mpicc does not use the installed headers: $("$prefix/bin/mpicc" -show x.c)"
cp "$src/examples/mpi/ring.c" "$tmp/ring.c"
"$prefix/bin/mpicc" -O2 "$tmp/ring.c" -o "$tmp/ring" || fail "installed mpicc failed"
if ldd "$tmp/ring" | grep -q "$build"; then
	fail "a program built with the installed mpicc loads the build tree's library"
fi
out=$(timeout 60 "$prefix/bin/mpiexec" -n 3 "$tmp/ring") ||
	fail "installed mpiexec -n 3 failed"
[ "$out" = "token 9 after 3 laps of 3 ranks; sum of ranks 3" ] ||
	fail "installed mpiexec ran ring: '$out'"
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags grove-mpi |
	grep -q -- "-I" || fail "grove-mpi.pc gives no include flags"
echo "install OK"
