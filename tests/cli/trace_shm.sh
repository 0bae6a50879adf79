#!/usr/bin/env bash
# When /dev/shm cannot hold event spaces, the commands say so and why.
#   * grove trace sample with too few descriptors for its pipes says so;
#   * grove trace sample under a file size limit (ulimit -f) below the
#     size of an event space: each process names the event space it could
#     not make and the reason, the sample fails as such (not as "process
#     start failed") and leaves no event space behind;
#   * the same with a /dev/shm too small for the sample (64 KiB): the
#     processes that made theirs do not leave them there;
#   * GROVE_TRACE_DUMP of a network whose CPs and back-ends find /dev/shm
#     full:
#     the front-end says on stderr, without GROVE_LOG, which processes
#     have no event space and how many threads found no ring;
#   * grove trace list, dump and clean with /dev/shm missing, or not
#     readable by the user: the reason, not just "cannot list".
# The first part runs as any user.  The others need a /dev/shm of their
# own (a mount namespace) and a second user: as another user than root
# the test says so and passes without them.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

net="shm$$x$RANDOM"
cleanup() {
	rm -f "/dev/shm/grove.$net."*
	rm -rf "$tmp"
}
trap cleanup EXIT

got=0
(ulimit -f 10000 && exec timeout 120 "$grove" trace sample --net "$net" \
	--backends 2) >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" -eq 1 ] || fail "sample under ulimit -f exited $got: $(cat "$tmp/err")"
for seg in fe.0 cp.0 be.0 be.1; do
	grep -q "grove trace sample: cannot create event space /dev/shm/grove.$net.$seg: File too large" \
		"$tmp/err" || fail "sample did not name $seg: $(cat "$tmp/err")"
done
grep -q "process start failed" "$tmp/err" &&
	fail "sample blamed the start of a process: $(cat "$tmp/err")"
ls /dev/shm | grep -q "^grove\.$net\." && fail "sample left event spaces"

# Too few descriptors for the sample's pipes: the reason, not silence.
got=0
(ulimit -n 20 && exec timeout 120 "$grove" trace sample --net "$net" \
	--backends 32) >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" -eq 1 ] || fail "sample under ulimit -n 20 exited $got"
grep -q "grove trace sample: cannot make a pipe: Too many open files" \
	"$tmp/err" || fail "sample under ulimit -n 20 said: $(cat "$tmp/err")"
ls /dev/shm | grep -q "^grove\.$net\." && fail "sample left event spaces"

if [ "$(id -u)" -ne 0 ]; then
	echo "skipped the rest: a /dev/shm of the test's own needs root"
	exit 0
fi
if ! unshare -m true 2>/dev/null; then
	echo "skipped the rest: no mount namespace (unshare -m) here"
	exit 0
fi

# inns SIZE SCRIPT: runs SCRIPT (bash) in a mount namespace of its own,
# /dev/shm a tmpfs of SIZE there; output in $tmp/out and $tmp/err; its
# exit status.
inns() {
	local size=$1 got=0
	shift
	timeout 120 unshare -m bash -c "mount --make-rprivate / &&
		mount -t tmpfs -o size=$size tmpfs /dev/shm && $1" \
		>"$tmp/out" 2>"$tmp/err" || got=$?
	return "$got"
}

# A 64 KiB /dev/shm holds three event spaces as they start (a header and
# the first registry pages each) and no ring.
got=0
inns 64k "'$grove' trace sample --net $net --backends 4; echo rc=\$?;
	ls /dev/shm" || got=$?
[ "$got" -eq 0 ] || fail "namespace: $(cat "$tmp/err")"
grep -q "^rc=1$" "$tmp/out" || fail "sample in 64 KiB: $(cat "$tmp/out" "$tmp/err")"
grep -qE "grove trace sample: cannot create event space /dev/shm/grove\.$net\.(fe|cp|be)\.[0-9]+: No space left on device" \
	"$tmp/err" || fail "sample in 64 KiB gave no reason: $(cat "$tmp/err")"
grep -q "process start failed" "$tmp/err" &&
	fail "sample in 64 KiB blamed the start of a process: $(cat "$tmp/err")"
grep -q "^grove\." "$tmp/out" && fail "sample left event spaces: $(cat "$tmp/out")"

# The exit-time collection of a network whose CPs and back-ends find no
# room: the trace lacks them, and the front-end says so whatever GROVE_LOG
# is.  24 KiB hold the front-end's event space as it starts, which is
# made before any other process starts, and no ring: which of the others
# would find room in more is a race.
got=0
inns 24k "GROVE_TRACE_DUMP='$tmp/t.json' '$grove' demo --backends 4 \
	--topology kary:2; echo rc=\$?; ls /dev/shm" || got=$?
[ "$got" -eq 0 ] || fail "namespace: $(cat "$tmp/err")"
grep -q "^rc=0$" "$tmp/out" || fail "demo in 24 KiB: $(cat "$tmp/out" "$tmp/err")"
line=$(grep "is incomplete" "$tmp/err" || true)
[ "$(printf '%s\n' "$line" | grep -c .)" -eq 1 ] ||
	fail "demo in 24 KiB: not one line: $(cat "$tmp/err")"
case "$line" in
*"no event space of cp 1,4; be 0-3 ("*) ;;
*) fail "demo in 24 KiB did not name cp 1,4 and be 0-3: $line" ;;
esac
printf '%s\n' "$line" | grep -qE "; [0-9]+ thread\(s\) found no ring" ||
	fail "demo in 24 KiB did not count threads without a ring: $line"
grep -q '"be 0"' "$tmp/t.json" && fail "the trace has be 0 after all"
grep -q "thread(s) found no ring" "$tmp/t.json" ||
	fail "the trace's process labels do not count threads without a ring"
grep -q "^grove\." "$tmp/out" && fail "demo left event spaces: $(cat "$tmp/out")"

# /dev/shm missing (a /dev of the namespace's own without it), and not
# readable by the user (another user in a 0700 /dev/shm of root's).
for how in missing unreadable; do
	if [ "$how" = missing ]; then
		setup="mount -t tmpfs tmpfs /dev"
		as=""
		why="No such file or directory"
	else
		setup="chmod 0700 /dev/shm"
		as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		why="Permission denied"
		command -v setpriv >/dev/null ||
			{ echo "skipped unreadable: no setpriv"; continue; }
	fi
	for sub in "list" "dump" "clean" "stats"; do
		got=0
		inns 64k "$setup && $as '$grove' trace $sub; echo rc=\$?" || got=$?
		[ "$got" -eq 0 ] || fail "namespace: $(cat "$tmp/err")"
		grep -q "^rc=1$" "$tmp/out" ||
			fail "trace $sub, /dev/shm $how: $(cat "$tmp/out" "$tmp/err")"
		grep -q "grove trace: cannot list /dev/shm: $why" "$tmp/err" ||
			fail "trace $sub, /dev/shm $how: $(cat "$tmp/err")"
	done
	got=0
	inns 64k "$setup && $as '$grove' trace dump --net $net; echo rc=\$?" ||
		got=$?
	grep -q "cannot read the event spaces in /dev/shm: $why" "$tmp/err" ||
		fail "trace dump --net, /dev/shm $how: $(cat "$tmp/err")"
done
echo "trace with /dev/shm full, missing or unreadable OK"
