#!/usr/bin/env bash
# tests/integration/README.md lists every integration test, and only
# those: each tests/integration/it_*.c has a row of its own (`it_name` in
# the first cell), and no row names a test that does not exist.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

dir=$2/tests/integration
ls "$dir"/it_*.c | sed 's|.*/||; s|\.c$||' | sort >"$tmp/tests"
sed -n 's/^| `\(it_[a-z0-9_]*\)` |.*/\1/p' "$dir/README.md" | sort >"$tmp/listed"
dup=$(uniq -d "$tmp/listed")
[ -z "$dup" ] || fail "README.md lists more than once:" $dup
missing=$(comm -23 "$tmp/tests" "$tmp/listed")
[ -z "$missing" ] || fail "tests/integration/README.md does not list:" $missing
stale=$(comm -13 "$tmp/tests" "$tmp/listed")
[ -z "$stale" ] || fail "tests/integration/README.md lists tests that do not exist:" $stale
echo "tests/integration/README.md lists the $(wc -l <"$tmp/tests") integration tests"
