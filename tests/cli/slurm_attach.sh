#!/usr/bin/env bash
# Grove back-ends started by Slurm attach to a Grove front-end started
# outside it (as MRNet tools attach to a job's daemons): `grove demo
# --attach FILE` runs on its own, `srun -n 4 be_worker --attach FILE`
# starts the back-ends (each takes its rank from SLURM_PROCID), and the
# demo's waves go through with every back-end.
# Skips (77) only when Slurm cannot be installed or run here.
# Arguments: $1 build directory, $2 source directory.
set -Eeuo pipefail
# A command that ends the test through set -e says which.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/slurm_common.sh"
fe=""
# The front-end, if it still runs.
slurm_after_down() {
	[ -z "$fe" ] || kill "$fe" 2>/dev/null || true
}
slurm_up

conn=$tmp/conn
# The front-end: not a Slurm job.
timeout 120 "$build/grove" demo --topology kary:2 --backends 4 --attach "$conn" \
	>"$tmp/fe.out" 2>&1 &
fe=$!
for _ in $(seq 600); do
	[ -f "$conn" ] || ! kill -0 "$fe" 2>/dev/null && break
	sleep 0.1
done
[ -f "$conn" ] || { cat "$tmp/fe.out" >&2; fail "demo --attach wrote no connection file"; }

st=0
timeout 120 srun -n 4 "$build/be_worker" --attach "$conn" >"$tmp/be.out" 2>&1 || st=$?
fest=0
wait "$fe" || fest=$?
fe=""
[ "$st" -eq 0 ] || { cat "$tmp/be.out" "$tmp/fe.out" >&2; fail "srun of the back-ends exited $st"; }
[ "$fest" -eq 0 ] || { cat "$tmp/fe.out" "$tmp/be.out" >&2; fail "grove demo --attach exited $fest"; }
grep -q "all 11 results OK" "$tmp/fe.out" &&
	grep -q "(attach mode, all 4 back-ends attached)" "$tmp/fe.out" &&
	grep -qxF "back-ends by host (from their info replies): $(hostname) ranks 0-3" "$tmp/fe.out" ||
	{ cat "$tmp/fe.out" >&2; fail "the demo's results with back-ends from srun"; }
[ ! -e "$conn" ] || fail "demo --attach left its connection file"
echo "ok: 4 back-ends started by srun attached; every wave right"

# A back-end with neither --rank nor a launcher's rank is told how.
st=0
env -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK "$build/be_worker" --attach "$conn" \
	>"$tmp/out" 2>&1 || st=$?
[ "$st" -eq 2 ] && grep -q 'no --rank: SLURM_PROCID or OMPI_COMM_WORLD_RANK' "$tmp/out" ||
	{ cat "$tmp/out" >&2; fail "be_worker --attach without a rank: exit $st"; }
echo "ok: be_worker --attach without a rank is a usage error"
