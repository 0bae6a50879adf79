#!/usr/bin/env bash
# No folder includes from a folder it must not: the rule is the module
# map of docs/internals.md (tests/cli/lib/layers.py reads it there, so
# the map and the check cannot disagree).
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
command -v python3 >/dev/null || { echo "FAIL: python3 not found" >&2; exit 1; }
exec python3 "$(dirname "$0")/lib/layers.py" "$2"
