#!/usr/bin/env python3
"""Tables of issue 28 item 1 from results/idle-rules-2026-11-28/ (commands.sh): per MPI,
each family's paper policy under each idle rule against the fastest raw variant of its
family in the same invocation (latency ratio and added ns per message, 1 B-4 KiB), and
the paper's comparisons as the paper's designs ran: MPI4Dask (mpi:cooperative@spin) over
UCX-Py polling (ucx:polling@spin) and blocking (ucx:event@block), and over Dask's TCP
(tcp:epoll@block), beside the same pairs under this suite's default rule (budget). A ratio
to raw is taken inside one invocation, a cross-family one inside one round (geomean over
sizes); the tables show the median over rounds and its min-max. Writes summary.md beside the CSVs and prints it."""
import csv
import glob
import json
import math
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results", "idle-rules-2026-11-28")


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def load(path):
    """{(backend, progress, idle): {size: p50 us}} of one invocation."""
    out = defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["benchmark"] == "pingpong" and r["latency_us_p50"]:
                out[(r["backend"], r["progress"], r.get("idle", ""))][int(r["size_bytes"])] = \
                    float(r["latency_us_p50"])
    return out


def raw_floor(inv, family):
    """Per size, the fastest raw variant of the family in this invocation."""
    floor = {}
    for (b, _p, _i), per in inv.items():
        if b == "raw-" + family:
            for s, v in per.items():
                floor[s] = min(v, floor.get(s, v))
    return floor


def spread(vals):
    return "%.2fx (%.2f-%.2f)" % (statistics.median(vals), min(vals), max(vals))


def main():
    md = ["# Idle rules as the paper's designs ran them (issue 28 item 1)", ""]
    for plan_path in sorted(glob.glob(os.path.join(DATA, "plan-*.json"))):
        plan = json.load(open(plan_path))
        flavor = plan["flavor"]
        # One round = one invocation per family, run back to back: merged, a round's raw
        # baselines are each family's own (only its invocation has them), and the
        # cross-family pairs are taken inside a round.
        rounds = defaultdict(dict)
        for p in glob.glob(os.path.join(DATA, "pingpong-%s-r*-*.csv" % flavor)):
            rnd = os.path.basename(p).split("-")[2]
            rounds[rnd].update(load(p))
        invs = [rounds[k] for k in sorted(rounds)]
        if not invs:
            continue
        md += ["## %s, %s, %d rounds (1 B-4 KiB, p50)" % (flavor, plan.get("link", "one host"),
                                                         len(invs)), "",
               "| entry | latency over raw | added per message |", "|---|---|---|"]
        entries = sorted({k for inv in invs for k in inv if not k[0].startswith("raw-")})
        for key in entries:
            ratios, added = [], []
            for inv in invs:
                floor = raw_floor(inv, key[0])
                sizes = [s for s in inv.get(key, {}) if s in floor]
                if sizes:
                    ratios.append(geomean([inv[key][s] / floor[s] for s in sizes]))
                    added.append(statistics.median([inv[key][s] - floor[s] for s in sizes]) * 1000)
            if ratios:
                md.append("| %s:%s@%s | %s | %.0f ns (%.0f-%.0f) |" % (
                    key[0], key[1], key[2] or "-", spread(ratios), statistics.median(added),
                    min(added), max(added)))
        md += ["", "The paper's comparisons (time of the second over the first: > 1 favours "
               "MPI4Dask's design):", "", "| comparison | speedup |", "|---|---|"]
        pairs = [
            ("MPI4Dask over UCX-Py polling, as they ran", ("mpi", "cooperative", "spin"),
             ("ucx", "polling", "spin")),
            ("MPI4Dask over UCX-Py blocking (ucx:event@block), as they ran",
             ("mpi", "cooperative", "spin"), ("ucx", "event", "block")),
            ("MPI4Dask over Dask TCP (asyncio), as they ran", ("mpi", "cooperative", "spin"),
             ("tcp", "epoll", "block")),
            ("same pair, this suite's default rule: mpi:cooperative over ucx:polling",
             ("mpi", "cooperative", "budget"), ("ucx", "polling", "budget")),
            ("same pair, both blocking", ("mpi", "cooperative", "block"),
             ("ucx", "polling", "block")),
        ]
        for title, a, b in pairs:
            vals = []
            for inv in invs:
                sizes = set(inv.get(a, {})) & set(inv.get(b, {}))
                if sizes:
                    vals.append(geomean([inv[b][s] / inv[a][s] for s in sizes]))
            if vals:
                md.append("| %s | %s |" % (title, spread(vals)))
        md.append("")
    text = "\n".join(md)
    with open(os.path.join(DATA, "summary.md"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
