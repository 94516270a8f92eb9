#!/usr/bin/env python3
"""Tables of issue 16 from results/policies-2026-11-27/: per MPI, every backend:policy
against its family's raw baseline, per size. Each ratio is taken inside one invocation
(coroutine p50 / raw p50 of the same run; bandwidth: coroutine / raw), against the faster
raw variant of that run when a family has several; the table shows the median over the
invocations, and for latency also the added cost per message in ns (coroutine - raw).
Writes summary.md beside the CSVs and prints it."""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results", "policies-2026-11-27")


def family(backend):
    return backend[4:].split("-")[0] if backend.startswith("raw-") else backend


def label(r):
    return "%s:%s" % (r["backend"], r["progress"]) if r["progress"] else r["backend"]


def load(kind):
    """{(mpi, fam): [ {run rows} per invocation ]}"""
    out = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(DATA, "%s-*.csv" % kind))):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if rows:
            out[(rows[0]["mpi"], family(rows[0]["backend"]))].append(rows)
    return out


def ratios(runs, metric, lower_is_better):
    """{label: {size: [ratio per invocation]}}, {label: {size: [added per invocation]}}"""
    rat, add = defaultdict(lambda: defaultdict(list)), defaultdict(lambda: defaultdict(list))
    for rows in runs:
        by = defaultdict(dict)
        for r in rows:
            if r.get(metric):
                by[int(r["size_bytes"])][label(r)] = float(r[metric])
        for size, vals in by.items():
            raws = {k: v for k, v in vals.items() if k.startswith("raw-")}
            if not raws:
                continue
            best_raw = min(raws.values()) if lower_is_better else max(raws.values())
            for k, v in vals.items():
                rat[k][size].append(v / best_raw)
                add[k][size].append(v - best_raw)
    return rat, add


def fmt_size(s):
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if s >= n and s % n == 0:
            return "%d%s" % (s // n, unit)
    return str(s)


def table(title, rat, add, unit_ns):
    labels = sorted(rat)
    sizes = sorted({s for d in rat.values() for s in d})
    md = ["", "#### " + title, "",
          "| backend:policy | " + " | ".join(fmt_size(s) for s in sizes) + " | max |",
          "|---|" + "---|" * (len(sizes) + 1)]
    for k in labels:
        cells, worst = [], None
        for s in sizes:
            v = rat[k].get(s)
            if not v:
                cells.append("–")
                continue
            m = statistics.median(v)
            worst = m if worst is None else (max(worst, m) if unit_ns else min(worst, m))
            c = "%.2fx" % m
            if unit_ns:
                c += " (%+.0f ns)" % (statistics.median(add[k][s]) * 1000)
            cells.append(c)
        md.append("| %s | %s | %s |" % (k, " | ".join(cells),
                                        "%.2fx" % worst if worst is not None else "–"))
    return md


def main():
    md = ["# Progress policies against raw, per size (issue 16)", "",
          "Median over %s of each invocation's ratio. Latency: one-way p50 coroutine / "
          "raw (lower is better; in brackets what the layer adds per message); bandwidth: "
          "coroutine / raw MB/s (higher is better); *max* is the worst size (latency: the "
          "largest ratio; bandwidth: the smallest). Raw = the faster raw variant of the "
          "same invocation; raw rows show their own ratio to it. Commands: "
          "`scripts/studies/policies-2026-11-27/commands.sh`." % "the invocations"]
    lat, bw = load("pingpong"), load("bandwidth")
    for key in sorted(set(lat) | set(bw)):
        mpi, fam = key
        md += ["", "### %s, %s (%d invocation(s))" % (fam, mpi, len(lat.get(key, [])))]
        if key in lat:
            r, a = ratios(lat[key], "latency_us_p50", True)
            md += table("latency, 1 B - 4 KiB", r, a, True)
        if key in bw:
            r, a = ratios(bw[key], "bandwidth_MBps", False)
            md += table("bandwidth, 1 - 16 MiB", r, a, False)
    text = "\n".join(md) + "\n"
    with open(os.path.join(DATA, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
