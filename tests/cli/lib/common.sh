# Shared by the CLI tests (sourced, not run): the build directory and the
# grove binary from the test's arguments, a scratch directory removed on
# exit, and three helpers.
#   fail MESSAGE            print FAIL: MESSAGE and exit 1
#   expect_status N ARGS    run `grove ARGS` (at most 120 s) with output in
#                           $tmp/out and $tmp/err; fail unless it exits N
#   api FILE                the grove_* names FILE exports, sorted
build=$1
grove="$build/grove"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

expect_status() {
	local want=$1 got=0
	shift
	timeout 120 "$grove" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
	if [ "$got" -ne "$want" ]; then
		cat "$tmp/out" "$tmp/err" >&2
		fail "grove $* exited $got, wanted $want"
	fi
}

# The grove_* names a library or program exports, sorted.
api() {
	nm -D --defined-only "$1" | awk '$NF ~ /^grove_/ { print $NF }' | sort
}
