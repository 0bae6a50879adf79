#!/usr/bin/env bash
# Grove MPI programs started by Slurm: a single-node Slurm of the test's
# own (scripts/slurm-local.sh) runs `srun -n 4 --mpi=pmi2` with programs
# of tests/mpi/progs, which wire up through PMI-2 (src/mpi/boot*.c) and
# must pass as under grove run (two of them also with --mpi=pmix).  Then the ways it goes wrong: MPI_Abort,
# a rank killed by a signal, a rank that exits early (each ends the whole
# step, with Grove's message for MPI_Abort, and leaves no job segment
# behind), srun without --mpi=pmi2, PMI-2 library missing, ranks on two
# "hosts" (UTS namespaces: refused, naming both).
# Skips (77) only when Slurm cannot be installed or run here.
# Arguments: $1 build directory, $2 source directory.
set -Eeuo pipefail
# A command that ends the test through set -e says which.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/launcher_common.sh"
. "$(dirname "$0")/lib/slurm_common.sh"
probe="$build/mpilaunch_probe"
tag="slurmtest$$"
launcher=(srun)
shm_snapshot "$tmp/shm.before"
# Event spaces of the ranks the failure cases killed.
slurm_after_down() {
	shm_remove_new_since "$tmp/shm.before"
}
slurm_up

# ---- programs of tests/mpi/progs -----------------------------------------
run_progs 4 srun -n 4 --mpi=pmi2
# Slurm's PMIx plugin works too (src/mpi/boot_pmix.c).
LAUNCHER_PROGS="p2p_basic coll_basic" run_progs 4 srun -n 4 --mpi=pmix
# Every rank sees the launcher's rank and size, and one host.
timeout 60 srun -n 4 --mpi=pmi2 "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "probe hello"; }
[ "$(sort "$tmp/out" | tr '\n' ,)" = "hello 0 of 4,hello 1 of 4,hello 2 of 4,hello 3 of 4," ] ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "probe hello: wrong ranks"; }
echo "ok: probe hello"

# Nothing of those jobs is left in /dev/shm.
left=$(shm_new_since "$tmp/shm.before")
[ -z "$left" ] || fail "left in /dev/shm after jobs that finished: $left"

# ---- failures ------------------------------------------------------------
# srun with the probe (launch, no_ranks_left: lib/launcher_common.sh).
launch -n 4 --mpi=pmi2 "$probe" "$tag" abort 1 7
[ "$st" -ne 0 ] || fail "MPI_Abort: srun exited 0"
grep -q '^grove-mpi: rank 1 called MPI_Abort with code 7$' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "MPI_Abort: no message naming rank 1 and code 7"; }
no_ranks_left abort
echo "ok: MPI_Abort ends the step ($st)"

# (AddressSanitizer would catch the SIGSEGV in a sanitized build and exit 1.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" \
	launch -n 4 --mpi=pmi2 "$probe" "$tag" segv 2
[ "$st" -ne 0 ] || fail "segv: srun exited 0"
grep -q 'task 2: Segmentation fault' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "segv: srun did not name task 2"; }
no_ranks_left segv
echo "ok: a rank killed by SIGSEGV ends the step ($st)"

launch -n 4 --mpi=pmi2 "$probe" "$tag" exit 3 5
[ "$st" -ne 0 ] || fail "exit 5: srun exited 0"
grep -q 'task 3: Exited with exit code 5' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "exit 5: srun did not name task 3"; }
no_ranks_left exit
echo "ok: a rank exiting early ends the step ($st)"

# ---- refused start-ups ---------------------------------------------------
launch -n 2 "$probe" "$tag" hello
[ "$st" -ne 0 ] || fail "srun without --mpi=pmi2 exited 0"
grep -q 'started by srun as one of 2 tasks without PMI-2: run srun --mpi=pmi2' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "srun without --mpi=pmi2: no clear message"; }
echo "ok: srun without PMI-2 is refused"

GROVE_MPI_PMI2_LIB=libgrove-no-such-pmi2.so.0 launch -n 2 --mpi=pmi2 "$probe" "$tag" hello
[ "$st" -ne 0 ] || fail "missing PMI-2 library: exited 0"
grep -q 'started with PMI-2 .* but libgrove-no-such-pmi2.so.0 cannot be loaded' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "missing PMI-2 library: no clear message"; }
echo "ok: a missing PMI-2 library is named"

if unshare --uts true 2>/dev/null; then
	launch -n 2 --mpi=pmi2 bash -c \
		'exec unshare --uts sh -c "hostname fakehost$SLURM_PROCID && exec \"\$0\" \"\$@\"" "$0" "$@"' \
		"$probe" "$tag" hello
	[ "$st" -ne 0 ] || fail "two hosts: exited 0"
	# Whichever rank says it first; the step then ends the other.
	grep -qE 'rank ([01]) runs on fakehost\1 and rank [01] on fakehost[01]: Grove MPI runs the ranks of a job on one host only' "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "two hosts: no clear message"; }
	no_ranks_left twohosts
	echo "ok: ranks on two hosts are refused"
else
	echo "note: no UTS namespaces here; the two-host refusal is not checked"
fi

# ---- slurm-local.sh down: everything gone, and again is fine ---------------
pids=$(cat "$sdir"/munged.pid "$sdir"/slurmctld.pid "$sdir"/slurmd.pid)
bash "$slurm" down --dir "$sdir" || fail "slurm-local.sh down failed"
for p in $pids; do
	! kill -0 "$p" 2>/dev/null || fail "daemon $p still runs after down"
done
[ ! -e "$sdir" ] || fail "$sdir is still there after down"
bash "$slurm" down --dir "$sdir" || fail "a second slurm-local.sh down failed"
echo "ok: slurm-local.sh down stops the daemons and is idempotent"

# ---- an up that fails half-way leaves nothing -----------------------------
# A slurmd that cannot start, after munged and slurmctld did.
mkdir -p "$tmp/shim"
printf '#!/bin/sh\necho "slurmd: made to fail by the test" >&2\nexit 1\n' >"$tmp/shim/slurmd"
chmod +x "$tmp/shim/slurmd"
st=0
PATH=$tmp/shim:$PATH bash "$slurm" up --dir "$tmp/failup" >"$tmp/failup.log" 2>&1 || st=$?
[ "$st" -eq 1 ] && grep -q 'slurmd did not start' "$tmp/failup.log" ||
	{ cat "$tmp/failup.log" >&2; fail "up with a failing slurmd: exit $st"; }
sleep 0.5
! pgrep -af -- "$tmp/failup" >&2 || fail "a failed up left daemons running"
[ ! -e "$tmp/failup" ] || fail "a failed up left $tmp/failup"
bash "$slurm" down --dir "$tmp/failup" || fail "down after a failed up failed"
echo "ok: a failed up tears down what it started"
