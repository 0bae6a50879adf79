#!/usr/bin/env bash
# Draws the figures of docs/mpi-benchmarks.md from the JSON lines of
# scripts/bench-mpi.sh:
#   OUTDIR/mpi-latency.svg    ping-pong latency (half round trip) by size,
#                             2 ranks, one line per MPI
#   OUTDIR/mpi-bandwidth.svg  bandwidth (window 64) by size, 2 ranks
# Each point is the median over the repetitions that measured that size;
# runs that timed out or failed draw no point.  Prints the median series
# as a table on standard output.
#
#   scripts/plot-mpi.sh [RESULTS.jsonl] [OUTDIR]
#       (RESULTS: docs/results/mpi-bench.jsonl, OUTDIR: docs)
# Needs python3 and gnuplot (gnuplot-nox).
set -euo pipefail
in=${1:-docs/results/mpi-bench.jsonl}
outdir=${2:-docs}
[[ -r $in ]] || { echo "plot-mpi: cannot read $in" >&2; exit 1; }
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$in" "$tmp" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out = sys.argv[2]
key = {"pingpong": "lat_us", "bandwidth": "gb_s"}
series = collections.defaultdict(list)
title = {}
for r in rows:
    if r.get("status") == "ok" and r["bench"] in key and key[r["bench"]] in r:
        series[(r["bench"], r["mpi"], r["bytes"])].append(r[key[r["bench"]]])
        title[r["mpi"]] = r["mpi_version"]
with open(f"{out}/title", "w") as f:
    m0 = rows[0] if rows else {"commit": "?", "machine": {"nproc": "?"}}
    f.write(f'commit {m0["commit"]}, {m0["machine"]["nproc"]} CPUs, '
            f'medians of interleaved runs\n')
for bench in key:
    for mpi in ("grove", "openmpi", "mpich"):
        pts = sorted((b, statistics.median(v)) for (be, m, b), v in
                     series.items() if be == bench and m == mpi)
        if not pts:
            continue
        with open(f"{out}/{bench}_{mpi}.dat", "w") as f:
            f.write(f"# {title[mpi]}\n")
            for b, v in pts:
                f.write(f"{b} {v}\n")
        print(f"{bench} {title[mpi]}: " +
              " ".join(f"{b}:{v:.4g}" for b, v in pts))
PY

plot() { # $1: bench; prints gnuplot plot clauses, one per MPI measured
	local first=1 m lc name
	for m in grove openmpi mpich; do
		[[ -e $tmp/$1_$m.dat ]] || continue
		case $m in
		grove) lc='#20a040' ;;
		openmpi) lc='#2060c0' ;;
		mpich) lc='#c0392b' ;;
		esac
		name=$(sed -n '1s/^# //p' "$tmp/$1_$m.dat")
		[[ $first == 1 ]] || printf ', '
		first=0
		printf "'%s' using 1:2 with linespoints lc rgb '%s' pt 7 ps 0.6 title '%s'" \
		    "$tmp/$1_$m.dat" "$lc" "$name"
	done
	[[ $first == 0 ]] || printf "1 notitle lc rgb 'white'" # nothing measured
}

sub=$(cat "$tmp/title")
cat >"$tmp/fig.gp" <<GP
set terminal svg size 800,500 dynamic font 'sans,11'
set logscale xy
set grid
set key top left
set xlabel 'message size'
set output '$outdir/mpi-latency.svg'
set xtics ('1 B' 1, '16 B' 16, '256 B' 256, '4 KiB' 4096, '64 KiB' 65536, \\
    '1 MiB' 1048576)
set title "ping-pong latency, 2 ranks, one host (half round trip)\n{/*0.8 $sub}"
set ylabel 'latency (us)'
plot $(plot pingpong)
set output '$outdir/mpi-bandwidth.svg'
set xtics ('1 KiB' 1024, '4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, \\
    '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304)
set title "bandwidth, window of 64 messages, 2 ranks, one host\n{/*0.8 $sub}"
set ylabel 'bandwidth (GB/s)'
set key bottom right
plot $(plot bandwidth)
GP
gnuplot "$tmp/fig.gp"
echo "plot-mpi: $outdir/mpi-latency.svg $outdir/mpi-bandwidth.svg" >&2
