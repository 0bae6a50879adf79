#!/usr/bin/env bash
# Grove MPI programs started by Open MPI's mpirun (Debian's openmpi-bin),
# wired up through PMIx (src/mpi/boot_pmix.c): programs of tests/mpi/progs
# with 4 ranks must pass as under grove run; MPI_Abort (the code comes
# back, Grove names the rank), a rank killed by a signal and one that
# exits early end the job with nothing left behind.
# Skips (77) only when openmpi-bin or libpmix-dev cannot be installed.
# Arguments: $1 build directory, $2 source directory.
set -Eeuo pipefail
# A command that ends the test through set -e says which.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/launcher_common.sh"
probe="$build/mpilaunch_probe"
tag="ompitest$$"

if ! bash "$2/scripts/install-deps.sh" --launchers >"$tmp/deps.log" 2>&1; then
	cat "$tmp/deps.log" >&2
	echo "SKIP: cannot install openmpi-bin and libpmix-dev" >&2
	exit 77
fi
# Open MPI's own launcher, not the build tree's mpirun (grove run).
ompirun=$(command -v mpirun.openmpi || true)
[ -x "$ompirun" ] || fail "openmpi-bin is installed but mpirun.openmpi is not found"
mpirun=("$ompirun" --oversubscribe)
# Open MPI refuses root unless told; the tests may run as root.
[ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)

launcher=("${mpirun[@]}")

shm_snapshot "$tmp/shm.before"
# Event spaces of the ranks the failure cases killed.
cleanup() {
	shm_remove_new_since "$tmp/shm.before"
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- the start-up itself -------------------------------------------------
rc=0
timeout 60 "${mpirun[@]}" -n 4 "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" || rc=$?
if grep -q 'built without PMIx' "$tmp/err"; then
	cat "$tmp/err" >&2
	fail "this build has no PMIx: configure again now that libpmix-dev is installed"
fi
[ "$rc" -eq 0 ] && [ "$(sort "$tmp/out" | tr '\n' ,)" = "hello 0 of 4,hello 1 of 4,hello 2 of 4,hello 3 of 4," ] ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "probe hello under mpirun: exit $rc"; }
echo "ok: probe hello"

# ---- programs of tests/mpi/progs -----------------------------------------
run_progs 4 "${mpirun[@]}" -n 4
left=$(shm_new_since "$tmp/shm.before")
[ -z "$left" ] || fail "left in /dev/shm after jobs that finished: $left"

# ---- failures ------------------------------------------------------------
# mpirun with the probe (launch, no_ranks_left: lib/launcher_common.sh).
launch -n 4 "$probe" "$tag" abort 1 7
[ "$st" -eq 7 ] || { cat "$tmp/err" >&2; fail "MPI_Abort(7): mpirun exited $st"; }
grep -q '^grove-mpi: rank 1 called MPI_Abort with code 7$' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "MPI_Abort: no message naming rank 1 and code 7"; }
no_ranks_left abort
echo "ok: MPI_Abort ends the job with its code"

# (AddressSanitizer would catch the SIGSEGV in a sanitized build and exit 1.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" \
	launch -n 4 "$probe" "$tag" segv 2
[ "$st" -ne 0 ] || fail "segv: mpirun exited 0"
grep -q 'rank 2 .*exited on signal 11' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "segv: mpirun did not name rank 2"; }
no_ranks_left segv
echo "ok: a rank killed by SIGSEGV ends the job ($st)"

launch -n 4 "$probe" "$tag" exit 3 5
[ "$st" -eq 5 ] || { cat "$tmp/err" >&2; fail "exit 5: mpirun exited $st"; }
no_ranks_left exit
echo "ok: a rank exiting early ends the job ($st)"

# ---- ranks on two "hosts" (UTS namespaces): refused ------------------------
if unshare --uts true 2>/dev/null; then
	launch -n 2 bash -c \
		'exec unshare --uts sh -c "hostname fakehost$OMPI_COMM_WORLD_RANK && exec \"\$0\" \"\$@\"" "$0" "$@"' \
		"$probe" "$tag" hello
	[ "$st" -ne 0 ] || fail "two hosts: exited 0"
	grep -qE 'rank ([01]) runs on fakehost\1 and rank [01] on fakehost[01]: Grove MPI runs the ranks of a job on one host only .*run the ranks on one host \(mpirun --host <host>:<n>\)' "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "two hosts: no clear message"; }
	no_ranks_left twohosts
	echo "ok: ranks on two hosts are refused"
else
	echo "note: no UTS namespaces here; the two-host refusal is not checked"
fi
