#!/usr/bin/env python3
"""The tables of scripts/bench-bcs.sh, from its JSON lines.

    scripts/bench-bcs-table.py RESULTS.jsonl [SITTING]

SITTING: the sitting to show (default: the last one in the file; the file
collects every sitting).  Each cell is the median over the repetitions
of the sitting that measured it; runs that failed or timed out give no
number, and are counted beside the cell when other repetitions did."""
import json
import statistics
import sys

PREDICTED_CALL_SLICES = 1.5  # bcs-mpi.txt 6.3
EXPECTED_PERIOD = 9          # bcs-mpi.txt 5.3: a barrier every nine slices


def fmt(v):
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    a = abs(v)
    return (f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else
            f"{v:.2f}" if a >= 1 else f"{v:.3f}")


def pct(v):
    return f"{v * 100:.1f}%"


def why(r):
    if r["status"] == "timeout":
        return f">{r['timeout_s']:g} s, timed out"
    if r["status"] == "ok":
        return "not measured"
    return r["status"]


def cell(rows, key, **match):
    """(median or None, text) of `key` over the runs that match."""
    runs = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    if not runs:
        return None, "-"
    vals = [r[key] for r in runs if r["status"] == "ok" and key in r]
    bad = [r for r in runs if r["status"] != "ok" or key not in r]
    if not vals:
        return None, "; ".join(sorted({why(r) for r in bad}))
    med = statistics.median(vals)
    text = fmt(med)
    if bad:
        text += (f" ({len(bad)}/{len(runs)} runs: " +
                 "; ".join(sorted({why(r) for r in bad})) + ")")
    return med, text


def table(head, body):
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for row in body:
        print("| " + " | ".join(row) + " |")
    print()


def ratio(a, b, digits=3):
    return f"{a / b:.{digits}g}" if a is not None and b else "-"


def validation(rows, slice_us):
    v = [r for r in rows if r["part"] == "validate"]
    if not v:
        print("(i) validation: not run (no --bcs in this build)\n")
        return
    print(f"(i) validation, bcs-mpi.txt 5.3: bcs_validate, {v[0]['ranks']} "
          f"ranks, --bcs --slice {slice_us:g}us")
    if not any("getts_mean_us" in r for r in v):
        print("no EMDS figures (no --emds in this build, or the runs "
              "failed)")
    getts, getts_t = cell(v, "getts_mean_us")
    within, _ = cell(v, "getts_within10")
    gap, gap_t = cell(v, "barrier_gap_mode")
    gap9, _ = cell(v, "barrier_gap_9_share")
    gapm, _ = cell(v, "barrier_gap_mean")
    between, between_t = cell(v, "np2pdem_between_median")
    between_nz, _ = cell(v, "np2pdem_between_nonzero")
    at, at_t = cell(v, "np2pdem_at_barrier_median")
    prog, _ = cell(v, "period_us")
    slices, slices_t = cell(v, "emds_slices")
    ranks = v[0]["ranks"]
    pairs = ranks - ranks % 2  # an odd job's last rank only joins barriers
    body = [
        ["slices recorded", slices_t, "the window"],
        ["GETTS, mean (us)", getts_t, f"{slice_us:g} (the slice)"],
        ["slices within 10% of the slice",
         pct(within) if within is not None else "-", "all"],
        ["barrier period from NCOLLMSM (slices: most frequent gap, mean)",
         f"{gap_t}, mean {fmt(gapm)}" if gap is not None else gap_t,
         str(EXPECTED_PERIOD)],
        [f"barrier gaps of {EXPECTED_PERIOD} slices",
         pct(gap9) if gap9 is not None else "-", "all"],
        ["NP2PDEM between barriers (median; share of slices with some)",
         f"{between_t}; {pct(between_nz)}" if between is not None
         else between_t, f"{pairs} (a send or receive per paired rank); all"],
        ["NP2PDEM in a barrier's slice (median)", at_t, "0"],
        ["barrier period from the program's time (slices)",
         fmt(prog / slice_us) if prog is not None else "-",
         str(EXPECTED_PERIOD)],
    ]
    # The pattern holds when its usual period is the program's and the
    # counts are what the program posts; how often it holds is the share
    # of gaps of nine (a rank descheduled for a slice shifts a period).
    if gap is None:
        verdict = "-"
    elif gap == EXPECTED_PERIOD and between == pairs and at == 0:
        verdict = f"yes, {pct(gap9)} of the periods"
    else:
        verdict = "no"
    body.append(["NCOLLMSM and NP2PDEM follow the program", verdict, "yes"])
    table(["measurement", "measured", "expected"], body)


