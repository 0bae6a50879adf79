#!/usr/bin/env bash
# grove trace: list, dump (perfetto JSON parsed back, text, OTF2 read back
# with otf2-print; --timeline), stats (text and JSON), clean, usage errors
# (options per subcommand, --net, -o) and write errors.
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

# Options a subcommand does not take are refused, naming both.
expect_status 2 trace stats --net "$net" --format otf2
grep -q -- "grove trace stats: option does not apply: --format" "$tmp/err" ||
	fail "stats --format"
expect_status 2 trace dump --net "$net" --backends 3
grep -q -- "grove trace dump: option does not apply: --backends" "$tmp/err" ||
	fail "dump --backends"
expect_status 2 trace clean --json
grep -q -- "grove trace clean: option does not apply: --json" "$tmp/err" ||
	fail "clean --json"
expect_status 2 trace list --net foo
grep -q -- "grove trace list: option does not apply: --net" "$tmp/err" ||
	fail "list --net"
expect_status 2 trace dump --net "$net" --timeout 5
grep -q -- "--timeout applies only with --collect" "$tmp/err" ||
	fail "--timeout without --collect"

# --net is checked as segment names are: never cut to a prefix (which may
# be another network), no '.' or '/'.
long="$net$(printf 'x%.0s' $(seq 1 64))"
for bad in "$long" "a.b" "a/b" ""; do
	for sub in dump stats clean sample; do
		expect_status 2 trace $sub --net "$bad"
		grep -qF "invalid --net '$bad'" "$tmp/err" ||
			fail "$sub --net '$bad': $(cat "$tmp/err")"
	done
done

# An empty -o, and an OTF2 archive name ending in '/', are usage errors.
expect_status 2 trace dump --net "$net" --format otf2 -o ""
grep -q "empty" "$tmp/err" || fail "dump -o ''"
expect_status 2 trace dump --net "$net" -o ""
expect_status 2 trace stats --net "$net" -o ""
expect_status 2 trace dump --net "$net" --format otf2 -o "$tmp/otf2dir/"
grep -q "trailing '/'" "$tmp/err" || fail "dump otf2 -o DIR/"

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
# Arrows are bound to their slices: each id joins one send slice and one
# receive slice of the same link and sequence number.  The flow_out is on
# the slice Perfetto meets first (by start, the longer on a tie), else it
# drops the arrow: the send's, unless the receive (a span around a
# blocking read here) starts first and says so.
out = {e["bind_id"]: e for e in x if e.get("flow_out")}
inn = {e["bind_id"]: e for e in x if e.get("flow_in")}
assert len(out) == len(inn) == 80, (len(out), len(inn))
assert out.keys() == inn.keys()
early = 0
for k, a in out.items():
    b = inn[k]
    assert (a["ts"], -a["dur"]) <= (b["ts"], -b["dur"]), k
    if "before_send_us" in a["args"]:
        early += 1
        s, r = b, a
    else:
        s, r = a, b
    assert "before_send_us" not in b["args"], k
    assert s["args"]["op"] == "send" and r["args"]["op"] == "recv", k
    assert s["args"]["where"] == r["args"]["where"], k
    assert s["args"]["seq"] == r["args"]["seq"], k
assert d["otherData"]["receives_before_send"] == early
assert not [e for e in ev if e["ph"] in ("s", "f")]
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

# Text: one line per tuple after the comment lines.  The sample's 20
# waves over 3 back-ends: 2 tuples per wave on each back-end, 10 on the CP
# (3 receives, 3 sync runs, the last-BE mark, transform, wave, send), 3 on
# the front-end.
expect_status 0 trace dump --net "$net" --format text -o "$tmp/t.txt"
n=$(grep -vc '^#' "$tmp/t.txt")
[ "$n" -eq 380 ] || fail "text has $n tuple lines, wanted 380"

# A GROVE_OTF2_PLUGIN that is not Grove's plugin is named as such.
if GROVE_OTF2_PLUGIN="$build/filter_fail.so" "$grove" trace dump \
	--net "$net" --format otf2 -o "$tmp/otf2bad" >"$tmp/out" 2>"$tmp/err"; then
	fail "an OTF2 dump with a foreign plugin succeeded"
fi
grep -q "the plugin has no trace_export_otf2" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "no message for a foreign OTF2 plugin"; }

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
	# A path where no directory can be made is named, with the reason.
	: >"$tmp/afile"
	expect_status 1 trace dump --net "$net" --format otf2 -o "$tmp/afile"
	grep -qF "cannot make the OTF2 archive directory $tmp/afile: Not a directory" \
		"$tmp/err" || fail "otf2 -o a file: $(cat "$tmp/err")"
	expect_status 1 trace dump --net "$net" --format otf2 -o "$tmp/no/such"
	grep -qF "$tmp/no/such: No such file or directory" "$tmp/err" ||
		fail "otf2 -o in a missing directory: $(cat "$tmp/err")"
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

# Write errors name the output and the reason.
if [ -w /dev/full ]; then
	for sub in dump stats; do
		expect_status 1 trace $sub --net "$net" -o /dev/full
		grep -q "cannot write /dev/full: No space left on device" \
			"$tmp/err" || fail "$sub -o /dev/full: $(cat "$tmp/err")"
		got=0
		"$grove" trace $sub --net "$net" >/dev/full 2>"$tmp/err" || got=$?
		[ "$got" -eq 1 ] || fail "$sub >/dev/full exited $got"
		grep -q "cannot write standard output: No space left on device" \
			"$tmp/err" || fail "$sub >/dev/full: $(cat "$tmp/err")"
		# Said once, not followed by a generic "system error".
		[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
			fail "$sub >/dev/full: more than one line: $(cat "$tmp/err")"
	done
else
	echo "no writable /dev/full: write error checks skipped"
fi

# clean: finished writers are gone, so their segments go without --force.
expect_status 0 trace clean --net "$net"
grep -q "removed 5 event spaces" "$tmp/out" || fail "clean: $(cat "$tmp/out")"
expect_status 1 trace dump --net "$net"
echo "ok"
