#!/usr/bin/python3
"""pingpong --timing per-repetition: one clock pair per repetition (OSU's and NetPIPE's
method). Every latency column then describes the repetitions' mean one-way latencies: the
fastest repetition's mean is both latency_us_min and latency_us_best_rep_avg, p50 lies
between min and max, and --samples (which needs single round trips) is refused in one line.

  check_timing.py OUTDIR -- LAUNCHER... PINGPONG ARGS..."""

import csv
import os
import subprocess

from checklib import fail, args_and_command, run_ok  # this folder


def main():
    (out,), cmd = args_and_command("check_timing.py OUTDIR -- LAUNCHER... PINGPONG ARGS...", 1)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "r.csv")
    if os.path.exists(path):
        os.remove(path)
    run_ok(cmd + ["--timing", "per-repetition", "--csv", path])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("no rows in " + path)
    for r in rows:
        key = (r["backend"], r["progress"], r["size_bytes"])
        lo, p50, hi = (float(r[c]) for c in ("latency_us_min", "latency_us_p50",
                                             "latency_us_max"))
        best = float(r["latency_us_best_rep_avg"])
        if not 0 < lo <= p50 <= hi:
            fail("%s: min %s, p50 %s, max %s out of order" % (key, lo, p50, hi))
        if abs(best - lo) > max(1e-3, 1e-5 * lo):
            fail("%s: best repetition mean %s differs from min %s (each sample is a "
                 "repetition's mean)" % (key, best, lo))
    refused = subprocess.run(cmd + ["--timing", "per-repetition", "--samples",
                                    os.path.join(out, "s.csv")],
                             capture_output=True, text=True, timeout=120)
    said = (refused.stderr + refused.stdout).strip().splitlines()
    if refused.returncode == 0 or not any("--samples needs --timing per-trip" in l for l in said):
        fail("--samples with --timing per-repetition was not refused: exit %d, %r"
             % (refused.returncode, said[-2:]))
    print("per-repetition timing: %d rows consistent; --samples refused" % len(rows))


if __name__ == "__main__":
    main()
