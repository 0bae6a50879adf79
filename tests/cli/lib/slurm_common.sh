# Shared by the tests that run a single-node Slurm of their own
# (scripts/slurm-local.sh: tests/cli/mpi_slurm.sh, slurm_salloc.sh,
# slurm_attach.sh; sourced after common.sh, not run).  From here on the
# EXIT trap is slurm_cleanup: the Slurm goes on every exit, whatever
# happened, even while `up` is still starting it.
#   slurm, sdir             scripts/slurm-local.sh, the Slurm's directory
#   slurm_up                starts it and exports SLURM_CONF; where
#                           slurm-local.sh cannot run Slurm here (it exits
#                           77: not root, packages not installable) the
#                           test is skipped (77)
#   slurm_after_down        a test's own clean-up, run by slurm_cleanup
#                           after down when the test defines it
slurm="$2/scripts/slurm-local.sh"
sdir="$tmp/slurm"

# down cancels every job and stops the daemons; nothing up is fine.
slurm_cleanup() {
	bash "$slurm" down --dir "$sdir" >/dev/null 2>&1 || true
	if declare -F slurm_after_down >/dev/null; then
		slurm_after_down || true
	fi
	rm -rf "$tmp"
}
trap slurm_cleanup EXIT

slurm_up() {
	local rc=0
	bash "$slurm" up --dir "$sdir" >"$tmp/up.log" 2>&1 || rc=$?
	if [ "$rc" -eq 77 ]; then
		cat "$tmp/up.log" >&2
		exit 77
	elif [ "$rc" -ne 0 ]; then
		cat "$tmp/up.log" >&2
		fail "slurm-local.sh up exited $rc"
	fi
	export SLURM_CONF=$sdir/slurm.conf
}
