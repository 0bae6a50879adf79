#!/usr/bin/env bash
# The compiler wrappers as build systems use them: -show and --showme
# output, CMake's own find_package(MPI) with MPI_C_COMPILER=build/mpicc,
# an autoconf configure with CC=build/mpicc CXX=build/mpicxx whose link
# checks and C++ program use the wrappers, and the programs they build
# run under build/mpiexec.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$(cd "$2" && pwd)
build=$(cd "$build" && pwd)
mpicc="$build/mpicc"
mpicxx="$build/mpicxx"
mpiexec="$build/mpiexec"
for w in "$mpicc" "$mpicxx" "$mpiexec" "$build/mpirun"; do
	[ -x "$w" ] || fail "$w is missing after the build"
done

# -show prints the command without running it; the compile-only forms
# print only the flags.
out=$("$mpicc" -show -O2 x.c -o x)
case $out in
*" -O2 x.c -o x "*"-lgrove-mpi"*) ;;
*) fail "mpicc -show printed '$out'" ;;
esac
"$mpicc" --showme:compile | grep -q -- "-I$src/include" ||
	fail "mpicc --showme:compile lacks the include directory"
"$mpicc" --showme:link | grep -q -- "-lgrove-mpi" ||
	fail "mpicc --showme:link lacks -lgrove-mpi"
"$mpicxx" -show x.cc | grep -q '^c++ ' || fail "mpicxx does not use c++"
out=$("$mpicc" -show -c x.c)
case $out in *-lgrove-mpi*) fail "mpicc -c links: '$out'" ;; esac
# Quoting survives: an argument with a space stays one argument.
printf '#include <mpi.h>\n#include <stdio.h>\nint main(void){puts(GREETING);return 0;}\n' >"$tmp/q.c"
"$mpicc" '-DGREETING="two words"' "$tmp/q.c" -o "$tmp/q"
[ "$("$tmp/q")" = "two words" ] || fail "an argument with a space was split"

# A program both build systems compile: rank sum over MPI_Allreduce.
cat >"$tmp/sum.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, size, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Finalize();
	return sum == size * (size - 1) / 2 ? 0 : 1;
}
C

# CMake's FindMPI, pointed at the wrapper.
if command -v cmake >/dev/null; then
	mkdir -p "$tmp/cm"
	cp "$tmp/sum.c" "$tmp/cm/"
	cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(sum C)
find_package(MPI REQUIRED COMPONENTS C)
message(STATUS "MPI_C_VERSION=${MPI_C_VERSION}")
add_executable(sum sum.c)
target_link_libraries(sum PRIVATE MPI::MPI_C)
CM
	# A sanitizer build's wrapper links the sanitizer runtimes, which
	# FindMPI leaves out of its link flags: the project adds them itself.
	san=()
	if "$mpicc" --showme:link | grep -q -- -fsanitize; then
		san=(-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
	fi
	cmake -S "$tmp/cm" -B "$tmp/cm/b" -DMPI_C_COMPILER="$mpicc" "${san[@]}" \
		>"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "cmake with find_package(MPI) failed"; }
	grep -q "MPI_C_VERSION=3.1" "$tmp/cm.log" ||
		{ cat "$tmp/cm.log"; fail "FindMPI did not find MPI 3.1"; }
	cmake --build "$tmp/cm/b" >"$tmp/cm.build" 2>&1 ||
		{ cat "$tmp/cm.build"; fail "the FindMPI project did not build"; }
	out=$(timeout 60 "$mpiexec" -n 3 "$tmp/cm/b/sum") || fail "FindMPI program failed"
	[ "$out" = "sum 3" ] || fail "FindMPI program printed '$out'"
else
	echo "cmake not found: FindMPI check skipped"
fi

# autoconf: AC_PROG_CC/AC_PROG_CXX take the wrappers, a link check finds
# MPI_Init without any -l, and a C++ program (linked by the C++ driver, as
# autotools projects with C++ sources do) runs.
if command -v autoconf >/dev/null; then
	mkdir -p "$tmp/ac"
	cp "$tmp/sum.c" "$tmp/ac/"
	cat >"$tmp/ac/hello.cc" <<'CXX'
#include <mpi.h>
#include <iostream>
#include <vector>
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	std::vector<int> all(4, -1);
	MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
	if (rank == 0)
		std::cout << "c++ " << all[0] << all[1] << std::endl;
	MPI_Finalize();
	return 0;
}
CXX
	cat >"$tmp/ac/configure.ac" <<'AC'
AC_INIT([sum], [1.0])
AC_PROG_CC
AC_PROG_CXX
AC_CHECK_FUNC([MPI_Init], [], [AC_MSG_ERROR([MPI_Init not found with CC=$CC])])
AC_LANG_PUSH([C++])
AC_CHECK_FUNC([MPI_Allgather], [], [AC_MSG_ERROR([MPI_Allgather not found with CXX=$CXX])])
AC_LANG_POP([C++])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
	cat >"$tmp/ac/Makefile.in" <<'MK'
CC = @CC@
CXX = @CXX@
all: sum hello
sum: sum.c
	$(CC) -o $@ sum.c
hello: hello.cc
	$(CXX) -o $@ hello.cc
MK
	(cd "$tmp/ac" && autoconf && ./configure CC="$mpicc" CXX="$mpicxx") \
		>"$tmp/ac.log" 2>&1 || { cat "$tmp/ac.log"; fail "configure with the wrappers failed"; }
	make -C "$tmp/ac" >"$tmp/ac.make" 2>&1 ||
		{ cat "$tmp/ac.make"; fail "make with the wrappers failed"; }
	out=$(timeout 60 "$mpiexec" -n 2 "$tmp/ac/sum") || fail "autoconf C program failed"
	[ "$out" = "sum 1" ] || fail "autoconf C program printed '$out'"
	out=$(timeout 60 "$mpiexec" -n 2 "$tmp/ac/hello") || fail "C++ program failed"
	[ "$out" = "c++ 01" ] || fail "C++ program printed '$out'"
else
	fail "autoconf is not installed (scripts/install-deps.sh installs it)"
fi
echo "wrappers: -show, FindMPI and autoconf builds all work"
