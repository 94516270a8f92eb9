"""Are the raw baselines ceilings? Each raw baseline against the library's own benchmark
tool from the same study: raw-tcp against NetPIPE's NPtcp, raw-mpi against NPmpi (and
OSU where it ran), raw-ucx against ucx_perftest. A coroutine/raw ratio means something
only when raw is the best the library can do, so any raw baseline slower than its tool
by more than SLOWER_BY at a size both measured is flagged.

Per size the raw side is its fastest variant (median over the runs of each variant, then
the best variant: the same choice the ratios make), the tool side the median over its
rows. Latency: slower = raw / tool; bandwidth: slower = tool / raw. The tools run in
their own invocations, so a VM latency-mode flip between them moves small-message
latencies 3-4x: a flag there says "look", the table says which sizes."""

import glob
import json
import os
from collections import defaultdict

from . import schema, select
from .stats import median_ci
from .tool_output import MIB_TO_MB, parse_np_out

SLOWER_BY = 1.10  # flag a raw baseline more than 10 % slower than its tool

# (raw backend, tool backend, tool progress or None = any, benchmark, metric, what it is)
PAIRS = (
    ("raw-tcp", "NPtcp", None, "pingpong", "latency_us_p50", "NetPIPE over TCP"),
    ("raw-mpi", "NPmpi", None, "pingpong", "latency_us_p50", "NetPIPE over MPI"),
    ("raw-mpi", "osu", None, "pingpong", "latency_us_p50", "osu_latency"),
    ("raw-mpi", "osu", None, "bandwidth", "bandwidth_MBps", "osu_bw"),
    ("raw-ucx", "ucx_perftest", "poll", "pingpong", "latency_us_p50", "ucx_perftest tag_lat -E poll"),
    ("raw-ucx", "ucx_perftest", "poll", "bandwidth", "bandwidth_MBps", "ucx_perftest tag_bw"),
)
# Tools launched through one MPI: compared only with the raw rows of that MPI's build.
MPI_TOOLS = {"NPmpi", "osu"}


def _raw_best(rows, raw, bench, metric, mpi):
    """{size: (value, variant)}: per variant the median over runs, then the fastest."""
    acc = defaultdict(list)
    for r in rows:
        if (r["origin"] == "suite" and r["backend"] == raw and r["benchmark"] == bench
                and r["mpi"] == mpi and r.get(metric) and not r.get("wire")):
            acc[(int(r["size_bytes"]), r["progress"])].append(r[metric])
    higher = metric in select.HIGHER_IS_BETTER
    best = {}
    for (size, variant), vals in acc.items():
        v = select.median(vals)
        if size not in best or (v > best[size][0] if higher else v < best[size][0]):
            best[size] = (v, variant)
    return best


def _tool(rows, tool, progress, bench, metric, mpi):
    acc = defaultdict(list)
    for r in rows:
        if (r["origin"] == "external" and r["backend"] == tool and r["benchmark"] == bench
                and (progress is None or r["progress"] == progress) and r.get(metric)
                and (tool not in MPI_TOOLS or r["mpi"] == mpi)):
            acc[int(r["size_bytes"])].append(r[metric])
    return {s: select.median(v) for s, v in acc.items()}


def check(rows, slower_by=SLOWER_BY):
    """One entry per (raw, tool, metric, MPI) with sizes in common: {raw, tool, what,
    metric, mpi, points: [(size, raw value, variant, tool value, slower)], flagged: the
    points with slower > slower_by, worst: the point with the largest slower}."""
    out = []
    mpis = sorted({r["mpi"] for r in rows if r["origin"] == "suite" and r["mpi"]}) or [""]
    for raw, tool, progress, bench, metric, what in PAIRS:
        higher = metric in select.HIGHER_IS_BETTER
        for mpi in mpis:
            mine = _raw_best(rows, raw, bench, metric, mpi)
            theirs = _tool(rows, tool, progress, bench, metric, mpi)
            points = []
            for s in sorted(set(mine) & set(theirs)):
                v, variant = mine[s]
                t = theirs[s]
                slower = t / v if higher else v / t
                points.append((s, v, variant, t, slower))
            if not points:
                continue
            out.append({"raw": raw, "tool": tool, "what": what, "metric": metric,
                        "mpi": mpi, "points": points,
                        "flagged": [p for p in points if p[4] > slower_by],
                        "worst": max(points, key=lambda p: p[4])})
    return out


SHOW_SIZES = 3  # a flag names its worst sizes; the table beside it has the count


def flag_lines(results, fmt_size=str, slower_by=SLOWER_BY):
    """The one-line warnings the report prints where nobody can miss them."""
    lines = []
    for c in results:
        if not c["flagged"]:
            continue
        kind = "bandwidth" if c["metric"].startswith("bandwidth") else "latency"
        worst = sorted(c["flagged"], key=lambda p: -p[4])
        sizes = ", ".join("%s %.2fx" % (fmt_size(p[0]), p[4]) for p in worst[:SHOW_SIZES])
        if len(worst) > SHOW_SIZES:
            sizes += " (worst %d of %d sizes)" % (SHOW_SIZES, len(worst))
        lines.append("**RAW BASELINE BELOW ITS TOOL: %s (%s) %s is more than %d%% slower than "
                     "%s at %s.** Ratios against it flatter the coroutine layer there." % (
                         c["raw"], c["mpi"] or "no MPI", kind, round((slower_by - 1) * 100),
                         c["what"], sizes))
    return lines


