#!/usr/bin/python3
"""An application's communication metrics mean what they say.

  check_app_metrics.py OUTDIR -- LAUNCHER... APP ARGS...

Runs the app with --csv and checks every row: comm_s and comm_s_max_worker (time with a
transfer in flight) and wait_s / wait_s_max_worker never exceed wall_s; transfer_s (the
plain sum of durations) is at least comm_s_max_worker; with several workers data moved,
so comm_s and transfer_s are positive. The summed metric this replaced broke the first
rule whenever fetches overlapped (appbench/run_metrics.hpp). One line on failure."""

import csv
import os

from checklib import fail, args_and_command, run_ok  # this folder

# Clock reads on different ranks of one host: allow a microsecond, not a fraction.
SLACK_S = 1e-6


def num(row, col):
    v = row.get(col, "")
    if v in ("", None):
        fail("row %s has no %s" % (row.get("run"), col))
    return float(v)


def main():
    (outdir,), cmd = args_and_command("check_app_metrics.py OUTDIR -- LAUNCHER... APP ARGS...", 1)
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "metrics.csv")
    run_ok(cmd + ["--csv", path])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("no rows in " + path)
    for r in rows:
        wall = num(r, "wall_s")
        for col in ("comm_s", "comm_s_max_worker", "wait_s", "wait_s_max_worker"):
            if num(r, col) > wall + SLACK_S:
                fail("run %s: %s %.6f s exceeds wall_s %.6f s" % (r["run"], col, num(r, col), wall))
        if num(r, "comm_s") > num(r, "comm_s_max_worker") + SLACK_S:
            fail("run %s: the mean comm_s exceeds the largest worker's" % r["run"])
        if num(r, "transfer_s") + SLACK_S < num(r, "comm_s_max_worker"):
            fail("run %s: transfer_s below comm_s_max_worker" % r["run"])
        if int(float(r["workers"])) > 1 and (num(r, "comm_s") <= 0 or num(r, "transfer_s") <= 0):
            fail("run %s: %s workers but no communication time" % (r["run"], r["workers"]))
    print("app metrics: %d rows, comm_s <= wall_s in each" % len(rows))


if __name__ == "__main__":
    main()
