#!/bin/sh
# A stand-in for ssh in tests: "fake_rsh.sh [OPTIONS] HOST COMMAND..." runs
# COMMAND here the way ssh runs it on HOST: the words after the host are
# joined with spaces and the string is given to a shell, so quoting
# mistakes show here as they would over ssh.  stdin is passed through.
# Leading options are accepted as ssh takes them (-o OPTION, -p PORT, ...;
# -x, -T, ... without a value) and ignored.  With GROVE_FAKE_RSH_LOG set,
# appends "HOST" (or "HOST options: OPTIONS") to that file, so the test can
# check that the remote path was taken and with which options.
opts=
while [ $# -gt 0 ]; do
	case $1 in
	--)
		shift
		break
		;;
	-[BbcDEeFIiJLlmOopQRSWw])
		[ $# -ge 2 ] || { echo "fake_rsh.sh: $1 needs a value" >&2; exit 255; }
		opts="$opts $1 $2"
		shift 2
		;;
	-*)
		opts="$opts $1"
		shift
		;;
	*)
		break
		;;
	esac
done
[ $# -ge 2 ] || { echo "fake_rsh.sh: usage: [OPTIONS] HOST COMMAND" >&2; exit 255; }
host=$1
shift
if [ -n "$GROVE_FAKE_RSH_LOG" ]; then
	if [ -n "$opts" ]; then
		echo "$host options:$opts" >>"$GROVE_FAKE_RSH_LOG"
	else
		echo "$host" >>"$GROVE_FAKE_RSH_LOG"
	fi
fi
IFS=' '
exec sh -c "$*"
