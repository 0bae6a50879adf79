#!/usr/bin/env bash
# grove monitor --job of a job across hosts, on the multi-host test bed
# (scripts/testbed.sh; docs/monitoring.md, "Jobs across hosts"): grove
# run --hosts starts tests/mpi/launch/monitor_prog on 8 ranks over four
# namespace hosts (two a host), which makes exactly ITERS iterations of
# one MPI_Iallreduce on MPI_COMM_WORLD (rank 7, on the fourth host,
# always starts last) and then waits, idle, for a stop file.  Rings of
# 65536 tuples (GROVE_TRACE_SIZE) hold the whole run.  From the
# launcher's host:
#   * grove monitor load-balance --job --json: 4 of 4 readers, no host
#     unread, 9 processes (8 ranks and the launcher), no tuple lost, one
#     communicator with exactly ITERS waves and complete instances, rank
#     7 last in all of them;
#   * grove monitor stats --job --op mpi_call: the MPI_Iallreduce path of
#     each of the 8 ranks, exactly ITERS calls each;
#   * a host's reader (grove monitor --serve-share) by itself: without a
#     pull it writes nothing and ends with its input; two pulls, two
#     framed analysis shares; another line than "pull" is an error that
#     names the host;
#   * a reader killed on the third host while the monitor watches: the
#     next view has 3 of 4 readers, names the host unread, and standard
#     error says why; a host whose remote shell cannot reach it, one
#     that answers garbage and one whose frame is cut short: unread from
#     the first view on, each named with what went wrong;
#   * no reader is left on any host when the monitor has gone; the job
#     ends normally when told to, and a monitor without --count leaves
#     by itself at its end, leaving no reader.
# Exits 77 (a skip) with the reason where no test bed can be made.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
grove=$build/grove
testbed=$src/scripts/testbed.sh
prog=$build/mpilaunch_monitor_prog
prefix=gjs
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3 h4=${prefix}4
hosts=("$h1" "$h2" "$h3" "$h4")
iters=400
tmp=$(mktemp -d)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cleanup() {
	local rc=$?
	[[ -n ${job:-} ]] && kill "$job" 2>/dev/null
	# down ends every process in the hosts: the ranks and readers too.
	"$testbed" down --prefix "$prefix" >/dev/null || rc=1
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

on() { # HOST CMD...
	"$testbed" exec --prefix "$prefix" "$@"
}

[[ -x $prog ]] || fail "$prog is not built"
status=0
"$testbed" down --prefix "$prefix" >"$tmp/down.out" 2>&1 || status=$?
skip_on_77 $status "$tmp/down.out"
((status == 0)) || { cat "$tmp/down.out" >&2; fail "testbed.sh down (before)"; }
trap cleanup EXIT
"$testbed" up 4 --prefix "$prefix" >"$tmp/up.out" 2>&1 || status=$?
skip_on_77 $status "$tmp/up.out"
((status == 0)) || { cat "$tmp/up.out" >&2; fail "testbed.sh up 4"; }
# The job's directory (its placement, DIR/hosts) is under TMPDIR on the
# launcher's host, where the monitor runs.
export TMPDIR=$tmp
list=$(IFS=,; echo "${hosts[*]}")

# Processes whose command line holds $1 in host $2 (default: any host of
# the test bed).
in_testbed() {
	local h p
	for h in ${2:-${hosts[*]}}; do
		for p in $(ip netns pids "$h" 2>/dev/null); do
			tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
				grep -q -- "$1" && echo "$p"
		done
	done
	return 0
}

# --- the job --------------------------------------------------------------
stop=$tmp/stop
on "$h1" env GROVE_TRACE_SIZE=65536 "$grove" run --verbose --timeout 280 \
	--hosts "$list" -n 8 "$prog" "$stop" "$iters" \
	>"$tmp/job.out" 2>"$tmp/job.err" &
job=$!
for _ in $(seq 600); do
	grep -q "^monitor_prog: done" "$tmp/job.out" 2>/dev/null && break
	kill -0 "$job" 2>/dev/null || break
	sleep 0.1
done
grep -qx "monitor_prog: done $iters" "$tmp/job.out" ||
	{ cat "$tmp/job.out" "$tmp/job.err" >&2; fail "the job did not make its $iters iterations"; }
id=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
[[ -n $id ]] || fail "no job id in grove run --verbose: $(cat "$tmp/job.err")"
[[ -s $tmp/grove-run.$id/hosts ]] || fail "grove run --hosts wrote no placement"

# --- every host read, every collective counted ---------------------------
on "$h1" timeout 120 "$grove" monitor load-balance --job "$id" --json \
	--count 2 --interval 0.5 >"$tmp/lb.json" 2>"$tmp/lb.err" ||
	{ cat "$tmp/lb.err" >&2; fail "grove monitor load-balance --job"; }
[[ ! -s $tmp/lb.err ]] || fail "load-balance said: $(cat "$tmp/lb.err")"
python3 - "$tmp/lb.json" "$iters" <<'PY' || fail "load-balance views: $(cat "$tmp/lb.json")"
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
iters = int(sys.argv[2])
assert len(views) == 2, views
for v in views:
    assert v["event_scope"] == "hosts-raw", v
    assert v["readers"] == 4 and v["readers_all"] == 4, v
    assert v["unread_hosts"] == [] and v["unread_nodes"] == 0, v
    assert v["procs"] == 9, v  # 8 ranks and the launcher
    assert v["lost"] == 0 and v["lost_before_attach"] == 0, v
    assert v["sent"] > 0, v
    world = [e for e in v["balance"] if e["scope"].startswith("comm:")]
    assert len({e["scope"] for e in world}) == 1, world
    # Rank 7 (fourth host) starts every instance last.
    assert [e["child"] for e in world] == ["mpi 7"], world
    assert world[0]["last"] == world[0]["waves"] == iters, world
    assert v["instances"]["complete"] == iters, v
# Nothing new after the job's iterations: the second view says the same
# (waves also counts the launcher's own wire-up wave).
assert views[0]["waves"] == views[1]["waves"] >= iters, views
PY

on "$h1" timeout 120 "$grove" monitor stats --job "$id" --json --count 1 \
	--op mpi_call >"$tmp/stats.json" 2>"$tmp/stats.err" ||
	{ cat "$tmp/stats.err" >&2; fail "grove monitor stats --job"; }
python3 - "$tmp/stats.json" "$iters" <<'PY' || fail "stats view: $(cat "$tmp/stats.json")"
import json, sys
v = json.loads(open(sys.argv[1]).readline())
iters = int(sys.argv[2])
assert v["event_scope"] == "hosts", v
assert v["readers"] == 4 and v["readers_all"] == 4 and v["unread_hosts"] == [], v
assert v["procs"] == 9 and v["lost"] == 0, v
calls = {p["proc"]: p["count"] for p in v["paths"] if p["name"] == "MPI_Iallreduce"}
assert calls == {"mpi %d" % r: iters for r in range(8)}, calls
assert all(p["op"] == "mpi_call" for p in v["paths"]), v["paths"]
PY
# The text view says where it read.
on "$h1" timeout 120 "$grove" monitor load-balance --job "$id" --count 1 \
	>"$tmp/lb.txt" 2>"$tmp/lb.err" || fail "the text view: $(cat "$tmp/lb.err")"
grep -q "^across hosts (single scope, raw tuples): 4 of 4 readers$" "$tmp/lb.txt" ||
	fail "the text view: $(cat "$tmp/lb.txt")"
grep -q "^comm:1:0 .* mpi 7 .* $iters .* $iters .*100.0%" "$tmp/lb.txt" ||
	fail "the text view's last arrivals: $(cat "$tmp/lb.txt")"
[[ -z $(in_testbed "serve-share") ]] ||
	fail "readers left after the monitor: $(in_testbed serve-share)"

# --- a host's reader by itself ---------------------------------------------
# Nothing before a pull: without one it ends with its input, silent.
on "$h2" "$grove" monitor --serve-share --ranks 2:2 --job "$id" stats \
	</dev/null >"$tmp/serve0.out" 2>"$tmp/serve0.err" ||
	fail "a reader without pulls failed: $(cat "$tmp/serve0.err")"
[[ ! -s $tmp/serve0.out && ! -s $tmp/serve0.err ]] ||
	fail "a reader wrote before a pull: $(cat "$tmp/serve0.out" "$tmp/serve0.err")"
# Two pulls, two frames (the second: nothing new since the first).
printf 'pull\npull\n' | on "$h2" "$grove" monitor --serve-share --ranks 2:2 \
	--job "$id" --op mpi_call stats >"$tmp/serve2.out" 2>"$tmp/serve2.err" ||
	fail "a reader pulled twice failed: $(cat "$tmp/serve2.err")"
python3 - "$tmp/serve2.out" <<'PY' || fail "the reader's frames are not two shares"
import struct, sys
b = open(sys.argv[1], "rb").read()
at, n = 0, 0
while at < len(b):
    assert b[at:at + 4] == b"GMSF", b[at:at + 8]
    (ln,) = struct.unpack("<I", b[at + 4:at + 8])
    assert b[at + 8:at + 12] == b"GMSH" and b[at + 13] == 0, b[at:at + 16]
    at += 8 + ln
    n += 1
assert at == len(b) and n == 2, (at, len(b), n)
PY
status=0
echo hello | on "$h2" "$grove" monitor --serve-share --ranks 2:2 --job "$id" \
	stats >/dev/null 2>"$tmp/serve.err" || status=$?
((status == 1)) || fail "a reader sent a bad line: status $status"
grep -q "grove monitor --serve-share on $h2: the monitor sent \"hello\", not a pull" \
	"$tmp/serve.err" || fail "a bad line to a reader: $(cat "$tmp/serve.err")"

# --- a reader killed while watched ------------------------------------------
on "$h1" timeout 120 "$grove" monitor load-balance --job "$id" --json \
	--count 3 --interval 2 >"$tmp/kill.json" 2>"$tmp/kill.err" &
mon=$!
for _ in $(seq 300); do
	[[ -s $tmp/kill.json ]] && break
	sleep 0.1
done
[[ -s $tmp/kill.json ]] || fail "the monitor showed nothing: $(cat "$tmp/kill.err")"
victim=
for p in $(in_testbed "serve-share" "$h3"); do
	[[ $(cat "/proc/$p/comm" 2>/dev/null) == grove ]] && victim=$p
done
[[ -n $victim ]] || fail "no reader on $h3: $(cat "$tmp/kill.err")"
kill -KILL "$victim"
wait "$mon" || fail "the monitor failed when a reader died: $(cat "$tmp/kill.err")"
python3 - "$tmp/kill.json" "$h3" <<'PY' || fail "views with a reader killed: $(cat "$tmp/kill.json")"
import json, sys
views = [json.loads(l) for l in open(sys.argv[1])]
assert len(views) == 3, views
assert views[0]["readers"] == 4 and views[0]["unread_hosts"] == [], views[0]
assert views[-1]["readers"] == 3 and views[-1]["readers_all"] == 4, views[-1]
assert views[-1]["unread_hosts"] == [sys.argv[2]], views[-1]
assert views[-1]["unread_nodes"] == 2, views[-1]  # its two ranks
PY
grep -q "host $h3: its reader ended.*its ranks 4-5 are not read" "$tmp/kill.err" ||
	fail "no message names $h3: $(cat "$tmp/kill.err")"

# --- a host out of reach, a host that answers garbage ----------------------
cat >"$tmp/rsh" <<EOF
#!/bin/sh
case "\$1" in
$h4) echo "ssh: connect to host $h4 port 22: No route to host" >&2; exit 255 ;;
$h2) echo "Welcome to $h2, have a nice day"; exec cat >/dev/null ;;
$h3) read -r _; printf 'GMSF@\\000\\000\\000GMSH'; exit 0 ;;
esac
exec ssh "\$@"
EOF
chmod +x "$tmp/rsh"
on "$h1" env GROVE_RSH="$tmp/rsh" timeout 120 "$grove" monitor stats \
	--job "$id" --json --count 1 --op mpi_call >"$tmp/bad.json" \
	2>"$tmp/bad.err" || fail "the monitor failed with hosts unread: $(cat "$tmp/bad.err")"
