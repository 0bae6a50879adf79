#!/usr/bin/env bash
# README command 1: install what is missing, build (Release) into build/,
# and run Grove's main job, `grove top`: a cluster monitor with 64 agents
# under a kary:8 tree, for 8 seconds (press q to stop earlier).  Extra
# arguments replace those defaults, e.g.
#   ./scripts/demo.sh --backends 256 --topology kary:16 --seconds 20
#   ./scripts/demo.sh --once --json
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only what the demo runs: the tests are built by scripts/test.sh.
cmake --build build -j"$jobs" --target grove-cli grove-commnode grove-agent \
	be_worker
echo
if (($#)); then
	exec build/grove top "$@"
fi
exec build/grove top --backends 64 --topology kary:8 --interval 1000 --seconds 8
