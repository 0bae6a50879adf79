#!/usr/bin/env bash
# grove run (mpiexec): ranks start with the right environment, working
# directory and standard input; their output comes out line by line,
# never cut by another rank's, tagged on request; usage errors, programs
# that cannot run, programs that do not use MPI; nothing is left behind.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/mpi_run_common.sh"

# ---- hello, -np, the mpiexec and mpirun names --------------------------
launch -n 4 "$probe" "$tag" hello
expect 0 "grove run -n 4 hello"
[ "$(sort "$tmp/out")" = "$(printf 'hello %d of 4\n' 0 1 2 3)" ] ||
	{ cat "$tmp/out" >&2; fail "hello output"; }
[ -n "$jobid" ] || fail "no job id in --verbose's output"
[ -z "$(launcher_msgs)" ] || fail "messages from a good job: $(launcher_msgs)"
check_clean
for w in mpiexec mpirun; do
	got=0
	timeout 60 "$build/$w" -np 2 "$probe" "$tag" hello >"$tmp/out" 2>"$tmp/err" || got=$?
	[ "$got" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 2 ] ||
		{ cat "$tmp/out" "$tmp/err" >&2; fail "$w -np 2 exited $got"; }
done
check_clean ""

# ---- Open MPI's options are accepted -----------------------------------
launch --oversubscribe --allow-run-as-root --bind-to core --map-by slot \
    -n 2 "$probe" "$tag" hello
expect 0 "Open MPI's options"
check_clean

# ---- --tag-output: Open MPI's prefix, with the right rank --------------
launch -n 3 --tag-output "$probe" "$tag" hello
expect 0 "--tag-output"
for r in 0 1 2; do
	grep -qx "\[1,$r\]<stdout>:hello $r of 3" "$tmp/out" ||
		{ cat "$tmp/out" >&2; fail "no tagged line of rank $r"; }
done
[ "$(wc -l <"$tmp/out")" -eq 3 ] || fail "--tag-output: extra lines"

# ---- environment: passed, -x, --env; the launcher's own GROVE_MPI_* ----
export GROVE_RUN_TEST_VAR="from the shell"
launch -n 2 "$probe" "$tag" env GROVE_RUN_TEST_VAR
expect 0 "env"
[ "$(sort "$tmp/out")" = "$(printf '%d GROVE_RUN_TEST_VAR=from the shell\n' 0 1)" ] ||
	{ cat "$tmp/out" >&2; fail "environment not passed"; }
launch -n 2 -x GROVE_RUN_TEST_VAR=x1 "$probe" "$tag" env GROVE_RUN_TEST_VAR
[ "$(sort "$tmp/out")" = "$(printf '%d GROVE_RUN_TEST_VAR=x1\n' 0 1)" ] ||
	{ cat "$tmp/out" >&2; fail "-x VAR=VAL"; }
launch -n 1 --env GROVE_RUN_OTHER=a=b "$probe" "$tag" env GROVE_RUN_OTHER
[ "$(cat "$tmp/out")" = "0 GROVE_RUN_OTHER=a=b" ] ||
	{ cat "$tmp/out" >&2; fail "--env VAR=VAL"; }
launch -n 1 -x GROVE_RUN_TEST_VAR "$probe" "$tag" env GROVE_RUN_TEST_VAR
[ "$(cat "$tmp/out")" = "0 GROVE_RUN_TEST_VAR=from the shell" ] ||
	{ cat "$tmp/out" >&2; fail "-x VAR"; }
# An enclosing job's variables never reach this job's ranks.
GROVE_MPI_JOBID=stale launch -n 1 "$probe" "$tag" env GROVE_MPI_JOBID
[ "$(cat "$tmp/out")" = "0 GROVE_MPI_JOBID=$jobid" ] ||
	{ cat "$tmp/out" >&2; fail "GROVE_MPI_JOBID is not the job's"; }
launch -n 1 "$probe" "$tag" env GROVE_MPI_VERBOSE
[ "$(cat "$tmp/out")" = "0 GROVE_MPI_VERBOSE=1" ] || fail "--verbose is not passed on"
launch -n 1 --keep-trace "$probe" "$tag" env GROVE_MPI_TRACE_KEEP
[ "$(cat "$tmp/out")" = "0 GROVE_MPI_TRACE_KEEP=1" ] || fail "--keep-trace is not passed on"
ls /dev/shm/grove."$jobid".mpi.0 >/dev/null || fail "--keep-trace: no event space of rank 0"
"$grove" trace clean --net "$jobid" --force >/dev/null 2>&1 || true
check_clean
unset GROVE_RUN_TEST_VAR

