#!/usr/bin/env bash
# grove topo: generated specs, files, formats, round trips and errors.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

src=$2
data="$src/tests/data/topo"

# --- help and usage errors -------------------------------------------------
expect_status 0 topo --help
grep -q 'usage: grove topo' "$tmp/out" || fail "--help prints usage"
expect_status 2 topo
expect_status 2 topo --bogus
expect_status 2 topo --topology kary:4 --backends many
expect_status 2 topo --topology flat --backends 4 --format xml
expect_status 2 topo --topology flat --backends 4 --file "$data/good_flat.top"
expect_status 2 topo --file "$data/good_flat.top" --hosts "$data/hosts_example.txt"
expect_status 2 topo --topology flat --backends 4 extra

# --- generated specs -------------------------------------------------------
expect_status 0 topo --topology kary:8 --backends 64
tail -n 1 "$tmp/out" | grep -qx 'nodes 73, CPs 8, BEs 64, depth 2, max fan-out 8' ||
	fail "kary:8/64 summary: $(tail -n 1 "$tmp/out")"
head -n 1 "$tmp/out" | grep -qx 'FE localhost:0 \[node 0\] ranks 0-63' ||
	fail "kary:8/64 first line"

expect_status 0 topo -t kary:4 -b 100
tail -n 1 "$tmp/out" | grep -q 'BEs 100, depth 4, max fan-out 4' ||
	fail "kary:4/100 summary"

expect_status 0 topo -t 4x8x8
tail -n 1 "$tmp/out" | grep -qx 'nodes 293, CPs 36, BEs 256, depth 3, max fan-out 8' ||
	fail "4x8x8 summary"

expect_status 0 topo -t knomial:2 -b 16
tail -n 1 "$tmp/out" | grep -q 'BEs 16, depth 4, max fan-out 5' ||
	fail "knomial:2/16 summary"

expect_status 0 topo -t flat -b 100000 -o "$tmp/big.txt"
[ ! -s "$tmp/out" ] || fail "-o leaves stdout empty"
tail -n 1 "$tmp/big.txt" | grep -q 'nodes 100001,' || fail "-o writes the file"

# Host list placement.
expect_status 0 topo -t flat -b 4 --hosts "$data/hosts_example.txt"
grep -q '^FE node01.cluster.example.org:0 ' "$tmp/out" || fail "FE on first host"
grep -q 'BE node03.cluster.example.org:0 ' "$tmp/out" || fail "BE on third host"

# --- bad specs: exit 1 with a clear message --------------------------------
expect_status 1 topo -t kary:0 -b 8
grep -q "grove topo: bad topology spec 'kary:0'" "$tmp/err" || fail "kary:0 message"
expect_status 1 topo -t levels:4x0
grep -q 'level 2 fan-out must be at least 1' "$tmp/err" || fail "levels:4x0 message"
expect_status 1 topo -t 4x8 -b 30
grep -q 'makes 32 back-ends, not 30' "$tmp/err" || fail "mismatch message"
expect_status 1 topo -t kary:4
grep -q 'needs a back-end count' "$tmp/err" || fail "missing --backends message"
printf 'good\nbad:0\n' >"$tmp/hosts"
expect_status 1 topo -t flat -b 4 --hosts "$tmp/hosts"
grep -q "grove topo: $tmp/hosts: line 2: bad slot count" "$tmp/err" ||
	fail "bad host list message"
expect_status 1 topo --file "$tmp/does-not-exist.top"

# --- good files, and MRNet round trips through the CLI ----------------------
for f in "$data"/good_*.top; do
	expect_status 0 topo --file "$f"
	summary=$(tail -n 1 "$tmp/out")
	want=$(sed -n 's/^# expect: //p' "$f")
	if [ -n "$want" ] && [ "$summary" != "$want" ]; then
		fail "$f: summary '$summary', wanted '$want'"
	fi
	"$grove" topo --file "$f" --format mrnet >"$tmp/a.top"
	"$grove" topo --file "$tmp/a.top" --format mrnet >"$tmp/b.top"
	cmp -s "$tmp/a.top" "$tmp/b.top" || fail "$f: mrnet round trip differs"
	"$grove" topo --file "$tmp/a.top" >"$tmp/b.txt"
	cmp -s "$tmp/out" "$tmp/b.txt" || fail "$f: text differs after round trip"
done

for spec in flat kary:3 knomial:3 5x2; do
	"$grove" topo -t "$spec" -b 10 --hosts "$data/hosts_example.txt" \
		--format mrnet -o "$tmp/gen.top"
	"$grove" topo --file "$tmp/gen.top" --format mrnet >"$tmp/back.top"
	cmp -s "$tmp/gen.top" "$tmp/back.top" || fail "$spec: mrnet round trip differs"
done

# --- DOT ---------------------------------------------------------------------
expect_status 0 topo -t kary:2 -b 4 --format dot
head -n 1 "$tmp/out" | grep -q '^digraph ' || fail "dot header"
tail -n 1 "$tmp/out" | grep -qx '}' || fail "dot footer"
[ "$(grep -c -- '->' "$tmp/out")" -eq 6 ] || fail "dot edge count"
grep -q 'label="BE\\nlocalhost:2\\nrank 0"' "$tmp/out" || fail "dot BE label"

# --- bad files: exit 1, "grove topo: FILE: line N: ..." ----------------------
# Each bad file states its expected message prefix on its first line.
n=0
for f in "$data"/bad_*.top; do
	want=$(sed -n '1s/^# expect-error: //p' "$f")
	[ -n "$want" ] || fail "$f has no expect-error line"
	expect_status 1 topo --file "$f"
	grep -qF "grove topo: $f: $want" "$tmp/err" ||
		fail "$f: stderr '$(cat "$tmp/err")' lacks '$want'"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n bad files"

echo "topo.sh: ok"
