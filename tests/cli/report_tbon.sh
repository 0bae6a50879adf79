#!/usr/bin/env bash
# grove report on a real TBON trace: the MRNet micro-benchmark on a kary:2
# tree of 4 back-ends (2 CPs), its spaces kept (GROVE_TRACE_KEEP).  While
# it runs, a report of the live spaces; then the front-end is killed (the
# spaces stay, still), and the report of what is left is checked against
# `grove trace stats --json` of the same spaces: tuples and lost tuples per
# process, each node's last arrivals against its wave.last_* tuples, path
# counts and means against the statistics' per-process primitives; the
# tree has every node.  Then the page is opened in headless chromium,
# whose script must run to its end without an error and agree.  Usage
# errors last.  The spaces are removed at the end (grove trace clean).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/report_browser.sh"

pg=""
net=""
cleanup() {
	[ -n "$pg" ] && kill -KILL -- "-$pg" 2>/dev/null || true
	[ -n "$net" ] && "$grove" trace clean --net "$net" --force \
		>/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# The network whose front-end event space process PID writes
# (struct trace_header, src/trace/space.h: the pid at byte 164).
net_of() {
	python3 - "$1" <<'PY'
import os, struct, sys
pid = int(sys.argv[1])
for name in os.listdir("/dev/shm"):
    if not (name.startswith("grove.") and name.endswith(".fe.0")):
        continue
    try:
        with open("/dev/shm/" + name, "rb") as f:
            h = f.read(168)
    except OSError:
        continue
    if len(h) == 168 and struct.unpack_from("<i", h, 164)[0] == pid:
        print(name.split(".")[1])
        break
PY
}

# A session of its own, so that the whole tree can be killed at once.
GROVE_TRACE_KEEP=1 setsid "$grove" bench micro -t kary:2 -b 4 \
	--rt-iters 100000000 >"$tmp/bench.out" 2>&1 &
pg=$!
disown "$pg" # killed on purpose below: no "Killed" from the shell
# Up, and through some waves: the front-end's wave tuples counted by the
# statistics (a count, not a time).
waves=0
for i in $(seq 600); do
	[ -n "$net" ] || net=$(net_of "$pg")
	if [ -n "$net" ] &&
	    "$grove" trace stats --net "$net" --json >"$tmp/s.json" 2>/dev/null; then
		waves=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(x["stats"]["count"] for p in d["primitives"]
          if p["name"] == "wave.last_cp" for x in p["per_process"]))' \
			"$tmp/s.json")
		[ "$waves" -ge 50 ] && break
	fi
	kill -0 "$pg" 2>/dev/null || fail "bench stopped: $(cat "$tmp/bench.out")"
	sleep 0.1
done
[ "$waves" -ge 50 ] || fail "the tree made only $waves waves"

# Live: the spaces are still being written.
expect_status 0 report --net "$net" -o "$tmp/live.html"
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from report_page import Page
p = Page(sys.argv[2])
assert int(p.value("sum-waves")) > 0
assert p.by_class("tree"), "no tree"
' "$(dirname "$0")/lib" "$tmp/live.html" || fail "live report"

kill -KILL -- "-$pg"
for i in $(seq 600); do
	kill -0 -- "-$pg" 2>/dev/null || break
	sleep 0.1
done
pg=""

expect_status 0 report --net "$net" -o "$tmp/r.html"
expect_status 0 trace stats --net "$net" --json -o "$tmp/stats.json"
python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
from report_page import Page
p = Page(sys.argv[2])
st = json.load(open(sys.argv[3]))

# Tuples and lost tuples: in all, and per process.
assert int(p.value("sum-tuples")) == st["tuples"], (p.value("sum-tuples"), st["tuples"])
assert int(p.value("sum-lost")) == st["lost"]
assert int(p.value("sum-processes")) == len(st["processes"]) == 7
for q in st["processes"]:
    row = p.by_class("proc-row", proc=q["task"])
    assert len(row) == 1, q["task"]
    assert int(row[0]["data-tuples"]) == q["tuples"], q["task"]
    assert int(row[0]["data-lost"]) == q["lost"], q["task"]

