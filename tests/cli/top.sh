#!/usr/bin/env bash
# grove top: one aggregated interval as JSON and as text, a timed live run,
# clock skew with injected offsets, and clear errors for bad options, a
# bad host list and an unreachable host.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# --- one interval as JSON, through CPs (kary:2 with 8 agents)
timeout 120 "$grove" top --once --json --interval 300 --backends 8 \
	--topology kary:2 >"$tmp/once.json" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "top --once --json"; }
python3 - "$tmp/once.json" <<'EOF' || fail "top --once --json output"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert len(lines) == 1, f"expected one JSON object, got {len(lines)} lines"
d = json.loads(lines[0])
assert d["backends"] == 8 and d["contributors"] == 8, d
assert abs(d["interval_s"] - 0.3) < 1e-6, d["interval_s"]
m = d["metrics"]
for k in ("cpu", "load", "mem", "ctxsw", "net_rx", "net_tx"):
    v = m[k]
    assert v["min"] <= v["avg"] + 1e-9 <= v["max"] + 2e-9, (k, v)
    assert 0 <= v["min_rank"] < 8 and 0 <= v["max_rank"] < 8, (k, v)
assert 0 <= m["cpu"]["max"] <= 100.5, m["cpu"]
assert m["mem"]["min"] > 0, m["mem"]
assert sum(c["count"] for c in d["classes"]) == 8, d["classes"]
assert sum(h["agents"] for h in d["hosts"]) == 8, d["hosts"]
EOF

# --- text, flat tree
timeout 120 "$grove" top --once --interval 200 --backends 4 --topology flat \
	>"$tmp/once.txt" 2>&1 || { cat "$tmp/once.txt" >&2; fail "top --once"; }
for want in "kernel release" "4 agents on 1 host" "cpu %" "ctxsw /s" \
	"4 of 4 agents reporting"; do
	grep -q "$want" "$tmp/once.txt" ||
		{ cat "$tmp/once.txt" >&2; fail "top --once: no '$want'"; }
done

# --- a levels: spec brings its own agent count (6 here), no --backends
timeout 120 "$grove" top --once --json --interval 200 --topology levels:2x3 \
	>"$tmp/lv.json" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "top --topology levels:2x3"; }
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["backends"] == 6, d' \
	"$tmp/lv.json" || fail "levels:2x3 did not give 6 agents"

# --- a host name with a quote and a backslash stays valid JSON (in a UTS
# namespace of its own where the system allows one; skipped elsewhere)
if unshare -ur --uts true 2>/dev/null; then
	timeout 120 unshare -ur --uts python3 -c '
import os, socket, sys
socket.sethostname(sys.argv[1])
os.execv(sys.argv[2], sys.argv[2:])' 'q"b\c' "$grove" top --once --json \
		--interval 200 --backends 2 --topology flat >"$tmp/host.json" \
		2>"$tmp/err" || { cat "$tmp/err" >&2; fail "top with an odd host name"; }
	python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["hosts"][0]["host"] == "q\"b\\c", d["hosts"]' \
		"$tmp/host.json" || fail "odd host name: not valid JSON"
else
	echo "top.sh: no user namespaces here, host name escaping not tried" >&2
fi

# --- grove bench offered-load counts are whole numbers
expect_status 2 bench offered-load --backends 1.5
grep -q "wants a number in 1\.\.65536, not '1\.5'" "$tmp/err" ||
	fail "offered-load --backends 1.5 accepted"

# --- a timed live run (not a terminal: plain tables, one per interval)
timeout 120 "$grove" top --seconds 2 --interval 250 --backends 4 \
	--topology kary:2 >"$tmp/live.txt" 2>&1 ||
	{ cat "$tmp/live.txt" >&2; fail "top --seconds"; }
n=$(grep -c "agents reporting" "$tmp/live.txt")
((n >= 3)) || { cat "$tmp/live.txt" >&2; fail "top --seconds 2: $n tables"; }

# --- Ctrl-C ends a live run cleanly: exit 0, no agent left
"$grove" top --backends 4 --topology kary:2 --interval 200 >"$tmp/int.txt" 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q "agents reporting" "$tmp/int.txt" && break
	sleep 0.1
