"""Per-iteration samples (pingpong --samples FILE): reading them, and the empirical CDF of
each (backend:progress, size) series for scripts/plot --samples."""

import csv
import gzip
import os
from collections import defaultdict


def rows(path):
    """Every sample as (backend, progress, idle, size_bytes, rep, one-way us); PATH or, when
    only that exists, PATH.gz (committed studies keep their samples compressed). Files from
    before the idle column read idle as ''."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        f = gzip.open(path + ".gz", "rt", newline="")
    else:
        f = open(path, newline="")
    with f:
        for r in csv.DictReader(f):
            yield (r["backend"], r["progress"], r.get("idle") or "", int(r["size_bytes"]),
                   int(r["rep"]), float(r["ns"]) / 1000.0)


def load(path):
    """{(label, size_bytes): [one-way latency in us, ...]} where label is backend:progress,
    with @idle where the entry named a rule."""
    series = defaultdict(list)
    for backend, progress, idle, size, _rep, us in rows(path):
        label = "%s:%s" % (backend, progress) + ("@" + idle if idle else "")
        series[(label, size)].append(us)
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
