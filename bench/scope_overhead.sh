#!/usr/bin/env bash
# What an event scope costs the network it watches (docs/monitoring.md,
# "Event scopes through the tree"): grove bench micro's round trips on
# kary:2 with 8 back-ends, unwatched and watched by grove monitor
# load-balance --net (a view every 0.1 s, pulls at the default pace:
# the busiest ring read about a quarter full, at most every 0.01 s) in
# each way a scope can run:
#   tree-host  distributed analysis, one reader per host (here the
#              front-end: it reads inside its Grove calls)
#   tree-node  distributed analysis, every CP reads itself and its
#              back-ends (7 readers, merges at every level)
#   raw-node   the single scope: every CP's last-arrival tuples, gathered
#              raw to the monitor
# The modes alternate within each round; per mode it prints the median
# over rounds of the round trips' mean and median, the ratio to
# unwatched, and what the monitor saw: views, the gather rate (the
# paper's Tables 1 and 2: tuples read of those written while attached,
# read + lost), the bytes a pull brought to the monitor (mean), and the
# tuples lost while attached.  One reader per host reads every space of
# the host in turn, as the paper's sequential gather; a reader per node
# reads in parallel, as its gather wrappers with helper threads.  The
# monitor attaches once the network is up, so the first round trips of
# each run are unwatched.
#   bench/scope_overhead.sh BUILD_DIR [ROUNDS (5)] [RT_ITERS (20000)]
set -euo pipefail
build=$(cd "${1:?usage: scope_overhead.sh BUILD_DIR [ROUNDS] [RT_ITERS]}" && pwd)
rounds=${2:-5}
iters=${3:-20000}
grove=$build/grove
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modes=(none tree-host tree-node raw-node)

run() { # MODE ROUND
	local mode=$1 r=$2 out=$tmp/$1.$2
	bash -c "echo \$\$ >$out.pid; exec $grove bench micro -t kary:2 -b 8 \
		--rt-iters $iters --thru-iters 10 -j" >"$out.json" 2>"$out.err" &
	local bench=$! net= pid
	if [[ $mode != none ]]; then
		for _ in $(seq 200); do
			pid=$(cat "$out.pid" 2>/dev/null || true)
			[[ -n $pid ]] && net=$("$grove" trace list 2>/dev/null |
				awk -v p="$pid" '$2 == p && $1 ~ /\.fe\.0$/ {print $1}' |
				cut -d. -f2)
			[[ -n $net ]] && break
			sleep 0.05
		done
		local args=(--readers node)
		[[ $mode == tree-host ]] && args=(--readers host)
		[[ $mode == raw-node ]] && args+=(--raw)
		[[ -n $net ]] && "$grove" monitor load-balance --net "$net" --json \
			--interval 0.1 "${args[@]}" >"$out.mon" 2>/dev/null &
	fi
	wait "$bench"
	wait 2>/dev/null || true
}

for r in $(seq "$rounds"); do
	for m in "${modes[@]}"; do
		run "$m" "$r"
	done
done

python3 - "$tmp" "$rounds" "${modes[@]}" <<'PY'
import json, statistics, sys, os
tmp, rounds, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
res = {}
for m in modes:
    means, meds, views, lost, rate, sent = [], [], [], [], [], []
    for r in range(1, rounds + 1):
        with open(f"{tmp}/{m}.{r}.json") as f:
            j = json.loads(f.read().strip().splitlines()[-1])
        means.append(j["roundtrip_s"]); meds.append(j["roundtrip_median_s"])
        mon = f"{tmp}/{m}.{r}.mon"
        if os.path.exists(mon):
            lines = [json.loads(l) for l in open(mon) if l.strip()]
            views.append(len(lines))
            lost.append(lines[-1]["lost"] if lines else 0)
            if lines and lines[-1]["tuples"] + lines[-1]["lost"] > 0:
                v = lines[-1]
                rate.append(v["tuples"] / (v["tuples"] + v["lost"]))
            if lines and lines[-1].get("pulls"):
                sent.append(lines[-1]["share_bytes"] / lines[-1]["pulls"])
    res[m] = (statistics.median(means), statistics.median(meds), views, lost,
              statistics.median(rate) if rate else None,
              statistics.median(sent) if sent else None)
base = res["none"]
print(f"kary:2, 8 back-ends, {rounds} rounds of {modes}, medians over rounds")
print(f"{'mode':10} {'rt mean us':>11} {'ratio':>6} {'rt median us':>13} {'ratio':>6}  "
      f"{'gather':>7} {'bytes/pull':>10}  views  lost while attached")
for m in modes:
    mean, med, views, lost, rate, sent = res[m]
    print(f"{m:10} {mean*1e6:11.1f} {mean/base[0]:6.3f} {med*1e6:13.1f} {med/base[1]:6.3f}  "
          f"{(f'{rate*100:.1f}%' if rate is not None else '-'):>7} "
          f"{(f'{sent:.0f}' if sent is not None else '-'):>10}  "
          f"{','.join(map(str, views)) or '-':5}  {','.join(map(str, lost)) or '-'}")
PY
