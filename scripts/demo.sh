#!/usr/bin/env bash
# README command 1: install what is missing, build (Release) into build/,
# and run `grove demo`.  Extra arguments go to the demo, e.g.
#   ./scripts/demo.sh --topology kary:8 --backends 256
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only what the demo runs: the tests are built by scripts/test.sh.
cmake --build build -j"$jobs" --target grove-cli grove-commnode be_worker
echo
exec build/grove demo "$@"
