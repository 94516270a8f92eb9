"""The ablation that explains the paper's claims, from CSV rows alone: the same transport
under each progress policy, MPI4Dask's per-frame wire against the packed one, the
transports under their closest policies, and the language layer (mpi4py, an asyncio
Isend/Test loop, Dask's own TCP comm) measured in the same study run.

Every figure is a ratio taken inside one interleaved run where the CSV has one (the VM's
latency modes move absolute numbers 3-4x, not ratios); where two series only ever ran in
separate invocations, each is first normalised by the raw baseline of its own run, or the
table says "separate runs"."""

from collections import defaultdict

from . import select
from .matrix import APPS
from .sizes import BANDS, band

def series(rows, bench, backend, progress, mpi=None):
    """Rows of one series; `progress` may carry the wire (select.progress_label)."""
    return [r for r in rows if r["benchmark"] == bench and r["backend"] == backend
            and select.progress_label(r) == progress and (mpi is None or r["mpi"] == mpi)]


def _metric(bench):
    return ("latency_us_p50", False) if bench == "pingpong" else ("bandwidth_MBps", True)


def band_ratio(ra, rb, metric, higher, bandname):
    """How much better rows ra are than rb over a size band (a/b when higher is better,
    else b/a): per size the median over the runs that measured both (interleaved), or,
    without such a run, the ratio of the medians over every run of each; then the
    geometric mean over the sizes. Returns (value, sizes, how, runs used) or None."""
    def index(rs):
        d = defaultdict(lambda: defaultdict(list))
        for r in rs:
            if r.get(metric) and band(int(r["size_bytes"])) == bandname:
                d[r["run_id"]][int(r["size_bytes"])].append(r[metric])
        return d
    ia, ib = index(ra), index(rb)
    per_size = defaultdict(list)
    shared = set(ia) & set(ib)
    how = "interleaved" if shared else "separate runs"
    if shared:
        for run in shared:
            for s in set(ia[run]) & set(ib[run]):
                va, vb = select.median(ia[run][s]), select.median(ib[run][s])
                per_size[s].append(va / vb if higher else vb / va)
    else:
        ma, mb = defaultdict(list), defaultdict(list)
        for d, m in ((ia, ma), (ib, mb)):
            for run in d:
                for s, v in d[run].items():
                    m[s] += v
        for s in set(ma) & set(mb):
            va, vb = select.median(ma[s]), select.median(mb[s])
            per_size[s].append(va / vb if higher else vb / va)
    vals = [select.median(v) for v in per_size.values()]
    g = select.geomean(vals)
    return (g, len(vals), how, shared or set(ia) | set(ib)) if g else None


def speedup(rows, a, b, bench, bandname, mpi):
    """How much faster series a is than b over a size band: latency b/a, bandwidth a/b.
    a, b: (backend, progress). Returns (value, sizes, how, files) or None."""
    metric, higher = _metric(bench)
    # External tools have no MPI of their own in some CSVs: match them on any MPI.
    ra = series(rows, bench, a[0], a[1], mpi) or series(rows, bench, a[0], a[1], "")
    rb = series(rows, bench, b[0], b[1], mpi) or series(rows, bench, b[0], b[1], "")
    res = band_ratio(ra, rb, metric, higher, bandname)
    if not res:
        return None
    g, n, how, runs = res
    files = sorted({r.get("_file", "") for r in ra + rb if r.get("run_id") in runs} - {""})
    return g, n, how, files


def added_us(rows, a, b, bandname, mpi):
    """Median over the band's sizes of latency(a) - latency(b), in us, from runs that
    measured both (else from every run of each): what a adds per message over b."""
    ra = series(rows, "pingpong", a[0], a[1], mpi) or series(rows, "pingpong", a[0], a[1], "")
    rb = series(rows, "pingpong", b[0], b[1], mpi) or series(rows, "pingpong", b[0], b[1], "")

    def by_size(rs):
        d = defaultdict(list)
        for r in rs:
            if r.get("latency_us_p50") and band(int(r["size_bytes"])) == bandname:
                d[int(r["size_bytes"])].append(r["latency_us_p50"])
        return {s: select.median(v) for s, v in d.items()}
    da, db = by_size(ra), by_size(rb)
    diffs = [da[s] - db[s] for s in set(da) & set(db)]
    return select.median(diffs) if diffs else None


def app_metric(rows, backend, progress, bench, metric, mpi, origin="suite"):
    """{workers: median of metric over runs} of one application series (progress None:
    any), from select.app_points; where a series ran in several layouts, compact's."""
    pts = select.app_points([r for r in rows if r["backend"] == backend and r["origin"] == origin
                             and (progress is None or r["progress"] == progress)
                             and (origin == "external" or r["mpi"] == mpi)], bench)
    if not pts:
        return {}
    key = min(pts, key=lambda k: (k[4] != "compact", k))
    return {w: m[metric] for w, m in pts[key].items() if metric in m}


