#!/usr/bin/env bash
# The link between a node and a child it starts on its own host: two pipes
# by default, the node's Unix socket with GROVE_LOCAL_LINK=socket.  Seen
# from outside, in the descriptor tables of the back-ends of a running
# kary:2 tree of 4 back-ends.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

sid=
stop() {
	if [ -n "$sid" ]; then
		pkill -9 -s "$sid" 2>/dev/null || true
		sid=
	fi
}
trap 'stop; rm -rf "$tmp"' EXIT

# Prints "sockets pipes" of every back-end of the tree in session $1.
count_links() {
	local p
	for p in $(pgrep -s "$1" -x be_worker); do
		local s=0 q=0 f
		for f in /proc/"$p"/fd/*; do
			case $(readlink "$f" 2>/dev/null) in
			socket:*) s=$((s + 1)) ;;
			pipe:*) q=$((q + 1)) ;;
			esac
		done
		echo "$s $q"
	done
}

check_mode() {
	local mode=$1 want_sockets=$2
	GROVE_LOCAL_LINK=$mode setsid "$grove" bench micro --topology kary:2 \
		--backends 4 --rt-iters 100000000 --thru-iters 1 \
		>"$tmp/out" 2>"$tmp/err" &
	sid=$!
	disown "$sid" # killed below: no job report
	local n=0
	for _ in $(seq 100); do
		n=$(pgrep -c -s "$sid" -x be_worker || true)
		[ "$n" -ge 4 ] && break
		sleep 0.1
	done
	[ "$n" -ge 4 ] || fail "$mode: 4 back-ends did not start: $(cat "$tmp/err")"
	sleep 0.5 # the round trips have started: every link is up
	count_links "$sid" >"$tmp/links"
	stop
	[ "$(wc -l <"$tmp/links")" -eq 4 ] || fail "$mode: $(cat "$tmp/links")"
	while read -r s q; do
		[ "$s" -eq "$want_sockets" ] ||
			fail "$mode: a back-end holds $s sockets, wanted $want_sockets"
	done <"$tmp/links"
}

# Pipes: no socket at all in a back-end.
check_mode pipe 0
# Sockets: exactly one, the link to its parent.
check_mode socket 1
echo "local links OK"
