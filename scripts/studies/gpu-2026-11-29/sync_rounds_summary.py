#!/usr/bin/python3
"""Paired rounds of sync_copy_rounds.sh: per backend and size, the blocking-copy / lane-copy
ratio of median one-way latency in each round, summarised as the median ratio with a 95 %
bootstrap interval and the rounds' min-max.

  sync_rounds_summary.py DIR [DIR...]      (each DIR holds lanes_N.csv and sync_N.csv)"""

import csv
import glob
import os
import random
import statistics
import sys


def load(path):
    return {(r["backend"], int(r["size_bytes"])): float(r["latency_us_p50"])
            for r in csv.DictReader(open(path))}


def bootstrap(values, n=5000, seed=1):
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n)]


def main():
    pairs = []
    for d in sys.argv[1:]:
        for lanes in sorted(glob.glob(os.path.join(d, "lanes_*.csv"))):
            sync = lanes.replace("lanes_", "sync_")
            if os.path.exists(sync):
                pairs.append((load(lanes), load(sync)))
    keys = sorted(set(pairs[0][0]), key=lambda k: (k[0], k[1]))
    print("%d paired rounds; blocking / lane copies, one way p50 (< 1: blocking faster)" % len(pairs))
    print("| backend | size | lanes median µs | blocking median µs | ratio median [95 % CI] | min-max |")
    print("|---|---:|---:|---:|---:|---:|")
    for k in keys:
        ratios = [s[k] / l[k] for l, s in pairs if k in l and k in s]
        lo, hi = bootstrap(ratios)
        print("| %s | %d B | %.1f | %.1f | %.3f [%.3f-%.3f] | %.3f-%.3f |" % (
            k[0], k[1], statistics.median(l[k] for l, _ in pairs), statistics.median(s[k] for _, s in pairs),
            statistics.median(ratios), lo, hi, min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
