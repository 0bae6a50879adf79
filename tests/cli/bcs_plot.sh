#!/usr/bin/env bash
# scripts/plot-bcs.sh on a small hand-made EMDS record (tests/data/bcs/
# small.*.csv, in grove run --emds-out's format: 45 slices of 1 ms, two
# nodes, a barrier every nine slices): the three figures are written, are
# SVG, and hold the series they are for with one point per slice drawn;
# its summary says what was drawn; --node, --slices and --count-slices
# choose it; lower-case names with _ns suffixes read the same; a missing
# node or column fails with a message.  Skipped (status 77) without
# gnuplot.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$2
plot="$src/scripts/plot-bcs.sh"
data="$src/tests/data/bcs/small"
if ! command -v gnuplot >/dev/null; then
	echo "gnuplot not found: plot-bcs test skipped"
	exit 77
fi

# $1 svg, $2 series title, $3 points it must hold: the series is a group
# of its own (gnuplot names it by its title) with at least that many
# coordinate pairs, the key's sample included.
has_series() {
	python3 - "$@" <<'PY' || fail "$1: no series '$2' with $3 points"
import re, sys, xml.etree.ElementTree as ET
svg, title, points = sys.argv[1], sys.argv[2], int(sys.argv[3])
ns = "{http://www.w3.org/2000/svg}"
best = 0
for g in ET.parse(svg).iter(ns + "g"):  # parsing checks it is XML
    t = g.find(ns + "title")
    if not g.get("id", "").startswith("gnuplot_plot_") or t is None or \
            t.text != title:
        continue
    # Every drawn coordinate pair of the series: path points, markers.
    text = " ".join(e.get("d", "") + " " + e.get("transform", "")
                    for e in g.iter() if e.tag in (ns + "path", ns + "use"))
    best = max(best, len(re.findall(r"-?\d+(?:\.\d+)?,-?\d+(?:\.\d+)?", text)))
sys.exit(0 if best >= points else 1)
PY
}

out="$tmp/docs"
bash "$plot" --slice-us 1000 "$data" "$out" >"$tmp/sum" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "plot-bcs.sh failed"; }
for f in bcs-getts bcs-np2pdem bcs-ncollmsm; do
	[ -s "$out/$f.svg" ] || fail "$f.svg not written"
done
has_series "$out/bcs-getts.svg" GETTS 45
has_series "$out/bcs-getts.svg" "chosen slice (1000 us)" 2
has_series "$out/bcs-np2pdem.svg" NP2PDEM 45
has_series "$out/bcs-ncollmsm.svg" NCOLLMSM 45
grep -q "GETTS), slices 100-144" "$out/bcs-getts.svg" || fail "GETTS title"
# The summary: 45 slices; the hand-made record's late strobe (1250 us);
# node 0's 8 descriptors in 40 slices and one barrier every nine slices.
grep -qx "getts slices=45 first=100 last=144 mean_us=1025.425 min_us=985.138 max_us=1250.000" "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "GETTS summary"; }
grep -qx "np2pdem node=0 slices=45 first=100 last=144 nonzero=40 max=8" "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "NP2PDEM summary"; }
grep -qx "ncollmsm node=0 slices=45 first=100 last=144 nonzero=5 max=1" "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "NCOLLMSM summary"; }

# Another node, a window, fewer count slices.
bash "$plot" --node 1 --slices 110:139 --count-slices 18 "$data" "$out" \
    >"$tmp/sum" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "--node 1"; }
grep -q "^getts slices=30 first=110 last=139 " "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "--slices 110:139"; }
grep -qx "np2pdem node=1 slices=18 first=110 last=127 nonzero=16 max=4" "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "--node 1 --count-slices 18"; }
has_series "$out/bcs-np2pdem.svg" NP2PDEM 18
grep -q "node 1, slices 110-127" "$out/bcs-np2pdem.svg" || fail "node 1 title"

# The same record with lower-case names and times marked _ns.
sed '1s/.*/slice,getts_ns,gtdem_ns,gtmsm_ns,gtts_ns,usrts,usrdem,usrmsm/' \
    "$data.global.csv" >"$tmp/lower.global.csv"
sed '1s/.*/node,slice,letts_ns,ltdem_ns,lmsm_ns,ltts_ns,np2pdem,np2pmsm,ncolldem,ncollmsm,bpts/' \
    "$data.local.csv" >"$tmp/lower.local.csv"
bash "$plot" "$tmp/lower" "$out" >"$tmp/sum" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "lower-case names"; }
grep -qx "getts slices=45 first=100 last=144 mean_us=1025.425 min_us=985.138 max_us=1250.000" "$tmp/sum" ||
	{ cat "$tmp/sum" >&2; fail "GETTS summary, lower-case names"; }

# Errors say what is wrong.
st=0
bash "$plot" --node 5 "$data" "$out" >/dev/null 2>"$tmp/err" || st=$?
[ "$st" -ne 0 ] && grep -q "no node 5 in" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "--node 5 was accepted"; }
cut -d, -f1,3- "$data.global.csv" >"$tmp/nogetts.global.csv"
cp "$data.local.csv" "$tmp/nogetts.local.csv"
st=0
bash "$plot" "$tmp/nogetts" "$out" >/dev/null 2>"$tmp/err" || st=$?
[ "$st" -ne 0 ] && grep -q "has no column getts" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "a file without GETTS was accepted"; }
echo "plot-bcs OK"
