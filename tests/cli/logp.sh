#!/usr/bin/env bash
# grove logp measure: a quick run of every link class writes a well-formed
# parameter file (positive values, g(m) growing with m); bad options fail
# with a usage error.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail

build=$1
grove="$build/grove"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Run grove, expecting exit status $1; stdout/stderr go to $tmp/out, err.
expect_status() {
	local want=$1 got=0
	shift
	"$grove" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
	if [ "$got" -ne "$want" ]; then
		cat "$tmp/out" "$tmp/err" >&2
		fail "grove $* exited $got, wanted $want"
	fi
}

# --- usage errors ------------------------------------------------------------
expect_status 0 logp --help
grep -q 'usage: grove logp measure' "$tmp/out" || fail "--help prints usage"
expect_status 0 logp measure --help
expect_status 2 logp
expect_status 2 logp estimate
expect_status 2 logp measure --class fast
grep -q "unknown class (host, lan or wan): fast" "$tmp/err" ||
	fail "bad class message: $(cat "$tmp/err")"
expect_status 2 logp measure --class host,host
expect_status 2 logp measure --class ""
for bad in 4K-1 abc 0 1,1 8,4 1-4X 1- -4 1,,2 1-512M; do
	expect_status 2 logp measure --sizes "$bad"
	grep -q "bad size list" "$tmp/err" || fail "--sizes $bad: $(cat "$tmp/err")"
done
expect_status 2 logp measure --reps 0
expect_status 2 logp measure --reps lots
expect_status 2 logp measure --class wan --latency 10
grep -q "bad --latency" "$tmp/err" || fail "unitless latency: $(cat "$tmp/err")"
expect_status 2 logp measure --class wan --bandwidth fast
expect_status 2 logp measure extra
expect_status 1 logp measure --sizes 1,2 --reps 1 -q -o "$tmp/no/such/dir/p.txt"
grep -q "no/such/dir/p.txt" "$tmp/err" || fail "unwritable output: $(cat "$tmp/err")"

# --- a quick measurement of every class ----------------------------------------
out="$tmp/params.txt"
expect_status 0 logp measure --class host,lan,wan --sizes 1,1K,64K,1M \
	--reps 2 --latency 2ms --bandwidth 50MB/s -q -o "$out"
grep -q '^class wan (emulated: latency 2 ms, bandwidth 50 MB/s)' "$tmp/out" ||
	fail "table header: $(cat "$tmp/out")"
grep -q 'spread os/or/g' "$tmp/out" || fail "no spreads printed"

# Well-formed: the header, then per class "class", "L", a comment and one
# row per size with four positive numbers, sizes ascending.
awk '
function bad(msg) { print FILENAME ":" NR ": " msg > "/dev/stderr"; err = 1; exit 1 }
NR == 1 { if ($0 != "# grove logp parameters v1") bad("header"); next }
/^class / { if (NF != 2) bad("class line"); cls = $2; classes++; state = "L"; rows[cls] = 0; next }
state == "L" { if ($1 != "L" || NF != 2 || !($2 > 0)) bad("L line"); L[cls] = $2; state = "comment"; next }
state == "comment" { if ($0 != "# size_bytes os_s or_s g_s") bad("column comment"); state = "rows"; last = 0; next }
state == "rows" {
	if (NF != 4) bad("row has " NF " fields")
	for (i = 1; i <= 4; i++) if (!($i > 0)) bad("field " i " not positive")
	if ($1 + 0 <= last) bad("sizes not ascending")
	last = $1 + 0
	n = ++rows[cls]; g[cls, n] = $4 + 0
	next
}
{ bad("unexpected line") }
END {
	if (err) exit 1
	if (classes != 3) { print "classes: " classes > "/dev/stderr"; exit 1 }
	for (c in rows) {
		if (rows[c] != 4) { print c ": " rows[c] " rows" > "/dev/stderr"; exit 1 }
		# g grows with m: 1 MiB takes longer than 1 byte everywhere ...
		if (!(g[c, 4] > g[c, 1])) { print c ": g(1M) <= g(1)" > "/dev/stderr"; exit 1 }
	}
	# ... and at every step on the emulated link, whose gap is size/B.
	for (i = 2; i <= 4; i++)
		if (!(g["wan", i] > g["wan", i - 1])) { print "wan: g not growing at row " i > "/dev/stderr"; exit 1 }
	# The emulator never delivers early: L is at least the emulated 2 ms.
	if (!(L["wan"] >= 0.0019)) { print "wan: L " L["wan"] " below 2 ms" > "/dev/stderr"; exit 1 }
}' "$out" || fail "malformed parameter file: $(cat "$out")"

echo "cli.logp: OK"