HIGHER_IS_BETTER = {"throughput_MBps", "rows_per_s", "bandwidth_MBps"}


def app_speedup(rows, a, b, bench, metric, mpi, workers=None, b_origin="suite"):
    """How much better series a is than b on an application metric (time: b/a,
    throughput: a/b), geometric mean over the worker counts both ran (or only `workers`).
    Returns (value, worker counts, files) or None."""
    ma = app_metric(rows, a[0], a[1], bench, metric, mpi)
    mb = app_metric(rows, b[0], b[1], bench, metric, mpi, origin=b_origin)
    ws = sorted(set(ma) & set(mb))
    if workers is not None:
        ws = [w for w in ws if w == workers]
    vals, used = [], []
    for w in ws:
        va, vb = ma[w], mb[w]
        if va and vb:  # one worker moves nothing: no communication time to compare
            vals.append(va / vb if metric in HIGHER_IS_BETTER else vb / va)
            used.append(w)
    g = select.geomean(vals)
    if not g:
        return None
    ws = used
    files = sorted({r.get("_file", "") for r in rows if r["benchmark"] == bench
                    and r["backend"] in (a[0], b[0]) and r.get("workers") in
                    [float(w) for w in ws]} - {""})
    return g, ws, files


def mpis(rows):
    """The MPI implementations of the suite's rows, Open MPI first (the default build)."""
    order = {"openmpi": 0, "mpich": 1}
    return sorted({r["mpi"] for r in rows if r["origin"] == "suite" and r["mpi"]},
                  key=lambda m: (order.get(m, 2), m))


def fx(v):
    return "%.2fx" % v if v else "–"


def _cell(res):
    if not res:
        return "–"
    g, n, how, _files = res
    return "%s%s" % (fx(g), " (separate runs)" if how == "separate runs" else "")


def progress_rows(rows):
    """Same transport, each policy: coroutine / raw latency per band and the cost the
    layer adds per small message in ns (median over 1 B-4 KiB of coroutine - raw)."""
    out = []
    for (backend, prog, mpi), per_size in sorted(select.overhead_ratios(rows).items()):
        if "wire=" in prog:
            continue
        bands = defaultdict(list)
        for s, v in per_size.items():
            bands[band(s)].append(v)
        ns = added_us(rows, (backend, prog), ("raw-" + backend, _raw_progress(rows, backend)),
                      BANDS[0], mpi)
        out.append({"backend": backend, "policy": prog, "mpi": mpi,
                    "bands": {b: select.geomean(v) for b, v in bands.items()},
                    "added_ns_small": ns * 1000 if ns is not None else None})
    return out


def _raw_progress(rows, backend):
    """The raw variant that stands for `backend`'s baseline: the one that was fastest at
    the most ping-pong sizes of runs that measured several (the ratios' ceiling), else
    the one the rows have."""
    counts = defaultdict(int)
    for (raw, _mpi), per in select.raw_choices(rows).items():
        if raw == "raw-" + backend:
            for variant, n in per.items():
                counts[variant] += n
    if counts:
        return max(sorted(counts), key=counts.get)
    for r in rows:
        if r["backend"] == "raw-" + backend and r["origin"] == "suite":
            return r["progress"]
    return ""


def wire_rows(rows):
    """MPI4Dask's three messages per write (wire=per-frame) against the packed wire:
    each normalised by raw-mpi of its own run, then per-frame over packed."""
    ob = select.overhead_ratios(rows)
    out = []
    for (backend, prog, mpi), per_frame in sorted(ob.items()):
        if backend != "mpi" or "wire=per-frame" not in prog:
            continue
        packed = ob.get((backend, prog.split(",")[0], mpi))
        if not packed:
            continue
        bands = defaultdict(list)
        for s in set(per_frame) & set(packed):
            bands[band(s)].append(per_frame[s] / packed[s])
        raw_lat = [r["latency_us_p50"] for r in rows if r["backend"] == "raw-mpi"
                   and r["mpi"] == mpi and r["benchmark"] == "pingpong"
                   and r.get("latency_us_p50") and int(r["size_bytes"]) <= 4096]
        small = [per_frame[s] - packed[s] for s in set(per_frame) & set(packed) if s <= 4096]
        ns = (select.median(small) * select.median(raw_lat) * 1000
              if small and raw_lat else None)
        out.append({"mpi": mpi, "policy": prog.split(",")[0],
                    "bands": {b: select.geomean(v) for b, v in bands.items()},
                    "added_ns_small": ns})
    return out


