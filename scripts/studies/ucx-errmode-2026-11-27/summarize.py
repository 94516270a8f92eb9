#!/usr/bin/python3
"""ucx/raw-ucx per size and mode (none, nocma), median over rounds (each round's ratio is
from one invocation). Usage: summarize.py DIR"""
import csv
import glob
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results", "ucx-errmode-2026-11-27")


def ratios(kind, mode, col):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, f"{kind}_{mode}_*.csv"))):
        rows = {(r["backend"], int(r["size_bytes"])): float(r[col]) for r in csv.DictReader(open(f))}
        for (b, s), v in rows.items():
            if b == "ucx":
                out.setdefault(s, []).append(v / rows[("raw-ucx", s)])
    return out


for kind, col, what in (("pp", "latency_us_p50", "latency p50, ucx/raw-ucx (lower is better)"),
                        ("bw", "bandwidth_MBps", "bandwidth, ucx/raw-ucx (higher is better)")):
    none, nocma = ratios(kind, "none", col), ratios(kind, "nocma", col)
    print(f"| size | {what}: none | nocma | nocma / none |")
    print("|---|---|---|---|")
    for s in sorted(none):
        a, b = statistics.median(none[s]), statistics.median(nocma[s])
        print(f"| {s} B | {a:.2f} | {b:.2f} | {b / a:.2f} |")
    print()
