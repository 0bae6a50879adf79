#!/usr/bin/env bash
# grove model (params, bcast) and grove topo --optimize-bcast: output,
# formats and errors.  Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

src=$2
params="$src/share/logp/default.params"

expect_err() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1': $(cat "$tmp/err")"
}

# --- help and usage errors -------------------------------------------------
expect_status 0 model --help
grep -q 'usage: grove model' "$tmp/out" || fail "--help prints usage"
expect_status 2 model
expect_status 2 model frobnicate
expect_status 2 model bcast --clusters 4 --per-cluster 4 --size 1M
expect_err "--params FILE is required"
expect_status 2 model bcast --params "$params" --clusters 4 --size 1M
expect_status 2 model bcast --params "$params" --clusters four --per-cluster 4 --size 1M
expect_status 2 model bcast --params "$params" --clusters 4 --per-cluster 4 --size 1Q
expect_err "--size needs a size"
expect_status 2 model bcast --params "$params" --clusters 4 --per-cluster 4 --size 1M --scheme fast
expect_status 2 model bcast --params "$params" --clusters 4 --per-cluster 4 --size 1M --search guess
expect_status 2 model bcast --params "$params" --clusters 4 --per-cluster 4 --size 1M --local moon
expect_status 2 model params --params "$params" --clusters 4
expect_err "params takes only --params, not: --clusters"
# params refuses every option only bcast uses rather than ignore it.
for opt in "--json" "-e 4" "--elem 4" "--search exhaustive" "--local host" \
	"--wide lan" "--scheme all" "-s 1M" "-n 4"; do
	# shellcheck disable=SC2086 # the option and its value are two words
	expect_status 2 model params --params "$params" $opt
	expect_err "params takes only --params, not: "
	[ ! -s "$tmp/out" ] || fail "params $opt printed: $(cat "$tmp/out")"
done
expect_status 2 model params -p "$params" -j
expect_err "not: --json"
expect_status 2 model params -p "$params" -x paper
expect_err "not: --search"

# --- params ----------------------------------------------------------------
expect_status 0 model params --params "$params"
grep -q '^class host: L = 4.000 us' "$tmp/out" || fail "host section"
grep -q '^class wan: L = 10000.000 us' "$tmp/out" || fail "wan section"
# 1 MiB over the WAN: g = 20 + 2^20 us, i.e. 1 byte per microsecond.
grep -Eq '^ +1048576 +1048596.000 +177.763 +1048596.000 +1058596.000 +1.00$' \
	"$tmp/out" || fail "wan 1 MiB row"

# --- bcast ------------------------------------------------------------------
expect_status 0 model bcast --params "$params" --clusters 4 --per-cluster 16 --size 4M
grep -q '^scheme optimized, M = 4194304 bytes' "$tmp/out" || fail "bcast header"
grep -Eq '^  k = [0-9]+ segments of m = [0-9]+ bytes' "$tmp/out" || fail "k and m"
grep -Eq '^  wan: P 4, d [1-3], h [1-3],' "$tmp/out" || fail "wan layer"
grep -Eq '^  lan: P 16, d [0-9]+, h [0-9]+,' "$tmp/out" || fail "lan layer"

# JSON: one object per scheme; the optimized scheme beats the original one
# for 4 MiB over a 1 MB/s WAN, and the heuristic matches the exhaustive
# search here.
expect_status 0 model bcast --params "$params" --clusters 4 --per-cluster 16 \
	--size 4M --scheme all --json
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "--scheme all --json: 4 lines"
python3 - "$tmp/out" <<'PY'
import json, sys
plans = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    plans[p["scheme"]] = p
assert set(plans) == {"optimized", "original", "whole-nonblocking", "sequential"}, plans
o, n = plans["original"], plans["optimized"]
assert o["k"] == 1 and o["m"] == 4194304 and o["lan"]["binomial"], o
assert n["T_us"] < o["T_us"] / 2, (n["T_us"], o["T_us"])
assert abs(n["T_us"] - ((n["k"] - 1) * n["gamma_us"] + n["lambda_us"])) < 1e-3 * n["T_us"]
assert n["wan"]["P"] == 4 and n["lan"]["P"] == 16
PY
expect_status 0 model bcast --params "$params" --clusters 4 --per-cluster 16 \
	--size 4M --json --search exhaustive
cp "$tmp/out" "$tmp/exhaustive"
expect_status 0 model bcast --params "$params" --clusters 4 --per-cluster 16 \
	--size 4M --json
