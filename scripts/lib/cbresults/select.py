"""Picking and aggregating rows for figures, the report and the regression gate. Everything
here works from CSV rows alone."""

import math
import operator
import statistics
from collections import defaultdict


def is_raw(row):
    return row["backend"].startswith("raw-")


def family(backend):
    return backend[4:] if backend.startswith("raw-") else backend


def progress_label(row):
    """The policy, plus the wire shape where a run chose one (`--backend-opt wire=...`,
    e.g. mpi's per-frame wire of the wire ablation), plus the idle rule where the entry
    named one (`ucx:polling@spin`): such rows are another series, not more samples of the
    default wire or the run's own idle rule."""
    label = row["progress"]
    wire = row.get("wire") or ""
    if row.get("origin") == "suite" and wire:
        label = "%s,wire=%s" % (label, wire)
    idle = row.get("idle") or ""
    if row.get("origin") == "suite" and idle:
        label = "%s@%s" % (label, idle)
    return label


def series_key(row):
    """What one line of a figure stands for: backend, policy (and wire), MPI, origin."""
    return (row["origin"], row["backend"], progress_label(row), row["mpi"])


# A raw baseline's textbook loop keeps its bare name in legends and tables (its series
# predate the variants); any other variant is named: raw-tcp:busy-poll, raw-ucx:sleep.
PLAIN_RAW_VARIANTS = ("blocking", "polling")


def series_label(key, with_mpi=True):
    origin, backend, progress, mpi = key
    raw_plain = backend.startswith("raw-") and progress in PLAIN_RAW_VARIANTS + ("",)
    name = backend if (not progress or raw_plain or progress == "blocking"
                       and origin == "external") else "%s:%s" % (backend, progress)
    if origin == "external" and backend == "ucx_perftest":
        name = "ucx_perftest -E %s" % progress
    if with_mpi and mpi:
        name += " (%s)" % mpi
    return name


def median(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return statistics.median(values) if values else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def curves(rows, benchmark, metric, lo=None, hi=None):
    """{series key: {size: median metric over every row of that series and size}}."""
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["benchmark"] != benchmark or r.get(metric) is None or r.get("size_bytes") is None:
            continue
        s = int(r["size_bytes"])
        if (lo is not None and s < lo) or (hi is not None and s > hi):
            continue
        acc[series_key(r)][s].append(r[metric])
    return {k: {s: median(v) for s, v in sorted(d.items())} for k, d in acc.items()}


HIGHER_IS_BETTER = {"bandwidth_MBps", "bandwidth_MBps_min", "bandwidth_MBps_max",
                    "throughput_MBps", "rows_per_s"}


def raw_ceilings(rows, benchmark="pingpong", metric="latency_us_p50"):
    """The raw baseline a ratio is taken against: per (run_id, family, size) the fastest
    of the raw variants that run measured (lowest latency, highest bandwidth), as
    {(run_id, family, size): (value, variant)}. A baseline is a ceiling only in its
    fastest form (raw-tcp busy-polling beats NetPIPE's blocking loop at small sizes)."""
    higher = metric in HIGHER_IS_BETTER
    best = {}
    for r in rows:
        if r["benchmark"] != benchmark or r["origin"] != "suite" or not is_raw(r) \
                or not r.get(metric):
            continue
        key = (r["run_id"], family(r["backend"]), int(r["size_bytes"]))
        v = r[metric]
        if key not in best or (v > best[key][0] if higher else v < best[key][0]):
            best[key] = (v, r["progress"])
    return best


def raw_choices(rows, benchmark="pingpong", metric="latency_us_p50"):
    """{(raw backend, mpi): {variant: sizes at which it was the fastest}}, over every run
    that measured more than one variant: what the report says the ratios were taken
    against."""
    variants = defaultdict(set)
    for r in rows:
        if r["benchmark"] == benchmark and r["origin"] == "suite" and is_raw(r):
            variants[(r["run_id"], family(r["backend"]))].add(r["progress"])
    mpi_of = {r["run_id"]: r["mpi"] for r in rows}
    out = defaultdict(lambda: defaultdict(int))
    for (run, fam, _s), (_v, variant) in raw_ceilings(rows, benchmark, metric).items():
        if len(variants[(run, fam)]) > 1:
            out[("raw-" + fam, mpi_of.get(run, ""))][variant] += 1
    return {k: dict(v) for k, v in out.items()}


def excess_ns(value_us, base_us):
    """How much longer than its raw baseline, in ns (from two latencies in us)."""
    return (value_us - base_us) * 1000.0


def overhead_ratios(rows, benchmark="pingpong", metric="latency_us_p50",
                    combine=operator.truediv):
    """Coroutine / raw ratio of the same family, taken only between rows of the same run
    (interleaved, so both saw the same machine state) and against the fastest raw variant
    of that run (raw_ceilings): {(backend, progress, mpi): {size: median ratio over runs}}.
    combine=excess_ns: the difference in ns instead of the ratio."""
    raw = {k: v for k, (v, _variant) in raw_ceilings(rows, benchmark, metric).items()}
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["benchmark"] != benchmark or r["origin"] != "suite" or is_raw(r) or not r.get(metric):
            continue
        base = raw.get((r["run_id"], r["backend"], int(r["size_bytes"])))
        if base:
            acc[(r["backend"], progress_label(r), r["mpi"])][int(r["size_bytes"])].append(
                combine(r[metric], base))
    return {k: {s: median(v) for s, v in sorted(d.items())} for k, d in acc.items()}


APP_METRICS = ("wall_s", "comm_s", "comm_s_max_worker", "throughput_MBps", "rows_per_s")


def app_points(rows, benchmark):
    """{(origin, backend, progress, mpi, layout): {workers: {metric: median over runs}}}."""
    acc = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        if r["benchmark"] != benchmark or r.get("workers") is None:
            continue
        key = (r["origin"], r["backend"], r["progress"], r["mpi"], r.get("layout", ""))
        for m in APP_METRICS:
            v = r.get(m)
            # appbench writes throughput 0 when nothing crossed the wire (one worker):
            # that is "not applicable", not a measured zero.
            if v is not None and not (m in ("throughput_MBps", "rows_per_s") and v <= 0):
                acc[key][int(r["workers"])][m].append(v)
    return {k: {w: {m: median(v) for m, v in d.items()} for w, d in sorted(ws.items())}
            for k, ws in acc.items()}


def app_label(key):
    origin, backend, progress, mpi, layout = key
    name = backend if not progress else "%s:%s" % (backend, progress)
    if mpi:
        name += " (%s)" % mpi
    if layout and origin == "suite":
        name += " [%s]" % layout
    return name
