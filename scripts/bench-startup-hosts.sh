#!/usr/bin/env bash
# Instantiation over ssh on the multi-host test bed (scripts/testbed.sh):
# `grove bench startup` on a topology file run from the first host, timed
# from the front-end's grove_net_create to every back-end connected (the
# benchmark's instantiation_s), for H hosts x B back-ends per host, two
# shapes interleaved in one sitting:
#
#   flat  every back-end a child of the front-end: one ssh per back-end
#         on the other hosts (on the front-end's host, fork and exec)
#   tree  one CP per host under the front-end, the host's back-ends under
#         its CP: one ssh per other host, the CP starts its back-ends
#         locally
#
#   scripts/bench-startup-hosts.sh [--build DIR] [--hosts "1 2 4"]
#       [--per "16 32 64"] [--shapes "flat tree"] [--reps R]
#       [--prefix NAME] [--out FILE] [--timeout S]
#
# Prints one line per run and a table of medians; appends one JSON line
# per run to FILE (default docs/results/startup-hosts.jsonl) with the
# commit, the machine's CPUs and its load average at the start of the
# run.  A run that fails (a back-end's handshake timing out while the
# front-end is still starting the others, say) is recorded with
# "ok": false and the error's last line: that is a result too.
# Needs root (the test bed); brings its own test bed up and down.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
hosts_list="1 2 4"
per_list="16 32 64"
shapes="flat tree"
reps=3
prefix=sb
out=$src/docs/results/startup-hosts.jsonl
limit=150
while (($#)); do
	case $1 in
	--build) build=$(cd "$2" && pwd); shift 2 ;;
	--hosts) hosts_list=$2; shift 2 ;;
	--per) per_list=$2; shift 2 ;;
	--shapes) shapes=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--prefix) prefix=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "bench-startup-hosts: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
grove=$build/grove
[[ -x $grove ]] || { echo "bench-startup-hosts: $grove not found; build first" >&2; exit 1; }
testbed=$src/scripts/testbed.sh
commit=${GROVE_COMMIT:-$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)}
max_hosts=0
for h in $hosts_list; do
	((h > max_hosts)) && max_hosts=$h
done
tmp=$(mktemp -d)
trap '"$testbed" down --prefix "$prefix" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$testbed" down --prefix "$prefix" >/dev/null 2>&1 || true
"$testbed" up "$max_hosts" --prefix "$prefix" >/dev/null

# topo SHAPE HOSTS PER: the topology file on stdout (hosts PREFIX1..).
topo() {
	python3 - "$1" "$prefix" "$2" "$3" <<'PY'
import sys
shape, prefix, nh, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
hosts = [f"{prefix}{k}" for k in range(1, nh + 1)]
if shape == "flat":
    kids = [f"{hosts[0]}:{i}" for i in range(1, per + 1)]
    for h in hosts[1:]:
        kids += [f"{h}:{i}" for i in range(per)]
    print(f"{hosts[0]}:0 => " + " ".join(kids) + " ;")
else:
    # The front-end's host: its CP is hosts[0]:1, its back-ends :2..
    cps = [f"{hosts[0]}:1"] + [f"{h}:0" for h in hosts[1:]]
    print(f"{hosts[0]}:0 => " + " ".join(cps) + " ;")
    for k, h in enumerate(hosts):
        base = 2 if k == 0 else 1
        print(f"{cps[k]} => " + " ".join(f"{h}:{base + i}" for i in range(per)) + " ;")
PY
}

# One run's line, from its JSON record.
show='
import json, sys
d = json.loads(sys.stdin.read())
what = "%8.0f ms" % (d["instantiation_s"] * 1e3) if d["ok"] else "  FAILED: " + d["error"][:120]
print("rep %d %d hosts x %3d %-4s (%3d back-ends): %s  (load %s)" % (d["rep"],
    d["hosts"], d["per_host"], d["shape"], d["backends"], what, d["loadavg"]))'
mkdir -p "$(dirname "$out")"
runs=$tmp/runs.jsonl
: >"$runs"
echo "instantiation over ssh: hosts {$hosts_list} x back-ends {$per_list}, shapes {$shapes}, $reps reps, commit $commit"
for ((r = 1; r <= reps; r++)); do
	for nh in $hosts_list; do
		for per in $per_list; do
			for shape in $shapes; do
				topo "$shape" "$nh" "$per" >"$tmp/t.top"
				load=$(cut -d' ' -f1-3 /proc/loadavg)
				status=0
				"$testbed" exec --prefix "$prefix" "${prefix}1" \
					timeout "$limit" "$grove" bench startup --file "$tmp/t.top" \
					--reps 1 --skew-rounds 1 --json >"$tmp/o" 2>"$tmp/e" ||
					status=$?
				python3 - "$tmp/o" "$tmp/e" "$status" "$shape" "$nh" "$per" \
				    "$r" "$commit" "$load" "$(nproc)" >>"$runs" <<'PY'
import json, sys
o, e, status, shape, nh, per, rep, commit, load, cpus = sys.argv[1:]
rec = {"benchmark": "startup-hosts", "shape": shape, "hosts": int(nh),
       "per_host": int(per), "backends": int(nh) * int(per),
       "depth": 1 if shape == "flat" else 2, "rep": int(rep),
       "commit": commit, "cpus": int(cpus), "loadavg": load}
text = open(o).read().strip()
if status == "0" and text:
    d = json.loads(text)
    rec.update(ok=True, instantiation_s=d["instantiation_s"],
               report_s=d["report_median_s"])
else:
    lines = [l for l in open(e).read().splitlines() if l.strip()]
    rec.update(ok=False, status=int(status),
               error=lines[-1] if lines else "no output")
print(json.dumps(rec))
PY
				tail -1 "$runs" | python3 -c "$show"
			done
		done
	done
done
cat "$runs" >>"$out"
python3 - "$runs" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({(r["hosts"], r["per_host"]) for r in rows})
shapes = sorted({r["shape"] for r in rows})
print("\nmedian instantiation, ms (failed runs / runs)\n")
print("| hosts | per host | back-ends | " + " | ".join(shapes) + " |")
print("|---|---|---|" + "---|" * len(shapes))
for h, p in keys:
    cells = []
    for s in shapes:
        rs = [r for r in rows if (r["hosts"], r["per_host"], r["shape"]) == (h, p, s)]
        ok = [r["instantiation_s"] * 1e3 for r in rs if r["ok"]]
        bad = len(rs) - len(ok)
        cell = f"{statistics.median(ok):.0f}" if ok else "-"
        if bad:
            cell += f" ({bad}/{len(rs)} failed)"
        cells.append(cell)
    print(f"| {h} | {p} | {h * p} | " + " | ".join(cells) + " |")
PY
