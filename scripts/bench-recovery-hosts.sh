#!/usr/bin/env bash
# Recovery across hosts on the multi-host test bed (scripts/testbed.sh):
# `grove bench recovery` on a kary:8 tree of 512 back-ends spread over 4
# hosts by a host list (147, 146, 146, 146 slots: the front-end and two
# of its eight subtrees on the first host, two subtrees on each other),
# run from the first host.  CPs are killed (SIGKILL) while the back-ends
# stream waves; each loss is timed from the kill to the first complete
# wave after the front-end's GROVE_EV_REPARENTED, and throughput is
# measured before the first loss and after the last.  The victims (node
# ids in pre-order, `grove topo -t kary:8 -b 512 -H LIST`):
#
#   148  a CP of back-ends on host 2: its 8 back-ends move to node 147,
#        on the same host
#   293  a child of the front-end on host 3: its 8 CPs move to the
#        front-end, across hosts
#   440  a CP of back-ends on host 4 (to node 439, same host)
#   439  its parent, a child of the front-end on host 4: its CPs and
#        the moved back-ends go to the front-end, across hosts
#
#   scripts/bench-recovery-hosts.sh [--build DIR] [--reps R] [--waves W]
#       [--prefix NAME] [--out FILE] [--seq]
#
# Prints each run's report and appends its JSON (with the commit, the
# machine and the load average at its start) to FILE (default
# docs/results/recovery-hosts.jsonl).  --seq numbers the waves (a concat
# stream, each wave checked rank by rank): slower, so not for the
# throughput figures.  Needs root (the test bed); brings its own test bed
# up and down.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
reps=3
waves=2000
prefix=rb
out=$src/docs/results/recovery-hosts.jsonl
seq=()
while (($#)); do
	case $1 in
	--build) build=$(cd "$2" && pwd); shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--waves) waves=$2; shift 2 ;;
	--prefix) prefix=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--seq) seq=(--seq); shift ;;
	-h | --help) sed -n '2,28p' "$0"; exit 0 ;;
	*) echo "bench-recovery-hosts: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
grove=$build/grove
[[ -x $grove ]] || { echo "bench-recovery-hosts: $grove not found; build first" >&2; exit 1; }
testbed=$src/scripts/testbed.sh
export GROVE_COMMIT=${GROVE_COMMIT:-$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)}
tmp=$(mktemp -d)
trap '"$testbed" down --prefix "$prefix" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$testbed" down --prefix "$prefix" >/dev/null 2>&1 || true
"$testbed" up 4 --prefix "$prefix" >/dev/null
printf '%s1:147\n%s2:146\n%s3:146\n%s4:146\n' "$prefix" "$prefix" "$prefix" \
	"$prefix" >"$tmp/hosts.txt"
mkdir -p "$(dirname "$out")"
for ((r = 1; r <= reps; r++)); do
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	"$testbed" exec --prefix "$prefix" "${prefix}1" timeout 600 "$grove" \
		bench recovery --topology kary:8 --backends 512 -H "$tmp/hosts.txt" \
		--victims 148,293,440,439 --waves "$waves" "${seq[@]}" --json \
		>"$tmp/o" 2>"$tmp/e" || {
		cat "$tmp/e" >&2
		echo "bench-recovery-hosts: run $r failed" >&2
		continue
	}
	python3 - "$tmp/o" "$load" "$r" <<'PY' | tee -a "$out"
import json, sys
d = json.load(open(sys.argv[1]))
d["loadavg"] = sys.argv[2]
d["rep"] = int(sys.argv[3])
d["testbed_hosts"] = 4
print(json.dumps(d))
PY
	python3 - "$tmp/o" "$load" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"run {sys.argv[3]} (load {sys.argv[2]}): instantiation "
      f"{d['instantiation_s']:.1f} s, before {d['before_wps']:.0f} waves/s, "
      f"after {d['after_wps']:.0f} waves/s")
for x in d["losses"]:
    print(f"  node {x['node']:3} ({x['backends_moved']:2} back-ends below, to "
          f"node {x['new_parent']}): first whole wave after {x['first_wave_ms']:.0f} ms "
          f"(event {x['reparented_ms']:.0f} ms, longest stall {x['stall_ms']:.0f} ms)")
PY
done