def per_process(name):
    return {x["task"]: x["stats"] for pr in st["primitives"]
            if pr["name"] == name for x in pr["per_process"]}

# Load balance: at each node, the last arrivals of its children add up to
# the wave.last_* tuples it recorded; the FE waits for the 2 CPs, each CP
# for its 2 back-ends.
last = per_process("wave.last_cp")
last.update(per_process("wave.last_be"))
assert set(last) == {"fe 0", "cp 1", "cp 4"}, last.keys()
rows = p.by_class("bal-row", scope="stream:1")
for node, s in last.items():
    mine = [r for r in rows if r["data-parent"] == node]
    assert sum(int(r["data-last"]) for r in mine) == s["count"], node
    assert all(int(r["data-waves"]) == s["count"] for r in mine), node
assert int(p.value("sum-waves")) == sum(s["count"] for s in last.values())
# The tree: every node, and an edge to every child.
nodes = {a["data-node"] for a in p.by_class("node")}
assert nodes == {"fe 0", "cp 1", "cp 4", "be 0", "be 1", "be 2", "be 3"}, nodes
edges = {(e["data-parent"], e["data-child"]) for e in p.by_class("bal-edge")}
assert edges == {("fe 0", "cp 1"), ("fe 0", "cp 4"), ("cp 1", "be 0"),
                 ("cp 1", "be 1"), ("cp 4", "be 2"), ("cp 4", "be 3")}, edges

# Paths: per process and op, the counts and means of the statistics.
def paths(proc, layer, op):
    return [r for r in p.by_class("path-row", proc=proc, layer=layer, op=op)]
for prim, layer in (("api_recv", "api"), ("api_send", "api"),
                    ("filter_sync", "filter"), ("writev", "net")):
    for task, s in per_process(prim).items():
        rs = paths(task, layer, prim)
        n = sum(int(r["data-count"]) for r in rs)
        assert n == s["count"], (prim, task, n, s["count"])
        mean = sum(int(r["data-count"]) * float(r["data-mean-ns"]) for r in rs) / n
        assert abs(mean - s["mean_ns"]) <= 0.01 * s["mean_ns"] + 1, (prim, task, mean, s)
# Every back-end has its timeline; messages were joined, none backwards
# (one host, one clock).
assert {r["data-proc"] for r in p.by_class("tl-row")} >= {"be 0", "be 3", "fe 0"}
assert int(p.value("sum-messages")) > 0
assert int(p.value("sum-violations")) == 0
' "$(dirname "$0")/lib" "$tmp/r.html" "$tmp/stats.json" ||
	fail "the report's numbers differ from the trace statistics"

# In a real browser: the script runs to its end and agrees.
need_chromium
open_page "$tmp/r.html"
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from report_page import Page
p = Page(sys.argv[2])
r = p.by_id("report-ready")
assert int(r["data-edges"]) == 6 and int(r["data-nodes"]) == 3, r
assert int(r["data-timelines"]) == 7, r
assert len(p.by_class("tree")) == 1 and p.by_class("timeline")
' "$(dirname "$0")/lib" "$tmp/dom.html" || fail "the rendered page"

# Usage errors.
expect_status 2 report --bogus
expect_status 2 report --net "$net" -o ""
expect_status 2 report --net "$net" --sigma 0
expect_status 2 report --net "$net" --timeout 5
grep -q "only with --collect" "$tmp/err" || fail "--timeout without --collect"
expect_status 2 report --net "a.b"
expect_status 1 report --net "nosuch$$"
expect_status 0 report --help
grep -q "grove report" "$tmp/out" || fail "help"

expect_status 0 trace clean --net "$net"
[ "$(ls /dev/shm | grep -c "^grove\.$net\.")" -eq 0 ] || fail "spaces left"
net=""
echo "ok"
