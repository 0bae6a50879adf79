#!/usr/bin/env bash
# The MRNet paper's Figure 9 on this machine: `grove bench offered-load`
# for D back-ends x M metrics at 5 samples/s/metric, through a flat tree
# (the front-end aggregates everything) and a kary:8 tree, then a markdown
# table and a plot (gnuplot, SVG).
#
#   scripts/offered-load.sh [--build DIR] [--backends "4 8 ..."]
#                           [--metrics "1 2 ..."] [--seconds S]
#                           [--out-dir DIR]
#
# Writes DIR/offered-load.jsonl (one JSON object per run), DIR/offered-load.md
# and DIR/offered-load.svg (when gnuplot is installed).  DIR defaults to
# docs/.  The full sweep (8 x 6 x 2 runs) takes about 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
backends="4 8 16 32 64 128 256 512"
metrics="1 2 4 8 16 32"
seconds=4
outdir=docs
while (($#)); do
	case $1 in
	--build) build=$2; shift 2 ;;
	--backends) backends=$2; shift 2 ;;
	--metrics) metrics=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--out-dir) outdir=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "offered-load: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
grove=$build/grove
if [[ ! -x $grove ]]; then
	echo "offered-load: $grove not found; build first (./scripts/demo.sh)" >&2
	exit 1
fi
mkdir -p "$outdir"
jsonl=$outdir/offered-load.jsonl
: >"$jsonl"
export GROVE_COMMIT=${GROVE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

for topo in flat kary:8; do
	for d in $backends; do
		for m in $metrics; do
			echo "offered-load: $topo D=$d M=$m" >&2
			if ! "$grove" bench offered-load --backends "$d" \
			    --metrics "$m" --rate 5 --seconds "$seconds" \
			    --warmup 2 --topology "$topo" --json >>"$jsonl"; then
				echo "offered-load: run $topo D=$d M=$m failed" >&2
				exit 1
			fi
		done
	done
done

python3 - "$jsonl" "$outdir" "$backends" "$metrics" <<'EOF'
import json, sys
jsonl, outdir, backends, metrics = sys.argv[1:5]
backends = [int(x) for x in backends.split()]
metrics = [int(x) for x in metrics.split()]
runs = {}
commit = "unknown"
for line in open(jsonl):
    r = json.loads(line)
    runs[(r["topology"], r["backends"], r["metrics"])] = r
    commit = r.get("commit", commit)
with open(f"{outdir}/offered-load.md", "w") as f:
    f.write(f"Fraction of the offered load processed (commit {commit}); "
            "rows: back-ends D, columns: metrics M, 5 samples/s/metric.\n\n")
    for topo in ("flat", "kary:8"):
        f.write(f"**{topo}**\n\n| D \\ M | " +
                " | ".join(str(m) for m in metrics) + " |\n")
        f.write("|---|" + "---|" * len(metrics) + "\n")
        for d in backends:
            cells = []
            for m in metrics:
                r = runs.get((topo, d, m))
                cells.append("-" if r is None else
                             f"{100 * min(r['fraction'], 1.0):.0f}%")
            f.write(f"| {d} | " + " | ".join(cells) + " |\n")
        f.write("\n")
    # one data file per (topology, M) for the plot
    for topo in ("flat", "kary:8"):
        for m in metrics:
            with open(f"{outdir}/.ol-{topo.replace(':', '')}-{m}.dat", "w") as d:
                for b in backends:
                    r = runs.get((topo, b, m))
                    if r:
                        d.write(f"{b} {100 * min(r['fraction'], 1.0):.2f}\n")
EOF

if command -v gnuplot >/dev/null; then
	plots_flat=""
	plots_tree=""
	for m in $metrics; do
		plots_flat+="'$outdir/.ol-flat-$m.dat' with linespoints title 'M=$m', "
		plots_tree+="'$outdir/.ol-kary8-$m.dat' with linespoints title 'M=$m', "
	done
	gnuplot <<EOF
set terminal svg size 960,420 font "sans,11"
set output "$outdir/offered-load.svg"
set multiplot layout 1,2 title "Offered load processed by the front-end (5 samples/s/metric, commit $GROVE_COMMIT)"
set logscale x 2
set xlabel "back-ends D"
set ylabel "% of offered load processed"
set yrange [0:105]
set key bottom left
set title "flat (front-end aggregates)"
plot ${plots_flat%, }
set title "kary:8 tree (CPs aggregate)"
plot ${plots_tree%, }
unset multiplot
EOF
else
	echo "offered-load: gnuplot not installed, no plot" >&2
fi
rm -f "$outdir"/.ol-*.dat
echo "offered-load: wrote $jsonl, $outdir/offered-load.md" >&2
