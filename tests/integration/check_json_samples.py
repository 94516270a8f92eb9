#!/usr/bin/python3
"""pingpong's --json and --samples hold what the CSV says, and the plot script draws a
CDF from the samples.

  check_json_samples.py OUTDIR PLOT -- LAUNCHER... PINGPONG ARGS...

Runs PINGPONG ARGS --csv OUTDIR/r.csv --json OUTDIR/rows.json --samples OUTDIR/s.csv, then
checks: every CSV row has a JSON row with the same values (numbers as JSON numbers, empty
cells as null); the samples of each (backend, progress, size) number `iterations` and
their median, min and max are the row's latency_us_p50, _min and _max; and
`PLOT --samples OUTDIR/s.csv --out OUTDIR` writes latency_cdf.png. One line on failure."""

import csv
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

from checklib import fail, args_and_command, run_ok  # this folder


def close(a, b):
    return abs(a - b) <= max(1e-3, 1e-5 * abs(b))  # the CSV keeps 6 significant digits


def main():
    (out, plot), cmd = args_and_command(
        "check_json_samples.py OUTDIR PLOT -- LAUNCHER... PINGPONG ARGS...", 2)
    os.makedirs(out, exist_ok=True)
    paths = {k: os.path.join(out, n) for k, n in (("csv", "r.csv"), ("json", "rows.json"),
                                                    ("samples", "s.csv"))}
    for p in list(paths.values()) + [os.path.join(out, "latency_cdf.png")]:
        if os.path.exists(p):
            os.remove(p)
    run = run_ok(cmd + ["--csv", paths["csv"], "--json", paths["json"],
                        "--samples", paths["samples"]])
    if " sizes (" in run.stderr:
        fail("a progress line on a stderr that is not a terminal: " + run.stderr[-200:])
    with open(paths["csv"]) as f:
        rows = list(csv.DictReader(f))
    with open(paths["json"]) as f:
        doc = json.load(f)
    if "metadata" not in doc or "git_commit" not in json.dumps(doc["metadata"]):
        fail("the JSON has no metadata")
    if len(doc["rows"]) != len(rows) or not rows:
        fail("%d JSON rows for %d CSV rows" % (len(doc["rows"]), len(rows)))
    for c, j in zip(rows, doc["rows"]):
        if set(j) != set(c):
            fail("JSON row columns differ from the CSV's: %s" % sorted(set(j) ^ set(c)))
        for k, v in c.items():
            if v == "":
                if j[k] is not None:
                    fail("%s: empty in the CSV, %r in the JSON" % (k, j[k]))
            elif isinstance(j[k], (int, float)):
                if not close(float(j[k]), float(v)):
                    fail("%s: %s in the CSV, %r in the JSON" % (k, v, j[k]))
            elif j[k] != v:
                fail("%s: %r in the CSV, %r in the JSON" % (k, v, j[k]))
        if not isinstance(j["latency_us_p50"], (int, float)) or not isinstance(j["size_bytes"], int):
            fail("numbers are not typed in the JSON: %r" % j)
    samples = defaultdict(list)
    per_rep = defaultdict(lambda: defaultdict(list))
    with open(paths["samples"]) as f:
        for s in csv.DictReader(f):
            key = (s["backend"], s["progress"], s["idle"], s["size_bytes"])
            samples[key].append(float(s["ns"]) / 1000)
            per_rep[key][s["rep"]].append(float(s["ns"]) / 1000)
    for r in rows:
        # the idle rule is part of the key: two entries of one policy under different
        # @rules are two series
        key = (r["backend"], r["progress"], r["idle"], r["size_bytes"])
        v = samples.get(key, [])
        if len(v) != int(r["iterations"]):
            fail("%s: %d samples, the row says %s iterations" % (key, len(v), r["iterations"]))
        # NetPIPE's statistic: the lowest of the repetitions' means
        best_rep = min(statistics.fmean(x) for x in per_rep[key].values())
        for col, want in (("latency_us_p50", statistics.median(v)), ("latency_us_min", min(v)),
                          ("latency_us_max", max(v)), ("latency_us_best_rep_avg", best_rep)):
            if not close(float(r[col]), want):
                fail("%s: %s is %s, the samples give %.6g" % (key, col, r[col], want))
    draw = subprocess.run([sys.executable, plot, "--samples", paths["samples"], "--out", out],
                          capture_output=True, text=True, timeout=120)
    png = os.path.join(out, "latency_cdf.png")
    if draw.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
        fail("scripts/plot --samples drew nothing: %s" % (draw.stderr or draw.stdout)[-300:])
    print("json and samples agree with %d CSV rows; %s drawn" % (len(rows), png))


if __name__ == "__main__":
    main()
