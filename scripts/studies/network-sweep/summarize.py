#!/usr/bin/python3
"""Summarizes a link sweep (scripts/network-sweep): FOLDER/tables.md (every table, every
size band) and FOLDER/speedup.png (MPI4Dask's speedup against link delay per band, with
intervals). The report's Network section reads the same folder (cbresults/sweep.py).

  python3 scripts/studies/network-sweep/summarize.py results/network-sweep-<date>"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))

from cbresults import sweep  # noqa: E402


def main(argv):
    if len(argv) != 1 or not os.path.exists(os.path.join(argv[0], "manifest.json")):
        print("usage: summarize.py SWEEP_FOLDER (a folder with manifest.json from "
              "scripts/network-sweep)", file=sys.stderr)
        return 2
    sw = sweep.Sweep(argv[0])
    if sw.lat:   # an applications-only run (--skip-micro) has no ping-pong to draw
        sweep.figure(sw, os.path.join(argv[0], sweep.FIGURE))
    with open(os.path.join(argv[0], "tables.md"), "w") as f:
        f.write(sweep.tables(sw))
    print("wrote %s%s" % (os.path.join(argv[0], "tables.md"), " and " + os.path.join(
        argv[0], sweep.FIGURE) if sw.lat else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
