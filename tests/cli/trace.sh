#!/usr/bin/env bash
# grove trace: list, dump (perfetto JSON parsed back, text, OTF2 read back
# with otf2-print; --timeline), stats (text and JSON), clean, and usage
# errors.
# Event spaces come from `grove trace sample` under a unique network id.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

net="cli$$"
cleanup() {
	"$grove" trace clean --net "$net" --force >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# --- usage --------------------------------------------------------------
expect_status 0 trace --help
grep -q "grove trace dump" "$tmp/out" || fail "help lacks dump"
expect_status 2 trace
expect_status 2 trace bogus
expect_status 2 trace dump --bogus
expect_status 2 trace sample --net "$net" --backends 0
expect_status 1 trace dump --net "nosuch$$" --format nonsense

# --- a sample network ---------------------------------------------------
expect_status 0 trace sample --net "$net" --backends 3
expect_status 0 trace list
for seg in fe.0 cp.0 be.0 be.1 be.2; do
	grep -q "grove.$net.$seg .*finished" "$tmp/out" ||
		fail "list lacks $seg"
done

# Perfetto/Chrome JSON: parse it back and check the structure.
expect_status 0 trace dump --net "$net" --format perfetto -o "$tmp/t.json"
python3 - "$tmp/t.json" <<'PY' || fail "trace JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "process_name"}
assert names == {"fe 0", "cp 0", "be 0", "be 1", "be 2"}, names
x = [e for e in ev if e["ph"] == "X"]
s = [e for e in ev if e["ph"] == "s"]
f = [e for e in ev if e["ph"] == "f"]
assert len(s) == len(f) == 80, (len(s), len(f))
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in x)
assert {e["args"]["op"] for e in x} >= {"send", "recv", "api_send",
        "api_recv", "filter_sync", "filter_transform", "wave"}
assert d["otherData"]["lost"] == 0
PY
# stdout is the default output
expect_status 0 trace dump --net "$net"
python3 -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out" ||
	fail "stdout JSON"

# Timelines: one host, so "auto" is the single-host output (no clock
# data); "realtime" relates every process through its realtime clock and
# says so; "frontend" finds every process on the front-end's host.
python3 - "$tmp/t.json" <<'PY' || fail "single-host JSON has clock data"
import json, sys
assert "timeline" not in json.load(open(sys.argv[1]))["otherData"]
PY
expect_status 2 trace dump --net "$net" --timeline sideways
for tl in realtime frontend; do
	expect_status 0 trace dump --net "$net" --timeline $tl -o "$tmp/$tl.json"
	python3 - "$tmp/$tl.json" $tl <<'PY' || fail "--timeline $tl"
import json, sys
o = json.load(open(sys.argv[1]))["otherData"]
assert o["timeline"] == sys.argv[2] and o["unaligned"] == 0, o
want = "realtime" if sys.argv[2] == "realtime" else "same-host"
clocks = {c["process"]: c["clock"] for c in o["clocks"]}
assert clocks.pop("fe 0") == "reference", clocks
assert set(clocks.values()) == {want}, clocks
assert len(clocks) == 4, clocks
PY
done

# Text: one line per tuple after the comment lines.
expect_status 0 trace dump --net "$net" --format text -o "$tmp/t.txt"
n=$(grep -vc '^#' "$tmp/t.txt")
[ "$n" -eq 360 ] || fail "text has $n tuple lines, wanted 360"

# OTF2, when built in; otf2-print reads it back.
if "$grove" trace dump --net "$net" --format otf2 -o "$tmp/otf2" \
	>"$tmp/out" 2>"$tmp/err"; then
	if command -v otf2-print >/dev/null; then
		otf2-print "$tmp/otf2/traces.otf2" >"$tmp/otf2.txt" ||
			fail "otf2-print failed"
		for rec in ENTER LEAVE MPI_SEND MPI_RECV; do
			grep -q "^$rec " "$tmp/otf2.txt" ||
				fail "otf2-print shows no $rec"
		done
		sends=$(grep -c '^MPI_SEND ' "$tmp/otf2.txt")
		[ "$sends" -eq 80 ] || fail "$sends MPI_SEND records, wanted 80"
		otf2-print -G "$tmp/otf2/traces.otf2" >"$tmp/defs.txt" ||
			fail "otf2-print -G failed"
		grep -q '"be 2"' "$tmp/defs.txt" || fail "no location group be 2"
	else
		echo "otf2-print not installed: OTF2 read-back skipped"
	fi
	# An existing archive is not overwritten.
	expect_status 1 trace dump --net "$net" --format otf2 -o "$tmp/otf2"
elif ! grep -q '^OTF2_FOUND:INTERNAL=1' "$1/CMakeCache.txt" &&
	grep -q "not available" "$tmp/err"; then
	echo "built without OTF2: OTF2 export skipped"
else
	cat "$tmp/err" >&2
	fail "otf2 export failed"
fi

# Statistics.
expect_status 0 trace stats --net "$net"
for h in "@--- Process time" "@--- Primitive summary" \
	"@--- Primitive statistics per process" "@--- Message sizes" \
	"@--- Computation granularity distribution" \
	"@--- Communication overhead distribution"; do
	grep -q -- "$h" "$tmp/out" || fail "stats lacks '$h'"
done
grep -q "^Comp Granularity" "$tmp/out" || fail "no granularity row"
expect_status 0 trace stats --net "$net" --json -o "$tmp/s.json"
python3 - "$tmp/s.json" <<'PY' || fail "stats JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["processes"]) == 5
p = {x["name"]: x for x in d["primitives"]}
assert p["send"]["all"]["count"] == 80
assert p["api_send"]["spread"]["procs"] == 3
assert d["overhead"]["summary"]["count"] == 80
PY

# clean: finished writers are gone, so their segments go without --force.
expect_status 0 trace clean --net "$net"
grep -q "removed 5 event spaces" "$tmp/out" || fail "clean: $(cat "$tmp/out")"
expect_status 1 trace dump --net "$net"
echo "ok"
