#!/usr/bin/env bash
# grove run --stats / --stats-json: the counts of a program that makes a
# known number of MPI calls (tests/mpi/launch/stats_prog.c), a rank that
# dies before MPI_Finalize named in the report; grove run --keep-trace
# then grove trace dump shows each MPI_Send and MPI_Recv with its peer,
# tag and size, and grove trace clean removes the kept event spaces.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

prog="$build/mpilaunch_stats_prog"
[ -x "$prog" ] || fail "$prog is not built"
jobid=""
cleanup() {
	if [ -n "$jobid" ]; then
		"$grove" trace clean --net "$jobid" --force >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- statistics: exact counts, text and JSON ----------------------------
expect_status 0 run -n 2 --stats --stats-json "$tmp/stats.json" "$prog"
grep -q "^MPI call statistics (bcs-mpi.txt Table 5.3): 2 of 2 ranks with valid statistics; times in us" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "no statistics header on stderr"; }
# Columns: name min max total count average ranks bytes.
row() { awk -v n="$1" '$1 == n { print $5, $7, $8 }' "$tmp/err"; }
[ "$(row MPI_Send)" = "13 2 40963" ] ||
	{ cat "$tmp/err" >&2; fail "MPI_Send row: '$(row MPI_Send)', wanted count 13, 2 ranks, 40963 bytes"; }
[ "$(row MPI_Recv)" = "13 2 40963" ] ||
	{ cat "$tmp/err" >&2; fail "MPI_Recv row: '$(row MPI_Recv)', wanted count 13, 2 ranks, 40963 bytes"; }
# MPI_Sendrecv counts once per rank: its inner send and receive are not
# counted again (they would make 14 of each above).
[ "$(row MPI_Sendrecv)" = "2 2 8" ] ||
	{ cat "$tmp/err" >&2; fail "MPI_Sendrecv row: '$(row MPI_Sendrecv)'"; }
grep -q "^Comp Granularity " "$tmp/err" || fail "no Comp Granularity row"
grep -q "^Comm Overhead: [0-9.]*% of the run time in MPI calls (per rank " "$tmp/err" ||
	fail "no Comm Overhead share"
grep -q "^Check: computation .* (MPI_Init to MPI_Finalize, summed over 2 ranks): they agree$" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "the check does not agree"; }
grep -q "^Not counted" "$tmp/err" && fail "a rank was not counted"
python3 - "$tmp/stats.json" <<'PY' || fail "JSON statistics"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 2 and d["valid_ranks"] == 2 and d["not_counted"] == [], d
p = {x["name"]: x for x in d["primitives"]}
for name, count, nbytes in (("MPI_Send", 13, 40963), ("MPI_Recv", 13, 40963),
                            ("MPI_Sendrecv", 2, 8)):
    x = p[name]
    assert (x["count"], x["bytes"], x["ranks"]) == (count, nbytes, 2), x
    assert 0 < x["min_ns"] <= x["max_ns"] <= x["total_ns"], x
c = d["check"]
assert c["agree"] and c["comp_ns"] + c["comm_ns"] == c["run_ns"] > 0, c
assert d["comm_overhead"]["count"] == sum(x["count"] for x in d["primitives"])
assert [r["calls"] for r in d["per_rank"]] == [d["per_rank"][0]["calls"]] * 2
PY

# ---- a rank that dies before MPI_Finalize is named, not left out --------
got=0
timeout 120 "$grove" run -n 2 --stats "$prog" die >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" -ne 0 ] || fail "a rank that exited 3 left grove run's status 0"
grep -q "1 of 2 ranks with valid statistics" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "the report does not say 1 of 2 ranks"; }
grep -q "^Not counted: rank 1: it ended before MPI_Finalize ([0-9]* calls not in the table)$" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "rank 1 is not named as ended before MPI_Finalize"; }
[ "$(row MPI_Send)" = "10 1 40960" ] ||
	{ cat "$tmp/err" >&2; fail "MPI_Send row of rank 0 alone: '$(row MPI_Send)'"; }

# ---- --keep-trace: the calls in the event spaces ------------------------
expect_status 0 run -n 2 --verbose --keep-trace "$prog"
jobid=$(sed -n 's/^grove run: job \([A-Za-z0-9_-]*\): .*/\1/p' "$tmp/err" | head -1)
[ -n "$jobid" ] || { cat "$tmp/err" >&2; fail "no job id in grove run --verbose"; }
[ -e "/dev/shm/grove.$jobid.mpi.0" ] && [ -e "/dev/shm/grove.$jobid.mpi.1" ] ||
	fail "grove run --keep-trace left no event space grove.$jobid.mpi.0/1 in /dev/shm ($(ls /dev/shm | grep -c "grove.$jobid" || true) of the job)"
expect_status 0 trace dump --net "$jobid" --format text
dump="$tmp/out"
# count PROCESS OPFIELD WHERE: the tuples of a process with that op field.
count() {
	awk -F'\t' -v p="$1" -v o="$2" -v w="$3" \
		'$1 == p && $6 == o && $9 == w { n++ } END { print n + 0 }' "$dump"
}
[ "$(count "mpi 0" "MPI_Send peer 1 tag 7 4096 B" "rank:0->rank:1")" = 10 ] ||
	{ head -50 "$dump" >&2; fail "rank 0's 10 MPI_Send to 1 with tag 7 are not in the dump"; }
[ "$(count "mpi 1" "MPI_Recv peer 0 tag 7 4096 B" "rank:0->rank:1")" = 10 ] ||
	fail "rank 1's 10 MPI_Recv from 0 with tag 7 are not in the dump"
[ "$(count "mpi 1" "MPI_Send peer 0 tag 9 1 B" "rank:1->rank:0")" = 3 ] ||
	fail "rank 1's 3 MPI_Send to 0 with tag 9 are not in the dump"
[ "$(count "mpi 0" "MPI_Recv peer 1 tag 9 1 B" "rank:1->rank:0")" = 3 ] ||
	fail "rank 0's 3 MPI_Recv from 1 with tag 9 are not in the dump"
[ "$(count "mpi 0" "MPI_Sendrecv peer 1 tag 11 4 B" "rank:0->rank:1")" = 1 ] ||
	fail "rank 0's MPI_Sendrecv is not in the dump once"
# Each tagged call's tag instant follows it.
[ "$(count "mpi 0" "mpi_tag" "rank:0->rank:1")" = 11 ] ||
	fail "rank 0's tag instants to rank 1: $(count "mpi 0" "mpi_tag" "rank:0->rank:1"), wanted 11"
expect_status 0 trace stats --net "$jobid"
grep -q "^MPI_Send  *mpi " "$tmp/out" || fail "grove trace stats has no MPI_Send row"
expect_status 0 trace clean --net "$jobid"
ls /dev/shm | grep -q "^grove\.$jobid\." && fail "grove trace clean left event spaces of $jobid"
jobid=""
echo "ok"