python3 - "$tmp/bad.json" "$h2" "$h3" "$h4" <<'PY' || fail "view with hosts unread: $(cat "$tmp/bad.json")"
import json, sys
v = json.loads(open(sys.argv[1]).readline())
assert v["readers"] == 1 and v["readers_all"] == 4, v
assert sorted(v["unread_hosts"]) == sorted(sys.argv[2:]), v
assert v["unread_nodes"] == 6 and v["procs"] == 3, v
calls = sorted(p["proc"] for p in v["paths"] if p["name"] == "MPI_Iallreduce")
assert calls == ["mpi 0", "mpi 1"], calls
PY
grep -q "host $h2: not a share frame" "$tmp/bad.err" ||
	fail "garbage from $h2 not named: $(cat "$tmp/bad.err")"
grep -q "host $h3: its reader ended in the middle of a share (a share of 64 bytes announced)" "$tmp/bad.err" ||
	fail "a frame cut short from $h3 not named: $(cat "$tmp/bad.err")"
grep -q "host $h4: its reader ended" "$tmp/bad.err" ||
	fail "unreachable $h4 not named: $(cat "$tmp/bad.err")"
grep -q "No route to host" "$tmp/bad.err" ||
	fail "the remote shell's reason is not shown: $(cat "$tmp/bad.err")"

