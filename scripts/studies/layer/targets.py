#!/usr/bin/python3
"""Issue 29 item 2's targets, measured: in each run of a stability study (quick
reproductions back to back), each coroutine policy against the fastest raw variant of its
own interleaved invocation: one-way latency at 1 B-4 KiB (ratio and added ns, the median
over the band's sizes) and bandwidth at >= 1 MiB (ratio, median over sizes); then the
median over runs with their range. Target: latency within 1.10x or 40 ns of raw, bandwidth
at least 0.97x of raw.

Only the cross-family invocations count (`*-compare-r<k>-*`, five per reproduction and MPI
build): each has the three policies with their raw baselines, at the thread level they
need (MPI_THREAD_SINGLE). A per-family invocation runs mpi:thread beside the others, which
puts all of it, raw-mpi included, at MPI_THREAD_MULTIPLE, where Open MPI locks every call.
  scripts/studies/layer/targets.py results/stability-<date> results/layer-<date>
Writes targets.json and targets.md into the second folder and prints targets.md."""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from cbresults import select, stability  # noqa: E402
from cbresults.sizes import BANDS, band  # noqa: E402

POLICIES = (("ucx", "cooperative"), ("mpi", "cooperative"), ("tcp", "epoll"),
            ("ucx", "polling"))
RATIO, ADDED_NS, BANDWIDTH = 1.10, 40.0, 0.97
SMALL, LARGE = BANDS[0], BANDS[2]


COMPARE = re.compile(r"^(pingpong|bandwidth)-compare-r\d+-")


def per_run(rows):
    """{(backend, policy, mpi): {"ratio", "added_ns", "bw_ratio"}} of one reproduction's
    cross-family invocations."""
    rows = [r for r in rows if COMPARE.match(r.get("_file", ""))]
    lat = select.overhead_ratios(rows, "pingpong", "latency_us_p50")
    added = select.overhead_ratios(rows, "pingpong", "latency_us_p50", select.excess_ns)
    bw = select.overhead_ratios(rows, "bandwidth", "bandwidth_MBps")
    out = {}
    for (b, p, mpi), by_size in lat.items():
        if (b, p) not in POLICIES:
            continue
        small = [s for s in by_size if band(s) == SMALL]
        big = [s for s in bw.get((b, p, mpi), {}) if band(s) == LARGE]
        out[(b, p, mpi)] = {
            "ratio": statistics.median(by_size[s] for s in small) if small else None,
            "added_ns": statistics.median(added[(b, p, mpi)][s] for s in small) if small else None,
            "bw_ratio": statistics.median(bw[(b, p, mpi)][s] for s in big) if big else None}
    return out


def summarize(study):
    runs = [(i, per_run(rows)) for i, _path, rows, _sidecars in stability.each_run(study)]
    keys = sorted({k for _i, r in runs for k in r})
    out = {"study": os.path.basename(os.path.normpath(study)), "runs": [i for i, _r in runs],
           "targets": {"ratio": RATIO, "added_ns": ADDED_NS, "bw_ratio": BANDWIDTH},
           "series": []}
    for k in keys:
        entry = {"backend": k[0], "policy": k[1], "mpi": k[2]}
        for m in ("ratio", "added_ns", "bw_ratio"):
            vals = [r[k][m] for _i, r in runs if k in r and r[k][m] is not None]
            entry[m] = {"values": vals, "median": statistics.median(vals) if vals else None,
                        "min": min(vals) if vals else None, "max": max(vals) if vals else None}
        lat_ok = entry["ratio"]["median"] is not None and (
            entry["ratio"]["median"] <= RATIO or entry["added_ns"]["median"] <= ADDED_NS)
        bw_ok = entry["bw_ratio"]["median"] is not None and entry["bw_ratio"]["median"] >= BANDWIDTH
        entry["latency_target_met"], entry["bandwidth_target_met"] = lat_ok, bw_ok
        out["series"].append(entry)
    return out


def fmt(e, spec):
    if e["median"] is None:
        return "–"
    return (spec + " [" + spec + "-" + spec + "]") % (e["median"], e["min"], e["max"])


def table(data):
    lines = ["| policy | MPI build | latency / raw, 1 B-4 KiB | added ns, 1 B-4 KiB | "
             "latency target (<= %.2fx or <= %.0f ns) | bandwidth / raw, >= 1 MiB | "
             "bandwidth target (>= %.2fx) |" % (RATIO, ADDED_NS, BANDWIDTH),
             "|---|---|---|---|---|---|---|"]
    for e in data["series"]:
        lines.append("| %s:%s | %s | %s | %s | %s | %s | %s |" % (
            e["backend"], e["policy"], e["mpi"], fmt(e["ratio"], "%.2f"),
            fmt(e["added_ns"], "%.0f"), "met" if e["latency_target_met"] else "**not met**",
            fmt(e["bw_ratio"], "%.2f"), "met" if e["bandwidth_target_met"] else "**not met**"))
    return lines


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    data = summarize(argv[0])
    if not data["runs"]:
        sys.exit("targets: no run with CSVs in %s" % argv[0])
    os.makedirs(argv[1], exist_ok=True)
    with open(os.path.join(argv[1], "targets.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    md = ["# The layer against its raw baselines, %d reproductions of `%s`" % (
        len(data["runs"]), data["study"]), "",
        "Each run: the policy against the fastest raw variant of its own interleaved "
        "invocation, the cross-family ones at MPI_THREAD_SINGLE (median over the band's "
        "sizes and the run's invocations); here the median over runs [min-max]."
        "", ""] + table(data) + [""]
    text = "\n".join(md)
    with open(os.path.join(argv[1], "targets.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
