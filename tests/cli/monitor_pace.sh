#!/usr/bin/env bash
# The pace of grove monitor's pulls (src/scope/pace.c, tools/monitor/
# pull.c; docs/monitoring.md "Lost tuples and the pace of pulls").
# compute_gsum runs on 2 ranks with rings of 2048 tuples, writing some
# 1200 tuples a second per rank here (about 2 per 2-ms iteration), so a
# ring fills in under two seconds.  Two monitors watch it at once, with views
# 4 s apart:
#   - the default (--pull auto) must read more often than it shows views,
#     its period must come below the interval, and it must lose nothing:
#     it reads a ring about a quarter full, so only a monitor kept off
#     the CPU for more than a second would lose tuples;
#   - --pull 4 (a read per view) must lose tuples, counted, since a ring
#     holds far less than 4 s of the job, and must read once per view.
# Both must see the same collectives complete.  Also: --pull's errors.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

cgsum="$build/bench-monitor/compute_gsum"
[ -x "$cgsum" ] || fail "$cgsum is not built"
ma="" mf=""
cleanup() {
	[ -z "$ma" ] || kill -9 "$ma" 2>/dev/null || true
	[ -z "$mf" ] || kill -9 "$mf" 2>/dev/null || true
	mpi_run_cleanup
}
trap cleanup EXIT

for bad in 0 -1 x 4000 autox; do
	st=0
	"$grove" monitor load-balance --job 0123456789abcdef --pull "$bad" \
		>/dev/null 2>"$tmp/err" || st=$?
	[ "$st" -eq 2 ] || fail "--pull $bad: exit $st, want 2"
	grep -q -- "--pull wants auto or seconds" "$tmp/err" ||
		fail "--pull $bad: $(cat "$tmp/err")"
done

GROVE_TRACE_SIZE=2048 "$grove" run --verbose -n 2 "$cgsum" -n 3000 -c 2000 \
	>"$tmp/job.out" 2>"$tmp/job.err" &
gp=$!
for i in $(seq 1 600); do
	ls /dev/shm/grove.*.mpi.1 >/dev/null 2>&1 &&
		grep -q '^grove run: job ' "$tmp/job.err" && break
	kill -0 "$gp" 2>/dev/null || break
	sleep 0.05
done
jobid=$(sed -n 's/^grove run: job \([0-9a-f]*\): .*/\1/p' "$tmp/job.err" | head -1)
[ -n "$jobid" ] || { cat "$tmp/job.err" >&2; fail "no job id"; }
"$grove" monitor load-balance --job "$jobid" --json --interval 4 \
	>"$tmp/auto.out" 2>"$tmp/auto.err" &
ma=$!
"$grove" monitor load-balance --job "$jobid" --json --interval 4 --pull 4 \
	>"$tmp/fixed.out" 2>"$tmp/fixed.err" &
mf=$!
st=0
wait "$gp" || st=$?
[ "$st" -eq 0 ] || { cat "$tmp/job.out" "$tmp/job.err" >&2; fail "grove run exited $st"; }
grep -Eq '^compute-gsum ranks=2 iters=3000 .* sums=ok$' "$tmp/job.out" ||
	fail "compute_gsum: $(cat "$tmp/job.out")"
for m in auto fixed; do
	p=$ma
	[ "$m" = auto ] || p=$mf
	timeout 60 tail --pid="$p" -f /dev/null || fail "the $m monitor stayed after the job"
	ms=0
	wait "$p" || ms=$?
	[ "$ms" -eq 0 ] || fail "the $m monitor exited $ms: $(cat "$tmp/$m.err")"
	[ ! -s "$tmp/$m.err" ] || fail "the $m monitor said: $(cat "$tmp/$m.err")"
done
ma="" mf=""

python3 - "$tmp/auto.out" "$tmp/fixed.out" <<'PY' || fail "the two monitors' views"
import json, sys
auto = [json.loads(l) for l in open(sys.argv[1])]
fixed = [json.loads(l) for l in open(sys.argv[2])]
assert len(auto) >= 2 and len(fixed) >= 2, (len(auto), len(fixed))
a, f = auto[-1], fixed[-1]
# Adaptive: more pulls than views, a period below the interval at some
# view while the job ran, nothing lost while attached.
assert a["pulls"] > len(auto), (a["pulls"], len(auto))
assert min(v["pull_period_s"] for v in auto) < 4, [v["pull_period_s"] for v in auto]
assert a["lost"] == 0, a
# Fixed at the interval: one pull per view (and one more for the job's
# last tuples when it ended after the last view's pull), whole rings lost
# and counted.
assert len(fixed) <= f["pulls"] <= len(fixed) + 1, (f["pulls"], len(fixed))
assert all(v["pull_period_s"] == 4 for v in fixed), fixed
assert f["lost"] > 0, f
assert f["tuples"] < a["tuples"], (f["tuples"], a["tuples"])
# What the default read, it lost nothing of: every instance of the job's
# 3000 allreduces (on 2 duplicated communicators) completes, but those
# whose tuples were overwritten before it attached (a slow start): each
# such tuple takes at most one, and may leave one incomplete.
lb = a["lost_before_attach"]
assert a["instances"]["incomplete"] <= (1 if lb else 0), a
assert a["instances"]["complete"] >= 3000 - lb, a
assert a["waves"] >= 3000 - lb, a
PY
check_clean "$jobid"
