#!/usr/bin/env bash
# BCS mode's determinism and deterministic replay (docs/bcs.md):
#  1. senders racing to an MPI_ANY_SOURCE receive right after a barrier,
#     with jitter well below the slice, match in the same order in every
#     run under --bcs (world-rank order: the schedule decides, not the
#     timing);
#  2. --record writes the schedule; --replay of it, with senders whose
#     timing now varies by several slices, prints exactly the recorded
#     run's lines: wildcard matches and the number of MPI_Test/MPI_Iprobe
#     calls that found nothing are forced;
#  3. a program that diverges from the record is stopped with a message
#     that says so.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$build" && pwd)
race="$build/mpilaunch_race"
run() { timeout 120 "$build/grove" run "$@"; }

# 1. Jitter of at most 0.5 ms against 10 ms slices: one order, every time.
for i in 1 2 3; do
	run --bcs --slice 10ms -n 4 "$race" 3 500 "$i" >"$tmp/det$i.out" 2>"$tmp/det$i.err" ||
		{ cat "$tmp/det$i.out" "$tmp/det$i.err"; fail "race run $i under --bcs failed"; }
	grep "order:" "$tmp/det$i.out" >"$tmp/order$i"
	[ "$(grep -c 'order: 1 2 3$' "$tmp/order$i")" = 3 ] ||
		{ cat "$tmp/det$i.out"; fail "run $i: wildcard matches not in rank order"; }
done

# 2. Record a run whose senders jitter by up to 3 slices, then replay it
# with other timing: the same lines.
run --bcs --slice 1ms --record "$tmp/rec" -n 4 "$race" 4 3000 11 >"$tmp/rec.out" 2>"$tmp/rec.err" ||
	{ cat "$tmp/rec.out" "$tmp/rec.err"; fail "recorded run failed"; }
head -1 "$tmp/rec" | grep -q '^# grove-bcs-record 1$' || { head "$tmp/rec"; fail "record has no header"; }
grep -q '^W ' "$tmp/rec" || { cat "$tmp/rec"; fail "record lists no wildcard match"; }
grep -q '^T ' "$tmp/rec" || { cat "$tmp/rec"; fail "record lists no successful test"; }
for seed in 12 13; do
	run --bcs --slice 1ms --replay "$tmp/rec" -n 4 "$race" 4 3000 "$seed" \
		>"$tmp/rep$seed.out" 2>"$tmp/rep$seed.err" ||
		{ cat "$tmp/rep$seed.out" "$tmp/rep$seed.err"; fail "replay (seed $seed) failed"; }
	diff "$tmp/rec.out" "$tmp/rep$seed.out" ||
		fail "replay (seed $seed) printed other lines than the recorded run"
done

# 3. Fewer senders than recorded (3 ranks where the record had 4): the
# replay stops and says why.
status=0
run --bcs --slice 1ms --replay "$tmp/rec" -n 3 "$race" 4 3000 14 \
	>"$tmp/div.out" 2>"$tmp/div.err" || status=$?
[ "$status" -ne 0 ] || { cat "$tmp/div.out" "$tmp/div.err"; fail "diverging replay succeeded"; }
grep -Eq "diverged|does not match|record" "$tmp/div.err" ||
	{ cat "$tmp/div.err"; fail "diverging replay does not say it diverged"; }

echo "bcs: wildcard order fixed by the schedule; record/replay reproduces a run; divergence is reported"
