#!/usr/bin/python3
"""The network-fault table of tests/README.md, from the CASE.json files netfault_test.py
wrote (case-*.json, one per fault x benchmark x backend x MPI flavor):

  tests/vcluster/netfault_table.py build/openmpi/tests/vcluster/netfault_quick \\
      build/mpich/tests/vcluster/netfault_quick

One row per fault and benchmark, one column per backend; a cell is "ok" (completed,
every byte validated) or the seconds from the fault to the line naming the lost peer
(L: the launcher's line, else the benchmark's), then to the job's end, per flavor
(O = Open MPI, M = MPICH)."""

import glob
import json
import os
import sys

BACKENDS = ["tcp", "ucx", "mpi", "raw-tcp", "raw-ucx", "raw-mpi"]
FAULTS = ["loss1", "loss5", "jitter", "reorder", "link_down", "host_lost"]


def cell(case):
    if case["outcome"] == "validated":
        return "ok"
    if case["outcome"] == "FAILED":
        return "**FAILED** (%s s)" % case.get("time_to_error_s")
    who = "L" if case.get("reported_by") == "launcher" else ""
    return "%.1f%s / %.1f s" % (case["time_to_error_s"], who, case["job_exit_s"])


def main(folders):
    cases = []
    for d in folders:
        for path in sorted(glob.glob(os.path.join(d, "case-*.json"))):
            with open(path) as f:
                cases.append(json.load(f))
    rows = {}
    for c in cases:
        rows.setdefault((c["fault"], c["benchmark"]), {}).setdefault(c["backend"], {})[
            c["flavor"]] = c
    print("| fault | benchmark | " + " | ".join(BACKENDS) + " |")
    print("|---|---|" + "---|" * len(BACKENDS))
    for fault in FAULTS:
        for (f, bench), by_backend in sorted(rows.items()):
            if f != fault:
                continue
            cells = []
            for be in BACKENDS:
                per = by_backend.get(be, {})
                cells.append("; ".join("%s %s" % (fl[0].upper(), cell(per[fl]))
                                       for fl in sorted(per)) or "-")
            print("| %s | %s | %s |" % (fault, bench, " | ".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1:])
