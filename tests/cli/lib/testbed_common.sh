# Shared by the tests on the multi-host test bed (tests/cli/hosts_*.sh,
# tests/cli/mpi_hosts_tcp.sh; sourced after common.sh, not run):
# scripts/testbed.sh's hosts brought up for the test and taken down on
# every exit, whatever happened.
#   src, testbed            the source directory ($2), scripts/testbed.sh
#   testbed_prefix TAG      sets $prefix: GROVE_TESTBED_PREFIX when set (one
#                           test at a time then: each takes the test bed
#                           down first), else "g", five digits of this
#                           build directory's own and TAG, so that the next
#                           run here removes what a killed run left and
#                           other builds' runs do not meet it
#   testbed_up N [OPTS]     removes what a killed run left, then `up N
#                           OPTS`; where testbed.sh cannot run (it exits
#                           77: not root, no network namespaces, packages
#                           not installable) the test is skipped (77).
#                           The hosts are ${prefix}1..N.  Sets ns_ids
#                           (their network namespaces' inodes), cfg (the
#                           ssh client config) and the EXIT trap
#                           (testbed_cleanup)
#   testbed_after_down      a test's own clean-up, run by testbed_cleanup
#                           after down when the test defines it
#   on HOST CMD...          runs CMD in HOST
#   testbed_down_checked    down, then fails if any process is left in
#                           the test bed's namespaces
# Absolute: commands run in the hosts' shells and from other directories.
build=$(cd "$build" && pwd)
grove=$build/grove
src=$(cd "$2" && pwd)
testbed=$src/scripts/testbed.sh
prefix=
ns_ids=()
cfg=

testbed_prefix() {
	prefix=${GROVE_TESTBED_PREFIX:-g$(printf %s "$build" | cksum | cut -c1-5)$1}
}

# A failed down fails the test, even one that had passed.
testbed_cleanup() {
	local rc=$?
	# down ends every process in the hosts.
	"$testbed" down --prefix "$prefix" >/dev/null || rc=1
	if declare -F testbed_after_down >/dev/null; then
		testbed_after_down || true
	fi
	rm -rf "$tmp"
	exit $rc
}

# testbed.sh exits 77 where it cannot run: the test is then skipped.
testbed_skip_on_77() { # STATUS OUTFILE
	if (($1 == 77)); then
		cat "$2" >&2
		echo "SKIP: no multi-host test bed here" >&2
		exit 77
	fi
}

testbed_up() { # N [OPTIONS of testbed.sh up]
	local n=$1 status=0 k
	[[ -n $prefix ]] || fail "testbed_up before testbed_prefix"
	"$testbed" down --prefix "$prefix" >"$tmp/down.out" 2>&1 || status=$?
	testbed_skip_on_77 $status "$tmp/down.out"
	((status == 0)) || { cat "$tmp/down.out" >&2; fail "testbed.sh down (before)"; }
	# From here on the test bed may exist: it goes on every exit.
	trap testbed_cleanup EXIT
	"$testbed" up "$@" --prefix "$prefix" >"$tmp/up.out" 2>&1 || status=$?
	testbed_skip_on_77 $status "$tmp/up.out"
	((status == 0)) || { cat "$tmp/up.out" >&2; fail "testbed.sh up $*"; }
	ns_ids=()
	for ((k = 1; k <= n; k++)); do
		ns_ids+=("$(stat -L -c %i "/run/netns/$prefix$k")")
	done
	cfg=$("$testbed" ssh-config --prefix "$prefix")
}

on() { # HOST CMD...
	"$testbed" exec --prefix "$prefix" "$@"
}

testbed_down_checked() {
	local p id n
	"$testbed" down --prefix "$prefix" || fail "testbed.sh down"
	for p in /proc/[0-9]*; do
		id=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
		for n in "${ns_ids[@]}"; do
			[[ $id != "$n" ]] ||
				fail "process ${p#/proc/} ($(cat "$p/comm" 2>/dev/null)) left in a test bed namespace"
		done
	done
}