# ---- working directory --------------------------------------------------
mkdir -p "$tmp/wd"
(cd "$tmp/wd" && launch -n 2 "$probe" "$tag" cwd &&
	[ "$(sort "$tmp/out")" = "$(printf '%d %s\n' 0 "$PWD" 1 "$PWD")" ]) ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "working directory not kept"; }

# ---- standard input: rank 0 reads it, the others /dev/null --------------
st=0
printf 'first\nsecond\n' | timeout 60 "$grove" run -n 3 "$probe" "$tag" stdin \
    >"$tmp/out" 2>"$tmp/err" || st=$?
expect 0 "stdin"
[ "$(sort "$tmp/out")" = "$(printf '0 stdin: first\n0 stdin: second\n1 stdin: eof\n2 stdin: eof')" ] ||
	{ cat "$tmp/out" >&2; fail "standard input"; }

# ---- lines are never cut by another rank's output -----------------------
# Every rank writes each line in three pieces with pauses between.
launch -n 8 "$probe" "$tag" lines 40
expect 0 "lines"
for f in out err; do
	n=$(grep -v '^grove' "$tmp/$f" | grep -cE '^rank [0-7] line [0-9]+ [a-h]{199} end$' || true)
	bad=$(grep -v '^grove' "$tmp/$f" | grep -vcE '^rank [0-7] line [0-9]+ [a-h]{199} end$' || true)
	[ "$n" -eq 320 ] && [ "$bad" -eq 0 ] ||
		{ head -20 "$tmp/$f" >&2; fail "std$f: $n whole lines of 320, $bad cut"; }
done
# Each line carries its rank's letter only.
grep -v '^grove' "$tmp/out" | awk '{ r = $2; c = substr($5, 1, 1);
	if (index("abcdefgh", c) != r + 1 || $5 !~ "^" c "+$") exit 1 }' ||
	fail "a line mixes two ranks' bytes"

# ---- a last line without a newline comes out at the end -----------------
launch -n 2 "$probe" "$tag" partial
expect 0 "partial"
[ "$(cat "$tmp/out")" = "partial 0" ] && [ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" = "0" ] ||
	{ od -c "$tmp/out" | head >&2; fail "partial last line"; }
check_clean

# ---- usage errors: one line, status 2; --help -----------------------------
for args in "--bogus -n 2 $probe" "-n 2" "$probe" "-n 0 $probe" "-n x $probe" \
    "-n 2 --timeout -1 $probe" "-n 2 --env NOEQUALS $probe" "-n 2 --stats-json"; do
	launch $args
	expect 2 "grove run $args"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^grove run: .*; try 'grove run --help'$" "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "grove run $args: not one usage line"; }
done
st=0
"$grove" run --help >"$tmp/out" 2>"$tmp/err" || st=$?
expect 0 "--help"
grep -q '^usage: grove run -n N' "$tmp/out" || fail "--help: no usage"
grep -q -- '--tag-output' "$tmp/out" && grep -q -- '--oversubscribe' "$tmp/out" ||
	fail "--help does not list the options"

# ---- programs that cannot run: 127 / 126 ---------------------------------
launch -n 2 grove-no-such-program-"$tag"
expect 127 "a program not found"
grep -q "command not found" "$tmp/err" || fail "not found: no message"
printf '#!/bin/sh\necho x\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
launch -n 2 "$tmp/noexec"
expect 126 "a program not executable"
grep -q "Permission denied" "$tmp/err" || fail "not executable: no message"
launch -n 2 "$tmp/no/such/file"
expect 127 "a path that does not exist"

# ---- programs that do not use MPI ----------------------------------------
launch -n 3 /bin/true "$tag"
expect 0 "true"
launch -n 3 /bin/sh -c "echo \$GROVE_MPI_RANK $tag"
expect 0 "sh -c"
[ "$(sort "$tmp/out" | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 2 " ] ||
	{ cat "$tmp/out" >&2; fail "ranks of a shell"; }
launch -n 3 /bin/sh -c "exit \$((GROVE_MPI_RANK == 1 ? 3 : 0)) # $tag"
expect 3 "a rank of a shell exits 3"
[ "$(launcher_msgs | wc -l)" -eq 1 ] && launcher_msgs | grep -q "^grove run: rank 1 (pid [0-9]*) exited with status 3; ending the job$" ||
	{ cat "$tmp/err" >&2; fail "the exit of rank 1 not said once"; }
check_clean

# ---- 64 ranks ------------------------------------------------------------
launch -n 64 "$probe" "$tag" hello
expect 0 "64 ranks"
[ "$(wc -l <"$tmp/out")" -eq 64 ] || fail "64 ranks: $(wc -l <"$tmp/out") lines"
check_clean
echo "ok (64 ranks: ${secs}s)"