TRANSPORT_PAIRS = (
    (("mpi", "cooperative"), ("ucx", "cooperative"), "mpi:cooperative vs ucx:cooperative"),
    (("mpi", "cooperative"), ("tcp", "epoll"), "mpi:cooperative vs tcp:epoll"),
    (("ucx", "cooperative"), ("tcp", "epoll"), "ucx:cooperative vs tcp:epoll"),
    (("raw-mpi", "blocking"), ("raw-ucx", None), "raw-mpi vs raw-ucx (no coroutine layer)"),
    (("raw-mpi", "blocking"), ("raw-tcp", None), "raw-mpi vs raw-tcp (no coroutine layer)"),
)


def transport_rows(rows):
    """mpi vs ucx vs tcp under the closest policies, and their raw libraries."""
    out = []
    for a, b, title in TRANSPORT_PAIRS:
        a = (a[0], a[1] or _raw_progress(rows, a[0][4:]))
        b = (b[0], b[1] or _raw_progress(rows, b[0][4:]))
        for mpi in mpis(rows):
            cells = {}
            for bench, bandname in (("pingpong", BANDS[0]), ("pingpong", BANDS[1]),
                                    ("bandwidth", BANDS[2]), ("bibw", BANDS[2])):
                cells[(bench, bandname)] = speedup(rows, a, b, bench, bandname, mpi)
            if any(cells.values()):
                out.append({"title": title, "mpi": mpi, "cells": cells})
    return out


# The language layer: what Python adds per message, beside the C++ series it mirrors.
LANGUAGE_PAIRS = (
    (("mpi4py", "blocking"), ("raw-mpi", "blocking"),
     "mpi4py Send/Recv vs raw-mpi (the Python binding)"),
    (("mpi4py", "asyncio"), ("mpi4py", "blocking"),
     "mpi4py asyncio Isend/Test loop vs mpi4py Send/Recv (MPI4Dask's coroutine in Python)"),
    (("mpi4py", "asyncio"), ("mpi", "cooperative"),
     "mpi4py asyncio loop vs mpi:cooperative (the same design in Python and in C++)"),
    (("dask-tcp", "asyncio"), ("tcp", "epoll"),
     "Dask's TCP comm vs tcp:epoll (Dask's comm layer against ours)"),
)


def language_rows(rows):
    out = []
    for a, b, title in LANGUAGE_PAIRS:
        for mpi in mpis(rows):
            res = speedup(rows, b, a, "pingpong", BANDS[0], mpi)  # how much slower a is
            add = added_us(rows, a, b, BANDS[0], mpi)
            if res:
                out.append({"title": title, "mpi": mpi, "slower": res, "added_us": add})
    for bench in APPS:
        for mpi in mpis(rows):
            res = app_speedup(rows, ("tcp", "epoll"), ("dask-tcp", None), bench, "wall_s", mpi,
                              b_origin="external")
            if res:
                out.append({"title": "Dask LocalCluster (TCP) vs ours on tcp:epoll, %s wall "
                            "time" % bench, "mpi": mpi,
                            "slower": (res[0], len(res[1]), "separate runs", res[2]),
                            "added_us": None})
    return out


def factors(rows, mpi, kind, bandname=None, bench=None, metric=None):
    """The paper's MPI4Dask-over-UCX-Py factor split into its parts, all from one run:
    total = progress (ucx:polling over ucx:cooperative, same transport)
          x transport+layer (ucx:cooperative over mpi:cooperative);
    for micro-benchmarks the second part splits further into the raw libraries
    (raw-ucx over raw-mpi) and what the coroutine layers add on top."""
    if kind == "app":
        def sp(a, b):
            r = app_speedup(rows, a, b, bench, metric, mpi)
            return r[0] if r else None
        return {"total": sp(("mpi", "cooperative"), ("ucx", "polling")),
                "progress": sp(("ucx", "cooperative"), ("ucx", "polling")),
                "transport": sp(("mpi", "cooperative"), ("ucx", "cooperative"))}
    b = "pingpong" if kind == "latency" else "bandwidth"

    def sp(a, b_):
        r = speedup(rows, a, b_, b, bandname, mpi)
        return r[0] if r else None
    total = sp(("mpi", "cooperative"), ("ucx", "polling"))
    prog = sp(("ucx", "cooperative"), ("ucx", "polling"))
    raw = sp(("raw-mpi", "blocking"), ("raw-ucx", _raw_progress(rows, "ucx")))
    layer = total / (prog * raw) if total and prog and raw else None
    return {"total": total, "progress": prog, "transport": raw, "layer": layer}