# --- no reader left; the job ends normally --------------------------------
for _ in $(seq 50); do
	[[ -z $(in_testbed "serve-share") ]] && break
	sleep 0.1
done
[[ -z $(in_testbed "serve-share") ]] ||
	fail "readers left after the monitors: $(in_testbed serve-share)"
# A monitor without --count stays until the job is over, then leaves,
# ending its readers.
on "$h1" timeout 120 "$grove" monitor stats --job "$id" --json \
	--interval 0.5 >"$tmp/end.json" 2>"$tmp/end.err" &
mon=$!
for _ in $(seq 300); do
	[[ -s $tmp/end.json ]] && break
	sleep 0.1
done
[[ -s $tmp/end.json ]] || fail "the last monitor showed nothing: $(cat "$tmp/end.err")"
touch "$stop"
st=0
wait "$job" || st=$?
job=
((st == 0)) || { cat "$tmp/job.out" "$tmp/job.err" >&2; fail "grove run exited $st"; }
grep -qx "monitor_prog: stopped after $iters iterations" "$tmp/job.out" ||
	fail "the job's output: $(cat "$tmp/job.out")"
st=0
wait "$mon" || st=$?
((st == 0)) || fail "the monitor at the job's end exited $st: $(cat "$tmp/end.err")"
[[ ! -s $tmp/end.err ]] || fail "the monitor at the job's end said: $(cat "$tmp/end.err")"
for _ in $(seq 50); do
	[[ -z $(in_testbed "serve-share") ]] && break
	sleep 0.1
done
[[ -z $(in_testbed "serve-share") ]] ||
	fail "readers left after the job's end: $(in_testbed serve-share)"
echo "hosts_monitor_job OK"