done
# This run's processes (other tests running meanwhile start agents too).
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
mine=$(descendants "$pid")
kill -INT "$pid"
status=0
wait "$pid" || status=$?
((status == 0)) || { cat "$tmp/int.txt" >&2; fail "top after SIGINT: exit $status"; }
grep -q "agents reporting" "$tmp/int.txt" || fail "top never showed an interval"
[[ -n $mine ]] || fail "top had no processes to check"
left() {
	local p
	for p in $mine; do
		kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p") != Z* ]] &&
			echo "$p"
	done
}
for _ in $(seq 50); do
	[[ -z $(left) ]] && break
	sleep 0.1
done
[[ -z $(left) ]] || fail "processes left after SIGINT: $(left)"

# The processes of process group $1 (zombies aside): a grove top started
# by setsid leads a group of its own, and its CPs and agents are in it.
group_left() {
	local p st
	for p in $(pgrep -g "$1" || true); do
		st=$(ps -o stat= -p "$p" 2>/dev/null || true)
		[[ -n $st && $st != Z* ]] && echo "$p"
	done
	return 0
}
expect_group_gone() {
	for _ in $(seq 50); do
		[[ -z $(group_left "$1") ]] && return 0
		sleep 0.1
	done
	fail "$2: processes left: $(group_left "$1")"
}

# --- Ctrl-C at a terminal goes to the whole process group, the CPs and
# agents included: they ignore it, the front-end shuts them down, and the
# run ends cleanly (setsid's new group stands for the terminal's)
setsid "$grove" top --backends 4 --topology kary:2 --interval 200 \
	>"$tmp/grp.txt" 2>"$tmp/grp.err" &
pid=$!
for _ in $(seq 300); do
	grep -q "agents reporting" "$tmp/grp.txt" 2>/dev/null && break
	sleep 0.1
done
grep -q "agents reporting" "$tmp/grp.txt" ||
	{ kill -- "-$pid"; fail "top under setsid showed nothing"; }
[[ $(ps -o pgid= -p "$pid" | tr -d ' ') == "$pid" ]] ||
	{ kill "$pid"; fail "top did not lead a process group"; }
kill -INT -- "-$pid"
status=0
wait "$pid" || status=$?
((status == 0)) || { cat "$tmp/grp.err" >&2; fail "top after SIGINT to its group: exit $status"; }
[[ ! -s $tmp/grp.err ]] ||
	{ cat "$tmp/grp.err" >&2; fail "top after SIGINT to its group: errors"; }
expect_group_gone "$pid" "SIGINT to top's group"

# --- the reader of the output leaves (| head -1): grove top stops, shuts
# its tree down and fails as every command whose output did not arrive
# does (timeout only guards against a hang)
for json in "" --json; do
	{
		rc=0
		timeout 120 setsid sh -c 'echo $$ >"$1"; shift; exec "$@"' sh \
			"$tmp/pipe.pid" "$grove" top $json --interval 200 \
			--backends 2 --topology flat 2>"$tmp/pipe.err" || rc=$?
		echo $rc >"$tmp/pipe.rc"
	} | head -1 >"$tmp/pipe.out"
	rc=$(cat "$tmp/pipe.rc")
	((rc != 124)) || fail "top $json | head -1 never ended"
	((rc == 1)) || { cat "$tmp/pipe.err" >&2; fail "top $json | head -1: exit $rc"; }
	grep -q "standard output: write failed" "$tmp/pipe.err" ||
		{ cat "$tmp/pipe.err" >&2; fail "top $json | head -1: no reason"; }
	[[ $(wc -l <"$tmp/pipe.out") == 1 ]] || fail "top $json | head -1: no line"
	expect_group_gone "$(cat "$tmp/pipe.pid")" "top $json | head -1"
done

# --- an agent killed during a --json run: later records count it as lost
# (not as missing among the live ones), and standard error names its rank
setsid "$grove" top --json --interval 200 --backends 4 --topology kary:2 \
	>"$tmp/lost.json" 2>"$tmp/lost.err" &
pid=$!
for _ in $(seq 300); do
	[[ $(grep -c . "$tmp/lost.json" || true) -ge 2 ]] && break
	sleep 0.1
done
victim=$(pgrep -g "$pid" -x grove-agent | head -1 || true)
[[ -n $victim ]] || { kill -- "-$pid"; fail "no agent under top --json"; }
kill -9 "$victim"
for _ in $(seq 600); do
	grep -q '"lost":1,' "$tmp/lost.json" && break
	sleep 0.1
