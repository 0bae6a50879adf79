#!/usr/bin/env bash
# Draws bcs-mpi.txt's Figures 5.3-5.5 from the per-slice metrics (EMDS)
# that `grove run --bcs --emds FROM:TO --emds-out PREFIX` writes:
#   OUTDIR/bcs-getts.svg     GETTS, the time from the previous slice's
#                            strobe, per slice (Figure 5.3), with the
#                            chosen slice length when --slice-us says it
#   OUTDIR/bcs-np2pdem.svg   NP2PDEM, point-to-point descriptors handled
#                            in the DEM microphase, per slice, one node
#                            (Figure 5.4)
#   OUTDIR/bcs-ncollmsm.svg  NCOLLMSM, collectives scheduled in the MSM
#                            microphase, per slice, one node (Figure 5.5)
# and prints what it drew on standard output, one line per figure:
#   getts slices=10000 first=1000 last=10999 mean_us=1001.2 min_us=...
#   np2pdem node=0 slices=90 first=1000 last=1089 nonzero=80 max=8
#   ncollmsm node=0 slices=90 first=1000 last=1089 nonzero=10 max=1
#
#   scripts/plot-bcs.sh [--node N] [--slices FROM:TO] [--count-slices N]
#                       [--slice-us US] [PREFIX] [OUTDIR]
#       PREFIX: the --emds-out prefix (PREFIX.global.csv, PREFIX.local.csv;
#               default build/bcs-bench/validate); OUTDIR: docs
#   --node N          the node of the two count figures (default: the
#                     first node in the file)
#   --slices FROM:TO  only these slices (default: all in the files)
#   --count-slices N  the count figures show the first N of them (default
#                     90, ten of the validation program's nine-slice
#                     periods: thousands of impulses would be a solid
#                     block); 0 = all
#   --slice-us US     the chosen slice length, drawn on the GETTS figure
# The CSV columns are found by name, in any case, with or without a _ns
# suffix: slice and GETTS (ns) in the global file; node, slice, NP2PDEM
# and NCOLLMSM in the local one.
# Needs python3 and gnuplot (gnuplot-nox; scripts/install-mpi-peers.sh).
set -euo pipefail

usage() {
	sed -n '/^#   scripts\/plot-bcs/,/^# The CSV/p' "$0" | sed '$d' |
	    sed 's/^# \{0,1\}//' >&2
	exit 2
}

node='' slices='' count_slices=90 slice_us='' args=()
while (($#)); do
	case $1 in
	--node) node=${2:?--node needs a number}; shift ;;
	--slices) slices=${2:?--slices needs FROM:TO}; shift ;;
	--count-slices) count_slices=${2:?--count-slices needs a number}; shift ;;
	--slice-us) slice_us=${2:?--slice-us needs microseconds}; shift ;;
	-h | --help) usage ;;
	-*) echo "plot-bcs: unknown option $1" >&2; usage ;;
	*) args+=("$1") ;;
	esac
	shift
