# Shared by the tests that start Grove MPI programs with another launcher
# than grove run (tests/cli/mpi_slurm.sh, tests/cli/mpi_ompi.sh; sourced
# after common.sh, not run).
#   LAUNCHER_PROGS          programs of tests/mpi/progs they run
#   run_progs N CMD...      runs each program as `CMD... PROGRAM` (N ranks):
#                           it must exit 0 and print "OK <name>" once, as
#                           its ctest entry under grove run checks
#   shm_snapshot FILE       the launcher-started jobs' names in /dev/shm
#   shm_new_since FILE      names made since the snapshot (one a line)
#   shm_remove_new_since FILE  removes them (for the EXIT trap: a killed
#                           rank cannot remove its own)
#   launcher                the launcher's command (an array: srun, mpirun
#                           with its options)
#   launch ARGS...          runs `launcher ARGS` (at most 60 s; its end
#                           is checked: a launcher that does not end
#                           fails the test); output in $tmp/out and
#                           $tmp/err, status in $st
#   no_ranks_left WHAT      fails unless, within 5 s, no rank of the
#                           probe with this test's $tag runs and no job
#                           segment is left

# A sanitizer build's ranks: libpmix's own leftovers at exit are not
# Grove's (lsan_launchers.supp).  The launchers pass the environment on.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan_launchers.supp"

LAUNCHER_PROGS="p2p_basic p2p_sizes p2p_requests coll_basic coll_nonblocking
ops comm_groups datatypes_derived topology env"

run_progs() {
	local n=$1 p rc
	shift
	for p in $LAUNCHER_PROGS; do
		rc=0
		timeout 120 "$@" "$build/mpitest_$p" >"$tmp/prog.out" \
			2>"$tmp/prog.err" || rc=$?
		if [ "$rc" -ne 0 ] ||
			[ "$(grep -c "^OK $p\$" "$tmp/prog.out")" -ne 1 ]; then
			cat "$tmp/prog.out" "$tmp/prog.err" >&2
			fail "$p with $n ranks under '$*': exit $rc, wanted 0 and one 'OK $p'"
		fi
		echo "ok: $p ($n ranks)"
	done
}

# The job segments (grove-mpi.*) and event spaces (grove.pmi2-*,
# grove.pmix-*) of jobs started by srun or mpirun.
launched_shm() {
	ls /dev/shm 2>/dev/null | grep -E '^(grove-mpi\.|grove\.pmi2-|grove\.pmix-)' || true
}
shm_snapshot() {
	launched_shm | sort >"$1"
}
shm_new_since() {
	launched_shm | sort | comm -13 "$1" -
}
shm_remove_new_since() {
	local f
	for f in $(shm_new_since "$1" 2>/dev/null); do
		rm -f "/dev/shm/$f"
	done
}

launcher=()
st=0
launch() {
	st=0
	timeout 60 "${launcher[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
	[ "$st" -ne 124 ] || { cat "$tmp/err" >&2; fail "${launcher[*]} $* did not end"; }
}

no_ranks_left() {
	local i
	for i in $(seq 50); do
		pgrep -f "mpilaunch_probe $tag" >/dev/null || break
		sleep 0.1
	done
	! pgrep -af "mpilaunch_probe $tag" >&2 || fail "$1: ranks still run"
	! ls /dev/shm | grep -q '^grove-mpi\.' ||
		{ ls /dev/shm | grep '^grove-mpi\.' >&2; fail "$1: job segment left"; }
}
