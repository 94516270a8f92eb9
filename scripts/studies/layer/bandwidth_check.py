#!/usr/bin/python3
"""Issue 29 item 2's bandwidth target, checked directly: each coroutine policy against the
fastest raw variant of its own interleaved invocation (--reps), at 1-16 MiB, both MPI
builds alternating. Target: at least 0.97x of raw.

  scripts/studies/layer/bandwidth_check.py OUT [--rounds 3] [--flavors openmpi,mpich]
Writes OUT/<flavor>-<round>.csv (+ sidecars) and bandwidth.md; prints bandwidth.md."""
import argparse
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from cbresults import launch, schema  # noqa: E402

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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="folder for the CSVs and bandwidth.md")
    ap.add_argument("--rounds", type=int, default=3, help="invocations per MPI build (default 3)")
    ap.add_argument("--flavors", default="openmpi,mpich", help="MPI builds (default both)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    flavors = [f for f in args.flavors.split(",") if f]
    per_flavor = {f: [] for f in flavors}
    backends = ",".join(s for pol, raws in POLICIES.items() for s in (pol,) + raws)
    for rnd in range(1, args.rounds + 1):
        for flavor in flavors:
            exe = os.path.join(ROOT, "build", flavor, "microbench", "bandwidth")
            if not os.access(exe, os.X_OK):
                raise SystemExit("bandwidth_check: no %s (cmake --build --preset %s)" % (exe, flavor))
            csv = os.path.join(args.out, "%s-%d.csv" % (flavor, rnd))
            cmd = launch.mpirun_prefix(flavor, 2) + [exe, "--backend", backends] + OPTS + [
                "--csv", csv, "--timeout", "300"]
            print("bandwidth_check: round %d %s" % (rnd, flavor), flush=True)
            rc, text = launch.run(cmd, env=launch.mpi_env(flavor), timeout=900)
            if rc != 0 or not os.path.exists(csv):
                raise SystemExit("bandwidth_check: %s failed (exit %d): %s" % (
                    " ".join(cmd), rc, " | ".join(text.strip().splitlines()[-3:])))
            per_flavor[flavor] += ratios(schema.read_csv(csv))
    md = table(per_flavor)
    with open(os.path.join(args.out, "bandwidth.md"), "w") as f:
        f.write(md)
    print(md, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
