"""What scripts/plot draws, from CSV rows alone: which rows make which figure, the points
with their spread over repetitions, and the outlier rule. Standard library only (the
drawing, with matplotlib, is in scripts/plot), so the rules are unit-testable.

Series key: (origin, backend, progress, wire, mpi) for the microbenchmarks, plus layout
and problem size for the applications."""

import math
import statistics
from collections import defaultdict

from .matrix import APPS, PAPER_POLICY, SCALING
from .select import family, series_label
from .sizes import fmt_size

FAMILIES = ("mpi", "ucx", "tcp")  # the paper's order: MPI4Dask, UCX(-Py), TCP
MPI_ORDER = ("openmpi", "mpich")
MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH", "": "no MPI"}
MAX_SERIES = 6  # per panel; beyond it a figure is split

# External tools by the family whose latency figure they belong to.
EXTERNAL_FAMILY = {"ucx_perftest": "ucx", "NPtcp": "tcp", "dask-tcp": "tcp", "NPmpi": "mpi",
                   "osu": "mpi", "mpi4py": "mpi"}

# External tools with one way of running: their label needs no progress policy.
SINGLE_MODE_TOOLS = ("NPtcp", "NPmpi", "osu", "dask-tcp")


def external_family(backend):
    if backend in EXTERNAL_FAMILY:
        return EXTERNAL_FAMILY[backend]
    b = backend.lower()
    for needle, fam in (("ucx", "ucx"), ("mpi", "mpi"), ("osu", "mpi"), ("tcp", "tcp"),
                        ("dask", "tcp"), ("netpipe", "tcp")):
        if needle in b:
            return fam
    return None


def families_in(rows):
    """The backend families the suite measured in `rows`: the paper's three first, in its
    order, then any other (a fourth backend gets its figures with no change here)."""
    found = {family(r["backend"]) for r in rows
             if r.get("origin") == "suite" and r.get("backend")}
    return [f for f in FAMILIES if f in found] + sorted(found - set(FAMILIES))


def series_family(key):
    origin, backend = key[0], key[1]
    return external_family(backend) if origin == "external" else family(backend)


def is_raw(key):
    return key[0] == "suite" and key[1].startswith("raw-")


def is_external(key):
    return key[0] == "external"


