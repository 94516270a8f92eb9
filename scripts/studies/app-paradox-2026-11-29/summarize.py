"""Tables of one results/app-paradox-2026-11-29 folder: per app and variant, the median
wall and comm time over every run (with their range), and the wall time's ratio to the
BASE variant's (default tcp) paired by round (both from the same round of alternating
jobs): the median over rounds and the range of the per-round ratios.
Usage: summarize.py DIR [BASE]"""

import csv
import glob
import os
import statistics
import sys


def main(folder, base_tag="tcp"):
    for app in ("merge", "ts"):
        runs = {}  # tag -> round -> [(wall, comm)]
        for path in sorted(glob.glob(os.path.join(folder, "%s-*.csv" % app))):
            name = os.path.basename(path)[len(app) + 1:-4]
            if name.startswith("tl-"):
                continue  # merge's transfer log
            tag, rnd = name.rsplit("-", 1)
            with open(path) as f:
                for r in csv.DictReader(f):
                    if r["validated"] != "1":
                        sys.exit("%s: a run not validated" % path)
                    runs.setdefault(tag, {}).setdefault(rnd, []).append(
                        (float(r["wall_s"]), float(r["comm_s"] or 0)))
        if not runs:
            continue
        print("== %s" % ("transpose_sum" if app == "ts" else app))
        base = runs.get(base_tag)
        for tag, rounds in runs.items():
            every = [x for v in rounds.values() for x in v]
            walls = [w for w, _ in every]
            line = "%-22s n=%-2d wall p50 %7.1f ms [%.1f-%.1f]  comm p50 %6.1f ms" % (
                tag, len(every), 1e3 * statistics.median(walls), 1e3 * min(walls),
                1e3 * max(walls), 1e3 * statistics.median(c for _, c in every))
            if base and tag != base_tag:
                ratios = [statistics.median(w for w, _ in v) /
                          statistics.median(w for w, _ in base[rnd])
                          for rnd, v in rounds.items() if rnd in base]
                line += "  / %s %.2fx [%.2f-%.2f] over %d rounds" % (
                    base_tag, statistics.median(ratios), min(ratios), max(ratios), len(ratios))
            print(line)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
