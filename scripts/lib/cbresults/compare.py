"""Speedups in the paper's terms, from CSV rows: latency and bandwidth per size band, and
application execution / communication time per workload. A comparison between two
backends prefers rows of runs that measured both (interleaved); only without such a run
does it fall back to medians over every run. Each family plays its paper side
(matrix.PAPER_POLICY); the paper's values themselves live in claims.CLAIMS."""

from collections import defaultdict

from . import ablation, select
from .matrix import PAPER_POLICY
from .sizes import band

def pick(rows, fam, benchmark):
    """Rows of `fam` at the paper's policy (or the family's most common one)."""
    cand = [r for r in rows if r["benchmark"] == benchmark and r["origin"] == "suite"
            and r["backend"] == fam and not r.get("wire")]
    want = PAPER_POLICY.get(fam)
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
    """B/A of the median over runs (each family at its paper policy; "dask-tcp" is Dask's
    own LocalCluster), geometric mean over the worker counts both ran. (value, count)."""
    dask = fam_b == "dask-tcp"
    res = ablation.app_speedup(rows, (fam_a, PAPER_POLICY.get(fam_a)),
                               (fam_b, None if dask else PAPER_POLICY.get(fam_b)), benchmark,
                               metric, mpi, b_origin="external" if dask else "suite")
    return (res[0], len(res[1])) if res else (None, 0)


def overhead_by_band(rows):
    """{(backend, progress, mpi): {band: geometric mean of coroutine/raw latency}}."""
    out = {}
    for k, per_size in select.overhead_ratios(rows).items():
        bands = defaultdict(list)
        for s, v in per_size.items():
            bands[band(s)].append(v)
        out[k] = {b: select.geomean(v) for b, v in bands.items()}
    return out


def ours_vs_dask(rows, benchmark, workers=2, layout="compact"):
    """Our fastest series against Dask's LocalCluster on one workload at `workers`:
    {"ours": median wall_s, "series": (backend, progress, mpi), "dask": median wall_s,
    "ratio": dask / ours (> 1: ours faster), "wrong": rows of either that failed their
    check}; None for a side that has no such rows. Ours: every coroutine backend and
    policy under every MPI in `layout`, the lowest median over runs."""
    pts = select.app_points(rows, benchmark)
    cands = []
    for (origin, backend, progress, mpi, lay), per_w in pts.items():
        wall = (per_w.get(workers) or {}).get("wall_s")
        if origin == "suite" and lay == layout and select.family(backend) == backend and wall:
            cands.append((wall, (backend, progress, mpi)))
    # ties (the same median) go to Open MPI, then by name: the same answer every time
    mpi_rank = {"openmpi": 0, "mpich": 1}
    best = min(cands, key=lambda c: (c[0], mpi_rank.get(c[1][2], 2), c[1]), default=None)
    dask = [m.get("wall_s") for (origin, backend, _p, _m, _l), per_w in pts.items()
            if origin == "external" and backend == "dask-tcp"
            for w, m in per_w.items() if w == workers and m.get("wall_s")]
    dask_wall = select.median(dask)
    wrong = sum(1 for r in rows if r["benchmark"] == benchmark and r.get("wrong")
                and r.get("workers") == workers and (
                    (r["origin"] == "external" and r["backend"] == "dask-tcp") or (
                        best and r["origin"] == "suite" and (r["backend"], r["progress"],
                                                             r["mpi"]) == best[1]
                        and (r.get("layout") or "") == layout)))
    return {"ours": best[0] if best else None, "series": best[1] if best else None,
            "dask": dask_wall, "ratio": dask_wall / best[0] if best and dask_wall else None,
            "wrong": wrong}
