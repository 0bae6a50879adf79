#!/usr/bin/env bash
# grove report on a Grove MPI job kept with `grove run --keep-trace`:
# tests/mpi/launch/report_prog on 4 ranks, whose collectives have a known
# last arrival (a token passed from rank to rank orders the calls'
# starts): on MPI_COMM_WORLD rank 3 is last in every instance and the
# ranks arrive in rank order; on the two halves of a split by parity, the
# halves' rank 0 (world ranks 0 and 1) is last.  Checked in the page's
# numbers and against `grove trace stats --json` (calls per rank), then in
# headless chromium.  The job's spaces are removed at the end.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/report_browser.sh"

prog="$build/mpilaunch_report_prog"
[ -x "$prog" ] || fail "$prog is not built"
job=""
cleanup() {
	[ -n "$job" ] && "$grove" trace clean --net "$job" --force \
		>/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

iters=12
expect_status 0 run -n 4 --verbose --keep-trace "$prog" "$iters"
job=$(sed -n 's/^grove run: job \([A-Za-z0-9_-]*\): .*/\1/p' "$tmp/err" | head -1)
[ -n "$job" ] || fail "no job id in grove run --verbose: $(cat "$tmp/err")"

expect_status 0 report --net "$job" -o "$tmp/r.html"
expect_status 0 trace stats --net "$job" --json -o "$tmp/stats.json"
python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
from report_page import Page
p = Page(sys.argv[2])
st = json.load(open(sys.argv[3]))
iters = int(sys.argv[4])

assert int(p.value("sum-tuples")) == st["tuples"]
assert int(p.value("sum-lost")) == st["lost"] == 0
# Three communicators, iters instances each, all complete.
assert int(p.value("sum-instances")) == 3 * iters, p.value("sum-instances")
assert int(p.value("sum-incomplete")) == 0
scopes = {}
for r in p.by_class("bal-row"):
    if r["data-scope"].startswith("comm:"):
        scopes.setdefault(r["data-scope"], []).append(r)
assert len(scopes) == 3, scopes.keys()
lasts = {}
for scope, rows in scopes.items():
    assert len(rows) == 1, (scope, rows)  # always the same rank last
    r = rows[0]
    assert int(r["data-last"]) == iters and int(r["data-waves"]) == iters, r
    lasts[scope] = r["data-child"]
world = [s for s in p.by_class("order") if s["data-size"] == "4"]
assert len(world) == 1, world
w = world[0]["data-scope"]
assert lasts[w] == "mpi 3", lasts
halves = sorted(v for k, v in lasts.items() if k != w)
assert halves == ["mpi 0", "mpi 1"], lasts
# Arrival order on the world: rank r always the (r+1)-th, never another.
for c in p.by_class("heat", scope=w):
    want = iters if c["data-pos"] == c["data-rank"] else 0
    assert int(c["data-count"]) == want, c
assert len(p.by_class("heat", scope=w)) == 16
# The newest instances drawn: arrivals in rank order, the last rank 3.
inst = [i for i in p.by_class("instance") if i["data-order"].count(",") == 3]
assert inst and all(i["data-order"] == "0,1,2,3" and i["data-last"] == "mpi 3"
                    for i in inst), inst
# Calls per rank, as the statistics count them.
for prim in st["primitives"]:
    if prim["name"] not in ("MPI_Ibarrier", "MPI_Iallreduce"):
        continue
    for x in prim["per_process"]:
        rows = p.by_class("path-row", proc=x["task"], name=prim["name"])
        assert sum(int(r["data-count"]) for r in rows) == x["stats"]["count"] == iters, x
# One host, one clock: no message received before it was sent.
assert int(p.value("sum-violations")) == 0
assert [r["data-name"] for r in p.by_class("clock-row", kind="host")]
' "$(dirname "$0")/lib" "$tmp/r.html" "$tmp/stats.json" "$iters" ||
	fail "the report does not show the program's known behaviour"

need_chromium
open_page "$tmp/r.html"
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from report_page import Page
p = Page(sys.argv[2])
r = p.by_id("report-ready")
assert int(r["data-instances"]) > 0 and int(r["data-timelines"]) == 5, r
assert len(p.by_class("orders")) == 3
' "$(dirname "$0")/lib" "$tmp/dom.html" || fail "the rendered page"

expect_status 0 trace clean --net "$job"
job=""
echo "ok"