# --- The alternating study (scripts/studies/raw-vs-tools) --------------------------------
# There each raw baseline's invocation is followed at once by its tool's, in every round,
# so the ratio is taken within a round and the VM's latency mode moves both sides alike.
# Each pair: the raw backend and its CSV, the tool and its output, the metric, the raw
# column compared (the tool's own statistic: NetPIPE reports its best trial's mean, so raw's
# lowest repetition mean; ucx_perftest its typical, i.e. median, latency, so raw's p50), what
# it is, and whether it is like for like (only those are flagged; the other is shown beside).
ALTERNATING = (
    dict(raw="raw-mpi", bench="pingpong", csv="raw-mpi.csv", tool="NPmpi", out="np-{mpi}.out",
         metric="latency_us_p50", raw_column="latency_us_best_rep_avg",
         what="NetPIPE over MPI", like=True),
    dict(raw="raw-ucx", bench="pingpong", csv="raw-ucx.csv", tool="ucx_perftest",
         out="perftest-tag_lat-{size}.json", metric="latency_us_p50",
         raw_column="latency_us_p50", what="ucx_perftest tag_lat -E poll", like=True),
    dict(raw="raw-ucx", bench="bandwidth", csv="raw-ucx-bw-shared.csv", tool="ucx_perftest",
         out="perftest-tag_bw-{size}.json", metric="bandwidth_MBps", raw_column="bandwidth_MBps",
         what="ucx_perftest tag_bw (raw: one receive buffer per window, as the tool)", like=True),
    dict(raw="raw-ucx", bench="bandwidth", csv="raw-ucx-bw.csv", tool="ucx_perftest",
         out="perftest-tag_bw-{size}.json", metric="bandwidth_MBps", raw_column="bandwidth_MBps",
         what="ucx_perftest tag_bw (raw: a buffer per message, the suite's footprint; not "
              "flagged)", like=False),
    dict(raw="raw-tcp", bench="pingpong", csv="raw-tcp.csv", tool="NPtcp", out="np.out",
         metric="latency_us_p50", raw_column="latency_us_best_rep_avg",
         what="NetPIPE over TCP", like=True),
)


def latest_alternating(results_root):
    """The newest committed alternating study (results/raw-vs-tools-*/manifest.json), or
    None."""
    found = sorted(glob.glob(os.path.join(results_root, "raw-vs-tools-*", "manifest.json")))
    return os.path.dirname(found[-1]) if found else None


def _tool_value(folder, pattern, mpi, size, metric):
    """The tool's figure for one size in one round's folder, or None."""
    path = os.path.join(folder, pattern.format(mpi=mpi, size=size))
    if not os.path.exists(path):
        return None
    with open(path) as f:
        if path.endswith(".json"):  # ucx_perftest's Final line, in its own units
            final = json.load(f)
            return (final["lat_p50"] if metric.startswith("latency")
                    else final["bw_avg"] * MIB_TO_MB)
        return next((t * 1e6 for s, _, t in parse_np_out(f.read()) if s == size), None)


def _includes_parity(ci):
    return ci is not None and ci[0] <= 1.0


def alternating(folder, slower_by=SLOWER_BY):
    """check()'s entries from an alternating study: per size, `slower` is the median over
    rounds of the ratio within each round (raw/tool latency, tool/raw bandwidth), and each
    point carries the rounds' range and a 95 % bootstrap interval of that median as
    points_detail[i] = {"range": (lo, hi), "ci": (lo, hi) or None, "rounds": n}. Flagged:
    a like-for-like point whose median is more than `slower_by` slower and whose interval
    lies above 1.0 (an interval that includes parity does not show raw slower at all)."""
    rounds = sorted((d for d in os.listdir(folder) if d.isdigit()), key=int)
    mpis = sorted({m for r in rounds for m in os.listdir(os.path.join(folder, r))})
    out = []
    for pair in ALTERNATING:
        raw, csv_name, tool, pattern = pair["raw"], pair["csv"], pair["tool"], pair["out"]
        metric, what, like_for_like = pair["metric"], pair["what"], pair["like"]
        higher = metric in select.HIGHER_IS_BETTER
        for mpi in mpis:
            per_size = defaultdict(list)  # size: [(raw value, variant, tool value, ratio)]
            for r in rounds:
                sub = os.path.join(folder, r, mpi)
                if not os.path.exists(os.path.join(sub, csv_name)):
                    continue
                best = _raw_best(schema.read_csv(os.path.join(sub, csv_name)), raw,
                                 pair["bench"], pair["raw_column"], mpi)
                for s, (v, variant) in best.items():
                    t = _tool_value(sub, pattern, mpi, s, metric)
                    if t:
                        per_size[s].append((v, variant, t, t / v if higher else v / t))
            points, detail = [], []
            for s in sorted(per_size):
                got = per_size[s]
                ratios = [g[3] for g in got]
                mc = median_ci(ratios)
                variants = sorted({g[1] for g in got}, key=lambda x: -sum(g[1] == x for g in got))
                points.append((s, select.median([g[0] for g in got]), variants[0],
                               select.median([g[2] for g in got]), mc["median"]))
                detail.append({"range": (min(ratios), max(ratios)), "ci": mc["ci"],
                               "rounds": len(ratios)})
            if points:
                out.append({"raw": raw, "tool": tool, "what": what, "metric": metric,
                            "raw_column": pair["raw_column"],
                            "mpi": mpi, "points": points, "points_detail": detail,
                            "flagged": [p for p, d in zip(points, detail)
                                        if like_for_like and p[4] > slower_by
                                        and not _includes_parity(d["ci"])],
                            "worst": max(points, key=lambda p: p[4])})
    return out
