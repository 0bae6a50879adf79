#!/usr/bin/env bash
# A Grove tree across hosts, on the multi-host test bed (scripts/testbed.sh):
# four network namespaces with their own names, addresses, /etc/hosts and
# sshd, a front-end on the first, one CP per host and two back-ends on
# each.  Checked:
#   * the test bed: ssh between hosts by name, host names, tc rate caps;
#   * spawn mode over ssh, from a topology file with GROVE_RSH="ssh -F
#     CONFIG" and from a host list with the default remote shell: grove
#     demo's multicast and reductions all right, every back-end reporting
#     the host it was meant for; the same with Grove's link emulator
#     (a cluster per host); a host list that does not start with the
#     front-end's host is refused, naming it;
#   * attach mode: the CPs run in their hosts' namespaces, those of the
#     other hosts connected to the front-end from their own addresses; the
#     connection file sends each rank to the CP on its host; a back-end
#     with a wrong secret is turned away; back-ends started over ssh on
#     the other hosts attach and the reductions are right;
#   * grove top across hosts: every host's own record, and each host's own
#     network figures (traffic between two hosts shows on their agents
#     only);
#   * teardown: no namespace, /etc/netns entry, state or process left.
# Exits 77 (a skip) with the reason where no test bed can be made (not
# root, no network namespaces, no openssh-server).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/testbed_common.sh"

# --- the test bed --------------------------------------------------------
testbed_prefix h
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3 h4=${prefix}4
hosts=("$h1" "$h2" "$h3" "$h4")
testbed_up 4 --rate 200mbit
for h in "${hosts[@]}"; do
	got=$(on "$h1" ssh "$h" hostname) || fail "ssh $h from $h1"
	[[ $got == "$h" ]] || fail "ssh $h hostname said '$got'"
	tc -n "$h" qdisc show dev eth0 | grep -q "tbf .*rate 200Mbit" ||
		fail "$h: no tbf rate cap on eth0: $(tc -n "$h" qdisc show dev eth0)"
done
got=$(on "$h3" getent hosts "$h4") || fail "$h3 cannot resolve $h4"
[[ $got == "10.77.0.4 "* ]] || fail "$h3 resolves $h4 as '$got'"

# --- the tree: one CP per host, two back-ends on each --------------------
cat >"$tmp/tree.top" <<EOF
# the front-end on $h1, a CP per host, two back-ends under each
$h1:0 => $h1:1 $h2:0 $h3:0 $h4:0 ;
$h1:1 => $h1:2 $h1:3 ;
$h2:0 => $h2:1 $h2:2 ;
$h3:0 => $h3:1 $h3:2 ;
$h4:0 => $h4:1 $h4:2 ;
EOF
# The same tree from a host list: the front-end and a CP fill two slots
# of the first host, then a CP and its back-ends take each host.
printf '%s:4\n%s:3\n%s:3\n%s:3\n' "${hosts[@]}" >"$tmp/hosts.txt"
where="back-ends by host (from their info replies): $h1 ranks 0-1, $h2 ranks 2-3, $h3 ranks 4-5, $h4 ranks 6-7"

demo_ok() { # NAME OUTFILE MODE: grove demo's results and hosts
	grep -q "all 11 results OK" "$2" &&
		grep -q "($3 mode, all 8 back-ends" "$2" &&
		grep -qxF "$where" "$2" ||
		{ cat "$2" >&2; fail "$1: results or hosts not as expected"; }
}

# --- spawn mode over ssh -------------------------------------------------
on "$h1" env GROVE_RSH="ssh -F $cfg" timeout 120 "$grove" demo \
	--file "$tmp/tree.top" >"$tmp/spawn.out" 2>&1 ||
	{ cat "$tmp/spawn.out" >&2; fail "grove demo --file over ssh -F"; }
demo_ok "spawn, topology file" "$tmp/spawn.out" spawn

on "$h1" timeout 120 "$grove" demo --topology levels:4x2 \
	--hosts "$tmp/hosts.txt" >"$tmp/list.out" 2>&1 ||
	{ cat "$tmp/list.out" >&2; fail "grove demo --hosts over ssh"; }