done
((${#args[@]} <= 2)) || usage
prefix=${args[0]:-build/bcs-bench/validate}
outdir=${args[1]:-docs}
for f in "$prefix.global.csv" "$prefix.local.csv"; do
	[[ -r $f ]] || { echo "plot-bcs: cannot read $f" >&2; exit 1; }
done
command -v gnuplot >/dev/null ||
	{ echo "plot-bcs: gnuplot is missing (scripts/install-mpi-peers.sh" \
	    "installs it)" >&2; exit 1; }
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The data files of the figures, their titles, and the summary.
python3 - "$prefix" "$tmp" "$node" "$slices" "$count_slices" <<'PY'
import csv, re, statistics, sys
prefix, out, node, window, count_slices = sys.argv[1:]

def fail(msg):
    print(f"plot-bcs: {msg}", file=sys.stderr)
    sys.exit(1)

def name(col):
    """A column's name as this script knows it: GETTS and getts_ns are
    both getts (times are in ns either way)."""
    return re.sub(r"_ns$", "", col.strip().lower())

def rows(path, need):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        cols = [name(c) for c in (r.fieldnames or [])]
        missing = [c for c in need if c not in cols]
        if missing:
            fail(f"{path} has no column {', '.join(missing)} "
                 f"(columns: {', '.join(cols) or 'none'})")
        got = []
        for n, row in enumerate(r, start=2):
            row = {name(k): (v or "").strip() for k, v in row.items() if k}
            try:
                got.append({c: int(float(row[c])) for c in need})
            except ValueError:
                fail(f"{path} line {n}: not a number in {need}")
        return got

lo, hi = None, None
if window:
    try:
        lo, hi = (int(x) for x in window.split(":"))
    except ValueError:
        fail(f"--slices FROM:TO, not '{window}'")
try:
    count_n = int(count_slices)
except ValueError:
    fail(f"--count-slices N, not '{count_slices}'")
inside = lambda s: (lo is None or s >= lo) and (hi is None or s <= hi)

g = [r for r in rows(f"{prefix}.global.csv", ["slice", "getts"])
     if inside(r["slice"])]
loc = rows(f"{prefix}.local.csv", ["node", "slice", "np2pdem", "ncollmsm"])
if not g:
    fail(f"{prefix}.global.csv has no slice in the range")
if not loc:
    fail(f"{prefix}.local.csv has no row")
nodes = sorted({r["node"] for r in loc})
pick = int(node) if node else nodes[0]
if pick not in nodes:
    fail(f"no node {pick} in {prefix}.local.csv (nodes: "
         f"{', '.join(map(str, nodes))})")
loc = sorted((r for r in loc if r["node"] == pick and inside(r["slice"])),
             key=lambda r: r["slice"])
if not loc:
    fail(f"node {pick} has no slice in the range")
if count_n > 0:
    loc = loc[:count_n]

g.sort(key=lambda r: r["slice"])
with open(f"{out}/getts.dat", "w") as f:
    for r in g:
        f.write(f"{r['slice']} {r['getts'] / 1e3}\n")
us = [r["getts"] / 1e3 for r in g]
print(f"getts slices={len(g)} first={g[0]['slice']} last={g[-1]['slice']} "
      f"mean_us={statistics.fmean(us):.3f} min_us={min(us):.3f} "
      f"max_us={max(us):.3f}")
for key in ("np2pdem", "ncollmsm"):
    with open(f"{out}/{key}.dat", "w") as f:
        for r in loc:
            f.write(f"{r['slice']} {r[key]}\n")
    vals = [r[key] for r in loc]
    print(f"{key} node={pick} slices={len(loc)} first={loc[0]['slice']} "
          f"last={loc[-1]['slice']} nonzero={sum(1 for v in vals if v)} "
          f"max={max(vals)}")
# Counts are whole: tics at whole numbers, about eight of them at most.
step = {k: max(1, -(-max(r[k] for r in loc) // 8)) for k in
        ("np2pdem", "ncollmsm")}
with open(f"{out}/range", "w") as f:
    f.write(f"{pick} {g[0]['slice']} {g[-1]['slice']} {loc[0]['slice']} "
            f"{loc[-1]['slice']} {step['np2pdem']} {step['ncollmsm']}\n")
PY

read -r pick g0 g1 l0 l1 tic_p2p tic_coll <"$tmp/range"
ref=''
if [[ -n $slice_us ]]; then
	[[ $slice_us =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	    { echo "plot-bcs: --slice-us wants microseconds" >&2; exit 2; }
	ref=", $slice_us with lines dt 2 lc rgb '#c0392b' title 'chosen slice ($slice_us us)'"
fi
# The y range of the counts starts at 0 and leaves room above the
# highest impulse, so that a count of 1 is not drawn on the frame.
cat >"$tmp/fig.gp" <<GP
set terminal svg size 800,400 dynamic font 'sans,11'
set grid
set key top right box opaque width 2
set xlabel 'time slice'
set output '$outdir/bcs-getts.svg'
set title "Global elapsed time from the previous time slice (GETTS), slices $g0-$g1"
set ylabel 'GETTS (us)'
set yrange [0:*]
plot '$tmp/getts.dat' using 1:2 with points pt 7 ps 0.3 lc rgb '#2060c0' title 'GETTS'$ref
set output '$outdir/bcs-np2pdem.svg'
set title "Point-to-point descriptors in the DEM microphase (NP2PDEM), node $pick, slices $l0-$l1"
set ylabel 'descriptors'
set yrange [0:*]
set offsets 0, 0, 1, 0
set ytics $tic_p2p
plot '$tmp/np2pdem.dat' using 1:2 with impulses lw 2 lc rgb '#20a040' title 'NP2PDEM'
set output '$outdir/bcs-ncollmsm.svg'
set title "Collectives scheduled in the MSM microphase (NCOLLMSM), node $pick, slices $l0-$l1"
set ylabel 'collectives'
set ytics $tic_coll
plot '$tmp/ncollmsm.dat' using 1:2 with impulses lw 2 lc rgb '#8e44ad' title 'NCOLLMSM'
GP
gnuplot "$tmp/fig.gp"
echo "plot-bcs: $outdir/bcs-getts.svg $outdir/bcs-np2pdem.svg" \
    "$outdir/bcs-ncollmsm.svg" >&2
