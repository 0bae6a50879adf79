#!/usr/bin/env bash
# Re-parenting across hosts (docs/recovery.md), on the multi-host test
# bed (scripts/testbed.sh): a front-end on the first host, a CP alone on
# the second whose two child CPs are on the third and fourth, and a CP of
# the front-end's own on the third.  While the back-ends stream waves
# (grove bench recovery, which checks every wave whole and each burst
# exactly its waves), the second host's link is cut (ip link set eth0
# down): nothing closes, the CP falls silent.  Checked:
#   * found by the heartbeat (200 ms: lost after 5 silent intervals) on
#     both sides, its children re-parent to the front-end across hosts:
#     one loss, node 1, new parent node 0, its four back-ends moved, no
#     back-end lost;
#     the loss is reported as a silence (the heartbeat's, not TCP's
#     time-out), and every wave, numbered, holds each back-end once;
#   * once the link is back, the cut-off CP finds its links gone and
#     nobody who takes it back, and leaves on its own;
#   * CPs on three hosts killed one after another under load (SIGKILL),
#     their children moving across hosts each time: every numbered wave
#     whole, once, in order;
#   * the front-end killed after a re-parenting (grove top across the
#     hosts): every CP and agent on every host gone within 5 s;
#   * teardown: no process left in the test bed's namespaces.
# Exits 77 (a skip) where no test bed can be made.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/testbed_common.sh"

# grove-commnode processes in a host's network namespace.
commnodes_in() { # HOST
	local n=0 p
	for p in $(ip netns pids "$1" 2>/dev/null); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == grove-commnode ]] &&
			n=$((n + 1))
	done
	echo "$n"
}

# A prefix of this build directory's own, not hosts_tbon's.
testbed_prefix r
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3 h4=${prefix}4
hosts=("$h1" "$h2" "$h3" "$h4")
testbed_up 4

# Node ids in pre-order: 0 the FE ($h1), 1 the CP to cut off ($h2), 2
# and 5 its CPs ($h3, $h4) with back-ends 0-1 and 2-3, 8 the FE's other
# CP ($h3) with back-ends 4-5.
cat >"$tmp/tree.top" <<EOF
$h1:0 => $h2:0 $h3:0 ;
$h2:0 => $h3:1 $h4:0 ;
$h3:1 => $h3:2 $h3:3 ;
$h4:0 => $h4:1 $h4:2 ;
$h3:0 => $h3:4 $h3:5 ;
EOF

# shellcheck disable=SC2016 # expanded by the command's own shell
cut='ip netns exec "$GROVE_LOST_HOST" ip link set eth0 down'
on "$h1" timeout 120 "$grove" bench recovery --file "$tmp/tree.top" \
	--victims 1 --heartbeat-ms 200 --waves 2000 --lose-cmd "$cut" --seq \
	--json >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "bench recovery with a cut link"; }
python3 - "$tmp/out" "$h2" <<'PY' || fail "the cut: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backends"] == 6 and d["lost_by"] == "command", d
l = d["losses"]
assert len(l) == 1, l
assert l[0]["node"] == 1 and l[0]["new_parent"] == 0, l
assert l[0]["backends_moved"] == 4, l
assert l[0]["reparented_ms"] > 0, l
# Found by the heartbeat, not by TCP giving up on the link.
assert "silent for too long (no heartbeat)" in l[0]["text"], l
assert d["numbered"] is True, d
PY
echo "cut link: $(grep -o '"losses": \[[^]]*\]' "$tmp/out")"

# The CP on the cut host is still there, alone; with its link back, it
# leaves on its own.
ip netns exec "$h2" ip link set eth0 up
for _ in $(seq 100); do
	[[ $(commnodes_in "$h2") == 0 ]] && break
	sleep 0.1
done
[[ $(commnodes_in "$h2") == 0 ]] ||
	fail "the cut-off CP on $h2 is still there 10 s after its link came back"

# --- CPs on three hosts killed one after another, waves numbered ---------
# SIGKILL to node 2 ($h3, its back-ends move to node 1 on $h2), then to
# node 1 ($h2: its children, on $h3 and $h4, move to the front-end on
# $h1), then to node 8 ($h3, to the front-end): each loss while the
# back-ends stream numbered waves (--seq), every wave checked to hold
# each back-end's rank once with the wave's own number.
on "$h1" timeout 180 "$grove" bench recovery --file "$tmp/tree.top" \
	--victims 2,1,8 --heartbeat-ms 200 --waves 1000 --seq \
	--json >"$tmp/kills" 2>"$tmp/kills.err" ||
	{ cat "$tmp/kills" "$tmp/kills.err" >&2; fail "CPs killed across hosts"; }
