#!/bin/sh
# Builds and runs Grove's MPI conformance programs against another MPI
# library, at the rank counts in each program's first line.
#   tests/mpi/progs/run_peer.sh openmpi            # all programs
#   tests/mpi/progs/run_peer.sh mpich p2p_basic 2  # one program, 2 ranks
# Peers: openmpi (mpicc.openmpi / mpirun.openmpi), mpich (mpicc.mpich /
# mpirun.mpich), grove (build/mpicc / build/mpiexec, from the source tree).
# Binaries go to ${MT_OUT:-/tmp/grove-mpi-progs}/<peer>.
set -u
peer=${1:?usage: run_peer.sh openmpi|mpich|grove [program [ranks...]]}
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
case $peer in
openmpi) cc=mpicc.openmpi; run="mpirun.openmpi --allow-run-as-root --oversubscribe -n" ;;
mpich) cc=mpicc.mpich; run="mpirun.mpich -n" ;;
grove) cc=$top/build/mpicc; run="$top/build/mpiexec -n" ;;
*) echo "unknown peer $peer" >&2; exit 2 ;;
esac
out=${MT_OUT:-/tmp/grove-mpi-progs}/$peer
mkdir -p "$out"
if [ $# -gt 0 ]; then progs=$1; shift; else progs=$(cd "$here" && ls *.c | sed 's/\.c$//'); fi
fail=0
for p in $progs; do
    if ! $cc -std=c11 -Wall -Wextra -Werror -O2 -g "$here/$p.c" -o "$out/$p"; then
        echo "BUILD-FAIL $p"; fail=1; continue
    fi
    ranks=${*:-$(sed -n '1s/.*ranks=\([0-9,]*\).*/\1/p' "$here/$p.c" | tr , ' ')}
    for n in $ranks; do
        start=$(date +%s.%N)
        if timeout "${MT_TIMEOUT:-120}" $run "$n" "$out/$p" >"$out/$p.$n.log" 2>&1; then r=ok; else r=FAIL; fail=1; fi
        end=$(date +%s.%N)
        printf '%-5s %-8s %-20s n=%-2s %6.2fs\n' "$r" "$peer" "$p" "$n" "$(echo "$end - $start" | bc)"
        [ $r = FAIL ] && grep -m5 FAIL "$out/$p.$n.log"
    done
done
exit $fail
