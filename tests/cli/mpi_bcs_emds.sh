#!/usr/bin/env bash
# BCS monitoring (docs/bcs.md, EMDS): grove run --bcs --emds writes the
# global (strobe sender) and local (node manager) per-slice metrics as
# CSV and JSON lines, and the global ones into the launcher's event
# space; their counts follow the program exactly.  The validation program
# (paired blocking ping-pongs, a barrier every 4 iterations) posts 4
# point-to-point descriptors per iteration (a send and a receive per
# message, two messages) and runs 1 + iters/4 barriers and 2 allreduces
# (and MPI_Finalize one barrier), each one collective scheduled once with
# every rank's descriptor.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
export TMPDIR=$tmp
iters=40 ranks=2

timeout 120 "$grove" run --verbose --bcs --emds 0:99999 --emds-out "$tmp/e" --keep-trace \
	-n $ranks "$build/bench-mpi/bcs_validate" --iters $iters >"$tmp/v.out" 2>"$tmp/v.err" ||
	{ cat "$tmp/v.out" "$tmp/v.err"; fail "the validation program failed under --bcs"; }
for f in global.csv global.json local.csv local.json; do
	[ -s "$tmp/e.$f" ] || fail "no $tmp/e.$f"
done
head -1 "$tmp/e.global.csv" | grep -q '^slice,GETTS,GTDEM,GTMSM,GTTS,USRTS,USRDEM,USRMSM$' ||
	{ head -2 "$tmp/e.global.csv"; fail "global CSV header"; }
head -1 "$tmp/e.local.csv" | grep -q '^node,slice,LETTS,LTDEM,LMSM,LTTS,NP2PDEM,NP2PMSM,NCOLLDEM,NCOLLMSM,BPTS$' ||
	{ head -2 "$tmp/e.local.csv"; fail "local CSV header"; }
rows=$(($(wc -l <"$tmp/e.global.csv") - 1))
[ "$(wc -l <"$tmp/e.global.json")" = "$rows" ] || fail "the JSON lines and the CSV rows differ in number"

sums=$(awk -F, 'NR > 1 { p += $7; m += $8; c += $9; s += $10 } END { print p, m, c, s }' "$tmp/e.local.csv")
read -r np2pdem np2pmsm ncolldem ncollmsm <<<"$sums"
colls=$((1 + iters / 4 + 2 + 1)) # + MPI_Finalize's barrier
[ "$np2pdem" = $((4 * iters)) ] || fail "NP2PDEM sums to $np2pdem, the program posted $((4 * iters))"
[ "$np2pmsm" = $((2 * iters)) ] || fail "NP2PMSM sums to $np2pmsm, the program sent $((2 * iters)) messages"
[ "$ncolldem" = $((ranks * colls)) ] || fail "NCOLLDEM sums to $ncolldem, wanted $((ranks * colls))"
[ "$ncollmsm" = "$colls" ] || fail "NCOLLMSM sums to $ncollmsm, the program ran $colls collectives"

id=$(sed -n 's/^grove run: job \([0-9a-f]*\): .* started in .*/\1/p' "$tmp/v.err" | head -1)
[ -n "$id" ] || fail "the launcher's event space was not kept"
"$grove" trace dump --net "$id" -F text >"$tmp/dump.txt" 2>&1 || { cat "$tmp/dump.txt"; fail "grove trace dump"; }
slices=$(grep -c $'\tbcs_slice\t' "$tmp/dump.txt" || true)
[ "$slices" = "$rows" ] || fail "$slices bcs_slice tuples in the event space, $rows rows in the CSV"
"$grove" trace clean --net "$id" >/dev/null 2>&1 || true
echo "emds: $rows slices; NP2PDEM $np2pdem, NCOLLMSM $ncollmsm as the program posted; the slices in the event space"
