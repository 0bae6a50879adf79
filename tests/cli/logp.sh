#!/usr/bin/env bash
# grove logp measure: a quick run of every link class writes a well-formed
# parameter file (positive values, g(m) growing with m); bad options fail
# with a usage error.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

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
# Each value is one quantity and nothing else: a '#' or a second word
# is refused, the option named, not taken for the rest of a map line
# (which dropped the bandwidth after a latency of '10ms #').
for bad in "10ms #" "10ms#" "10ms bandwidth 5MB/s" " 10ms" "10ms " "10 ms" \
	"-1ms" "infms" "nan" "0x10ms" "10ms
wan"; do
	expect_status 2 logp measure --class wan --sizes 1 --reps 1 -q \
		--latency "$bad" --bandwidth 1MB/s
	grep -q "bad --latency" "$tmp/err" ||
		fail "--latency '$bad': $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "measured with --latency '$bad'"
done
for bad in "1MB/s #" "1MB/s#x" "1MB/s latency 0" "1 MB/s" "-1MB/s" "1MB"; do
	expect_status 2 logp measure --class wan --sizes 1 --reps 1 -q \
		--latency 10ms --bandwidth "$bad"
	grep -q "bad --bandwidth" "$tmp/err" ||
		fail "--bandwidth '$bad': $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "measured with --bandwidth '$bad'"
done
expect_status 2 logp measure extra
# Sizes the parameter file cannot hold are refused before measuring, the
# offending size named.
for bad in 3,6:3 3,5:3 3-12:3 1-12:12 1,1000:1000; do
	expect_status 2 logp measure --sizes "${bad%%:*}"
	grep -q "size ${bad#*:} is not a power of two" "$tmp/err" ||
		fail "--sizes ${bad%%:*}: $(cat "$tmp/err")"
done
# A suffix shifting the number past 64 bits is too large, not wrapped.
for big in 18014398509481985K 17592186044417M 99999999999999999999999; do
	expect_status 2 logp measure --sizes "$big"
	grep -q "size $big is larger than 256M" "$tmp/err" ||
		fail "--sizes $big: $(cat "$tmp/err")"
done
# An output that cannot be written fails before the measurement: no table.
expect_status 1 logp measure --sizes 1,2 --reps 1 -q -o "$tmp/no/such/dir/p.txt"
grep -q "no/such/dir/p.txt" "$tmp/err" || fail "unwritable output: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "measured before refusing the output: $(cat "$tmp/out")"
expect_status 1 logp measure --sizes 1 --reps 1 -q -o "$tmp"
grep -q "$tmp: cannot create: Is a directory" "$tmp/err" ||
	fail "directory as output: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "measured before refusing the output: $(cat "$tmp/out")"

# --- a quick measurement of every class ----------------------------------------
out="$tmp/params.txt"
expect_status 0 logp measure --class host,lan,wan --sizes 1,1K,64K,1M \
	--reps 2 --latency 2ms --bandwidth 50MB/s -q -o "$out"
grep -q '^class wan (emulated: latency 2 ms, bandwidth 50 MB/s)' "$tmp/out" ||
	fail "table header: $(cat "$tmp/out")"
grep -q 'spread os/or/g' "$tmp/out" || fail "no spreads printed"

# The model reads what was measured.
expect_status 0 model params --params "$out"
grep -q "class wan" "$tmp/out" || fail "grove model params: $(cat "$tmp/out")"

# Well-formed: the model's format (grove-logp 1, microseconds), this
# machine's cores, every class with L and one row per size of four positive
# numbers and the CPU work w (>= 0), sizes ascending.
python3 - "$out" <<'PY' || fail "malformed parameter file: $(cat "$out")"
import sys
lines = [l.split("#")[0].split() for l in open(sys.argv[1])]
lines = [l for l in lines if l]
assert lines[0] == ["grove-logp", "1"], lines[0]
classes, cls, cores, crowds = {}, None, None, {}
for l in lines[1:]:
    if l[0] == "cores":
        cores = int(l[1])
    elif l[0] == "class":
        cls = l[1]; classes[cls] = {"rows": []}
    elif l[0] == "L":
        classes[cls]["L"] = float(l[1])
    elif l[0] == "crowd":
        # w with K processes per core: host only, K on the grid,
        # sizes 1, 1K (log2 even) of the four, w > 0.
        assert cls == "host" and len(l) == 4, l
        crowds.setdefault(int(l[1]), []).append((int(l[2]), float(l[3])))
        assert float(l[3]) > 0, l
    else:
        row = [float(x) for x in l]
        assert len(row) == 5 and all(x > 0 for x in row[:4]), l
        assert row[4] >= 0, l
        rows = classes[cls]["rows"]
        assert not rows or row[0] > rows[-1][0], "sizes not ascending"
        rows.append(row)
assert sorted(classes) == ["host", "lan", "wan"], classes.keys()
assert cores is not None and cores >= 1, cores
assert sorted(crowds) == [2, 8, 32, 128], crowds.keys()
for K, rows in crowds.items():
    assert [r[0] for r in rows] == [1, 1024, 65536, 1048576], (K, rows)
for c, v in classes.items():
    assert len(v["rows"]) == 4, (c, v)
    assert v["L"] > 0, c
    # g grows with m: 1 MiB takes longer than 1 byte everywhere ...
    assert v["rows"][3][3] > v["rows"][0][3], (c, "g(1M) <= g(1)")
# ... and at every step on the emulated link, whose gap is size/B.
g = [r[3] for r in classes["wan"]["rows"]]
assert all(g[i] > g[i - 1] for i in range(1, 4)), g
# The emulator never delivers early: L is at least the emulated 2 ms.
assert classes["wan"]["L"] >= 1900, classes["wan"]["L"]
PY

echo "cli.logp: OK"
