#!/usr/bin/env bash
# Grove MPI's two transports on one host, in one sitting: ping-pong
# latency of bench/mpi/pingpong.c with `grove run --transport shm` and
# `--transport tcp`, runs alternating (shm first in odd repetitions, tcp
# first in even ones), medians per size and the ratio tcp/shm.
#
#   scripts/bench-mpi-transport.sh [--reps N] [--build DIR]
#
# GROVE_MPI_SPIN_US in the environment reaches the ranks (0: sleep at
# once, the fairer setting on a loaded machine, where a 1 ms spin keeps
# the peer off its core).  Bandwidth follows from the latency of the large sizes
# (bytes / lat_us = MB/s).  Sizes 1 B .. 4 MiB, x16.  Prints the commit, the machine and its load.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build reps=5
while (($#)); do
	case $1 in
	--reps) reps=${2:?--reps needs a number}; shift ;;
	--build) build=$(cd "${2:?--build needs a directory}" && pwd); shift ;;
	*) echo "usage: $0 [--reps N] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
[[ -x $build/grove && -x $build/mpicc ]] ||
	{ echo "bench-mpi-transport: build Grove first ($build/grove, mpicc)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/mpicc" -O2 -o "$tmp/pingpong" "$root/bench/mpi/pingpong.c"
echo "commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo -dirty)"
echo "GROVE_MPI_SPIN_US=${GROVE_MPI_SPIN_US:-unset (1 ms spin before sleeping)}"
echo "machine $(nproc) cores, $(. /etc/os-release && echo "$PRETTY_NAME"), load $(cut -d' ' -f1-3 /proc/loadavg)"
sizes="-m 1 -M 4194304 -f 16 -t 0.1"
for ((i = 1; i <= reps; i++)); do
	order="shm tcp"
	((i % 2)) || order="tcp shm"
	for t in $order; do
		# A run that hits the time limit counts for nothing (said).
		"$build/grove" run --timeout 300 --transport "$t" -n 2 \
			"$tmp/pingpong" $sizes | sed "s/^/$t /" >>"$tmp/all" ||
			echo "run $i $t failed or timed out" >&2
	done
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/all" <<'EOF'
import re, statistics, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w+) pingpong bytes=(\d+) iters=\d+ lat_us=([\d.]+)", line)
    if m:
        d.setdefault((m[1], int(m[2])), []).append(float(m[3]))
print(f"{'bytes':>8} {'shm us':>10} {'tcp us':>10} {'tcp/shm':>8} {'shm MB/s':>9} {'tcp MB/s':>9}")
for b in sorted({k[1] for k in d}):
    if ("shm", b) not in d or ("tcp", b) not in d:
        continue
    s = statistics.median(d[("shm", b)]); t = statistics.median(d[("tcp", b)])
    print(f"{b:>8} {s:>10.2f} {t:>10.2f} {t / s:>8.2f} {b / s:>9.0f} {b / t:>9.0f}")
print(f"medians of {len(d.get(('shm', 1), []))} shm and {len(d.get(('tcp', 1), []))} tcp runs")
EOF
