#!/usr/bin/env bash
# `grove demo` (the TBON walk-through the tutorial and docs point to) must
# keep working and checking its own results (it exits non-zero on any
# mismatch).  It runs with GROVE_LOG=info: a clean run logs no error, and
# a clean shutdown no "unauthenticated connection" for the tree's own,
# long-authenticated links.  Logging is checked too: off by default, and
# with GROVE_LOG_FILE one file per process (%r: role-rank), none on stderr.
# And how CPs start their child CPs: as copies (fork), or through exec
# when the CP program is a wrapper.
set -euo pipefail
build=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for spec in "kary:4 16" "flat 8" "kary:2 8"; do
	set -- $spec
	if ! GROVE_LOG=info timeout 120 "$build/grove" demo --topology "$1" --backends "$2" \
	    >"$out" 2>&1; then
		cat "$out" >&2
		echo "FAIL: grove demo --topology $1 --backends $2" >&2
		exit 1
	fi
	grep -q "all 11 results OK" "$out" || {
		cat "$out" >&2
		echo "FAIL: demo on $1/$2 did not report all results OK" >&2
		exit 1
	}
	if grep -E "unauthenticated connection|\] error|ERROR" "$out" >&2; then
		echo "FAIL: demo on $1/$2 logged the lines above" >&2
		exit 1
	fi
done
# A levels: spec brings its own back-end count, in either spelling; a
# missing value is named.
for spec in levels:2x3 2x3; do
	timeout 120 "$build/grove" demo --topology $spec >"$out" 2>&1 &&
		grep -q "all 11 results OK" "$out" ||
		{ cat "$out" >&2; echo "FAIL: demo --topology $spec" >&2; exit 1; }
done
if timeout 20 "$build/grove" demo --backends >"$out" 2>&1 ||
    ! grep -q -- "option needs a value: --backends" "$out"; then
	cat "$out" >&2
	echo "FAIL: demo --backends without a value" >&2
	exit 1
fi
# A bad cluster map is a bad topology file, named with its line.
printf 'wan latency 1ms\ncluster 0 nodes 0\ncluster 0 nodes 0\n' >"$out.map"
if GROVE_CLUSTER_MAP="$out.map" timeout 20 "$build/grove" demo --topology flat \
    --backends 1 >"$out" 2>&1 || ! grep -q "bad topology: cluster map .*:3: node 0" "$out"; then
	cat "$out" >&2
	rm -f "$out.map"
	echo "FAIL: a bad cluster map" >&2
	exit 1
fi
rm -f "$out.map"
# Logging is off by default, and per process into files on request.
log_line='^[0-9.]+ [EWIDT] (fe|cp|be)\['
timeout 120 "$build/grove" demo --topology kary:2 --backends 4 >"$out" 2>&1 ||
	{ cat "$out" >&2; echo "FAIL: demo without GROVE_LOG" >&2; exit 1; }
if grep -E "$log_line" "$out" >&2; then
	echo "FAIL: log lines without GROVE_LOG" >&2
	exit 1
fi
logs=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$logs"' EXIT
GROVE_LOG=debug GROVE_LOG_FILE="$logs/log.%r" timeout 120 "$build/grove" demo \
	--topology kary:2 --backends 4 >"$out" 2>"$logs/stderr" ||
	{ cat "$out" "$logs/stderr" >&2; echo "FAIL: demo with GROVE_LOG_FILE" >&2; exit 1; }
