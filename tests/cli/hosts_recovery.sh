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
#   * once the link is back, the cut-off CP finds its links gone and
#     nobody who takes it back, and leaves on its own;
#   * teardown: no process left in the test bed's namespaces.
# Exits 77 (a skip) where no test bed can be made.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
grove=$build/grove
testbed=$src/scripts/testbed.sh
# A prefix of this build directory's own, not hosts_tbon's.
prefix=g$(printf %s "$build" | cksum | cut -c1-5)r
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3 h4=${prefix}4
hosts=("$h1" "$h2" "$h3" "$h4")
tmp=$(mktemp -d)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cleanup() {
	local rc=$?
	"$testbed" down --prefix "$prefix" || rc=1
	rm -rf "$tmp"
	exit $rc
}
trap 'rm -rf "$tmp"' EXIT

skip_on_77() { # STATUS OUTFILE
	if (($1 == 77)); then
		cat "$2" >&2
		echo "SKIP: no multi-host test bed here" >&2
		exit 77
	fi
}

on() { # HOST CMD...: run CMD in HOST
	"$testbed" exec --prefix "$prefix" "$@"
}

# grove-commnode processes in a host's network namespace.
commnodes_in() { # HOST
	local n=0 p
	for p in $(ip netns pids "$1" 2>/dev/null); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == grove-commnode ]] &&
			n=$((n + 1))
	done
	echo "$n"
}

status=0
"$testbed" down --prefix "$prefix" >"$tmp/down.out" 2>&1 || status=$?
skip_on_77 $status "$tmp/down.out"
((status == 0)) || { cat "$tmp/down.out" >&2; fail "testbed.sh down (before)"; }
trap cleanup EXIT
"$testbed" up 4 --prefix "$prefix" >"$tmp/up.out" 2>&1 || status=$?
skip_on_77 $status "$tmp/up.out"
((status == 0)) || { cat "$tmp/up.out" >&2; fail "testbed.sh up 4"; }
ns_ids=()
for h in "${hosts[@]}"; do
	ns_ids+=("$(stat -L -c %i "/run/netns/$h")")
done

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
	--victims 1 --heartbeat-ms 200 --waves 2000 --lose-cmd "$cut" \
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

"$testbed" down --prefix "$prefix" || fail "testbed.sh down"
for p in /proc/[0-9]*; do
	id=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
	for n in "${ns_ids[@]}"; do
		[[ $id != "$n" ]] ||
			fail "process ${p#/proc/} ($(cat "$p/comm" 2>/dev/null)) left in a test bed namespace"
	done
done
echo "hosts_recovery OK"
