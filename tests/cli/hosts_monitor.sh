#!/usr/bin/env bash
# grove monitor --net through the tree, across hosts, on the multi-host
# test bed (scripts/testbed.sh; docs/monitoring.md, "Event scopes through
# the tree"): three network namespaces with their own names, a front-end
# on the first, a CP per host and two back-ends on each, running the
# micro-benchmark's round trips.  From the front-end's host:
#   * grove monitor load-balance --net (the distributed analysis, one
#     reader per host): 3 readers of 3 answer, every node of the tree is
#     read (unread_nodes 0), 10 processes, the front-end waits for the
#     CPs of all three hosts and each CP for its two back-ends, waves
#     grow from view to view;
#   * the same with --raw (the single scope): every node read, the
#     last-arrival tuples gathered (sent > 0);
#   * grove monitor stats --net: paths of processes on every host;
#   * the network goes on after each monitor left; teardown leaves
#     nothing.
# Exits 77 (a skip) with the reason where no test bed can be made.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/testbed_common.sh"
net=

# After down (which ends every process in the hosts, the network's too):
# the network's event spaces.
testbed_after_down() {
	[[ -n $net ]] && "$grove" trace clean --net "$net" >/dev/null 2>&1
}

testbed_prefix m
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3
testbed_up 3

cat >"$tmp/tree.top" <<EOF
$h1:0 => $h1:1 $h2:0 $h3:0 ;
$h1:1 => $h1:2 $h1:3 ;
$h2:0 => $h2:1 $h2:2 ;
$h3:0 => $h3:1 $h3:2 ;
EOF

# The front-end: its pid (exec keeps it) names its event space, whose
# name holds the network id.  It runs until the test bed goes down.
on "$h1" env GROVE_RSH="ssh -F $cfg" bash -c "echo \$\$ >$tmp/fe.pid; exec \
	$grove bench micro -f $tmp/tree.top --rt-iters 100000000" \
	>"$tmp/bench.out" 2>&1 &
fe=$!
for _ in $(seq 300); do
	if [[ -s $tmp/fe.pid ]]; then
		pid=$(cat "$tmp/fe.pid")
		net=$("$grove" trace list 2>/dev/null |
			awk -v p="$pid" '$2 == p && $1 ~ /\.fe\.0$/ {print $1}' |
			cut -d. -f2)
		[[ -n $net ]] && break
	fi
	kill -0 "$fe" 2>/dev/null || { cat "$tmp/bench.out" >&2; fail "the benchmark ended"; }
	sleep 0.2
done
[[ -n $net ]] || { cat "$tmp/bench.out" >&2; fail "no network id"; }
# Every node up: the CPs of the other hosts have their spaces.
for _ in $(seq 300); do
	n=$("$grove" trace list 2>/dev/null | grep -c "grove\.$net\." || true)
	((n >= 10)) && break
	sleep 0.2
done
((n >= 10)) || fail "network $net: $n event spaces, not 10"
sleep 1 # some round trips

num() { # LINE KEY
	grep -o "\"$2\":[0-9]*" <<<"$1" | head -1 | cut -d: -f2
}

check_views() { # NAME FILE MODE
	local views=0 last=0 line w
	while IFS= read -r line; do
		views=$((views + 1))
		[[ $(num "$line" unread_nodes) == 0 ]] || fail "$1: unread nodes: $line"
		[[ $(num "$line" readers) == 3 && $(num "$line" readers_all) == 3 ]] ||
			fail "$1: not 3 of 3 readers: $line"
		[[ $(num "$line" procs) == 10 ]] || fail "$1: not 10 processes: $line"
		grep -q "\"event_scope\":\"$3\"" <<<"$line" || fail "$1: not through the tree ($3)"
		for p in "fe 0" "cp 1" "cp 4" "cp 7"; do
			grep -q "\"parent\":\"$p\"" <<<"$line" ||
				fail "$1: no last arrivals at $p: $line"
		done
		w=$(num "$line" waves)
		((w > last)) || fail "$1: waves did not grow ($last, $w)"
		(($(num "$line" pulls) >= views)) || fail "$1: fewer pulls than views: $line"
		grep -q '"pull_period_s":' <<<"$line" || fail "$1: no pull period: $line"
		(($(num "$line" share_bytes) > 0)) || fail "$1: no share bytes: $line"
		last=$w
	done <"$2"
	((views == 3)) || fail "$1: $views views, not 3"
}

on "$h1" timeout 60 "$grove" monitor load-balance --net "$net" --json \
	--count 3 --interval 0.5 >"$tmp/lb.json" 2>"$tmp/lb.err" ||
	{ cat "$tmp/lb.err" >&2; fail "grove monitor load-balance --net"; }
check_views "load-balance" "$tmp/lb.json" tree

on "$h1" timeout 60 "$grove" monitor load-balance --net "$net" --json \
	--count 3 --interval 0.5 --raw >"$tmp/raw.json" 2>"$tmp/raw.err" ||
	{ cat "$tmp/raw.err" >&2; fail "grove monitor load-balance --net --raw"; }
check_views "load-balance --raw" "$tmp/raw.json" raw
(($(num "$(tail -1 "$tmp/raw.json")" sent) > 0)) || fail "--raw sent no tuples"

on "$h1" timeout 60 "$grove" monitor stats --net "$net" --json --count 1 \
	>"$tmp/stats.json" 2>"$tmp/stats.err" ||
	{ cat "$tmp/stats.err" >&2; fail "grove monitor stats --net"; }
for p in "cp 4" "cp 7" "be 2" "be 5"; do
	grep -q "\"proc\":\"$p\"" "$tmp/stats.json" ||
		fail "stats: no paths of $p (another host)"
done

# The network is still running its round trips.
kill -0 "$fe" 2>/dev/null || { cat "$tmp/bench.out" >&2; fail "the benchmark ended under the monitors"; }
grep -qi "error\|lost" "$tmp/bench.out" && { cat "$tmp/bench.out" >&2; fail "the benchmark reported a failure"; }
echo "OK: network $net monitored through its tree across 3 hosts"
