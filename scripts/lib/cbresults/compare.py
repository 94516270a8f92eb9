"""Speedups in the paper's terms, from CSV rows: latency and bandwidth per size band, and
application execution / communication time per workload. A comparison between two
backends prefers rows of runs that measured both (interleaved); only without such a run
does it fall back to medians over every run."""

from collections import defaultdict

from . import ablation, select
from .sizes import band

# The policies the paper compares: MPI4Dask's cooperative progress against UCX-Py polling.
PAPER_SIDE = {"mpi": "cooperative", "ucx": "polling", "tcp": "epoll"}

# Paper's claims (CCGrid'21 MPI4Dask vs UCX-Py polling; SC'22 talk for the TCP figure).
PAPER = {
    ("mpi", "ucx", "latency", "1B-4KiB"): "5x",
    ("mpi", "ucx", "latency", "8KiB-512KiB"): "2-3x",
    ("mpi", "ucx", "bandwidth", ">=1MiB"): "3-4x",
    ("mpi", "ucx", "transpose_sum", "wall_s"): "3.47x (1-6 workers); 1.71x on 32 GPUs",
    ("mpi", "ucx", "transpose_sum", "comm_s"): "6.92x",
    ("mpi", "ucx", "merge", "wall_s"): "3.11x; SC'22: 4.94x",
    ("mpi", "ucx", "merge", "comm_s"): "3.22x; 2.91x on 32 GPUs",
    ("mpi", "tcp", "merge", "wall_s"): "26.85x (SC'22)",
}


def pick(rows, fam, benchmark):
    """Rows of `fam` at the paper's policy (or the family's most common one)."""
    cand = [r for r in rows if r["benchmark"] == benchmark and r["origin"] == "suite"
            and r["backend"] == fam and not r.get("wire")]
    want = PAPER_SIDE.get(fam)
    chosen = [r for r in cand if r["progress"] == want]
    if not chosen and cand:
        counts = defaultdict(int)
        for r in cand:
            counts[r["progress"]] += 1
        best = max(counts, key=counts.get)
        chosen = [r for r in cand if r["progress"] == best]
    return chosen


def _size_speedup(a_rows, b_rows, metric, higher_is_better, bandname):
    """Geometric mean over sizes in the band of B/A (latency) or A/B (bandwidth)."""
    res = ablation.band_ratio(a_rows, b_rows, metric, higher_is_better, bandname)
    return (res[0], res[2], res[1]) if res else (None, None, 0)


def micro_speedup(rows, fam_a, fam_b, kind, bandname, mpi):
    bench = "pingpong" if kind == "latency" else "bandwidth"
    metric = "latency_us_p50" if kind == "latency" else "bandwidth_MBps"
    rs = [r for r in rows if r["mpi"] == mpi]
    a, b = pick(rs, fam_a, bench), pick(rs, fam_b, bench)
    if not a or not b:
        return None, None, 0
    return _size_speedup(a, b, metric, kind == "bandwidth", bandname)


def app_speedup(rows, fam_a, fam_b, benchmark, metric, mpi):
    """B/A of the median over runs, geometric mean over the worker counts both ran (the
    same layout for both, the first layout they share)."""
    rs = [r for r in rows if r["mpi"] == mpi or (fam_b.startswith("dask") and r["origin"] == "external")]
    a = pick(rs, fam_a, benchmark)
    if fam_b == "dask-tcp":
        b = [r for r in rows if r["benchmark"] == benchmark and r["backend"] == "dask-tcp"]
    else:
        b = pick(rs, fam_b, benchmark)
    if not a or not b:
        return None, 0

    def index(rows_, with_layout):
        d = defaultdict(list)
        for r in rows_:
            if r.get(metric) is not None and r.get("workers"):
                d[(r.get("layout", "") if with_layout else "", int(r["workers"]))].append(r[metric])
        return d
    same_layout = fam_b != "dask-tcp"
    ia, ib = index(a, same_layout), index(b, same_layout)
    ratios = []
    for k in set(ia) & set(ib):
        va, vb = select.median(ia[k]), select.median(ib[k])
        if va and vb and va > 0:
            ratios.append(vb / va)
    g = select.geomean(ratios)
    return g, len(ratios)


def overhead_by_band(rows):
    """{(backend, progress, mpi): {band: geometric mean of coroutine/raw latency}}."""
    out = {}
    for k, per_size in select.overhead_ratios(rows).items():
        bands = defaultdict(list)
        for s, v in per_size.items():
            bands[band(s)].append(v)
        out[k] = {b: select.geomean(v) for b, v in bands.items()}
    return out
