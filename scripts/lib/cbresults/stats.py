"""Uncertainty for the claims table: the median of paired ratios with a percentile
bootstrap confidence interval.

Why a bootstrap: a claim's ratio is the median over rounds (or invocations) of ratios taken
inside one round, and the median has no closed-form interval worth trusting at 5-20
samples; resampling the rounds themselves makes no assumption about their distribution
(this VM's is lumpy: latency modes, time slices). Why a fixed seed: the same CSVs must give
the same report, byte for byte, so a rerun of `scripts/report` changes nothing and a diff
of two reports shows only what the data changed."""

import math
import random
import statistics

SEED = 20261126          # any fixed number: reports are reproducible, not tuned
RESAMPLES = 4000         # percentile ends move by < 1 % of the interval beyond this
LEVEL = 0.95


def percentile(sorted_values, q):
    """The q-quantile (0..1) of already sorted values, linear between order statistics."""
    if not sorted_values:
        raise ValueError("percentile of nothing")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_ci(values, stat=statistics.median, level=LEVEL, resamples=RESAMPLES, seed=SEED):
    """(low, high) of a percentile bootstrap interval of `stat` over `values`, or None with
    fewer than two values (one value has no spread to resample). The same values in any
    order give the same interval: they are sorted before resampling."""
    vals = sorted(v for v in values if v is not None and math.isfinite(v))
    if len(vals) < 2:
        return None
    rng = random.Random(seed)
    n = len(vals)
    stats_ = sorted(stat([vals[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    tail = (1.0 - level) / 2
    return percentile(stats_, tail), percentile(stats_, 1.0 - tail)


def median_ci(values, **kw):
    """{"median", "ci": (lo, hi) or None, "n"} of ratios (geometric ones: the bootstrap
    runs on their logarithms, so 2x and 0.5x are equally far from 1)."""
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return {"median": None, "ci": None, "n": 0}
    logs = [math.log(v) for v in vals]
    ci = bootstrap_ci(logs, **kw)
    return {"median": math.exp(statistics.median(logs)),
            "ci": (math.exp(ci[0]), math.exp(ci[1])) if ci else None, "n": len(vals)}


def spread(values):
    """(min, max) of the values, or None: the null experiment's spread."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return (min(vals), max(vals)) if vals else None
