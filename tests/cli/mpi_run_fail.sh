#!/usr/bin/env bash
# grove run when ranks fail: a rank killed by a signal, one that exits
# non-zero or without MPI_Finalize, MPI_Abort; --timeout; SIGINT and
# SIGTERM to the launcher (and Ctrl-C to its whole process group).  Each
# ends the job within about a second with one message naming the rank
# and its pid, the right exit status, and nothing left behind.  A rank
# that computes longer than the tree's silence limit is not lost.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

# One message from the launcher, matching the pattern.
one_msg() {
	local n
	n=$(launcher_msgs | wc -l)
	[ "$n" -eq 1 ] && launcher_msgs | grep -qE "$1" ||
		{ cat "$tmp/err" >&2; fail "wanted one message like '$1', got $n"; }
}
# The others wait in MPI_Barrier for the one that failed: the job must
# still end quickly.
quick() {
	awk -v s="$secs" 'BEGIN { exit !(s < 3.0) }' ||
		fail "$1: the job took ${secs}s to end"
}

# ---- a rank killed by a signal: 128 + N -----------------------------------
# (AddressSanitizer would catch the SIGSEGV in a sanitized build and exit 1.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" \
    launch -n 4 "$probe" "$tag" segv 2
expect 139 "rank 2 segv"
one_msg '^grove run: rank 2 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job$'
quick segv
check_clean

# ---- MPI_Abort: the code, naming the rank --------------------------------
launch -n 4 "$probe" "$tag" abort 1 7
expect 7 "MPI_Abort(7) on rank 1"
one_msg '^grove run: rank 1 \(pid [0-9]+\) called MPI_Abort with code 7; ending the job$'
quick abort
check_clean

# ---- non-zero exit before MPI_Finalize ------------------------------------
launch -n 4 "$probe" "$tag" exit 3 5
expect 5 "rank 3 exit 5"
one_msg '^grove run: rank 3 \(pid [0-9]+\) exited with status 5 before MPI_Finalize; ending the job$'
quick exit5
check_clean

# ---- exit 0 without MPI_Finalize ------------------------------------------
launch -n 3 "$probe" "$tag" exit 0 0
expect 1 "rank 0 exit 0 without MPI_Finalize"
one_msg '^grove run: rank 0 \(pid [0-9]+\) exited with status 0 without calling MPI_Finalize; ending the job$'
quick exit0
check_clean

# ---- --timeout ------------------------------------------------------------
launch -n 3 --timeout 1 "$probe" "$tag" hang
expect 124 "--timeout 1"
one_msg '^grove run: timed out after 1 s; ending the job$'
awk -v s="$secs" 'BEGIN { exit !(s >= 1.0 && s < 3.5) }' || fail "--timeout 1 took ${secs}s"
check_clean

# ---- signals to the launcher ---------------------------------------------
# Job control on: a background job of a script would otherwise start with
# SIGINT ignored, and each gets its own process group (a terminal's
# foreground group stands in for it below).
set -m
for sig in TERM INT HUP; do
	timeout 60 "$grove" run --verbose -n 4 "$probe" "$tag" hang >"$tmp/out" 2>"$tmp/err" &
	tp=$!
	for i in $(seq 1 100); do
		[ "$(grep -c waiting "$tmp/out" || true)" -eq 4 ] && break
		sleep 0.05
	done
	[ "$(grep -c waiting "$tmp/out")" -eq 4 ] || fail "SIG$sig: the ranks did not start"
	gp=$(pgrep -P "$tp" -x grove)
	t0=$(date +%s.%N)
	kill -"$sig" "$gp"
	st=0
	wait "$tp" || st=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	want=$((128 + $(kill -l "$sig")))
	expect "$want" "SIG$sig to grove run"
	one_msg "^grove run: got SIG$sig; ending the job\$"
	quick "SIG$sig"
	jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/err" | head -1)
	check_clean
done
# Ctrl-C at a terminal: SIGINT to the launcher and every rank at once.
timeout 60 "$grove" run --verbose -n 4 "$probe" "$tag" hang >"$tmp/out" 2>"$tmp/err" &
tp=$!
for i in $(seq 1 100); do
	[ "$(grep -c waiting "$tmp/out" || true)" -eq 4 ] && break
	sleep 0.05
done
kill -INT -- -"$tp"  # timeout's group: timeout, grove run and the ranks
st=0
wait "$tp" || st=$?
# timeout passes the launcher's status on, or dies of SIGINT itself.
[ "$st" -eq 130 ] || fail "Ctrl-C: status $st"
jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/err" | head -1)
check_clean
set +m

# ---- a rank that computes past the tree's silence limit is not lost ------
# Heartbeats are 1 s and a silent communication process is lost after 5;
# rank 1 makes no call for 7 s, then all meet in MPI_Barrier.
launch -n 3 "$probe" "$tag" sleep 1 7
expect 0 "a rank computing for 7 s"
[ "$(grep -c ' done$' "$tmp/out")" -eq 3 ] || { cat "$tmp/out" >&2; fail "not every rank done"; }
[ -z "$(launcher_msgs)" ] || fail "messages: $(launcher_msgs)"
check_clean
echo ok
