#!/usr/bin/env bash
# Start-up activities of a tool (the MRNet paper's section 3.1) on flat
# and tree topologies: `grove bench startup` for each, then a markdown
# table on stdout.
#
#   scripts/startup.sh [--build DIR] [--backends D] [--reps R]
#                      [--topologies "flat kary:8 ..."]
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
backends=512
reps=5
topologies="flat kary:8 kary:32"
while (($#)); do
	case $1 in
	--build) build=$2; shift 2 ;;
	--backends) backends=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--topologies) topologies=$2; shift 2 ;;
	-h|--help) sed -n '2,8p' "$0"; exit 0 ;;
	*) echo "startup: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
grove=$build/grove
[[ -x $grove ]] || { echo "startup: $grove not found; build first" >&2; exit 1; }
export GROVE_COMMIT=${GROVE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in $topologies; do
	"$grove" bench startup --backends "$backends" --topology "$t" \
		--reps "$reps" --json >>"$out"
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"Start-up of {rows[0]['backends']} agents, median of {rows[0]['reps']} "
      f"(commit {rows[0].get('commit', 'unknown')}), milliseconds\n")
print("| topology | instantiation | ReportSelf | equivalence classes | clock skew |")
print("|---|---|---|---|---|")
for r in rows:
    print(f"| {r['topology']} | {1e3*r['instantiation_s']:.0f} | "
          f"{1e3*r['report_median_s']:.1f} | {1e3*r['equiv_median_s']:.1f} | "
          f"{1e3*r['skew_median_s']:.0f} |")
print(f"\nBytes at the front-end: ReportSelf {rows[0]['report_bytes']}, "
      f"equivalence classes {rows[0]['equiv_bytes']}.")
PY