done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
((status == 0)) || { cat "$tmp/lost.err" >&2; fail "top --json with a killed agent: exit $status"; }
expect_group_gone "$pid" "top --json with a killed agent"
grep -Eq '^grove top: lost ranks ([0-3])-\1: ' "$tmp/lost.err" ||
	{ cat "$tmp/lost.err" >&2; fail "top --json: the lost rank not named"; }
python3 - "$tmp/lost.json" <<'PYEOF' || fail "top --json: the lost agent not counted"
import json, sys
ds = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert all("lost" in d for d in ds), "a record without lost"
assert ds[0]["lost"] == 0 and ds[0]["backends"] == 4, ds[0]
last = ds[-1]
assert last["lost"] == 1 and last["backends"] == 3, last
assert last["missing"] == 3 - last["contributors"], last
PYEOF

# --- clock skew: agent rank r's clock runs r ms ahead
GROVE_CLOCK_INJECT_NS=1000000 timeout 120 "$grove" top --once --json --skew \
	--interval 200 --backends 6 --topology kary:2 >"$tmp/skew.json" \
	2>"$tmp/err" || { cat "$tmp/err" >&2; fail "top --skew"; }
python3 - "$tmp/skew.json" <<'EOF' || fail "top --skew output"
import json, sys
d = json.loads(open(sys.argv[1]).read())
s = d["skew"]
assert s["measured"] == 6, s
err = s["max_error_ns"]
# offsets 0..5 ms, each within its bound (the largest bound covers all)
assert abs(s["min_ns"]) <= err, s
assert abs(s["max_ns"] - 5_000_000) <= err, s
EOF

# --- a host list without --backends: one agent per slot
printf 'localhost:3\n' >"$tmp/hosts.ok"
timeout 120 "$grove" top --once --interval 200 --hosts "$tmp/hosts.ok" \
	--topology flat >"$tmp/hosts.txt" 2>&1 ||
	{ cat "$tmp/hosts.txt" >&2; fail "top --hosts"; }
grep -q "3 of 3 agents reporting" "$tmp/hosts.txt" ||
	{ cat "$tmp/hosts.txt" >&2; fail "top --hosts: not one agent per slot"; }

# --- errors
if "$grove" top --backends 0 2>"$tmp/err"; then fail "--backends 0 accepted"; fi
grep -q "backends" "$tmp/err" || fail "--backends 0: unclear error"
if "$grove" top --interval 5 2>"$tmp/err"; then fail "--interval 5 accepted"; fi
printf 'localhost:2\nbadhost:xyz\n' >"$tmp/hosts.bad"
if "$grove" top --once --hosts "$tmp/hosts.bad" 2>"$tmp/err"; then
	fail "bad host list accepted"
fi
grep -q "line 2" "$tmp/err" || { cat "$tmp/err" >&2; fail "host list error without line"; }
if "$grove" top --once --hosts "$tmp/no-such-file" 2>"$tmp/err"; then
	fail "missing host list accepted"
fi
grep -q "no-such-file" "$tmp/err" || { cat "$tmp/err" >&2; fail "missing host list not named"; }

# An unreachable host: a remote shell that fails the way ssh does.
cat >"$tmp/rsh" <<'EOF'
#!/bin/sh
echo "ssh: Could not resolve hostname $1: Name or service not known" >&2
exit 255
EOF
chmod +x "$tmp/rsh"
printf 'localhost:1\nnode-unreachable.invalid:4\n' >"$tmp/hosts.unr"
if GROVE_RSH=$tmp/rsh timeout 60 "$grove" top --once --hosts "$tmp/hosts.unr" \
	--backends 2 --topology flat 2>"$tmp/err"; then
	fail "unreachable host accepted"
fi
grep -q "node-unreachable.invalid" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "unreachable host not named"; }
# Agents that never answer (be_worker in their place): after the 30 s
# start-up wait the front-end says it timed out.
if GROVE_AGENT=$build/be_worker timeout 120 "$grove" top --once \
	--backends 2 --topology flat --interval 200 2>"$tmp/err" >/dev/null; then
	fail "agents that never answered accepted"
fi
grep -q "grove top: reports: timed out" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "a start-up without answers not called timed out"; }
echo "top OK"
