"""Per-iteration samples (pingpong --samples FILE): reading them and the empirical CDF of
each (backend:progress, size) series, for scripts/plot --samples."""

import csv
from collections import defaultdict


def load(path):
    """{(label, size_bytes): [one-way latency in us, ...]} where label is backend:progress,
    with @idle where the entry named a rule (files before the idle column have none)."""
    series = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            label = "%s:%s" % (r["backend"], r["progress"])
            if r.get("idle"):
                label += "@" + r["idle"]
            series[(label, int(r["size_bytes"]))].append(float(r["ns"]) / 1000.0)
    return dict(series)


def cdf(values):
    """(sorted values, cumulative fractions in (0, 1]): the empirical CDF's steps."""
    xs = sorted(values)
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


def pick_sizes(sizes, at_most=6):
    """At most `at_most` sizes spread over the sweep, always the smallest and largest."""
    sizes = sorted(set(sizes))
    if len(sizes) <= at_most:
        return sizes
    step = (len(sizes) - 1) / (at_most - 1)
    return sorted({sizes[round(i * step)] for i in range(at_most)})
