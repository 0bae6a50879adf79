#!/usr/bin/env bash
# Event spaces are per user.  A segment's name says nothing about who made
# it: the network id is not secret and /dev/shm is every local user's.  A
# file named like a segment of the network but owned by another user is
# left out by list, dump, stats and clean (each names it on stderr, once),
# never removed, not even by root; and a process that would write a
# segment of that name leaves its tracing off rather than take the file
# over.  Another owner can only be made by root (chown): as any other user
# the test says so and passes without checking.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

net="own$$x$RANDOM"
net2="own2$$x$RANDOM"
net3="own3$$x$RANDOM"
cleanup() {
	"$grove" trace clean --net "$net" --force >/dev/null 2>&1 || true
	"$grove" trace clean --net "$net2" --force >/dev/null 2>&1 || true
	"$grove" trace clean --net "$net3" --force >/dev/null 2>&1 || true
	rm -f "/dev/shm/grove.$net."* "/dev/shm/grove.$net2."* \
		"/dev/shm/grove.$net3."*
	rm -rf "$tmp"
}
trap cleanup EXIT

# Any user: a FIFO under a segment's name (anyone can make one) is no
# event space.  Opening it would wait for a writer: a process whose
# segment name it takes goes on without tracing, and the readers pass it
# by, none of them blocked.
mkfifo "/dev/shm/grove.$net3.be.1"
got=0
timeout 60 "$grove" trace sample --net "$net3" --backends 2 \
	>"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" -eq 1 ] || fail "sample beside a FIFO exited $got: $(cat "$tmp/err")"
grep -q "grove.$net3.be.1 already exists and is not a regular file" \
	"$tmp/err" || fail "sample beside a FIFO: $(cat "$tmp/err")"
for sub in "list" "dump --net $net3 --format text" "stats --net $net3" \
	"clean --net $net3 --force"; do
	got=0
	timeout 60 "$grove" trace $sub >"$tmp/out" 2>"$tmp/err" || got=$?
	[ "$got" -ne 124 ] || fail "trace $sub blocked on a FIFO"
done
[ -p "/dev/shm/grove.$net3.be.1" ] || fail "clean removed the FIFO"
rm -f "/dev/shm/grove.$net3.be.1"

if [ "$(id -u)" -ne 0 ]; then
	echo "skipped the rest: only root can give a test file another owner"
	exit 0
fi
other=65534 # nobody

# mine FILE: the lines of FILE about this test's networks (/dev/shm is
# shared with whatever else runs).
mine() {
	grep -e "grove\.$net\." -e "grove\.$net2\." "$1" || true
}

# owner FILE: its uid.
owner() {
	stat -c %u "$1"
}

expect_status 0 trace sample --net "$net" --backends 4
# be.3 becomes another user's segment: a valid one, of this network, as
# that user could have made with grove_trace_init; be.7 is an empty file
# (the start of a segment, or just a name taken).
foreign="/dev/shm/grove.$net.be.3"
empty="/dev/shm/grove.$net.be.7"
chown "$other" "$foreign"
chmod 644 "$foreign"
: >"$empty"
chown "$other" "$empty"

# said: the stderr of the last command names both files, each once, with
# their owner.
said() {
	for f in "$foreign" "$empty"; do
		[ "$(grep -c "ignoring $f: it belongs to uid $other" "$tmp/err")" \
		    -eq 1 ] || fail "$1 did not name $f once: $(mine "$tmp/err")"
	done
}

expect_status 0 trace list
if grep -q "^grove\.$net\.be\.[37] " "$tmp/out"; then
	fail "list shows another user's segment: $(mine "$tmp/out")"
fi
[ "$(grep -c "^grove\.$net\." "$tmp/out")" -eq 5 ] ||
	fail "list, own segments: $(mine "$tmp/out")"
said list

expect_status 0 trace dump --net "$net" --format text
grep -q "^# grove trace: 5 processes" "$tmp/out" ||
	fail "dump: $(grep '^#' "$tmp/out")"
if grep -q "^# be 3:" "$tmp/out"; then
	fail "dump took another user's segment: $(grep '^#' "$tmp/out")"
fi
said dump

expect_status 0 trace stats --net "$net" --json
said stats

# Even root removes only its own; nothing is counted for the others.
expect_status 0 trace clean --net "$net" --force
grep -q "^removed 5 event spaces$" "$tmp/out" ||
	fail "clean: $(cat "$tmp/out")"
said clean
[ -e "$foreign" ] && [ -e "$empty" ] ||
	fail "clean removed another user's file"
[ "$(owner "$foreign")" -eq "$other" ] || fail "$foreign changed owner"

# A writer whose segment name is another user's file: tracing off in that
# process (the sample's be 1 fails), with a message naming the file and
# its owner; the file is neither removed nor reused.
taken="/dev/shm/grove.$net2.be.1"
: >"$taken"
chown "$other" "$taken"
expect_status 1 trace sample --net "$net2" --backends 2
grep -q "trace segment $taken already exists and belongs to uid $other" \
    "$tmp/err" || fail "writer, taken name: $(cat "$tmp/err")"
[ "$(owner "$taken")" -eq "$other" ] && [ ! -s "$taken" ] ||
	fail "the writer took over $taken: $(ls -l "$taken")"
echo "ok"
