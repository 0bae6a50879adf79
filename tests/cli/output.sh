#!/usr/bin/env bash
# The commands fail, exit 1 with "standard output: write failed" on
# standard error, when what they print cannot be written (/dev/full): a
# result nobody received is no success.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ -w /dev/full ] || { echo "no writable /dev/full: nothing checked"; exit 0; }
src=$2
params="$src/share/logp/default.params"

w="standard output: write failed"

# grove ARGS > /dev/full must exit 1 and name the failed write; $want is
# the message ("grove model: standard output: write failed").  (Why is
# named when the flush at the end finds it: a write that failed earlier,
# with more than a buffer of output, took it along.)
full() {
	local want=$1 got=0
	shift
	timeout 120 "$grove" "$@" >/dev/full 2>"$tmp/err" || got=$?
	if [ "$got" -ne 1 ]; then
		cat "$tmp/err" >&2
		fail "grove $* >/dev/full exited $got, wanted 1"
	fi
	grep -Eq "^$want(: No space left on device)?$" "$tmp/err" ||
		fail "grove $* >/dev/full: stderr '$(cat "$tmp/err")'"
}

full "grove topo: $w" topo -t flat -b 4
full "grove topo: $w" topo -t flat -b 100000
full "grove model: $w" model params -p "$params"
full "grove model: $w" model bcast -p "$params" -c 4 -n 8 -s 64K
full "grove model: $w" model bcast -p "$params" -c 4 -n 8 -s 64K \
	--scheme all --json
full "grove: $w" --help
full "grove model: $w" model --help
full "grove logp: $w" logp --help
full "grove trace: $w" trace list
full "grove bench: $w" bench --help
full "grove bench: $w" bench floor --topology kary:2 --backends 2 \
	--rt-iters 5 --json
full "grove bench: $w" bench micro --topology kary:2 --backends 2 \
	--rt-iters 5 --thru-iters 5 --json

# Event spaces of a network made up here, removed on exit.
net="clitestout$$"
trap '"$grove" trace clean --net "$net" --force >/dev/null 2>&1 || true
	rm -rf "$tmp"' EXIT
full "grove trace: $w" trace sample --net "$net" --backends 2
# (stats and dump: the trace module's own words)
full "grove trace: cannot write standard output" trace stats --net "$net"
full "grove trace: cannot write standard output" trace dump --net "$net" \
	--format text
full "grove trace: $w" trace clean --net "$net" --force

# The same commands with somewhere to write still exit 0.
expect_status 0 model params -p "$params"
grep -q . "$tmp/out" || fail "model params printed nothing"
expect_status 0 topo -t flat -b 4
echo "output.sh: ok"
