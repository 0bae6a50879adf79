#!/usr/bin/env bash
# The MPI tutorial (docs/tutorial-mpi.md): its program is examples/mpi/
# ring.c, its commands build and run it with the wrappers, and the output
# it shows is the output the program prints (at 4 ranks, and at 8 on any
# machine), with --stats printing the statistics table.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$(cd "$2" && pwd)
build=$(cd "$build" && pwd)
page="$src/docs/tutorial-mpi.md"

# The listing between "```c" and "```" is the example, byte for byte.
awk '/^```c$/ {on=1; next} /^```$/ {on=0} on' "$page" >"$tmp/listed.c"
diff -u "$src/examples/mpi/ring.c" "$tmp/listed.c" ||
	fail "docs/tutorial-mpi.md lists other code than examples/mpi/ring.c"

(cd "$tmp" && "$build/mpicc" -O2 "$src/examples/mpi/ring.c" -o ring) ||
	fail "build/mpicc could not build the tutorial's program"
expected=$(grep -A1 '^```$' "$page" | grep '^token ' | head -1)
[ -n "$expected" ] || fail "the tutorial shows no output line"
out=$(cd "$tmp" && timeout 60 "$build/mpiexec" -n 4 ./ring) ||
	fail "mpiexec -n 4 ./ring failed"
[ "$out" = "$expected" ] || fail "the program printed '$out', the tutorial shows '$expected'"
out=$(cd "$tmp" && timeout 60 "$build/mpiexec" -n 8 ./ring) ||
	fail "mpiexec -n 8 ./ring failed"
[ "$out" = "token 24 after 3 laps of 8 ranks; sum of ranks 28" ] ||
	fail "8 ranks printed '$out'"
out=$(cd "$tmp" && timeout 60 ./ring) || fail "./ring without a launcher failed"
[ "$out" = "token 3 after 3 laps of 1 ranks; sum of ranks 0" ] ||
	fail "the singleton printed '$out'"
(cd "$tmp" && timeout 60 "$build/mpiexec" -n 4 --stats ./ring) >"$tmp/stats" 2>&1 ||
	fail "mpiexec --stats failed"
grep -q "MPI_Allreduce" "$tmp/stats" || { cat "$tmp/stats"; fail "--stats shows no MPI_Allreduce row"; }
echo "the MPI tutorial's program, commands and output agree"
