#!/usr/bin/env bash
# No leftovers: the event spaces of runs that died (a front-end killed
# with SIGKILL while its network runs, a `grove demo` stopped with Ctrl-C)
# are removed when the next network is created, once they are older than
# GROVE_TRACE_CLEAN_AGE (60 s: the test ages them with touch instead of
# waiting; a change dated in the future counts as recent).  What stays:
# the spaces of a run started with GROVE_TRACE_KEEP (until grove trace
# clean), those of a network that still runs, however old, and those a
# `grove run --keep-trace` job kept.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

pgids=""
nets=""
cleanup() {
	for g in $pgids; do
		kill -KILL -- "-$g" 2>/dev/null || true
	done
	for n in $nets; do
		"$grove" trace clean --net "$n" --force >/dev/null 2>&1 || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# net_of PID: the network whose front-end event space PID writes.
net_of() {
	python3 - "$1" <<'PY'
import os, struct, sys
pid = int(sys.argv[1])
for name in os.listdir("/dev/shm"):
    if not (name.startswith("grove.") and name.endswith(".fe.0")):
        continue
    try:
        with open("/dev/shm/" + name, "rb") as f:
            h = f.read(168)
    except OSError:
        continue
    # struct trace_header (src/trace/space.h): pid at byte 164.
    if len(h) == 168 and struct.unpack_from("<i", h, 164)[0] == pid:
        print(name.split(".")[1])
        break
PY
}

segs() {
	ls /dev/shm | grep -c "^grove\.$1\." || true
}

# start_tree PGID_VAR NET_VAR BACKENDS CMD...: starts CMD in a session
# of its own, as a terminal's foreground job would be (a background job of
# a script ignores SIGINT, and its children would too), and waits until
# its network is up (the front-end's event space and one per back-end).
start_tree() {
	local -n _pg=$1 _net=$2
	local nbe=$3 i
	shift 3
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >"$tmp/tree.out" 2>&1 &
	_pg=$!
	pgids="$pgids $_pg"
	_net=""
	for i in $(seq 600); do
		[ -n "$_net" ] || _net=$(net_of "$_pg")
		if [ -n "$_net" ] &&
		    [ "$(ls /dev/shm | grep -c "^grove\.$_net\.be\.")" -ge "$nbe" ]; then
			nets="$nets $_net"
			return 0
		fi
		kill -0 "$_pg" 2>/dev/null || return 1 # finished or failed
		sleep 0.1
	done
	fail "the network of '$*' did not come up: $(cat "$tmp/tree.out")"
}

# gone PGID: waits until no process of the group is left (the tree's
# children leave when their parent dies).
gone() {
	local i
	for i in $(seq 600); do
		kill -0 -- "-$1" 2>/dev/null || return 0
		sleep 0.1
	done
	fail "processes of group $1 still run: $(pgrep -g "$1" -a || true)"
}

# A network creation elsewhere: the demo creates one and exits 0.
next_network() {
	expect_status 0 demo --topology flat --backends 2
}

bench=(bench micro --topology kary:2 --backends 4 --rt-iters 100000000)

# ---- a front-end killed while its network runs --------------------------
start_tree pg net 4 "$grove" "${bench[@]}" || fail "bench did not run"
kill -KILL "$pg"
gone "$pg"
left=$(segs "$net")
[ "$left" -ge 1 ] || fail "the killed front-end left no event space to clean"
# Recent (dated in the future): kept for a reader, even across a creation.
touch -d '+1 hour' /dev/shm/grove."$net".*
next_network
[ "$(segs "$net")" -eq "$left" ] ||
	fail "a recent leftover was removed: $(segs "$net") of $left left"
# The tree's back-ends and CPs may see their parent die and end their
# spaces themselves, stamping the finish time in the header, which touch
# cannot age: no minimum age for this creation.
touch -d '-2 hours' /dev/shm/grove."$net".*
GROVE_TRACE_CLEAN_AGE=0 next_network
[ "$(segs "$net")" -eq 0 ] ||
	fail "killed front-end: $(ls /dev/shm | grep "^grove\.$net\.") left after the next network"

# ---- grove demo stopped with Ctrl-C --------------------------------------
# The terminal sends SIGINT to the whole foreground group.  The demo may
# finish before the signal; then it is tried again.
stopped=""
for try in 1 2 3 4 5; do
	if start_tree pg net 8 "$grove" demo --topology kary:2 --backends 8; then
		kill -INT -- "-$pg" 2>/dev/null || true
		wait "$pg" && st=0 || st=$?
		gone "$pg"
		if [ "$st" -ne 0 ]; then
			stopped=$net
			break
		fi
	fi
done
[ -n "$stopped" ] || fail "grove demo always finished before Ctrl-C"
left=$(segs "$stopped")
[ "$left" -ge 1 ] || fail "the stopped demo left no event space to clean"
touch -d '-2 hours' /dev/shm/grove."$stopped".*
GROVE_TRACE_CLEAN_AGE=0 next_network
[ "$(segs "$stopped")" -eq 0 ] ||
	fail "Ctrl-C'd demo: $(ls /dev/shm | grep "^grove\.$stopped\.") left after the next network"

# ---- kept on purpose: GROVE_TRACE_KEEP -----------------------------------
start_tree pg net 4 env GROVE_TRACE_KEEP=1 "$grove" "${bench[@]}" ||
	fail "bench did not run"
kill -KILL "$pg"
gone "$pg"
left=$(segs "$net")
[ "$left" -ge 1 ] || fail "the killed front-end left no event space to keep"
touch -d '-2 hours' /dev/shm/grove."$net".*
next_network
[ "$(segs "$net")" -eq "$left" ] ||
	fail "GROVE_TRACE_KEEP: $(segs "$net") of $left event spaces left"
expect_status 0 trace dump --net "$net" --format text
expect_status 0 trace clean --net "$net"
[ "$(segs "$net")" -eq 0 ] || fail "grove trace clean left the kept spaces"

# ---- a network that runs keeps its spaces, however old -------------------
start_tree pg net 4 "$grove" "${bench[@]}" || fail "bench did not run"
running=$(segs "$net")
touch -d '-2 hours' /dev/shm/grove."$net".*
next_network
[ "$(segs "$net")" -eq "$running" ] ||
	fail "running network: $(segs "$net") of $running event spaces left"
kill -KILL -- "-$pg"
gone "$pg"
"$grove" trace clean --net "$net" >/dev/null

# ---- grove run --keep-trace ----------------------------------------------
prog="$build/mpilaunch_stats_prog"
if [ -x "$prog" ]; then
	expect_status 0 run -n 2 --verbose --keep-trace "$prog"
	job=$(sed -n 's/^grove run: job \([A-Za-z0-9_-]*\): .*/\1/p' "$tmp/err" | head -1)
	[ -n "$job" ] || { cat "$tmp/err" >&2; fail "no job id in grove run --verbose"; }
	nets="$nets $job"
	kept=$(segs "$job")
	[ "$kept" -ge 2 ] || fail "grove run --keep-trace kept $kept event spaces"
	touch -d '-2 hours' /dev/shm/grove."$job".*
	next_network
	[ "$(segs "$job")" -eq "$kept" ] ||
		fail "grove run --keep-trace: $(segs "$job") of $kept event spaces left"
	expect_status 0 trace clean --net "$job"
fi
echo "ok"
