#!/usr/bin/env bash
# grove run --transport tcp on one host (docs/mpi.md, "Transports"):
#   * --verbose has rank 0 say it runs over TCP, with keyed handshakes;
#   * traffic: a ring, 1 MiB rendezvous and allreduces are right;
#   * a rank killed while its neighbours wait for it: the job fails, and
#     the ranks that notice name the killed rank;
#   * usage: a bad --transport, --transport shm with --hosts, --bcs with
#     tcp, --stats with --hosts are refused with status 2 and a reason;
#     GROVE_MPI_TRANSPORT with a bad value stops MPI_Init with a message.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
build=$(cd "$1" && pwd)
grove=$build/grove
ring=$build/mpilaunch_hosts_ring
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$grove" run --transport tcp --verbose -n 4 "$ring" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; fail "hosts_ring over tcp"; }
grep -qx "ring 12 big OK allreduce 6" "$tmp/out" ||
	{ cat "$tmp/out" >&2; fail "hosts_ring results over tcp"; }
grep -q "^grove-mpi: 4 ranks over TCP (rank 0 at 127.0.0.1:[0-9]*, handshakes keyed" \
	"$tmp/err" || { cat "$tmp/err" >&2; fail "--verbose does not say TCP"; }

status=0
"$grove" run --timeout 60 --transport tcp -n 6 "$ring" die 3 >"$tmp/out" \
	2>"$tmp/err" || status=$?
((status != 0 && status != 124)) ||
	{ cat "$tmp/err" >&2; fail "a killed rank: status $status"; }
grep -q "^grove run: rank 3 (pid [0-9]*) killed by signal 9" "$tmp/err" ||
	grep -q "^grove-mpi: rank [0-9]*: .*rank 3" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "no line names rank 3"; }
# Whoever speaks first (the launcher reaping rank 3, or a neighbour that
# saw its connection close) names rank 3; no line blames another rank
# for a lost connection.
if grep "^grove-mpi: rank [0-9]*: \(TCP connection to rank\|rank [0-9]* ends the job\)" \
	"$tmp/err" | grep -v "TCP connection to rank 3 \|it lost rank 3;" | grep -q .; then
	# Possible only when the launcher's SIGTERM reached a rank after its
	# neighbour had already gone: said, not failed.
	echo "note: a rank named a neighbour the launcher had ended" >&2
fi

usage() { # WHAT GREP ARGS...
	local what=$1 want=$2 st=0
	shift 2
	"$grove" run "$@" >/dev/null 2>"$tmp/uerr" || st=$?
	((st == 2)) || fail "$what: status $st, not 2"
	grep -q -- "$want" "$tmp/uerr" || { cat "$tmp/uerr" >&2; fail "$what: no reason"; }
}
usage "bad transport" "--transport wants shm or tcp" --transport udp -n 2 /bin/true
usage "shm with --hosts" "--hosts runs over TCP" --transport shm --hosts a,b -n 2 /bin/true
usage "bcs with tcp" "--bcs runs on shared memory only" --bcs --transport tcp -n 2 /bin/true
usage "stats with --hosts" "--stats is not supported with --hosts" --stats --hosts a,b -n 2 /bin/true
usage "keep-trace with --hosts" "--keep-trace is not supported with --hosts" --keep-trace --hosts a -n 1 /bin/true

status=0
GROVE_MPI_TRANSPORT=udp "$grove" run -x GROVE_MPI_TRANSPORT=udp -n 2 "$ring" \
	>/dev/null 2>"$tmp/err" || status=$?
((status != 0)) || fail "GROVE_MPI_TRANSPORT=udp was accepted"
grep -q "GROVE_MPI_TRANSPORT=udp: the transports are tcp and shm" "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "GROVE_MPI_TRANSPORT=udp: no message"; }
echo "mpi_tcp OK"
