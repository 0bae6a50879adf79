#!/usr/bin/env bash
# `salloc -n 4 grove run ./prog` on the test's own single-node Slurm
# (scripts/slurm-local.sh): grove run takes its rank count from the
# allocation, the programs of tests/mpi/progs pass, and -n still wins.
# (The rules with made-up allocations: tests/cli/run_slurm_env.sh.)
# Skips (77) only when Slurm cannot be installed or run here.
# Arguments: $1 build directory, $2 source directory.
set -Eeuo pipefail
# A command that ends the test through set -e says which.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/launcher_common.sh"
. "$(dirname "$0")/lib/slurm_common.sh"
probe="$build/mpilaunch_probe"
slurm_up

timeout 60 salloc -n 4 "$grove" run "$probe" salloctest hello >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "salloc -n 4 grove run"; }
[ "$(grep '^hello' "$tmp/out" | sort | tr '\n' ,)" = "hello 0 of 4,hello 1 of 4,hello 2 of 4,hello 3 of 4," ] ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "salloc -n 4 grove run: wrong ranks"; }
echo "ok: salloc -n 4 grove run starts 4 ranks"

timeout 60 salloc -n 4 "$grove" run -n 2 "$probe" salloctest hello >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "salloc -n 4 grove run -n 2"; }
[ "$(grep '^hello' "$tmp/out" | sort | tr '\n' ,)" = "hello 0 of 2,hello 1 of 2," ] ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "salloc -n 4 grove run -n 2: wrong ranks"; }
echo "ok: -n wins over the allocation"

LAUNCHER_PROGS="p2p_basic coll_basic ops" run_progs 4 salloc -n 4 "$grove" run
