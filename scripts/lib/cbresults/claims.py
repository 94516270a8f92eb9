"""The claims table: one row per claim of the MPI4Dask paper (CCGrid'21) and the SC'22
talk, the paper's value, ours under the same definition from this study run, the run that
made it, and a plain verdict that names the ablation row accounting for the difference.

Roles (matrix.PAPER_POLICY): MPI4Dask is played by mpi:cooperative, UCX-Py (polling) by
ucx:polling, Dask's TCP by tcp:epoll. A claim whose runs are missing (or, with a "needs"
entry in its spec, whose workload does not exist yet) says "pending" and never shows a
number."""

import math

from . import ablation
from .matrix import PAPER_POLICY
from .sizes import BANDS

# Reproduced: ours reaches the paper's value (its lower end) within this factor.
REPRODUCED_WITHIN = 1.5

MPI4DASK, UCXPY, DASKTCP = ((f, PAPER_POLICY[f]) for f in ("mpi", "ucx", "tcp"))

# source, claim, paper's value as written, its lower end, how ours is measured
CLAIMS = (
    ("Fig 5a", "small-message latency, 1 B-4 KiB", "5x", 5.0,
     {"kind": "latency", "band": BANDS[0], "vs": UCXPY}),
    ("Fig 5b", "medium-message latency, 8 KiB-512 KiB", "2-3x", 2.0,
     {"kind": "latency", "band": BANDS[1], "vs": UCXPY}),
    ("Fig 5c", "bandwidth, >= 1 MiB", "3-4x", 3.0,
     {"kind": "bandwidth", "band": BANDS[2], "vs": UCXPY}),
    ("Fig 7a", "transpose-sum execution time", "3.47x", 3.47,
     {"kind": "app", "bench": "transpose_sum", "metric": "wall_s", "vs": UCXPY}),
    ("Fig 7b", "transpose-sum communication time", "6.92x", 6.92,
     {"kind": "app", "bench": "transpose_sum", "metric": "comm_s", "vs": UCXPY}),
    ("Fig 7c", "transpose-sum throughput (bytes moved / communication time)", "5.17x", 5.17,
     {"kind": "app", "bench": "transpose_sum", "metric": "throughput_MBps", "vs": UCXPY}),
    ("Fig 8a", "merge execution time", "3.11x", 3.11,
     {"kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY}),
    ("Fig 8b", "merge communication time", "3.22x", 3.22,
     {"kind": "app", "bench": "merge", "metric": "comm_s", "vs": UCXPY}),
    ("Fig 8c", "merge throughput (joined rows / execution time)", "3.82x", 3.82,
     {"kind": "app", "bench": "merge", "metric": "rows_per_s", "vs": UCXPY}),
    ("Frontera", "transpose-sum execution time, 32 GPUs (1-32 workers)", "1.71x", 1.71,
     {"kind": "app", "bench": "transpose_sum", "metric": "wall_s", "vs": UCXPY,
      "largest": True}),
    ("Frontera", "merge execution time, 32 GPUs (1-32 workers)", "2.91x", 2.91,
     {"kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY, "largest": True}),
    ("SC'22", "merge vs UCX", "4.94x", 4.94,
     {"kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY}),
    ("SC'22", "merge vs TCP", "26.85x", 26.85,
     {"kind": "app", "bench": "merge", "metric": "wall_s", "vs": DASKTCP}),
    ("SC'22", "matrix multiply vs UCX", "4.24x", 4.24,
     {"kind": "app", "bench": "matmul", "metric": "wall_s", "vs": UCXPY}),
    ("SC'22", "matrix multiply vs TCP", "10.02x", 10.02,
     {"kind": "app", "bench": "matmul", "metric": "wall_s", "vs": DASKTCP}),
)


def measure(rows, spec, mpi):
    """Ours for one claim under one MPI: (value, where, files) or (None, reason, [])."""
    vs = spec["vs"]
    if spec.get("needs"):
        return None, "pending: needs %s" % spec["needs"], []
    if spec["kind"] in ("latency", "bandwidth"):
        bench = "pingpong" if spec["kind"] == "latency" else "bandwidth"
        res = ablation.speedup(rows, MPI4DASK, vs, bench, spec["band"], mpi)
        if not res:
            return None, "pending: needs a %s run of mpi:cooperative and %s:%s under %s" % (
                bench, vs[0], vs[1], mpi), []
        g, n, how, files = res
        return g, "%d sizes, %s" % (n, how), files
    bench, metric = spec["bench"], spec["metric"]
    workers = None
    if spec.get("largest"):
        ws = set(ablation.app_metric(rows, "mpi", "cooperative", bench, metric, mpi)) & set(
            ablation.app_metric(rows, vs[0], vs[1], bench, metric, mpi))
        workers = max(ws) if ws else None
    res = ablation.app_speedup(rows, MPI4DASK, vs, bench, metric, mpi, workers)
    if not res:
        return None, "pending: needs %s runs of mpi:cooperative and %s:%s under %s" % (
            bench, vs[0], vs[1], mpi), []
    g, ws, files = res
    return g, "%s worker%s" % (",".join(str(w) for w in ws), "" if ws == [1] else "s"), files


def oversubscribed(rows, spec, mpi, cpus):
    """The application runs behind a claim put more ranks on the host than it has CPUs."""
    if not cpus or spec["kind"] != "app":
        return False
    ranks = [r["ranks"] for r in rows if r["benchmark"] == spec["bench"] and r["mpi"] == mpi
             and r["origin"] == "suite" and r.get("ranks")]
    return bool(ranks) and max(ranks) > cpus


def verdict(rows, claim, mpi, value, cpus=None):
    """Reproduced or not, and which ablation row accounts for the difference."""
    source, what, _paper, low, spec = claim
    if value is None:
        return "pending"
    text = _verdict(rows, claim, mpi, value)
    if oversubscribed(rows, spec, mpi, cpus):
        text += (" These application runs oversubscribe the host (more ranks than its %d "
                 "CPUs; see *Machine state*)%s." % (
                     cpus, ": MPICH's MPI spins instead of yielding when oversubscribed, "
                     "which the mpi backend pays in time slices" if mpi == "mpich" else ""))
    return text


def _verdict(rows, claim, mpi, value):
    source, what, _paper, low, spec = claim
    ok = value >= low / REPRODUCED_WITHIN
    head = "**reproduced here**" if ok else "**not reproduced here**"
    if spec["vs"] == DASKTCP:
        lang = [r for r in ablation.language_rows(rows) if r["mpi"] == mpi and
                r["title"].startswith("Dask LocalCluster") and spec.get("bench", "") in r["title"]]
        if lang:
            slower = lang[0]["slower"][0]
            return ("%s. Accounted for by the *language layer* row: our tcp:epoll is C++, "
                    "Dask's TCP side is Python; Dask's own LocalCluster on TCP runs this "
                    "workload %.1fx slower than our runtime on tcp:epoll, so against Dask's "
                    "TCP the factor would be about %.1fx." % (head, slower, value * slower))
        return ("%s. Accounted for by the *language layer* row (Dask's own TCP run is "
                "missing from this study run)." % head)
    if spec["kind"] == "app":
        f = ablation.factors(rows, mpi, "app", bench=spec["bench"], metric=spec["metric"])
    else:
        f = ablation.factors(rows, mpi, spec["kind"], bandname=spec["band"])
    parts = []
    if f.get("progress"):
        parts.append("progress %s (ucx:cooperative over ucx:polling)" % ablation.fx(f["progress"]))
    if f.get("transport"):
        parts.append("transport %s (%s)" % (ablation.fx(f["transport"]),
                                            "raw-mpi over raw-ucx" if spec["kind"] != "app"
                                            else "mpi:cooperative over ucx:cooperative"))
    if f.get("layer"):
        parts.append("coroutine layers %s" % ablation.fx(f["layer"]))
    split = "; split: " + ", ".join(parts) if parts else ""
    if ok:
        big = max(((k, v) for k, v in f.items() if k != "total" and v),
                  key=lambda kv: abs(math.log(kv[1])), default=None)
        return "%s%s. Carried mostly by the *%s* row." % (head, split, big[0]) if big else head
    p = f.get("progress")
    if p:
        why = ("Accounted for by the *progress* row: the paper credits its win to cooperative "
               "progress against UCX-Py's separate polling coroutine, and here, in C++, "
               "that design difference is worth %s%s (a loop turn costs nanoseconds, not a "
               "Python event-loop turn: see the *language layer* rows)" % (
                   ablation.fx(p), ", i.e. polling is the faster design here" if p < 1 else ""))
    else:
        why = "Accounted for by the *progress* row (not measured in this run)"
    others = [(k, v) for k, v in f.items() if k not in ("total", "progress") and v]
    if others:
        k, v = max(others, key=lambda kv: abs(math.log(kv[1])))
        why += "; the largest other factor is *%s* at %s" % (
            "transport" if k == "transport" else "coroutine layers", ablation.fx(v))
    if spec["kind"] != "app" and f.get("transport") and f["transport"] < 1:
        why += " (UCX's shared-memory path beats MPI's on one host)"
    why += "; the *network* section (below) shows the same comparison across hosts"
    return "%s%s. %s." % (head, split, why)


def table(rows, cpus=None):
    """Markdown: claim | paper | ours per MPI | run | verdict per MPI. `cpus`: the host's
    CPUs (from the sidecars), to flag oversubscribed application runs."""
    mp = ablation.mpis(rows) or ["openmpi"]
    lines = ["| source | claim | paper | " + " | ".join("ours (%s)" % m for m in mp) +
             " | run | verdict |", "|---|---|---|" + "---|" * len(mp) + "---|---|"]
    for claim in CLAIMS:
        source, what, paper, _low, spec = claim
        cells, files, verdicts = [], set(), []
        for m in mp:
            v, where, fs = measure(rows, spec, m)
            cells.append(("%.2fx (%s)" % (v, where)) if v is not None else where)
            files |= set(fs)
            if v is not None:
                verdicts.append("%s: %s" % (m, verdict(rows, claim, m, v, cpus)))
        if not verdicts:
            verdicts = ["pending"]
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            source, what, paper, " | ".join(cells),
            ", ".join("`%s`" % f for f in sorted(files)) or "–", " ".join(verdicts)))
    return "\n".join(lines)
