#!/usr/bin/env bash
# Grove MPI's transport as grove run --verbose reports it, and the
# fallback for large messages: with GROVE_MPI_CMA=0 (as when the kernel
# refuses process_vm_readv) the size and order tests still pass, the
# messages copied through the rings; the tuning variables reach the ranks;
# GROVE_MPI_STATS=1 is --stats; MPI_THREAD_MULTIPLE is refused aloud.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
run() { timeout 120 "$build/grove" run "$@"; }

run -n 2 --verbose "$build/mpitest_env" >"$tmp/v.out" 2>"$tmp/v.err" ||
	{ cat "$tmp/v.err"; fail "verbose run failed"; }
grep -q "large messages: single copy (process_vm_readv)" "$tmp/v.err" ||
	{ cat "$tmp/v.err"; fail "--verbose does not say single copy"; }

GROVE_MPI_CMA=0 run -n 2 --verbose "$build/mpitest_env" >"$tmp/c.out" 2>"$tmp/c.err" ||
	{ cat "$tmp/c.err"; fail "run with GROVE_MPI_CMA=0 failed"; }
grep -q "large messages: copied through the rings (GROVE_MPI_CMA=0)" "$tmp/c.err" ||
	{ cat "$tmp/c.err"; fail "--verbose does not name the fallback and why"; }

for n in 2 3 8; do
	for prog in p2p_sizes p2p_order; do
		GROVE_MPI_CMA=0 run -n "$n" "$build/mpitest_$prog" >"$tmp/f.out" 2>&1 ||
			{ cat "$tmp/f.out"; fail "$prog at $n ranks without CMA"; }
		grep -q "^OK $prog" "$tmp/f.out" || { cat "$tmp/f.out"; fail "$prog printed no OK"; }
	done
done

# A smaller eager limit moves the protocol boundary: the tests still pass.
GROVE_MPI_EAGER_LIMIT=256 run -n 3 --verbose "$build/mpitest_p2p_sizes" >"$tmp/e.out" 2>&1 ||
	{ cat "$tmp/e.out"; fail "p2p_sizes with a 256-byte eager limit"; }
grep -q "eager up to 256 B" "$tmp/e.out" || { cat "$tmp/e.out"; fail "eager limit not applied"; }

GROVE_MPI_STATS=1 run -n 2 "$build/mpitest_env" >"$tmp/s.out" 2>"$tmp/s.err" ||
	{ cat "$tmp/s.err"; fail "run with GROVE_MPI_STATS=1 failed"; }
grep -q "Comm Overhead" "$tmp/s.err" || { cat "$tmp/s.err"; fail "GROVE_MPI_STATS=1 printed no statistics"; }
# MPI_THREAD_MULTIPLE is refused with one clear message, not silently.
run -n 3 "$build/mpilaunch_thread_multiple" >"$tmp/t.out" 2>"$tmp/t.err" ||
	{ cat "$tmp/t.out" "$tmp/t.err"; fail "MPI_THREAD_MULTIPLE program failed"; }
[ "$(grep -c 'MPI_THREAD_MULTIPLE is not supported; provided MPI_THREAD_SERIALIZED' "$tmp/t.err")" = 1 ] ||
	{ cat "$tmp/t.err"; fail "MPI_THREAD_MULTIPLE refusal not said exactly once"; }
echo "transport: single copy and its fallback, tuning variables, GROVE_MPI_STATS"
