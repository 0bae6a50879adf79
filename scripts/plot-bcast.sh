#!/usr/bin/env bash
# Turns the JSON lines of `grove bench bcast --json` (scripts/bench-bcast.sh)
# into the figures and the table of docs/bcast.md:
#   OUTDIR/bcast.svg        completion time vs message size, 4 clusters
#                           (top) and 8 clusters (bottom), every scheme and
#                           cluster size (the paper's Figure 4)
#   OUTDIR/bcast-error.svg  the model's relative error (Figure 5, top)
# and prints the results as a markdown table on standard output.
#
#   scripts/plot-bcast.sh RESULTS.jsonl [OUTDIR]      (OUTDIR: docs)
# Needs python3 and gnuplot (gnuplot-nox).
set -euo pipefail
in=${1:?usage: plot-bcast.sh RESULTS.jsonl [OUTDIR]}
outdir=${2:-docs}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$in" "$tmp" <<'PY'
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out = sys.argv[2]
series = collections.defaultdict(list)
for r in rows:
    series[(r["clusters"], r["per_cluster"], r["scheme"])].append(r)
for (c, p, s), rs in series.items():
    with open(f"{out}/{c}_{p}_{s}.dat", "w") as f:
        for r in sorted(rs, key=lambda r: r["size"]):
            f.write(f'{r["size"]} {r["measured_s"]*1e3} {r["model_s"]*1e3} '
                    f'{r["rel_err"]*100}\n')
# The markdown table: one row per configuration and size.
schemes = ["original", "optimized", "whole-nonblocking"]
by = {(r["clusters"], r["per_cluster"], r["size"], r["scheme"]): r for r in rows}
cfgs = sorted({(r["clusters"], r["per_cluster"]) for r in rows})
print("| clusters x procs | size | original ms (model, err) | optimized ms "
      "(model, err) | k x segment, d_wan/d_lan | whole-nonblocking ms "
      "(model, err) | original / optimized |")
print("|---|---:|---:|---:|---|---:|---:|")
def cell(r):
    if not r:
        return "-"
    return (f'{r["measured_s"]*1e3:.1f} ({r["model_s"]*1e3:.1f}, '
            f'{r["rel_err"]*100:+.1f}%)')
for c, p in cfgs:
    for size in sorted({k[2] for k in by if k[:2] == (c, p)}):
        o, z, w = (by.get((c, p, size, s)) for s in schemes)
        shape = (f'{z["k"]} x {z["segment"]}, {z["d_wan"]}/{z["d_lan"]}'
                 if z else "-")
        ratio = (f'{o["measured_s"]/z["measured_s"]:.2f}' if o and z else "-")
        label = f"{size // 1024} KB" if size < 1 << 20 else f"{size >> 20} MB"
        print(f"| {c} x {p} | {label} | {cell(o)} | {cell(z)} | {shape} | "
              f"{cell(w)} | {ratio} |")
PY

plot() { # $1: clusters, $2: column; prints gnuplot plot clauses
	# A colour per scheme; one process per cluster solid, more dashed.
	local c=$1 first=1 f p s lc dt
	for f in "$tmp/${c}"_*.dat; do
		[ -e "$f" ] || continue
		p=$(basename "$f" .dat | cut -d_ -f2)
		s=$(basename "$f" .dat | cut -d_ -f3)
		case $s in
		original) lc='#c0392b' ;;
		optimized) lc='#2060c0' ;;
		*) lc='#20a040' ;;
		esac
		if [ "$p" = 1 ]; then dt=1; else dt=2; fi
		[ $first = 1 ] || printf ', '
		first=0
		printf "'%s' using 1:%s with linespoints lc rgb '%s' dt %s pt %s title '%s, %s x %s'" \
		    "$f" "$2" "$lc" "$dt" "$((dt == 1 ? 7 : 6))" "$s" "$c" "$p"
	done
	[ $first = 0 ] || printf "1 notitle lc rgb 'white'" # no results here
}

cat >"$tmp/fig.gp" <<GP
set terminal svg size 900,1000 dynamic font 'sans,11'
set output '$outdir/bcast.svg'
set multiplot layout 2,1
set logscale xy
set xlabel 'message size (bytes)'
set ylabel 'completion time (ms)'
set key top left
set grid
set title 'broadcast, 4 clusters, WAN 10 ms / 1 MB/s emulated'
plot $(plot 4 2)
set title 'broadcast, 8 clusters, WAN 10 ms / 1 MB/s emulated'
plot $(plot 8 2)
unset multiplot
set output '$outdir/bcast-error.svg'
set terminal svg size 900,500 dynamic font 'sans,11'
unset logscale y
set logscale x
set ylabel 'model error (%), (model - measured) / measured'
set title 'P-LogP estimate vs measurement'
set key bottom right font ',9'
plot $(plot 4 4), $(plot 8 4)
GP
gnuplot "$tmp/fig.gp"
