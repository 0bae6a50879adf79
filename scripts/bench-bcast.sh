#!/usr/bin/env bash
# The full broadcast sweep of docs/bcast.md (the P-LogP paper's Figures 4
# and 5): 4 clusters x 1 and x 16 processes, 8 clusters x 1 and x 8, sizes
# 1 KB .. 4 MB, all three schemes, WAN emulated at 10 ms and 1 MB/s.  One
# JSON object per line on standard output.  Takes about ten minutes: the
# original scheme sends 4 MB to 7 clusters one after another at 1 MB/s.
#
#   scripts/bench-bcast.sh [BUILD_DIR] [extra grove bench bcast options]
#
# Links inside a cluster are Unix sockets (GROVE_LOCAL_LINK=socket unless
# set otherwise): the sweep moves messages of up to 4 MB, which a socket
# carries 2-4 times faster than a pipe; measure the parameter file the
# same way (grove logp measure reads the variable too).
set -euo pipefail
export GROVE_LOCAL_LINK=${GROVE_LOCAL_LINK:-socket}
build=${1:-build}
shift || true
sizes=${BCAST_SIZES:-1K,4K,16K,64K,256K,1M,4M}
for cfg in "4 1" "4 16" "8 1" "8 8"; do
	set -- $cfg "$@"
	c=$1 p=$2
	shift 2
	"$build/grove" bench bcast --clusters "$c" --per-cluster "$p" \
	    --sizes "$sizes" --scheme all --json "$@"
done