def stencil(rows, slice_us):
    s = [r for r in rows if r["part"] == "stencil"]
    if not s:
        return
    print("(ii) blocking against non-blocking, bcs-mpi.txt 6.3: stencil, "
          f"{s[0]['ranks']} ranks, an allreduce every step; grain in CPU time "
          "of a rank")
    body = []
    for g in sorted({r["grain_slices"] for r in s}):
        for mode in ("blocking", "nonblocking"):
            d, d_t = cell(s, "step_us", grain_slices=g, mode=mode,
                          launch="direct")
            b, b_t = cell(s, "step_us", grain_slices=g, mode=mode,
                          launch="bcs")
            calls, _ = cell(s, "blocking_calls", grain_slices=g, mode=mode,
                            launch="bcs")
            c, c_t = cell(s, "call_us", grain_slices=g, mode=mode,
                          launch="bcs")
            body.append([str(g), mode,
                         fmt(d / 1e3) if d is not None else d_t,
                         fmt(b / 1e3) if b is not None else b_t,
                         ratio(b, d),
                         fmt(calls) if calls is not None else "-",
                         fmt(c / slice_us) if c is not None else c_t,
                         f"{PREDICTED_CALL_SLICES:g}"])
    table(["grain (slices)", "mode", "direct, per step (ms)",
           "BCS, per step (ms)", "BCS/direct", "blocking calls per step",
           "BCS, cost of a blocking call (slices)", "predicted"], body)


def mds(rows):
    m = [r for r in rows if r["part"] == "mds"]
    if not m:
        return
    print("(iii) monitoring overhead, bcs-mpi.txt 6.4 (Table 6.1): "
          f"{m[0]['ranks']} ranks under --bcs; the program's loop time")
    body = []
    for bench, label in (("stencil", "stencil, non-blocking, grain 10 "
                                     "slices"),
                         ("allreduce_heavy", "allreduce_heavy")):
        off, off_t = cell(m, "total_s", bench=bench, mds="off")
        row = [label, off_t]
        for k in ("mmds", "emds"):
            v, v_t = cell(m, "total_s", bench=bench, mds=k)
            row.append(v_t)
            row.append(f"{(v / off - 1) * 100:+.2f}%"
                       if v is not None and off else "-")
        body.append(row)
    table(["program", "MDS off (s)", "MMDS, --stats (s)", "MMDS overhead",
           "EMDS, --emds (s)", "EMDS overhead"], body)


def osu(rows, slice_us):
    o = [r for r in rows if r["part"] == "osu"]
    if not o:
        return
    print("(iv) the measurements of scripts/bench-mpi.sh, direct and "
          "under --bcs")
    spec = [("ping-pong 1 B, 2 ranks (us)", "pingpong", "lat_us",
             {"bytes": 1}),
            ("ping-pong 1 MiB, 2 ranks (us)", "pingpong", "lat_us",
             {"bytes": 1 << 20}),
            ("allreduce 8 B, N ranks (us)", "allreduce", "avg_us", {}),
            ("barrier, N ranks (us)", "barrier", "avg_us", {})]
    body = []
    for label, bench, key, extra in spec:
        n = [r["ranks"] for r in o if r["bench"] == bench]
        label = label.replace("N ranks", f"{n[0] if n else '?'} ranks")
        d, d_t = cell(o, key, bench=bench, launch="direct", **extra)
        b, b_t = cell(o, key, bench=bench, launch="bcs", **extra)
        body.append([label, d_t, b_t, ratio(b, d),
                     fmt(b / slice_us) if b is not None else "-"])
    table(["measurement", "direct", "BCS", "BCS/direct", "BCS (slices)"],
          body)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    if not rows:
        sys.exit(f"bench-bcs-table: no results in {sys.argv[1]}")
    sitting = sys.argv[2] if len(sys.argv) == 3 else rows[-1]["sitting"]
    rows = [r for r in rows if r.get("sitting") == sitting]
    if not rows:
        sys.exit(f"bench-bcs-table: no sitting {sitting} in {sys.argv[1]}")
    m0 = rows[0]
    slice_us = m0["slice_us"]
    loads = [r["load1_before"] for r in rows]
    reps = max(r["rep"] for r in rows)
    print(f"BCS benchmarks, commit {m0['commit']}, {m0['machine']['nproc']} "
          f"CPUs ({m0['machine']['cpu']}), kernel {m0['machine']['kernel']}, "
          f"{m0['date']}{', --quick' if m0.get('quick') else ''}")
    print(f"slice {slice_us:g} us; medians of {reps} interleaved "
          f"repetition(s); 1-minute load average before the runs "
          f"{min(loads):.2f} .. {max(loads):.2f}\n")
    validation(rows, slice_us)
    stencil(rows, slice_us)
    mds(rows)
    osu(rows, slice_us)


if __name__ == "__main__":
    main()
