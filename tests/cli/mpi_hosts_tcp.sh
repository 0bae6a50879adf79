#!/usr/bin/env bash
# Grove MPI across hosts, on the multi-host test bed (scripts/testbed.sh):
# grove run --hosts on the first of four namespace hosts starts ranks in
# blocks, those of the other hosts over ssh, and every rank talks TCP.
# Checked:
#   * placement: with -n 8, ranks 2k and 2k+1 report host k+1;
#   * traffic across hosts: a token around the ring, 1 MiB from every
#     rank to the next (rendezvous in chunks), allreduces: right results;
#   * every MPI test program (tests/mpi/progs) prints OK with its largest
#     rank count (8: two ranks a host) over the 4 hosts, and a ring with 5
#     ranks (uneven blocks) from a host file;
#   * a rank killed on another host ends the job: non-zero status, a
#     message naming that rank, and no process of the job left on any
#     host;
#   * in a Slurm allocation of the four hosts (SLURM_* set by hand),
#     grove run without -n or --hosts places its tasks on them;
#   * the four hosts are the four clusters of the hierarchical
#     collectives;
#   * the launcher killed with SIGKILL: the ranks of every host go;
#   * --stats with --hosts is refused, saying why.
# Exits 77 (a skip) with the reason where no test bed can be made.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/testbed_common.sh"
testbed_prefix t
h1=${prefix}1 h2=${prefix}2 h3=${prefix}3 h4=${prefix}4
hosts=("$h1" "$h2" "$h3" "$h4")
testbed_up 4
# The job's directory (connection file) must be seen by every host: the
# test bed's hosts share this machine's file system.
export TMPDIR=$tmp
list=$(IFS=,; echo "${hosts[*]}")

# Processes of the test programs in the test bed's namespaces.
left_in_testbed() {
	local p id n comm
	for p in /proc/[0-9]*; do
		id=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		case $comm in mpilaunch_*|mpitest_*) ;; *) continue ;; esac
		for n in "${ns_ids[@]}"; do
			[[ $id != "$n" ]] || echo "${p#/proc/} $comm"
		done
	done
}

# --- placement and traffic across hosts ---------------------------------
out=$tmp/ring.out
on "$h1" "$grove" run --timeout 120 --hosts "$list" -n 8 \
	"$build/mpilaunch_hosts_ring" >"$out" 2>"$tmp/ring.err" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring over 4 hosts"; }
for r in 0 1 2 3 4 5 6 7; do
	want=${hosts[r / 2]}
	grep -qx "rank $r of 8 on $want" "$out" ||
		{ cat "$out" >&2; fail "rank $r is not on $want"; }
done
# Ring: two laps of adding 1..7 = 56; allreduce of 0..7 = 28.
grep -qx "ring 56 big OK allreduce 28" "$out" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring results"; }

# Inside a Slurm allocation of the four hosts (its variables set by hand,
# as salloc would: no Slurm daemons span the test bed), grove run without
# -n or --hosts runs the allocation's tasks on its hosts.
on "$h1" env SLURM_JOB_ID=77 "SLURM_JOB_NODELIST=${prefix}[1-4]" \
	SLURM_NTASKS=8 "$grove" run --timeout 120 \
	"$build/mpilaunch_hosts_ring" >"$out" 2>"$tmp/ring.err" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring in an allocation of 4 hosts"; }
for r in 0 1 2 3 4 5 6 7; do
	want=${hosts[r / 2]}
	grep -qx "rank $r of 8 on $want" "$out" ||
		{ cat "$out" >&2; fail "in the allocation, rank $r is not on $want"; }
done
grep -qx "ring 56 big OK allreduce 28" "$out" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring results in the allocation"; }

# The hosts are the clusters of the hierarchical collectives (docs/mpi.md,
# Clusters): two ranks on each of the four hosts make four clusters.
on "$h1" "$grove" run --timeout 120 --hosts "$list" -n 8 \
	-x GROVE_MPI_VERBOSE=1 "$build/mpitest_coll_basic" \
	>"$tmp/clusters.out" 2>"$tmp/clusters.err" ||
	{ cat "$tmp/clusters.out" "$tmp/clusters.err" >&2; fail "coll_basic, verbose"; }
grep -q "grove-mpi: 4 clusters (by host); broadcasts between them: plogp" \
	"$tmp/clusters.err" ||
	{ cat "$tmp/clusters.err" >&2; fail "the four hosts are not four clusters"; }