for who in fe-0 cp-1 cp-4; do
	role=${who%-*} rank=${who#*-}
	grep -qE "^[0-9.]+ D $role\[$rank\] pid [0-9]+ " "$logs/log.$who" || {
		ls "$logs" >&2
		echo "FAIL: no debug lines of $role $rank in log.$who" >&2
		exit 1
	}
done
if grep -E "$log_line" "$logs/stderr" >&2; then
	echo "FAIL: log lines on stderr with GROVE_LOG_FILE set" >&2
	exit 1
fi

# A CP starts its local child CPs as copies of itself (no exec): in
# kary:2 over 8 back-ends, CPs 1 and 8 each fork two, which log under
# their own identity.  Through a wrapper every CP is exec'd, all six.
rm -f "$logs"/log.*
GROVE_LOG=debug GROVE_LOG_FILE="$logs/log.%r" timeout 120 "$build/grove" demo \
	--topology kary:2 --backends 8 >"$out" 2>&1 ||
	{ cat "$out" >&2; echo "FAIL: kary:2/8 demo with logging" >&2; exit 1; }
forked=$(cat "$logs"/log.cp-1 "$logs"/log.cp-8 | grep -c "forked cp node" || true)
[ "$forked" -eq 4 ] || { echo "FAIL: $forked CPs forked, wanted 4" >&2; exit 1; }
for cp in 2 5 9 12; do
	grep -qE "^[0-9.]+ D cp\[$cp\] " "$logs/log.cp-$cp" ||
		{ echo "FAIL: forked cp $cp did not log as itself" >&2; exit 1; }
done
cat >"$logs/wrap.sh" <<WRAP
#!/bin/sh
echo "\$\$" >>"$logs/wrapped"
exec "$(cd "$build" && pwd)/grove-commnode" "\$@"
WRAP
chmod +x "$logs/wrap.sh"
GROVE_COMMNODE="$logs/wrap.sh" timeout 120 "$build/grove" demo \
	--topology kary:2 --backends 8 >"$out" 2>&1 ||
	{ cat "$out" >&2; echo "FAIL: demo through a CP wrapper" >&2; exit 1; }
grep -q "all 11 results OK" "$out" || { cat "$out" >&2; exit 1; }
wrapped=$(wc -l <"$logs/wrapped")
[ "$wrapped" -eq 6 ] || { echo "FAIL: $wrapped CPs through the wrapper, wanted 6" >&2; exit 1; }

# Every back-end says which host it runs on (here, this one).
grep -qxF "back-ends by host (from their info replies): $(hostname) ranks 0-7" \
	"$out" || { cat "$out" >&2; echo "FAIL: no back-ends by host" >&2; exit 1; }
# Attach mode: the demo writes the connection file and waits; back-ends
# started by hand attach.  (Across hosts: tests/cli/hosts_tbon.sh.)
conn=$logs/conn
timeout 120 "$build/grove" demo --topology kary:2 --backends 4 --attach "$conn" \
	>"$out" 2>&1 &
fe=$!
for _ in $(seq 600); do
	[ -f "$conn" ] || ! kill -0 "$fe" 2>/dev/null && break
	sleep 0.1
done
[ -f "$conn" ] || { cat "$out" >&2; echo "FAIL: demo --attach wrote no file" >&2; exit 1; }
bes=()
for r in 0 1 2 3; do
	timeout 120 "$build/be_worker" --attach "$conn" --rank $r >"$logs/be.$r" 2>&1 &
	bes+=($!)
done
wait "$fe" || { cat "$out" >&2; echo "FAIL: demo --attach" >&2; exit 1; }
for b in "${bes[@]}"; do
	wait "$b" || { cat "$logs"/be.* >&2; echo "FAIL: an attached back-end" >&2; exit 1; }
done
grep -q "all 11 results OK" "$out" && grep -q "(attach mode, all 4 back-ends attached)" "$out" &&
	grep -qxF "back-ends by host (from their info replies): $(hostname) ranks 0-3" "$out" ||
	{ cat "$out" >&2; echo "FAIL: demo --attach results" >&2; exit 1; }
[ ! -e "$conn" ] || { echo "FAIL: demo --attach left its connection file" >&2; exit 1; }
# A topology file names its own hosts: --hosts goes with --topology only.
printf 'localhost:0 => localhost:1 ;\n' >"$logs/one.top"
if timeout 20 "$build/grove" demo --file "$logs/one.top" --hosts "$logs/one.top" \
    >"$out" 2>&1 || ! grep -q -- "--hosts goes with --topology" "$out"; then
	cat "$out" >&2
	echo "FAIL: demo --file with --hosts" >&2
	exit 1
fi
echo "demo OK"
