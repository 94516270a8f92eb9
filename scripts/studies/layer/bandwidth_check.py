#!/usr/bin/python3
"""Issue 29 item 2's bandwidth target, checked directly: each coroutine policy against the
fastest raw variant of its own interleaved invocation (--reps), at 1-16 MiB, both MPI
builds alternating. Target: at least 0.97x of raw.

  scripts/studies/layer/bandwidth_check.py OUT [--rounds 3] [--flavors openmpi,mpich]
Writes OUT/<flavor>-<round>.csv (+ sidecars) and bandwidth.md; prints bandwidth.md."""
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
sys.path.insert(0, HERE)
import rounds  # noqa: E402 (this folder)

# Each policy and the raw variants of its library.
POLICIES = {"ucx:cooperative": ("raw-ucx:polling",), "mpi:cooperative": ("raw-mpi:blocking",),
            "tcp:epoll": ("raw-tcp:busy-poll",)}
OPTS = ["-b", "1M", "-e", "16M", "-f", "4", "--iters-large", "20", "--reps", "5"]
TARGET = 0.97


def series_of(row):
    return "%s:%s" % (row["backend"], row["progress"])


def ratios(rows):
    """[(policy, size, policy / fastest raw bandwidth)] of one invocation."""
    by_size = defaultdict(dict)
    for r in rows:
        if r.get("bandwidth_MBps"):
            by_size[int(r["size_bytes"])][series_of(r)] = r["bandwidth_MBps"]
    out = []
    for size, vals in sorted(by_size.items()):
        for pol, raws in POLICIES.items():
            base = [vals[x] for x in raws if x in vals]
            if pol in vals and base:
                out.append((pol, size, vals[pol] / max(base)))
    return out


def table(per_flavor):
    lines = ["# Bandwidth against raw, >= 1 MiB", "",
             "Each value: policy / fastest raw variant within one invocation; the median over "
             "every size and invocation [min-max], n ratios. Target >= %.2fx." % TARGET, "",
             "| MPI build | policy | bandwidth / raw | n | target |", "|---|---|---|---|---|"]
    for flavor, triples in per_flavor.items():
        for pol in POLICIES:
            vals = [v for p, _s, v in triples if p == pol]
            if vals:
                med = statistics.median(vals)
                lines.append("| %s | %s | %.3f [%.3f-%.3f] | %d | %s |" % (
                    flavor, pol, med, min(vals), max(vals), len(vals),
                    "met" if med >= TARGET else "**not met**"))
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = rounds.parse(__doc__, argv, 3, "folder for the CSVs and bandwidth.md")
    per_flavor = {f: [] for f in args.flavors}
    backends = ",".join(s for pol, raws in POLICIES.items() for s in (pol,) + raws)
    for flavor, rows in rounds.run(args, "bandwidth_check", "bandwidth", backends, OPTS, 300):
        per_flavor[flavor] += ratios(rows)
    md = table(per_flavor)
    with open(os.path.join(args.out, "bandwidth.md"), "w") as f:
        f.write(md)
    print(md, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