def _finite(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


# --- micro series ----------------------------------------------------------------------

def micro_key(r):
    return (r["origin"], r["backend"], r["progress"] or "", r.get("wire") or "", r["mpi"] or "")


def label(key, show_wire=False):
    """Legend text, without brackets (captions end up in Markdown image text)."""
    origin, backend, progress, wire, mpi = key[:5]
    if origin == "external":
        if backend == "ucx_perftest":
            name = "ucx_perftest -E %s" % progress
        elif backend in SINGLE_MODE_TOOLS or not progress:
            name = backend
        else:  # e.g. mpi4py blocking / mpi4py asyncio
            name = "%s %s" % (backend, progress)
        return name + " (external)"
    name = series_label((origin, backend, progress, mpi), with_mpi=False)
    if show_wire and wire and not backend.startswith("raw-"):
        name += " (%s wire)" % wire
    return name


def order(key):
    """Legend order: the paper's policy first, other policies, raw baseline, externals."""
    fam = series_family(key) or "~"
    fi = FAMILIES.index(fam) if fam in FAMILIES else len(FAMILIES)
    if is_external(key):
        return (2, fi, key[1], key[2], key[3], key[4])
    if is_raw(key):
        return (1, fi, key[1], "", key[3], key[4])
    return (0, fi, 0 if PAPER_POLICY.get(fam) == key[2] else 1, key[2], key[3], key[4])


class Point:
    """One plotted point: the central value, the spread (lo, hi; None: no bar), how
    many rows (repetitions or runs) it summarises, and whether they ran oversubscribed
    (True / False; None: not known)."""
    __slots__ = ("y", "lo", "hi", "n", "over")

    def __init__(self, y, lo=None, hi=None, n=1, over=None):
        self.y, self.lo, self.hi, self.n, self.over = y, lo, hi, n, over

    def __repr__(self):
        return "Point(%g, %s, %s, n=%d)" % (self.y, self.lo, self.hi, self.n)


def spread_point(values):
    """Median of values (runs), min..max as the spread when there are several."""
    several = len(values) > 1
    return Point(statistics.median(values), min(values) if several else None,
                 max(values) if several else None, len(values))


# metric -> (lower-spread column, upper-spread column)
SPREAD_COLUMNS = {
    "latency_us_p50": ("latency_us_min", "latency_us_p99"),
    "bandwidth_MBps": ("bandwidth_MBps_min", "bandwidth_MBps_max"),
}


def micro_point(rows, metric):
    """Median over rows of the metric; spread: the lowest lower-spread column and the
    highest upper one (latency: fastest sample .. 99th percentile; bandwidth: slowest ..
    fastest repetition), pooled over the rows."""
    ys = [r[metric] for r in rows if _finite(r.get(metric))]
    if not ys:
        return None
    lo_col, hi_col = SPREAD_COLUMNS.get(metric, (None, None))
    los = [r[lo_col] for r in rows if lo_col and _finite(r.get(lo_col))]
    his = [r[hi_col] for r in rows if hi_col and _finite(r.get(hi_col))]
    y = statistics.median(ys)
    lo = min(los + ys) if los or len(ys) > 1 else None
    hi = max(his + ys) if his or len(ys) > 1 else None
    return Point(y, lo, hi, len(ys))


def micro_rows(rows, benchmarks, metric, lo=None, hi=None):
    out = []
    for r in rows:
        if r["benchmark"] not in benchmarks or not _finite(r.get(metric)):
            continue
        if r.get("size_bytes") is None or r[metric] <= 0:
            continue
        s = int(r["size_bytes"])
        if (lo is not None and s < lo) or (hi is not None and s > hi):
            continue
        out.append(r)
    return out


def run_families(rows):
    """{run_id: set of suite backend families in that run}."""
    fams = defaultdict(set)
    for r in rows:
        if r["origin"] == "suite":
            fams[r["run_id"]].add(family(r["backend"]))
    return fams


def series_points(rows, metric):
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        acc[micro_key(r)][int(r["size_bytes"])].append(r)
    out = {}
    for k, by_size in acc.items():
        pts = {s: micro_point(rs, metric) for s, rs in sorted(by_size.items())}
        pts = {s: p for s, p in pts.items() if p}
        if pts:
            out[k] = pts
    return out


def family_selection(rows, fam):
    """Family F's policies and raw baseline from the runs that measured F alone (the
    family's interleaved invocation; several such runs are pooled), else from every run
    that has F; plus the external tools of F."""
    rf = run_families(rows)
    suite = [r for r in rows if r["origin"] == "suite" and family(r["backend"]) == fam]
    own = [r for r in suite if rf[r["run_id"]] == {fam}]
    note = ""
    if not own and suite:
        own = suite
        note = ("No run measured this family alone; drawn from the cross-family run(s).")
    ext = [r for r in rows if r["origin"] == "external" and external_family(r["backend"]) == fam]
    return own + ext, {r["run_id"] for r in own}, note


def compare_selection(rows):
    """The paper's sides (mpi:cooperative, ucx:polling, tcp:epoll; a family without that
    policy: its first policy measured) and every raw baseline, from the cross-family
    interleaved run(s); without one, from the family runs, with a note that families then
    were measured in different invocations. External tools of no known family too."""
    rf = run_families(rows)
    suite = [r for r in rows if r["origin"] == "suite"]
    cross = [r for r in suite if len(rf[r["run_id"]]) > 1]
    note = ""
    if not cross:
        cross = suite
        if len({family(r["backend"]) for r in suite}) > 1:
            note = ("These CSVs hold no cross-family interleaved run: families come from "
                    "separate invocations, so their absolute values do not compare exactly.")
    policies = defaultdict(list)
    for r in cross:
        if not r["backend"].startswith("raw-") and r["progress"] not in policies[r["backend"]]:
            policies[r["backend"]].append(r["progress"])
    chosen = {}
    for b, pols in policies.items():
        want = PAPER_POLICY.get(b)
        chosen[b] = want if want in pols else sorted(pols)[0]
    wires = defaultdict(set)
    for r in cross:
        wires[(r["backend"], r["progress"])].add(r.get("wire") or "")
    picked = []
    for r in cross:
        b = r["backend"]
        if b.startswith("raw-"):
            picked.append(r)
        elif r["progress"] == chosen.get(b):
            # several wires for one policy: the default (empty / packed) one
            ws = wires[(b, r["progress"])]
            if len(ws) > 1 and (r.get("wire") or "") not in ("", "packed"):
                continue
            picked.append(r)
    ext = [r for r in rows if r["origin"] == "external" and external_family(r["backend"]) is None]
    return picked + ext, {r["run_id"] for r in picked}, note


def overhead_points(rows, benchmark="pingpong", metric="latency_us_p50"):
    """Coroutine / raw ratio taken only within a run (same run_id, family, size, MPI):
    {key: {size: Point(median over runs, min, max)}}; runs: the run_ids used."""
    raw = {}
    for r in rows:
        if (r["benchmark"] == benchmark and r["origin"] == "suite"
                and r["backend"].startswith("raw-") and _finite(r.get(metric)) and r[metric] > 0):
            raw[(r["run_id"], family(r["backend"]), r["mpi"], int(r["size_bytes"]))] = r[metric]
    acc = defaultdict(lambda: defaultdict(list))
    runs = set()
    for r in rows:
        if (r["benchmark"] != benchmark or r["origin"] != "suite"
                or r["backend"].startswith("raw-") or not _finite(r.get(metric))):
            continue
        base = raw.get((r["run_id"], r["backend"], r["mpi"], int(r["size_bytes"])))
        if base:
            acc[micro_key(r)][int(r["size_bytes"])].append(r[metric] / base)
            runs.add(r["run_id"])
    return {k: {s: spread_point(v) for s, v in sorted(by_size.items())}
            for k, by_size in acc.items()}, runs


# --- applications ----------------------------------------------------------------------

APP_BENCHMARKS_KNOWN = APPS  # the study's order: transpose_sum, merge, groupby, sort, matmul


def app_benchmarks(rows):
    """The study's applications in its order, then any other benchmark with wall_s."""
    have = []
    for r in rows:
        if _finite(r.get("wall_s")) and r.get("workers") is not None and r["benchmark"] not in have:
            have.append(r["benchmark"])
    known = [b for b in APP_BENCHMARKS_KNOWN if b in have]
    return known + sorted(b for b in have if b not in APP_BENCHMARKS_KNOWN)


def app_key(r):
    return micro_key(r) + (r.get("layout") or "",)


def app_throughput_metric(rows):
    """throughput_MBps (transpose-sum) or rows_per_s (merge): whichever has values."""
    counts = {m: sum(1 for r in rows if _finite(r.get(m)) and r[m] > 0)
              for m in ("throughput_MBps", "rows_per_s")}
    best = max(counts, key=lambda m: counts[m])
    return best if counts[best] else None


def app_points(rows, metric, benchmark=None):
    """{key: {workers: Point(median over runs, min, max)}} of one benchmark's rows (all
    rows without `benchmark`). Zeros are kept (communication time at one worker is a
    measured 0; a log axis leaves them out); empty values are skipped."""
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if benchmark is not None and r["benchmark"] != benchmark:
            continue
        v = r.get(metric)
        if not _finite(v) or r.get("workers") is None:
            continue
        if metric in ("throughput_MBps", "rows_per_s") and v <= 0:
            continue  # appbench writes 0 when nothing crossed the wire: not applicable
        acc[app_key(r)][int(r["workers"])].append(v)
    return {k: {w: spread_point(v) for w, v in sorted(ws.items())} for k, ws in acc.items()}


def machines_by_run(sidecars):
    """{run_id: {"cpus_online", "oversubscribed"}} from JSON sidecars: the `machine`
    block the benchmarks write (cpus_online also from the sidecar itself or the
    run_state that reproduce adds)."""
    out = {}
    for s in sidecars:
        if not isinstance(s, dict) or not s.get("run_id"):
            continue
        m = s.get("machine") or {}
        cpus = m.get("cpus_online") or s.get("cpus_online") or (
            s.get("run_state") or {}).get("cpus_online")
        out[s["run_id"]] = {"cpus_online": cpus, "oversubscribed": m.get("oversubscribed")}
    return out


def row_oversubscribed(r, machines):
    """Did this row's run put more busy processes on a host than it has CPUs? The suite's
    runs are one worker count each and say so in their sidecar (per host, so right across
    hosts too); a run of several worker counts (Dask's LocalCluster, all on this host) is
    judged per row: ranks > the CPUs online. None when no sidecar tells."""
    m = machines.get(r.get("run_id"))
    if not m:
        return None
    if r.get("origin") == "suite" and m.get("oversubscribed") is not None:
        return bool(m["oversubscribed"])
    if _finite(r.get("ranks")) and m.get("cpus_online"):
        return r["ranks"] > m["cpus_online"]
    return m.get("oversubscribed")


def scaling_points(rows, benchmark, machines, metric="wall_s"):
    """{key: {workers: Point}} of one benchmark's `metric` (median over runs, min..max),
    each point flagged `over` when any of its rows ran oversubscribed (None: unknown)."""
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["benchmark"] != benchmark or not _finite(r.get(metric)) or r.get("workers") is None:
            continue
        acc[app_key(r)][int(r["workers"])].append(r)
    out = {}
    for k, ws in acc.items():
        out[k] = {}
        for w, rs in sorted(ws.items()):
            p = spread_point([r[metric] for r in rs])
            flags = [row_oversubscribed(r, machines) for r in rs]
            p.over = True if any(flags) else (False if flags and all(
                f is False for f in flags) else None)
            out[k][w] = p
    return out


def scaling_kind(benchmark):
    """'strong' or 'weak' for the study's workloads, None for others."""
    return SCALING.get(benchmark)


def app_label(key, show_layout=False, show_wire=False):
    base = label(key[:5], show_wire)
    if show_layout and key[5] and key[0] == "suite":
        base += " (%s layout)" % key[5]
    return base


# --- splitting crowded figures -----------------------------------------------------------

def identity(key):
    """A series apart from its MPI: the same line in every MPI panel."""
    return key[:4] + key[5:]


def identities(keys):
    """The distinct identities of keys (sorted by `order`), first seen first."""
    ids = []
    for k in keys:
        if identity(k) not in ids:
            ids.append(identity(k))
    return ids


def is_paper_side(key):
    """The paper's policy of its family, on the default (empty / packed) wire."""
    return PAPER_POLICY.get(family(key[1])) == key[2] and key[3] in ("", "packed")


def split_series(keys, max_series=MAX_SERIES):
    """[(suffix, keys)]: all keys in one figure when each panel (MPI) fits; else the
    paper's sides with the raw baselines and externals under no suffix, and one figure per
    family ('_mpi', ...) with that family's series."""
    keys = sorted(keys, key=order)
    ids = identities(keys)
    if len(ids) <= max_series:
        return [("", keys)]
    main = [i for i in ids if is_external(i) or is_raw(i) or is_paper_side(i)]
    if len(main) > max_series:
        main = [i for i in main if not is_raw(i)]
    main = main[:max_series]
    out = [("", [k for k in keys if identity(k) in main])] if main else []
    fams = list(FAMILIES) + sorted({series_family(i) or "other" for i in ids}
                                           - set(FAMILIES))
    for fam in fams:
        fi = [i for i in ids if (series_family(i) or "other") == fam and i[0] != "external"]
        if len(fi) > 1 or (fi and fi[0] not in main):
            for j in range(0, len(fi), max_series):
                chunk = fi[j:j + max_series]
                out.append(("_%s%s" % (fam, "" if j == 0 else "_%d" % (j // max_series + 1)),
                            [k for k in keys if identity(k) in chunk]))
    return out


# --- the outlier rule --------------------------------------------------------------------

GAP = 10.0        # an empty decade between the bulk and a point
MAX_FRACTION = 0.25  # at most a quarter of a figure's points can be outliers


def outlier_bounds(values, gap=GAP, max_fraction=MAX_FRACTION):
    """(lo, hi) of the robust bulk of positive values: sorted on a log scale, the values
    beyond the first gap wider than `gap` (x10: an empty decade) on either side of the
    median are outliers, provided they are at most `max_fraction` of all values (more is
    a second mode of the data, not an outlier; then the next gap further out is tried).
    Values outside [lo, hi] are outliers. None when there are no positive values."""
    vs = sorted(v for v in values if _finite(v) and v > 0)
    if not vs:
        return None
    n = len(vs)
    limit = max_fraction * n
    m = (n - 1) // 2
    hi_i = n - 1
    for i in range(m, n - 1):
        if vs[i + 1] / vs[i] > gap and n - 1 - i <= limit:
            hi_i = i
            break
    lo_i = 0
    for i in range(m, 0, -1):
        if vs[i] / vs[i - 1] > gap and i <= limit:
            lo_i = i
            break
    return vs[lo_i], vs[hi_i]


def fmt_value(v, unit):
    """A value with its unit for outlier labels: µs turn into ms or s where large."""
    if unit == "µs" and v >= 1000:
        return ("%.3g ms" % (v / 1000)) if v < 1e6 else ("%.3g s" % (v / 1e6))
    if unit == "x":
        return "%.3gx" % v
    return ("%.3g %s" % (v, unit)).strip()


def fmt_bytes(b):
    """4 B, 4 KiB, 1 MiB (power-of-1024 units where exact)."""
    t = fmt_size(b)
    return t[:-1] + " " + t[-1] + "iB" if t[-1] in "KMG" else t + " B"


def fmt_x(x, kind):
    return fmt_bytes(x) if kind == "size" else "%d %s" % (x, "worker" if x == 1 else "workers")
