#!/usr/bin/env bash
# grove run without -n inside a Slurm allocation, as its environment says
# (no Slurm needed: the variables salloc sets are set here by hand):
# the task count on this one host; refusals, each saying what to do, for
# --bcs on several hosts, another host, no task count and a host list
# that does not parse; -n always wins.  (A real salloc: tests/cli/slurm_salloc.sh.)
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
probe="$build/mpilaunch_probe"
tag="runslurm$$"
me=$(hostname)
# Nothing of a real allocation around this test.
for v in $(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

hellos() {
	sort "$tmp/out" | tr '\n' ,
}

SLURM_JOB_ID=41 SLURM_JOB_NODELIST=$me SLURM_NTASKS=3 expect_status 0 run "$probe" "$tag" hello
[ "$(hellos)" = "hello 0 of 3,hello 1 of 3,hello 2 of 3," ] ||
	{ cat "$tmp/out" >&2; fail "3 tasks on this host: wrong ranks"; }
# Slurm's short node name for this host, and the older SLURM_NPROCS.
SLURM_JOB_ID=41 SLURM_JOB_NODELIST=${me%%.*} SLURM_NPROCS=2 expect_status 0 run "$probe" "$tag" hello
[ "$(hellos)" = "hello 0 of 2,hello 1 of 2," ] || fail "SLURM_NPROCS=2: wrong ranks"
# -n wins over the allocation.
SLURM_JOB_ID=41 SLURM_JOB_NODELIST=$me SLURM_NTASKS=3 expect_status 0 run -n 1 "$probe" "$tag" hello
[ "$(hellos)" = "hello 0 of 1," ] || fail "-n 1 in an allocation of 3: wrong ranks"
echo "ok: the allocation's task count on this host"

refused() {
	local want=$1
	shift
	env "$@" "$grove" run "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" && st=0 || st=$?
	[ "$st" -eq 2 ] && grep -qF "$want" "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$*: exit $st, wanted 2 and '$want'"; }
	[ ! -s "$tmp/out" ] || fail "$*: ranks ran"
}
# An allocation of several hosts places the ranks on them as --hosts
# would (run on the test bed by mpi_hosts_tcp.sh); BCS mode cannot.
env SLURM_JOB_ID=41 "SLURM_JOB_NODELIST=h[1-2],x7" SLURM_NTASKS=3 \
	"$grove" run --bcs "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" && st=0 || st=$?
[ "$st" -eq 2 ] && grep -qF "grove run: --bcs runs on one host only; this Slurm allocation has several" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "--bcs in an allocation of 3 hosts: exit $st"; }
refused "grove run: Slurm job 41 runs on not-$me, this is $me: start grove run there" \
	SLURM_JOB_ID=41 "SLURM_JOB_NODELIST=not-$me" SLURM_NTASKS=3
refused "grove run: Slurm job 41 has no task count (SLURM_NTASKS): allocate with -n N, or give -n N" \
	SLURM_JOB_ID=41 "SLURM_JOB_NODELIST=$me"
refused "grove run: SLURM_NTASKS='0' is not a number of ranks in 1..4096" \
	SLURM_JOB_ID=41 "SLURM_JOB_NODELIST=$me" SLURM_NTASKS=0
refused "grove run: SLURM_JOB_NODELIST='h[1-3': '[' at character 2 is not closed" \
	SLURM_JOB_ID=41 "SLURM_JOB_NODELIST=h[1-3" SLURM_NTASKS=3
refused "grove run: in Slurm job 41 but SLURM_JOB_NODELIST is not set" \
	SLURM_JOB_ID=41 SLURM_NTASKS=3
# Outside an allocation -n is still needed.
refused "grove run: the number of ranks is missing (-n N)"
echo "ok: refusals name the problem"
