"""raw-mpi (pp-R.csv, and batch-R.csv where present) against NPopenmpi (np-R.out) per
round of one abab.sh folder, at 8 B, 128 B and 2 KiB: one-way µs and the ratio within the
round, then the median ratio over rounds with its range. NetPIPE prints seconds to 8
decimals (10 ns) and reports its best trial. Usage: compare.py DIR"""

import csv
import glob
import os
import statistics
import sys

SIZES = (8, 128, 2048)


def netpipe(path):
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3:
                out[int(float(p[0]))] = float(p[2]) * 1e6
    return out


def ours(path):
    with open(path) as f:
        return {int(r["size_bytes"]): float(r["latency_us_p50"]) for r in csv.DictReader(f)}


def main(folder):
    rounds = sorted(int(os.path.basename(p)[3:-4]) for p in glob.glob(os.path.join(folder, "np-*.out")))
    for kind in ("pp", "batch"):
        if not os.path.exists(os.path.join(folder, "%s-1.csv" % kind)):
            continue
        print("== %s (p50 one-way) / NPopenmpi" % kind)
        for size in SIZES:
            pairs = [(ours(os.path.join(folder, "%s-%d.csv" % (kind, r)))[size],
                      netpipe(os.path.join(folder, "np-%d.out" % r))[size]) for r in rounds]
            ratios = [a / b for a, b in pairs]
            print("%5d B  %.2fx [%.2f-%.2f] over %d rounds; per round us: %s" % (
                size, statistics.median(ratios), min(ratios), max(ratios), len(ratios),
                " ".join("%.3f/%.3f" % p for p in pairs)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