python3 - "$tmp/out" "$tmp/exhaustive" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).read())
x = json.loads(open(sys.argv[2]).read())
assert x["T_us"] <= h["T_us"] <= 1.01 * x["T_us"], (h, x)
assert h["evaluated"] < x["evaluated"]
PY
# Suffixes are 1024-based; elements divide the segments.
expect_status 0 model bcast --params "$params" --clusters 2 --per-cluster 2 --size 64K --json --elem 8
grep -q '"size":65536,' "$tmp/out" || fail "64K is 65536 bytes"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["m"] % 8 == 0' "$tmp/out"
# Single layers need only their class: LAN only, WAN only.
expect_status 0 model bcast --params "$params" --clusters 1 --per-cluster 8 --size 1M --scheme original
grep -q '^  wan: P 1 (no tree)' "$tmp/out" || fail "one cluster: no WAN tree"

# --- model errors: file, cluster map, classes -------------------------------
expect_status 1 model params --params "$tmp/missing.params"
expect_err "parameter file $tmp/missing.params: cannot open: No such file or directory"
printf 'grove-logp 1\nclass lan\nL 1\n3 1 1 1\n' >"$tmp/bad.params"
expect_status 1 model bcast --params "$tmp/bad.params" --clusters 2 --per-cluster 2 --size 1K
expect_err "parameter file $tmp/bad.params: line 4: size '3' is not a power of two"
expect_status 1 model bcast --params "$params" --clusters 0 --per-cluster 4 --size 1M
expect_err "impossible cluster map: 0 clusters of 4 processes"
expect_status 1 model bcast --params "$params" --clusters 4 --per-cluster 0 --size 1M
expect_err "impossible cluster map: 4 clusters of 0 processes"
printf 'grove-logp 1\nclass lan\nL 10\n1 1 1 2\n1024 2 2 4\n' >"$tmp/lan.params"
expect_status 0 model bcast --params "$tmp/lan.params" --clusters 1 --per-cluster 32 --size 1M
expect_status 1 model bcast --params "$tmp/lan.params" --clusters 3 --per-cluster 2 --size 1M
expect_err "$tmp/lan.params: the parameters have no 'wan' link class"
expect_status 1 model bcast --params "$tmp/lan.params" --clusters 1 --per-cluster 2 --size 1M --local host
expect_err "no 'host' link class"
expect_status 1 model bcast --params "$params" --clusters 2 --per-cluster 2 --size 10 --elem 4
expect_err "not a multiple of the element size 4"

# Huge times: refused with the line, never turned into inf or NaN.
printf 'grove-logp 1\nclass lan\nL 1e300\n1 1 1 1\n' >"$tmp/huge.params"
expect_status 1 model bcast -p "$tmp/huge.params" -c 1 -n 64 -s 1M
expect_err "parameter file $tmp/huge.params: line 3: expected 'L MICROSECONDS' (a finite number in [0, 1e15])"
printf 'grove-logp 1\nclass lan\nL 1\n1 1e300 1e300 1e300\n1024 1e308 1e308 1e308\n' \
	>"$tmp/huge.params"
expect_status 1 model bcast -p "$tmp/huge.params" -c 1 -n 64 -s 1M --json
expect_err "parameter file $tmp/huge.params: line 4: os, or, g and w must be finite numbers in [0, 1e15]"
[ ! -s "$tmp/out" ] || fail "huge parameters printed a plan: $(cat "$tmp/out")"
expect_status 1 model params -p "$tmp/huge.params"
expect_status 1 topo --optimize-bcast --params "$tmp/huge.params" --clusters 1 --per-cluster 4 --size 1M
expect_err "line 4: os, or, g and w"
# The bound itself is accepted, and the predictions stay finite JSON.
printf 'grove-logp 1\nclass lan\nL 1e15\n1 1e15 1e15 1e15 1e15\n1024 1e15 1e15 1e15 1e15\n' \
	>"$tmp/big.params"
expect_status 0 model bcast -p "$tmp/big.params" -c 1 -n 64 -s 1M --json --scheme all
python3 - "$tmp/out" <<'PY'
import json, math, sys
for line in open(sys.argv[1]):
    p = json.loads(line, parse_constant=lambda c: sys.exit("not JSON: " + c))
    assert math.isfinite(p["T_us"]) and p["T_us"] > 0, p
PY