python3 - "$tmp/kills" <<'PY' || fail "the kills: $(cat "$tmp/kills")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["numbered"] is True and d["lost_by"] == "SIGKILL", d
l = d["losses"]
assert [x["node"] for x in l] == [2, 1, 8], l
assert [x["new_parent"] for x in l] == [1, 0, 0], l
assert [x["backends_moved"] for x in l] == [2, 4, 2], l
# A killed CP's connection ends (closed, or reset when the kernel still
# held data the process had not read); it is not found by the heartbeat.
for x in l:
    assert "lost: connection" in x["text"], x
    assert "heartbeat" not in x["text"], x
PY
echo "kills: $(grep -o '"losses": \[[^]]*\]' "$tmp/kills" | grep -o '"node": [0-9]*, "new_parent": [0-9]*' | tr '\n' ' ')"

# --- the front-end's loss, after a re-parenting, ends everything ---------
# grove top as the front-end (agents as back-ends, one interval after
# another); node 1 ($h2) is killed and its child CPs on $h3 and $h4 move
# to the front-end; then the front-end is killed (SIGKILL): every CP and
# agent on every host must be gone within 5 s.
alive() { # PID: a process that is not a zombie
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}
grove_procs() { # pids of grove-commnode and grove-agent in the test bed
	local h p
	for h in "${hosts[@]}"; do
		for p in $(ip netns pids "$h" 2>/dev/null); do
			case $(cat "/proc/$p/comm" 2>/dev/null) in
			grove-commnode | grove-agent) echo "$p" ;;
			esac
		done
	done
}
on "$h1" timeout 180 "$grove" top --file "$tmp/tree.top" --json \
	--interval 200 >"$tmp/top.out" 2>"$tmp/top.err" &
fe=$!
for _ in $(seq 300); do
	[[ -s $tmp/top.out ]] || ! kill -0 "$fe" 2>/dev/null && break
	sleep 0.1
done
[[ -s $tmp/top.out ]] || { cat "$tmp/top.err" >&2; fail "grove top across hosts printed nothing"; }
cp1=
for p in $(ip netns pids "$h2"); do
	[[ $(cat "/proc/$p/comm" 2>/dev/null) == grove-commnode ]] && cp1=$p
done
[[ -n $cp1 ]] || fail "no CP on $h2"
kill -KILL "$cp1"
# Re-parented: the CP of $h4 is connected to the front-end on $h1.
moved=0
for _ in $(seq 300); do
	if ip netns exec "$h1" ss -Htn state established |
		awk '{ split($NF, a, ":"); if (a[1] == "10.77.0.4" && a[2] != 22) f = 1 }
			END { exit !f }'; then
		moved=1
		break
	fi
	sleep 0.1
done
((moved)) || { cat "$tmp/top.err" >&2; fail "the CP of $h4 did not move to the front-end"; }
kill -0 "$fe" 2>/dev/null || { cat "$tmp/top.err" >&2; fail "grove top ended at the loss of a CP"; }
mapfile -t procs < <(grove_procs)
((${#procs[@]} == 9)) ||
	fail "${#procs[@]} CPs and agents before the front-end's loss, not 9 (3 CPs, 6 agents)"
# The front-end itself: the grove process in $h1 (under the timeout
# command).
fe_grove=
for p in $(ip netns pids "$h1"); do
	[[ $(cat "/proc/$p/comm" 2>/dev/null) == grove ]] && fe_grove=$p
done
[[ -n $fe_grove ]] || fail "no grove process in $h1"
kill -KILL "$fe_grove"
wait "$fe" 2>/dev/null || true
left=()
for _ in $(seq 50); do
	left=()
	for p in "${procs[@]}"; do
		alive "$p" && left+=("$p")
	done
	((${#left[@]} == 0)) && break
	sleep 0.1
done
((${#left[@]} == 0)) ||
	fail "${#left[@]} CPs or agents outlived the front-end by 5 s: ${left[*]}"
echo "front-end lost: its ${#procs[@]} CPs and agents on four hosts gone"

testbed_down_checked
echo "hosts_recovery OK"
