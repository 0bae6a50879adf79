#!/usr/bin/env bash
# kill -9 of grove run: the ranks die with it (their parent-death
# signal), and its watchdog removes the job's directory (connection
# file), the ranks' event spaces and the launcher's own, then exits:
# nothing outlives the job.  Once while the ranks wait in a barrier,
# once in the middle of the start of 64 ranks (wire-up).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

# The job id, from the environment of a rank of launcher $1.
job_of() {
	local r id
	for r in $(pgrep -P "$1"); do
		id=$(tr '\0' '\n' <"/proc/$r/environ" 2>/dev/null |
		    sed -n 's/^GROVE_MPI_JOBID=//p')
		[ -n "$id" ] && { echo "$id"; return 0; }
	done
	return 1
}

# ---- ranks waiting in MPI_Barrier -------------------------------------------
set -m
"$grove" run --verbose -n 4 "$probe" "$tag" hang >"$tmp/out" 2>"$tmp/err" &
gp=$!
for i in $(seq 1 100); do
	[ "$(grep -c waiting "$tmp/out" || true)" -eq 4 ] && break
	sleep 0.05
done
[ "$(grep -c waiting "$tmp/out")" -eq 4 ] || fail "the ranks did not start"
jobid=$(job_of "$gp")
[ -n "$jobid" ] || fail "no job id in the ranks' environment"
ls /dev/shm/grove."$jobid".mpi.* >/dev/null 2>&1 || fail "no event space of the ranks while they run"
[ -e "$TMPDIR/grove-run.$jobid/connect" ] || fail "no connection file while the job runs"
[ "$(stat -c %a "$TMPDIR/grove-run.$jobid")" = 700 ] || fail "the job directory is not private"
[ -e "/dev/shm/grove.$jobid.run.0" ] || fail "no event space of the launcher"
kill -9 "$gp"
wait "$gp" || true
check_clean

# ---- in the middle of a start ----------------------------------------------
# The job's directory appears before the network and the ranks: killed
# that long after it, the launcher is creating the network, forking the
# ranks or in their wire-up.
for delay in 0 0.01 0.03 0.06; do
	"$grove" run -n 64 "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" &
	gp=$!
	jobid=""
	for i in $(seq 1 2000); do
		d=$(ls "$TMPDIR" 2>/dev/null | head -1)
		[ -n "$d" ] && { jobid=${d#grove-run.}; break; }
		kill -0 "$gp" 2>/dev/null || break
	done
	sleep "$delay"
	kill -9 "$gp" 2>/dev/null || echo "note: the job ended before the kill ($delay s)"
	wait "$gp" || true
	[ -n "$jobid" ] || fail "no job directory seen"
	check_clean
done
set +m

# ---- after a normal end: the launcher removed everything itself ------------
launch -n 2 "$probe" "$tag" hello
expect 0 "hello"
check_clean
echo ok