demo_ok "spawn, host list" "$tmp/list.out" spawn

# Grove's link emulator on the links between hosts (node ids as in
# `grove topo --file tree.top`).
cat >"$tmp/hosts.map" <<EOF
wan latency 2ms bandwidth 10MB/s
cluster 1 nodes 0-3
cluster 2 nodes 4-6
cluster 3 nodes 7-9
cluster 4 nodes 10-12
EOF
on "$h1" env GROVE_CLUSTER_MAP="$tmp/hosts.map" timeout 120 "$grove" demo \
	--file "$tmp/tree.top" >"$tmp/emu.out" 2>&1 ||
	{ cat "$tmp/emu.out" >&2; fail "grove demo with a cluster per host"; }
demo_ok "spawn, link emulator" "$tmp/emu.out" spawn

# The first host of a list is the front-end's: from another host the list
# is refused before anything starts.
if on "$h2" timeout 60 "$grove" demo --topology levels:4x2 \
	--hosts "$tmp/hosts.txt" >"$tmp/wrong.out" 2>&1; then
	fail "a host list whose first host is not the front-end's was taken"
fi
grep -q "its first host '$h1' takes the front-end.* on this host ('$h2')" \
	"$tmp/wrong.out" || { cat "$tmp/wrong.out" >&2; fail "wrong first host: unclear"; }

# --- attach mode ---------------------------------------------------------
conn=$tmp/conn
on "$h1" timeout 180 "$grove" demo --file "$tmp/tree.top" --attach "$conn" \
	>"$tmp/attach.out" 2>&1 &
fe=$!
for _ in $(seq 600); do
	[[ -f $conn ]] || ! kill -0 "$fe" 2>/dev/null && break
	sleep 0.1
done
[[ -f $conn ]] || { cat "$tmp/attach.out" >&2; fail "no connection file"; }
# Every host's CP runs in that host's namespace (and the front-end in the
# first's).
for h in "${hosts[@]}"; do
	procs=$(for p in $(ip netns pids "$h"); do cat "/proc/$p/comm"; done 2>/dev/null)
	grep -qx grove-commnode <<<"$procs" ||
		fail "no grove-commnode in $h's namespace: $(tr '\n' ' ' <<<"$procs")"
done
procs=$(for p in $(ip netns pids "$h1"); do cat "/proc/$p/comm"; done 2>/dev/null)
grep -qx grove <<<"$procs" || fail "the front-end is not in $h1's namespace"
# The other hosts' CPs reach the front-end over the test bed's network:
# connections from their addresses in the first host's namespace.
links=$(ip netns exec "$h1" ss -Htn state established)
for k in 2 3 4; do
	awk -v peer="10.77.0.$k" '{ split($NF, a, ":"); if (a[1] == peer) f = 1 }
		END { exit !f }' <<<"$links" ||
		fail "no connection from 10.77.0.$k in $h1: $links"
done
# Each rank is sent to the CP on its own host.
for r in 0 1 2 3 4 5 6 7; do
	want=${prefix}$((r / 2 + 1))
	grep -Eq "^$r $want [0-9]+ " "$conn" ||
		{ cat "$conn" >&2; fail "rank $r is not sent to $want"; }
done
# The tree's authentication across hosts: a back-end that does not know
# the secret is turned away, and its rank stays free.
sed 's/^secret .*/secret '"$(printf '%064d' 7)"'/' "$conn" >"$tmp/wrong.conn"
chmod 600 "$tmp/wrong.conn"
if on "$h1" ssh "$h2" timeout 60 "$build/be_worker" --attach "$tmp/wrong.conn" \
	--rank 2 >"$tmp/wrong.be" 2>&1; then
	fail "a back-end with a wrong secret attached"
fi
grep -q "parent closed the connection during the handshake (wrong secret" "$tmp/wrong.be" ||
	{ cat "$tmp/wrong.be" >&2; fail "wrong secret: no authentication error"; }
