#!/usr/bin/env bash
# grove trace clean: which segments go without --force.  The owner of a
# segment is the pid in its header; a segment is kept while that process
# runs, whether or not this version can read the rest of the header (one
# of another version, or one whose writer is still in grove_trace_init and
# has not written the magic yet), and kept when nothing says who owns it.
# A pid that now belongs to a process started after the segment was made
# is not its owner (nor, for list and dump, a running writer).
# Segments come from `grove trace sample`; their headers are then patched
# to look like those of live writers (offsets of struct trace_header in
# src/trace/space.h, checked below against what the sample wrote).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

net="cln$$"
net2="cln2$$"
owner=""
late=""
cleanup() {
	for p in $owner $late; do
		kill "$p" 2>/dev/null || true
	done
	"$grove" trace clean --net "$net" --force >/dev/null 2>&1 || true
	"$grove" trace clean --net "$net2" --force >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# patch SEGMENT FIELD=VALUE...: fields magic, version, pid, finished,
# init (calib_init.mono_ns), or zero (the whole header page).
patch() {
	python3 - "$@" <<'PY' || fail "patching $1"
import struct, sys
name, edits = sys.argv[1], sys.argv[2:]
with open("/dev/shm/" + name, "r+b") as f:
    h = bytearray(f.read(4096))
    magic, version = struct.unpack_from("<QI", h, 0)
    rank = struct.unpack_from("<I", h, 160)[0]
    # The layout this test assumes: what the sample wrote is there.
    assert magic == 0x3152545645564f52 and version == 1, name
    assert h[16:16 + 64].split(b"\0")[0].decode() == name.split(".")[1]
    assert rank == int(name.split(".")[3]), name
    for e in edits:
        k, v = e.split("=")
        v = int(v)
        if k == "zero":
            h[:] = bytes(4096)
        else:
            off, fmt = {"magic": (0, "<Q"), "version": (8, "<I"),
                        "pid": (164, "<i"), "finished": (220, "<I"),
                        "init": (224 + 8, "<Q")}[k]
            struct.pack_into(fmt, h, off, v)
    f.seek(0)
    f.write(h)
PY
}

segs() {
	ls /dev/shm | grep -c "^grove\.$1\." || true
}

# A process that exists before the segments are made, standing in for
# their writer.
sleep 600 &
owner=$!
expect_status 0 trace sample --net "$net" --backends 2
[ "$(segs "$net")" -eq 4 ] || fail "sample made $(segs "$net") segments"

# Valid headers of this version, writer running: kept.
for s in fe.0 cp.0 be.0 be.1; do
	patch "grove.$net.$s" pid=$owner finished=0
done
expect_status 0 trace list
[ "$(grep -c "^grove\.$net\..* running " "$tmp/out")" -eq 4 ] ||
	fail "list, running writers: $(cat "$tmp/out")"
expect_status 0 trace clean --net "$net"
grep -q "removed 0 event spaces, kept 4 of running processes" "$tmp/out" ||
	fail "clean, running writers: $(cat "$tmp/out")"

# Another version's header, one still being initialised (no magic), and
# one with nothing written yet, all while the writer runs: kept.
expect_status 0 trace sample --net "$net2" --backends 2
patch "grove.$net2.fe.0" pid=$owner finished=0
patch "grove.$net2.cp.0" pid=$owner finished=0 version=2
patch "grove.$net2.be.0" pid=$owner finished=0 magic=0
patch "grove.$net2.be.1" zero=1
expect_status 0 trace clean --net "$net2"
grep -q "removed 0 event spaces, kept 3 of running processes, kept 1 not initialised yet or of unknown owner" \
	"$tmp/out" || fail "clean, mixed headers: $(cat "$tmp/out")"
[ "$(segs "$net2")" -eq 4 ] || fail "clean removed live segments"

# The writer gone: the three with its pid go, the one without an owner
# stays until --force.
kill "$owner"
wait "$owner" 2>/dev/null || true
owner=""
expect_status 0 trace clean --net "$net2"
grep -q "removed 3 event spaces, kept 1 not initialised" "$tmp/out" ||
	fail "clean, writer gone: $(cat "$tmp/out")"
[ -e "/dev/shm/grove.$net2.be.1" ] || fail "clean removed be.1"
expect_status 0 trace clean --net "$net2" --force
grep -q "removed 1 event space$" "$tmp/out" ||
	fail "clean --force: $(cat "$tmp/out")"

# A pid taken over by a process that started after the segment was made
# (its init time patched to just after boot): not the writer.
sleep 600 &
late=$!
for s in fe.0 cp.0 be.0 be.1; do
	patch "grove.$net.$s" pid=$late init=1
done
# list and dump say so too, as clean decides.
expect_status 0 trace list
[ "$(grep -c "^grove\.$net\..* dead " "$tmp/out")" -eq 4 ] ||
	fail "list, reused pid: $(cat "$tmp/out")"
expect_status 0 trace dump --net "$net" --format text
if grep -q "^# .*, running$" "$tmp/out"; then
	fail "dump, reused pid: $(grep '^#' "$tmp/out")"
fi
expect_status 0 trace clean --net "$net"
grep -q "removed 4 event spaces$" "$tmp/out" ||
	fail "clean, reused pid: $(cat "$tmp/out")"
[ "$(segs "$net")" -eq 0 ] || fail "segments left after clean"
echo "ok"
