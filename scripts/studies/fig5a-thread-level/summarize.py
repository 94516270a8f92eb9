#!/usr/bin/python3
"""mpi:cooperative / ucx:polling p50 latency at 1 B-4 KiB, per invocation (the median over
sizes of the per-size ratio), then the median over rounds with the rounds' range, before
and after. Usage: summarize.py FOLDER"""
import csv
import glob
import os
import statistics
import sys


def ratio(path):
    lat = {}
    for r in csv.DictReader(open(path)):
        lat[(r["backend"] + ":" + r["progress"], int(r["size_bytes"]))] = float(r["latency_us_p50"])
    sizes = sorted({s for _, s in lat})
    return statistics.median(lat[("mpi:cooperative", s)] / lat[("ucx:polling", s)] for s in sizes)


def main(folder):
    for side in ("before", "after"):
        v = [ratio(p) for p in sorted(glob.glob(os.path.join(folder, side + "-*.csv")))]
        print("%-6s mpi:cooperative over ucx:polling (ucx p50 / mpi p50): %.3fx [%.3f-%.3f], %d rounds" % (
            side, 1 / statistics.median(v), 1 / max(v), 1 / min(v), len(v)))


if __name__ == "__main__":
    main(sys.argv[1])
