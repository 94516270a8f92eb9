"""Which latency mode the VM was in, decided from the probe values of a whole study.

`latency_probe` (microbench/) measures a two-thread shared-memory ping-pong before every
run; reproduce stores its JSON in each sidecar's run_state. The probe itself labels a
value `fast` or `slow` against a fixed 120 ns cut. That cut split one cluster: in
results/vm-2026-11-26 every probe lay between 100 and 154 ns, a single mode, and the cut
turned it into "the VM changed mode during the study".

The rule here (results/README.md, "Latency mode"): take the probe values of every run of
a study (one-way ns, the probe's median), work on their logarithms (the modes differ by a
factor), and fit two clusters by exact one-dimensional k-means (the split of the sorted
values with the least within-cluster sum of squares). It is **two modes** only when

  - each cluster holds at least MIN_MEMBERS probes (a lone value is an outlier, reported
    as such and left out before the fit is repeated),
  - the clusters' medians differ by at least MIN_RATIO (the BRIEF's modes, ~54 and ~250 ns,
    differ 4.6x; MPI/UCX small-message latencies move 3-4x with them), and
  - the empty gap between the clusters (log of the high cluster's lowest value over the
    low cluster's highest) is at least GAP_SPREADS pooled within-cluster standard
    deviations: the clusters are separated, not one spread cut in two.

Otherwise it is one mode, and the report claims no mode change."""

import math
import statistics

MIN_MEMBERS = 2
MIN_RATIO = 2.0
GAP_SPREADS = 4.0
MAX_OUTLIER_SHARE = 0.1   # at most this share of the probes is set aside as outliers


def _best_split(logs):
    """(k, sse) of the split logs[:k] | logs[k:] of sorted values with the least
    within-cluster sum of squares (exact 2-means in one dimension)."""
    n = len(logs)
    pre, pre2 = [0.0], [0.0]
    for v in logs:
        pre.append(pre[-1] + v)
        pre2.append(pre2[-1] + v * v)

    def sse(i, j):  # of logs[i:j]
        m = j - i
        s = pre[j] - pre[i]
        return (pre2[j] - pre2[i]) - s * s / m
    best = None
    for k in range(1, n):
        total = sse(0, k) + sse(k, n)
        if best is None or total < best[1] - 1e-15:
            best = (k, total)
    return best


def classify(values, min_ratio=MIN_RATIO):
    """The study's latency mode from its probe values (ns). Returns a dict:
      modes:     1 or 2 (0 without enough probes: fewer than 2 * MIN_MEMBERS)
      clusters:  [{"median_ns", "n", "lo_ns", "hi_ns"}] low first (one entry for one mode)
      outliers:  values set aside as lone outliers
      ratio:     high/low cluster median of the best two-cluster fit (None: no fit)
      gap_sd:    the gap between them in pooled standard deviations (None: no fit)
      why:       one sentence saying what decided it
      label:     function value -> "fast" | "slow" | "one mode" | "outlier" for this study
    min_ratio: the least ratio of the cluster medians that counts as two modes (MIN_RATIO
    for the probe; scripts/regress asks for less of a benchmark metric's two states)
    """
    vals = sorted(v for v in values if v is not None and v > 0 and math.isfinite(v))
    out = {"modes": 0, "clusters": [], "outliers": [], "ratio": None, "gap_sd": None,
           "n": len(vals)}
    if len(vals) < 2 * MIN_MEMBERS:
        out["why"] = "%d probe value%s: too few to tell modes apart" % (
            len(vals), "" if len(vals) == 1 else "s")
        out["label"] = lambda v: "unknown"
        return out
    budget = int(MAX_OUTLIER_SHARE * len(vals))
    outliers = []
    while True:
        logs = [math.log(v) for v in vals]
        k, sse = _best_split(logs)
        lo, hi = vals[:k], vals[k:]
        small = lo if len(lo) < len(hi) else hi
        if len(small) < MIN_MEMBERS and len(outliers) + len(small) <= budget \
                and len(vals) - len(small) >= 2 * MIN_MEMBERS:
            outliers += small
            vals = hi if small is lo else lo
            continue
        break
    # max(): the prefix sums leave a tiny negative sum of squares for repeated values
    pooled = math.sqrt(max(sse, 0.0) / max(len(vals) - 2, 1))
    ratio = statistics.median(hi) / statistics.median(lo)
    gap = math.log(hi[0]) - math.log(lo[-1])
    gap_sd = gap / pooled if pooled > 0 else math.inf
    out.update(outliers=sorted(outliers), ratio=ratio, gap_sd=gap_sd)

    def cluster(vs):
        return {"median_ns": statistics.median(vs), "n": len(vs), "lo_ns": vs[0],
                "hi_ns": vs[-1]}
    two = min(len(lo), len(hi)) >= MIN_MEMBERS and ratio >= min_ratio and gap_sd >= GAP_SPREADS
    if two:
        cut = math.sqrt(lo[-1] * hi[0])  # geometric middle of the empty gap
        out.update(modes=2, clusters=[cluster(lo), cluster(hi)])
        out["why"] = ("two clusters, medians %.0f and %.0f ns (%.1fx apart), separated by a "
                      "gap of %.0f pooled standard deviations" % (
                          cluster(lo)["median_ns"], cluster(hi)["median_ns"], ratio, gap_sd))
        olist = set(outliers)
        out["label"] = lambda v: ("unknown" if v is None else "outlier" if v in olist
                                  else "fast" if v < cut else "slow")
    else:
        reasons = []
        if min(len(lo), len(hi)) < MIN_MEMBERS:
            reasons.append("one side of the best split holds a single probe")
        if ratio < min_ratio:
            reasons.append("its cluster medians differ only %.2fx (< %.1fx)" % (ratio, min_ratio))
        if gap_sd < GAP_SPREADS:
            reasons.append("the gap between them is %.1f pooled standard deviations (< %.0f)"
                           % (gap_sd, GAP_SPREADS))
        out.update(modes=1, clusters=[cluster(vals)])
        out["why"] = "one mode: %s" % "; ".join(reasons)
        olist = set(outliers)
        out["label"] = lambda v: ("unknown" if v is None else "outlier" if v in olist
                                  else "one mode")
    return out


def probe_values(sidecars):
    """[(sidecar, one-way ns or None)] of every sidecar that reproduce annotated."""
    out = []
    for s in sidecars:
        st = (s or {}).get("run_state") or {}
        if not st:
            continue
        p = st.get("latency_probe") or {}
        v = p.get("one_way_ns_p50")
        out.append((s, float(v) if isinstance(v, (int, float)) else None))
    return out
