#!/usr/bin/python3
"""tables.md of a raw-vs-tools folder: per raw baseline, tool, MPI build and size, the raw
and tool figures (medians over rounds) and raw's ratio to the tool within each round
(raw/tool latency, tool/raw bandwidth: above 1 = raw slower), its median over rounds with a
95 % bootstrap interval and the rounds' range. Flagged: a median above 1.10 whose interval
lies above 1.0 (ceilings.alternating), like-for-like pairs only. The raw side is
taken with the tool's own statistic (ceilings.ALTERNATING: against NetPIPE, raw's lowest
repetition mean, as NetPIPE reports its best trial; against ucx_perftest, raw's median).

Usage: summarize.py FOLDER"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))

from cbresults import ceilings  # noqa: E402
from cbresults.sizes import fmt_size  # noqa: E402


def table(results):
    md = ["| raw baseline | tool | MPI build | size | raw | tool | raw vs tool, median "
          "[95 % CI] | range over rounds | rounds | verdict |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for c in results:
        unit = " MB/s" if c["metric"].startswith("bandwidth") else " µs"
        digits = 0 if unit == " MB/s" else 3
        for point, d in zip(c["points"], c["points_detail"]):
            s, v, variant, t, slower = point
            ci = "[%.2f-%.2f]" % d["ci"] if d["ci"] else "[-]"
            verdict = ("**slower by >%d%%**" % round((ceilings.SLOWER_BY - 1) * 100)
                       if point in c["flagged"] else
                       "ok" if slower <= ceilings.SLOWER_BY else
                       "not like for like" if "not flagged" in c["what"] else
                       "within noise (interval includes 1.0)")
            md.append("| %s:%s | %s | %s | %s | %.*f%s | %.*f%s | %.2fx %s | %.2f-%.2f | %d | %s |"
                      % (c["raw"], variant, c["what"], c["mpi"], fmt_size(s), digits, v, unit,
                         digits, t, unit, slower, ci, d["range"][0], d["range"][1],
                         d["rounds"], verdict))
    return md


def main(folder):
    results = ceilings.alternating(folder)
    md = ["# %s: raw baselines against their tools, alternating" % os.path.basename(
        os.path.normpath(folder)), "", "Produced by `scripts/studies/raw-vs-tools/summarize.py "
          "%s`." % folder, ""] + table(results) + [""]
    md += ceilings.flag_lines(results, fmt_size) or ["No raw baseline is more than %d%% slower "
                                                     "than its tool at any size." % round(
                                                         (ceilings.SLOWER_BY - 1) * 100)]
    with open(os.path.join(folder, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
