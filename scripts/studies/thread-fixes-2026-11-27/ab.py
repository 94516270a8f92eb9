#!/usr/bin/python3
"""The two progress-thread fixes of 2026-11-27, each measured against the binary before it,
A and B alternating round by round on the same machine (A = ceb1358, the parent of the
fixes; B = the tree under test). Writes the CSVs to results/thread-fixes-2026-11-27/raw/
and the tables to results/thread-fixes-2026-11-27/summary.md.

  park        MPICH: an idle mpi:thread progress thread beside the other mpi policies in
              one ping-pong process (B parks it when nothing is in flight; A only yields)
  park-delay  the same with --inject-delay 100, as the regress self-test runs it (the CI
              timeout of stop 24)
  lock   Open MPI: ucx:thread and ucx:thread-blocking, whose progress step now holds a
         mutex (so that a cancel never races it): the price of that lock, as each
         policy's p50 over raw-ucx's in the same process.

  ab.py --a-openmpi DIR --b-openmpi DIR --a-mpich DIR --b-mpich DIR [--rounds N]

A build directory only needs microbench/pingpong (e.g. a worktree of ceb1358 configured
with the same preset: cmake --build DIR --target pingpong)."""

import argparse
import csv
import os
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OUT = os.path.join(ROOT, "results", "thread-fixes-2026-11-27")
SIZES = ["-b", "1", "-e", "4K", "-f", "16", "--iters", "1000", "--warmup", "100", "--reps", "10"]
MPI_ALL = "mpi:batched,mpi:blocking,mpi:thread,raw-mpi"
# name: (MPI, backends, raw baseline, extra options)
EXPERIMENTS = {
    "park": ("mpich", MPI_ALL, "raw-mpi", []),
    # What the regress self-test runs: every coroutine write spins 100 us (raw-mpi's do not).
    "park-delay": ("mpich", MPI_ALL, "raw-mpi", ["--inject-delay", "100"]),
    "lock": ("openmpi", "ucx:thread,ucx:thread-blocking,raw-ucx", "raw-ucx", []),
}


def mpirun(flavor):
    if flavor == "openmpi":
        return ["mpirun.openmpi", "--oversubscribe", "-n", "2"]
    return ["mpirun.mpich", "-n", "2"]


def run(flavor, build, backends, extra, csv_path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = mpirun(flavor) + [os.path.join(build, "microbench", "pingpong"), "--backend", backends,
                            "--timeout", "120", "--csv", csv_path] + SIZES + extra
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, timeout=300)
    with open(csv_path) as f:
        return list(csv.DictReader(f))


def label(row):
    return row["backend"] + ("" if row["backend"].startswith("raw-") else ":" + row["progress"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for side in "ab":
        for flavor in ("openmpi", "mpich"):
            ap.add_argument("--%s-%s" % (side, flavor), required=True, metavar="DIR")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    os.makedirs(os.path.join(OUT, "raw"), exist_ok=True)
    lines = ["# thread-fixes-2026-11-27: each fix against the binary before it", "",
             "Made by `scripts/studies/thread-fixes-2026-11-27/ab.py` (its docstring has the "
             "command); A = ceb1358, B = the fixes; A and B alternate, %d rounds each; "
             "p50 in us, medians over the rounds; B/A is the ratio of those medians. Ping-pong "
             "`%s`, 2 ranks on the 2-core VM." % (a.rounds, " ".join(SIZES)), ""]
    for name, (flavor, backends, raw, extra) in EXPERIMENTS.items():
        p50 = {}  # (side, label, size) -> [p50 per round]
        ratio = {}  # (side, label, size) -> [p50 / raw p50 per round]
        for r in range(a.rounds):
            for side in "ab":
                build = getattr(a, "%s_%s" % (side, flavor))
                path = os.path.join(OUT, "raw", "%s-%s-r%d.csv" % (name, side, r + 1))
                rows = run(flavor, build, backends, extra, path)
                raws = {x["size_bytes"]: float(x["latency_us_p50"]) for x in rows if label(x) == raw}
                for x in rows:
                    key = (side, label(x), int(x["size_bytes"]))
                    v = float(x["latency_us_p50"])
                    p50.setdefault(key, []).append(v)
                    ratio.setdefault(key, []).append(v / raws[x["size_bytes"]])
                print("%s round %d %s done" % (name, r + 1, side.upper()), flush=True)
        lines += ["## %s (%s): `%s`" % (name, flavor, " ".join([backends] + extra)), "",
                  "| backend | size B | A p50 us | B p50 us | B/A | A p50/%s | B p50/%s |" % (raw, raw),
                  "|---|---|---|---|---|---|---|"]
        for (side, lab, size) in sorted(k for k in p50 if k[0] == "a"):
            ma, mb = statistics.median(p50[("a", lab, size)]), statistics.median(p50[("b", lab, size)])
            ra = statistics.median(ratio[("a", lab, size)])
            rb = statistics.median(ratio[("b", lab, size)])
            lines.append("| %s | %d | %.3f | %.3f | %.2f | %.2f | %.2f |" % (lab, size, ma, mb, mb / ma, ra, rb))
        # A slow mode that comes and goes hides in a median: also the worst round, and in
        # how many rounds a p50 was over 3x that backend's best round on either side.
        lines += ["", "| backend | size B | A worst p50 us | B worst p50 us | "
                  "A rounds > 3x best | B rounds > 3x best |", "|---|---|---|---|---|---|"]
        for (side, lab, size) in sorted(k for k in p50 if k[0] == "a"):
            va, vb = p50[("a", lab, size)], p50[("b", lab, size)]
            best = min(va + vb)
            lines.append("| %s | %d | %.3f | %.3f | %d of %d | %d of %d |" % (
                lab, size, max(va), max(vb), sum(v > 3 * best for v in va), len(va),
                sum(v > 3 * best for v in vb), len(vb)))
        lines.append("")
    with open(os.path.join(OUT, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