# The back-ends: on the front-end's host directly, on the others over ssh.
bes=()
for r in 0 1 2 3 4 5 6 7; do
	h=${prefix}$((r / 2 + 1))
	if [[ $h == "$h1" ]]; then
		on "$h1" timeout 120 "$build/be_worker" --attach "$conn" --rank $r \
			>"$tmp/be.$r" 2>&1 &
	else
		on "$h1" ssh "$h" timeout 120 "$build/be_worker" --attach "$conn" \
			--rank $r >"$tmp/be.$r" 2>&1 &
	fi
	bes+=($!)
done
status=0
wait "$fe" || status=$?
((status == 0)) || { cat "$tmp/attach.out" >&2; fail "grove demo --attach: exit $status"; }
demo_ok "attach" "$tmp/attach.out" attach
for i in "${!bes[@]}"; do
	wait "${bes[$i]}" || { cat "$tmp/be.$i" >&2; fail "back-end rank $i failed"; }
done

# --- grove top across hosts (the default remote shell) -------------------
# Each host's own figures: while $h4 sends a steady stream to $h3 (about
# 6 MB/s, paced), the network metrics, read by each agent from its own
# host's /proc/net/dev, must put the most received on $h3's agents
# (ranks 4-5) and the most sent on $h4's (ranks 6-7), the quiet hosts
# far below.  Both ends are this test's processes in the test bed's
# namespaces: its teardown ends them whatever happens.
on "$h3" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7009)); s.listen(1)
c, _ = s.accept()
while c.recv(1 << 16):
    pass
' >"$tmp/sink.out" 2>&1 &
sink=$!
on "$h4" python3 -c '
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], 7009)); break
    except OSError:
        time.sleep(0.1)
buf = bytes(1 << 16)
while True:
    s.sendall(buf); time.sleep(0.01)
' "$h3" >"$tmp/source.out" 2>&1 &
source=$!
# The stream flows before the agents start sampling.
for _ in $(seq 300); do
	ip netns exec "$h3" ss -Htn state established '( sport = :7009 )' |
		grep -q . && break
	sleep 0.1
done
ip netns exec "$h3" ss -Htn state established '( sport = :7009 )' | grep -q . ||
	fail "no stream from $h4 to $h3: $(cat "$tmp/source.out" "$tmp/sink.out")"
on "$h1" timeout 120 "$grove" top --file "$tmp/tree.top" --once --json \
	--interval 300 >"$tmp/top.json" 2>"$tmp/top.err" ||
	{ cat "$tmp/top.err" >&2; fail "grove top across hosts"; }
kill "$source" "$sink" 2>/dev/null || true
wait "$source" "$sink" 2>/dev/null || true
python3 - "$tmp/top.json" "${hosts[@]}" <<'EOF' || fail "grove top: hosts: $(cat "$tmp/top.json")"
import json, sys
d = json.loads(open(sys.argv[1]).read())
want = sys.argv[2:]
got = [h["host"] for h in d["hosts"]]
assert got == want, f"hosts {got}, not {want}"
assert all(h["agents"] == 2 for h in d["hosts"]), d["hosts"]
assert d["backends"] == 8 and d["contributors"] == 8, d
rx, tx = d["metrics"]["net_rx"], d["metrics"]["net_tx"]
assert rx["max_rank"] in (4, 5) and tx["max_rank"] in (6, 7), (rx, tx)
assert rx["max"] > 1000 and tx["max"] > 1000, (rx, tx)
assert rx["min"] * 10 < rx["max"] and tx["min"] * 10 < tx["max"], (rx, tx)
assert rx["min_rank"] not in (4, 5) and tx["min_rank"] not in (6, 7), (rx, tx)
EOF

# --- teardown: nothing left ----------------------------------------------
# down; no process left in the hosts' namespaces.
testbed_down_checked
for h in "${hosts[@]}" "$prefix-br"; do
	[[ ! -e /run/netns/$h ]] || fail "namespace $h left"
	[[ ! -e /etc/netns/$h ]] || fail "/etc/netns/$h left"
done
for f in "${GROVE_TESTBED_DIR:-/run/grove-testbed}/$prefix"{,.lock}; do
	[[ ! -e $f ]] || fail "$f left"
done
# down again: nothing to do, still fine.
"$testbed" down --prefix "$prefix" || fail "a second testbed.sh down"
echo "hosts_tbon OK"
