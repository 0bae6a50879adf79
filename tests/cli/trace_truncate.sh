#!/usr/bin/env bash
# grove trace list and dump while another process truncates a segment
# and grows it back, again and again: each run either shows the segment
# or names it as shrunk, and none dies (SIGBUS from reading a mapping
# past the file's new end).  The truncating loop is bounded and stops
# once the readers are done.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

net="trn$$"
cutter=""
cleanup() {
	if [ -n "$cutter" ]; then
		kill "$cutter" 2>/dev/null || true
		wait "$cutter" 2>/dev/null || true
	fi
	"$grove" trace clean --net "$net" --force >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

expect_status 0 trace sample --net "$net" --backends 1
seg="grove.$net.be.0"
python3 - "/dev/shm/$seg" "$tmp/started" "$tmp/stop" <<'PY' &
import os, sys
path, started, stop = sys.argv[1:]
fd = os.open(path, os.O_RDWR)
full = os.fstat(fd).st_size
open(started, "w").close()
for i in range(2000000):
    if i % 64 == 0 and os.path.exists(stop):
        break
    os.ftruncate(fd, 4096)
    os.ftruncate(fd, full)
os.ftruncate(fd, full)
PY
cutter=$!
while [ ! -e "$tmp/started" ]; do
	kill -0 "$cutter" 2>/dev/null || fail "the truncating loop did not start"
	sleep 0.05
done

for i in $(seq 1 40); do
	expect_status 0 trace list
	grep -q "^$seg " "$tmp/out" || fail "list lacks $seg: $(cat "$tmp/out")"
	# The segment is dumped, or left out with a message naming it.
	expect_status 0 trace dump --net "$net" --format text
	grep -q "^# be 0:" "$tmp/out" || grep -q "$seg" "$tmp/err" ||
		fail "dump neither has nor names $seg: $(cat "$tmp/err")"
done
: >"$tmp/stop"
wait "$cutter" || fail "the truncating loop failed"
cutter=""
echo "ok"