# An exhaustive search too large to finish is refused at once, with the
# way out (docs/logp.md estimates 6.5e10 evaluations for this one).
expect_status 1 model bcast -p "$params" -c 1000 -n 1000 -s 1G -x exhaustive
expect_err "the exhaustive search would evaluate about 6.5e+10 configurations (the limit is 1e+09); use the default heuristic search"
[ ! -s "$tmp/out" ] || fail "refused exhaustive search printed: $(cat "$tmp/out")"
expect_status 1 model bcast -p "$params" -c 1 -n 20000 -s 1G -x exhaustive --scheme sequential
expect_err "the exhaustive search would evaluate"
# The heuristic handles the same map.
expect_status 0 model bcast -p "$params" -c 1000 -n 1000 -s 1G

# --- topo --optimize-bcast -----------------------------------------------
expect_status 0 topo --optimize-bcast --params "$params" --clusters 4 --per-cluster 4 --size 4M
# 16 processes: the FE is process 0, the other 15 are BEs; the 3 other
# coordinators forward (CPs with their own BE as last child).
tail -n 1 "$tmp/out" | grep -qx 'nodes 19, CPs 3, BEs 15, depth 2, max fan-out 6' ||
	fail "optimized topology summary: $(tail -n 1 "$tmp/out")"
head -n 1 "$tmp/out" | grep -qx 'FE localhost:0 \[node 0\] ranks 0-14' ||
	fail "optimized topology root"
expect_status 0 topo --optimize-bcast --params "$params" --clusters 4 --per-cluster 4 \
	--size 4M --format mrnet -o "$tmp/opt.top"
grep -q '^localhost:0 => localhost:4 localhost:8 localhost:12 ' "$tmp/opt.top" ||
	fail "coordinators are served first"
# The MRNet text is a topology grove topo (and grove_net_create) accept.
expect_status 0 topo --file "$tmp/opt.top"
tail -n 1 "$tmp/out" | grep -qx 'nodes 19, CPs 3, BEs 15, depth 2, max fan-out 6' ||
	fail "MRNet output parses back"
expect_status 0 topo --optimize-bcast --params "$params" --clusters 3 --per-cluster 5 --size 1K --format dot
grep -q '^digraph' "$tmp/out" || fail "dot output"
# The loopback classes only (no WAN): one cluster of 64, a 64 KiB message.
expect_status 0 topo --optimize-bcast --params "$params" --clusters 1 --per-cluster 64 --size 64K
tail -n 1 "$tmp/out" | grep -q 'BEs 63,' || fail "one cluster of 64"

# topo errors
expect_status 2 topo --optimize-bcast --params "$params" --clusters 4 --size 1M
expect_err "--optimize-bcast needs --params, --clusters, --per-cluster and --size"
expect_status 2 topo --optimize-bcast --topology flat --backends 4
expect_status 2 topo --topology flat --backends 4 --params "$params"
expect_status 2 topo --optimize-bcast --params "$params" --clusters 2 --per-cluster 2 --size 1M --backends 4
expect_status 2 topo --optimize-bcast --params "$params" --clusters x --per-cluster 2 --size 1M
expect_status 1 topo --optimize-bcast --params "$tmp/missing.params" --clusters 2 --per-cluster 2 --size 1M
expect_err "grove topo: parameter file $tmp/missing.params: cannot open"
expect_status 1 topo --optimize-bcast --params "$params" --clusters 0 --per-cluster 2 --size 1M
expect_err "impossible cluster map"
expect_status 1 topo --optimize-bcast --params "$tmp/lan.params" --clusters 2 --per-cluster 2 --size 1M
expect_err "no 'wan' link class"
expect_status 1 topo --optimize-bcast --params "$params" --clusters 1 --per-cluster 1 --size 1M
expect_err "a topology needs 2 to"
# A system far beyond that is refused before the search (seconds for
# this one) and before the parameter file is read.
expect_status 1 topo --optimize-bcast --params "$tmp/missing.params" \
	--clusters 4294967295 --per-cluster 4294967295 --size 1K
expect_err "a topology needs 2 to 16777216 processes in all, not 18446744065119617025"
expect_status 1 topo --optimize-bcast --params "$tmp/missing.params" \
	--clusters 4097 --per-cluster 4096 --size 1K
expect_err "a topology needs 2 to 16777216 processes in all, not 16781312"

# The count of a search is of segment cuts (each tried with every degree
# pair the search takes), and the text says so.
expect_status 0 model bcast --params "$params" --clusters 4 --per-cluster 16 --size 64K
grep -Eq '^  segment cuts evaluated: [0-9]+$' "$tmp/out" ||
	fail "bcast names what it counts: $(cat "$tmp/out")"

echo "model CLI: all checks passed"
