#!/usr/bin/env bash
# A grove-commnode beside grove that cannot be run is named in the error
# when none is found on PATH either, with the reason of each place tried
# (as be_worker's lookup does), not only "cannot start 'grove-commnode':
# No such file or directory" for the bare name PATH was searched for.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
unset GROVE_WORKER GROVE_COMMNODE
search=/usr/bin:/bin
for d in /usr/local/bin /usr/bin /bin; do
	if [ -x "$d/grove-commnode" ]; then
		echo "skipped: $d/grove-commnode is installed" >&2
		exit 0
	fi
done
# A copy of the programs outside the build tree: grove finds its own
# grove-commnode beside itself.
nx=$tmp/nx
mkdir "$nx"
cp "$build/grove" "$build/grove-commnode" "$build/be_worker" "$nx/"
grove=$nx/grove
PATH=$search expect_status 0 demo --topology kary:2 --backends 4
grep -q "all 11 results OK" "$tmp/out" || fail "the copy: $(cat "$tmp/out")"
chmod 644 "$nx/grove-commnode"
PATH=$search expect_status 1 demo --topology kary:2 --backends 4
grep -q "cannot start 'grove-commnode'.*$nx/grove-commnode: Permission denied.*GROVE_COMMNODE" \
    "$tmp/err" || {
	cat "$tmp/out" "$tmp/err" >&2
	fail "a grove-commnode that cannot be run is not named"
}
