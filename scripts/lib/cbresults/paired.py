"""Paired comparisons from CSV rows: a ratio is only ever taken between measurements of
one round (applications) or one interleaved invocation (micro-benchmarks), never between
medians of separate invocations.

Applications. `scripts/reproduce` runs the compared backends of an application in rounds:
every backend once per round, in a shuffled order, one invocation each; the round is in
the CSV's name (`<app>-<backend>-<policy>-<layout>-w<W>-r<NN>-<mpi>.csv`, see
ROUND_FILE). Per round and worker count the ratio of the two backends' values (the median
of an invocation's runs when it has several) is one sample; a claim is the median of
those samples with a bootstrap interval (stats.median_ci). CSVs from before rounds carry
no round in their name: each backend's invocation is then treated as one unpaired round,
and the table says so (one sample, no interval).

Micro-benchmarks. Each invocation of the cross-family run interleaves the backends
repetition by repetition, so each invocation gives one ratio per size; the band's
geometric mean over its sizes is one sample per invocation."""

import math
import re
from collections import defaultdict

from . import ablation, select
from .sizes import band

ROUND_FILE = re.compile(r"-r(\d+)-[A-Za-z0-9_]+\.csv$")
HIGHER_IS_BETTER = {"throughput_MBps", "rows_per_s", "bandwidth_MBps"}


def round_of(row):
    """The round a row's CSV belongs to (int), or None for a CSV without rounds."""
    m = ROUND_FILE.search(row.get("_file") or "")
    return int(m.group(1)) if m else None


def _side(rows, bench, backend, progress, mpi, metric):
    """Rows of one application series with a usable value: origin suite, the given MPI,
    compact layout where the series ran in several layouts."""
    rs = [r for r in rows if r["benchmark"] == bench and r["origin"] == "suite"
          and r["backend"] == backend and r["mpi"] == mpi and r.get("workers") is not None
          and (progress is None or r["progress"] == progress)
          and r.get(metric) is not None and math.isfinite(r[metric])
          and not (metric in HIGHER_IS_BETTER and r[metric] <= 0)]
    layouts = {r.get("layout") or "" for r in rs}
    if len(layouts) > 1:
        keep = "compact" if "compact" in layouts else sorted(layouts)[0]
        rs = [r for r in rs if (r.get("layout") or "") == keep]
    return rs


def app_pairs(rows, bench, a, b, metric, mpi):
    """{workers: {"ratios": [per round], "rounds": [round ids], "paired": bool,
    "rows": [rows used]}} of series a over b (time metrics: b/a, throughput: a/b; > 1:
    a is better). a, b: (backend, progress)."""
    ra = _side(rows, bench, a[0], a[1], mpi, metric)
    rb = _side(rows, bench, b[0], b[1], mpi, metric)

    def index(rs):
        d = defaultdict(lambda: defaultdict(list))
        for r in rs:
            d[int(r["workers"])][round_of(r)].append(r)
        return d
    ia, ib = index(ra), index(rb)
    out = {}
    for w in sorted(set(ia) & set(ib)):
        shared = sorted(k for k in set(ia[w]) & set(ib[w]) if k is not None)
        paired = bool(shared)
        if paired:
            keys = shared
            side_a, side_b = ia[w], ib[w]
        else:
            # CSVs from before rounds, or one side in rounds and the other run once: the
            # medians over every run of each side, one unpaired sample
            keys = [None]
            side_a = {None: [r for rs in ia[w].values() for r in rs]}
            side_b = {None: [r for rs in ib[w].values() for r in rs]}
        ratios, used = [], []
        for k in keys:
            va = select.median([r[metric] for r in side_a[k]])
            vb = select.median([r[metric] for r in side_b[k]])
            if not va or not vb:
                continue
            ratios.append(va / vb if metric in HIGHER_IS_BETTER else vb / va)
            used += side_a[k] + side_b[k]
        if ratios:
            out[w] = {"ratios": ratios, "rounds": keys, "paired": paired, "rows": used}
    return out


def pooled(per_w, workers):
    """Per round, the geometric mean over `workers` of that round's ratios (rounds where
    every one of them was measured); unpaired data gives its one sample."""
    if not workers:
        return []
    by_round = defaultdict(dict)
    for w in workers:
        for k, v in zip(per_w[w]["rounds"], per_w[w]["ratios"]):
            by_round[k][w] = v
    return [select.geomean(list(d.values())) for k, d in sorted(
        by_round.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)) if len(d) == len(workers)]


def micro_invocations(rows, a, b, bench, bandname, mpi):
    """[(run_id, ratio, file)] of every invocation that measured a and b: the band's
    geometric mean of the per-size ratio (latency: b/a, bandwidth: a/b)."""
    metric, higher = ("latency_us_p50", False) if bench == "pingpong" else ("bandwidth_MBps", True)
    ra = ablation.series(rows, bench, a[0], a[1], mpi) or ablation.series(rows, bench, a[0], a[1], "")
    rb = ablation.series(rows, bench, b[0], b[1], mpi) or ablation.series(rows, bench, b[0], b[1], "")
    by_a, by_b = defaultdict(list), defaultdict(list)
    for r in ra:
        by_a[r["run_id"]].append(r)
    for r in rb:
        by_b[r["run_id"]].append(r)
    out = []
    for run in sorted(set(by_a) & set(by_b)):
        res = ablation.band_ratio(by_a[run], by_b[run], metric, higher, bandname)
        if res:
            out.append((run, res[0], by_a[run][0].get("_file", "")))
    return out


def sizes_in_band(rows, bench, bandname, run_ids):
    return sorted({int(r["size_bytes"]) for r in rows if r["benchmark"] == bench
                   and r["run_id"] in run_ids and r.get("size_bytes") is not None
                   and band(int(r["size_bytes"])) == bandname})