# --- the MPI test programs across the hosts -------------------------------
# Every program of tests/mpi/progs, at the largest rank count its first
# line declares ("grove-mpi-test ranks=1,2,3,4,8": 8 ranks, two a host;
# "ranks=2,3": 3 ranks on the first three hosts).
nprogs=0
for c in "$src"/tests/mpi/progs/*.c; do
	p=$(basename "$c" .c)
	ranks=$(sed -n '1s/.*grove-mpi-test ranks=\([0-9,]*\).*/\1/p' "$c")
	[[ -n $ranks ]] || continue
	n=${ranks##*,}
	exe=$build/mpitest_$p
	[[ -x $exe ]] || fail "$exe not built"
	on "$h1" "$grove" run --timeout 120 --hosts "$list" -n "$n" "$exe" \
		>"$tmp/$p.out" 2>"$tmp/$p.err" ||
		{ cat "$tmp/$p.out" "$tmp/$p.err" >&2; fail "$p with $n ranks on 4 hosts"; }
	grep -qx "OK $p" "$tmp/$p.out" ||
		{ cat "$tmp/$p.out" "$tmp/$p.err" >&2; fail "$p did not say OK"; }
	nprogs=$((nprogs + 1))
done
((nprogs >= 16)) || fail "only $nprogs MPI test programs found in tests/mpi/progs"
# Uneven blocks from a host file: 5 ranks, 2 on the first host; -H FILE
# as in the other commands.
# (A host list's host:slots lines are taken; the slots are not used.)
printf '# hosts\n%s:4\n%s\n\n%s\n%s  # last\n' "${hosts[@]}" >"$tmp/hostfile"
on "$h1" "$grove" run --timeout 120 --hostfile "$tmp/hostfile" -n 5 \
	"$build/mpilaunch_hosts_ring" >"$out" 2>"$tmp/ring.err" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring with a host file"; }
for pair in "0 $h1" "1 $h1" "2 $h2" "3 $h3" "4 $h4"; do
	set -- $pair
	grep -qx "rank $1 of 5 on $2" "$out" ||
		{ cat "$out" >&2; fail "with a host file, rank $1 is not on $2"; }
done
grep -qx "ring 20 big OK allreduce 10" "$out" ||
	{ cat "$out" "$tmp/ring.err" >&2; fail "hosts_ring results, 5 ranks"; }
on "$h1" "$grove" run --timeout 120 -H "$tmp/hostfile" -n 5 \
	"$build/mpitest_coll_basic" >"$tmp/c5.out" 2>&1 ||
	{ cat "$tmp/c5.out" >&2; fail "coll_basic with 5 ranks on 4 hosts"; }
grep -qx "OK coll_basic" "$tmp/c5.out" || fail "coll_basic, 5 ranks"

# --- a rank dies on another host ------------------------------------------
status=0
on "$h1" "$grove" run --timeout 120 --hosts "$list" -n 8 \
	"$build/mpilaunch_hosts_ring" die 5 >"$tmp/die.out" 2>"$tmp/die.err" ||
	status=$?
((status != 0)) || { cat "$tmp/die.err" >&2; fail "a killed rank did not fail the job"; }
((status != 124)) || { cat "$tmp/die.err" >&2; fail "the job with a killed rank ran into --timeout"; }
grep -q "rank 5" "$tmp/die.err" ||
	{ cat "$tmp/die.err" >&2; fail "no message names rank 5"; }
# Give remote shells a moment to finish tearing down.
for _ in $(seq 50); do
	[[ -z $(left_in_testbed) ]] && break
	sleep 0.1
done
[[ -z $(left_in_testbed) ]] ||
	fail "processes left after the failed job: $(left_in_testbed)"

# --- the launcher killed: no rank left on any host ------------------------
on "$h1" "$grove" run --hosts "$list" -n 8 "$build/mpilaunch_probe" \
	"tthosts$$" sleep 0 60 >/dev/null 2>&1 &
runner=$!
for _ in $(seq 100); do
	(($(pgrep -fc "mpilaunch_probe tthosts$$" || true) >= 8)) && break
	sleep 0.1
done
(($(pgrep -fc "mpilaunch_probe tthosts$$" || true) >= 8)) ||
	fail "the 8 ranks of the job to kill did not start"
launcher=$(pgrep -of "grove run --hosts $list -n 8 $build/mpilaunch_probe tthosts$$") ||
	fail "no launcher found"
kill -KILL "$launcher"
wait "$runner" || true
for _ in $(seq 100); do
	[[ -z $(left_in_testbed) ]] && break
	sleep 0.1
done
[[ -z $(left_in_testbed) ]] ||
	fail "ranks left after the launcher was killed: $(left_in_testbed)"

# --- what is not supported says so --------------------------------------
status=0
"$grove" run --stats --hosts "$list" -n 2 /bin/true >/dev/null \
	2>"$tmp/stats.err" || status=$?
((status == 2)) || fail "--stats with --hosts: status $status, not 2"
grep -q "not supported with --hosts" "$tmp/stats.err" ||
	{ cat "$tmp/stats.err" >&2; fail "--stats with --hosts: no reason given"; }

[[ -z $(left_in_testbed) ]] || fail "processes left: $(left_in_testbed)"
echo "mpi_hosts_tcp OK"
