# Shared by the launcher's tests (tests/cli/mpi_run*.sh; sourced after
# common.sh): the probe rank program, a tag that marks every process a
# test starts (the launcher, its watchdog and the ranks all carry it in
# their command line), a private TMPDIR for the job directories, and
#   launch ARGS...        grove run --verbose ARGS with a 60 s timeout;
#                         output in $tmp/out, $tmp/err, status in $st,
#                         job id in $jobid, wall time in $secs
#   check_clean [JOBID]   fail unless no tagged process, no event space
#                         of the job and no job directory is left
#   tagged_pids           the pids of the test's processes still alive
# Absolute: some tests run from another directory.
build=$(cd "$build" && pwd)
grove="$build/grove"
probe="$build/mpilaunch_probe"
[ -x "$probe" ] || fail "$probe is not built"
tag="mpirun-test-$$-$RANDOM"
export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"
st=0
jobid=""
secs=0

tagged_pids() {
	pgrep -f -- "$tag" || true
}

# Ends what a failed test left (by pid: only processes carrying this
# test's tag), then removes the scratch directory.  Launchers and ranks
# first: their watchdogs (which carry the tag too, being forks of the
# launcher) then remove the jobs' files before they go.
mpi_run_cleanup() {
	local p killed=""
	for p in $(tagged_pids); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = grove-run-wd ] && continue
		kill -9 "$p" 2>/dev/null && killed=1
	done
	[ -z "$killed" ] || sleep 0.5
	for p in $(tagged_pids); do
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap mpi_run_cleanup EXIT

launch() {
	local t0 t1
	st=0
	t0=$(date +%s.%N)
	timeout 60 "$grove" run --verbose "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/err" | head -1)
}

# Processes may take a moment to be reaped by whoever is their parent.
check_clean() {
	local id=${1:-$jobid} i left=""
	for i in $(seq 1 40); do
		left=$(tagged_pids)
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -n "$left" ]; then
		ps -o pid,ppid,stat,args -p $(echo $left | tr ' ' ',') >&2 || true
		fail "processes left: $left"
	fi
	if [ -n "$id" ] && ls /dev/shm/grove."$id".* >/dev/null 2>&1; then
		ls -l /dev/shm/grove."$id".* >&2
		fail "event spaces of job $id left in /dev/shm"
	fi
	if [ -n "$(ls -A "$TMPDIR")" ]; then
		ls -la "$TMPDIR" >&2
		fail "job directory left in \$TMPDIR"
	fi
}

# The lines grove run itself wrote on standard error (not --verbose's).
launcher_msgs() {
	grep '^grove run: ' "$tmp/err" | grep -v -e '^grove run: job ' \
	    -e ' ranks attached ' -e '^grove run: wire-up ' || true
}

expect() {
	local want=$1
	shift
	if [ "$st" -ne "$want" ]; then
		cat "$tmp/out" "$tmp/err" >&2
		fail "$* exited $st, wanted $want"
	fi
}
