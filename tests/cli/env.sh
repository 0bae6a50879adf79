#!/usr/bin/env bash
# A GROVE_* variable with a value Grove does not understand is not
# silently taken for its default: a line on stderr names the variable and
# the value, and the run goes on with the default.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# Runs grove demo with one variable set; checks it still works and that
# stderr has the given text.
bad_value() {
	local text=$1
	shift
	env "$@" timeout 120 "$grove" demo --backends 2 >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err" >&2; fail "demo with $*"; }
	grep -q "all .* results OK" "$tmp/out" || fail "demo with $*: results"
	grep -qF -- "$text" "$tmp/err" ||
		{ tail -5 "$tmp/err" >&2; fail "no message: $text"; }
}

bad_value "GROVE_LOG='tracing' is not a level" GROVE_LOG=tracing
bad_value "GROVE_LOG='3x' is not a level" GROVE_LOG=3x
bad_value "GROVE_TRACE='disable' is none of: 0, off" GROVE_TRACE=disable
bad_value "GROVE_CPU_BIND='subtre' is none of: none, subtree" \
	GROVE_CPU_BIND=subtre
bad_value "GROVE_CP_SCHED='Batched' is none of" GROVE_CP_SCHED=Batched
bad_value "GROVE_LOCAL_LINK='sockets' is none of" GROVE_LOCAL_LINK=sockets
bad_value "GROVE_TRACE_CLOCK='MONOTONIC' is none of" \
	GROVE_TRACE_CLOCK=MONOTONIC
bad_value "GROVE_HANDSHAKE_TIMEOUT_MS='500ms' is not a number" \
	GROVE_HANDSHAKE_TIMEOUT_MS=500ms
long=$(printf 'x%.0s' $(seq 1 5000))
bad_value "GROVE_LOG_FILE is too long" GROVE_LOG=trace GROVE_LOG_FILE="$tmp/$long"
bad_value "GROVE_LOG_FILE: cannot open $tmp/no/such/dir" GROVE_LOG=trace \
	GROVE_LOG_FILE="$tmp/no/such/dir"

# Accepted spellings say nothing.
env GROVE_TRACE=OFF GROVE_CPU_BIND=none GROVE_LOG=off timeout 120 \
	"$grove" demo --backends 2 >"$tmp/out" 2>"$tmp/err" ||
	fail "demo with accepted values"
if grep -q "^grove: GROVE_" "$tmp/err"; then
	cat "$tmp/err" >&2
	fail "a message for an accepted value"
fi
echo "bad GROVE_* values are named on stderr; accepted ones are quiet"
