#!/bin/sh
# A stand-in for ssh in tests: "fake_rsh.sh HOST COMMAND..." runs COMMAND
# here, with stdin passed through as ssh would, and logs the host it was
# asked for so the test can check that the remote path was taken.
host=$1
shift
if [ -n "$GROVE_FAKE_RSH_LOG" ]; then
	echo "$host" >>"$GROVE_FAKE_RSH_LOG"
fi
exec "$@"
