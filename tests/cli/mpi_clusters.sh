#!/usr/bin/env bash
# Grove MPI over emulated clusters (docs/mpi.md, "Clusters"): bad
# GROVE_MPI_CLUSTERS, GROVE_MPI_WAN, GROVE_MPI_BCAST and GROVE_LOGP_PARAMS
# end MPI_Init with the reason; and the hierarchy is real: with clusters
# {0,4} {1,5} {2,6} {3,7} (leaders 0-3), the ranks that lead no cluster
# send nothing over the emulated WAN in a barrier, a broadcast by the
# P-LogP plan or MagPIe's scheme, a reduction and an allreduction, while
# the cluster-blind binomial broadcast makes rank 4 send over it; rank 0
# sends MagPIe's 3 whole messages, or the plan's segments to 3 leaders.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
prog=$build/mpilaunch_hier_wan

bad_env() { # what-it-must-say ENV=VALUE...
	local says=$1
	shift
	local rc=0
	env "$@" timeout 120 "$grove" run -n 4 "$prog" >"$tmp/b.out" 2>"$tmp/b.err" || rc=$?
	[ "$rc" -ne 0 ] || { cat "$tmp/b.err"; fail "$* was accepted"; }
	grep -qF "$says" "$tmp/b.err" || { cat "$tmp/b.err"; fail "$*: no '$says'"; }
}
bad_env "GROVE_MPI_CLUSTERS='0-1,1-3': rank 1 is in cluster 0 and in cluster 1" \
	GROVE_MPI_CLUSTERS=0-1,1-3
bad_env "GROVE_MPI_CLUSTERS='0-1;2-3': at character 4 (';'): expected ','" \
	GROVE_MPI_CLUSTERS='0-1;2-3'
bad_env "GROVE_MPI_CLUSTERS='4x2': '4x2' makes 4 clusters of 2 ranks = 8 ranks, but the job has 4" \
	GROVE_MPI_CLUSTERS=4x2
bad_env "GROVE_MPI_WAN='10ms': '10ms': expected '<latency>,<bandwidth>'" \
	GROVE_MPI_CLUSTERS=2x2 GROVE_MPI_WAN=10ms
bad_env "GROVE_MPI_BCAST='tree': expected plogp, binomial or magpie" \
	GROVE_MPI_CLUSTERS=2x2 GROVE_MPI_BCAST=tree
bad_env "GROVE_LOGP_PARAMS=$tmp/none.logp:" \
	GROVE_MPI_CLUSTERS=2x2 GROVE_LOGP_PARAMS="$tmp/none.logp"
printf 'grove-logp 1\nclass host\nL x\n' >"$tmp/bad.logp"
bad_env "GROVE_LOGP_PARAMS=$tmp/bad.logp: line 3" \
	GROVE_MPI_CLUSTERS=2x2 GROVE_LOGP_PARAMS="$tmp/bad.logp"

# WAN messages each rank sent, from the GROVE_MPI_VERBOSE lines.
sent() { # algo -> $tmp/<algo>.sent: "rank messages" lines
	local algo=$1
	GROVE_MPI_CLUSTERS=0+4,1+5,2+6,3+7 GROVE_MPI_WAN=200us,1GB/s \
	GROVE_MPI_BCAST=$algo GROVE_MPI_VERBOSE=1 \
		timeout 120 "$grove" run -n 8 "$prog" >"$tmp/$algo.out" 2>"$tmp/$algo.err" ||
		{ cat "$tmp/$algo.err"; fail "$algo run failed"; }
	grep -q "grove-mpi: 4 clusters (GROVE_MPI_CLUSTERS); broadcasts between them: $algo; emulated WAN: 200 us, 1000000000 B/s" "$tmp/$algo.err" ||
		{ cat "$tmp/$algo.err"; fail "$algo: rank 0 did not describe the clusters"; }
	sed -n 's/^grove-mpi: rank \([0-9]*\): \([0-9]*\) messages, .* over the emulated WAN$/\1 \2/p' \
		"$tmp/$algo.err" | sort -n >"$tmp/$algo.sent"
	[ "$(wc -l <"$tmp/$algo.sent")" = 8 ] ||
		{ cat "$tmp/$algo.err"; fail "$algo: not every rank counted its WAN messages"; }
}
count() { awk -v r="$2" '$1 == r { print $2 }' "$tmp/$1.sent"; }

for algo in plogp magpie binomial; do
	sent "$algo"
done
for algo in plogp magpie; do
	for r in 4 5 6 7; do
		[ "$(count "$algo" "$r")" = 0 ] ||
			{ cat "$tmp/$algo.sent"; fail "$algo: rank $r leads no cluster but sent over the WAN"; }
	done
done
# Rank 0's messages besides the broadcast's (barriers, allreduce) are the
# same in every run; MagPIe's broadcast adds exactly 3 (one whole message
# per other leader), so what rank 0 sent beyond that base in the plan's
# run is the plan's broadcast: k segments to each of the 3 leaders.
base=$(($(count magpie 0) - 3))
[ "$base" -ge 0 ] || fail "magpie: rank 0 sent fewer than its 3 broadcast messages"
plan=$(($(count plogp 0) - base))
[ "$plan" -gt 3 ] && [ $((plan % 3)) = 0 ] ||
	{ cat "$tmp/plogp.sent"; fail "plogp: rank 0's broadcast sent $plan messages, not k > 1 segments to 3 leaders"; }
[ "$(count binomial 4)" -gt 0 ] ||
	{ cat "$tmp/binomial.sent"; fail "binomial: rank 4 sent nothing over the WAN"; }
echo "clusters: errors named; only leaders cross the WAN (plan: $((plan / 3)) segments per leader)"
