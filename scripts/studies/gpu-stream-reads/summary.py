#!/usr/bin/python3
"""Summarises rounds.sh (issue 30 item 2): per backend and size, each device mode's median
one-way latency over rounds [min-max], its ratio to the `sync` mode of the same timing
(blocking copies, reads complete on the host: the best of 2026-11-29; `sync-rep` for the
per-repetition modes) as the median of per-round ratios with a 95 % bootstrap interval,
and at 8 B its ratio to the issue's target, 2 x the copy floor (BRIEF section 7: 3.6 + 3.9
us, CUDA-event timed) + the same backend's host-memory latency in the same round.

  summary.py DIR        (DIR holds <mode>_<round>.csv, the unpacked rounds.tar.gz)"""

import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))

from cbresults import schema  # noqa: E402
from cbresults.stats import median_ci  # noqa: E402

COPY_FLOOR_PAIR_US = 3.6 + 3.9  # 8 B device-to-host + host-to-device, H200 (BRIEF §7)
DEVICE_MODES = ("sync", "sync-stream", "lanes-stream", "sync-rep", "sync-stream-rep")


def base_of(mode):
    """The mode a device mode is compared with: blocking copies, host-complete reads, the
    same timing."""
    return "sync-rep" if mode.endswith("-rep") else "sync"


def load(path):
    """{(backend, size): p50 one way in us} of one CSV."""
    return {(r["backend"] + (":" + r["progress"] if r.get("progress") else ""),
             int(r["size_bytes"])): r["latency_us_p50"] for r in schema.read_csv(path)}


def rounds(folder):
    """{round: {mode: rows}} from the <mode>_<round>.csv files of `folder`."""
    got = {}
    for path in glob.glob(os.path.join(folder, "*_*.csv")):
        m = re.fullmatch(r"(.+)_(\d+)\.csv", os.path.basename(path))
        if m and not m.group(1).startswith("validate"):
            got.setdefault(int(m.group(2)), {})[m.group(1)] = load(path)
    return got


def fmt_ci(s):
    if s["median"] is None:
        return ""
    if not s["ci"]:
        return "%.3f" % s["median"]
    return "%.3f [%.3f-%.3f]" % (s["median"], s["ci"][0], s["ci"][1])


def table(per_round):
    """Markdown lines."""
    keys = sorted({k for modes in per_round.values() for mode in DEVICE_MODES
                   for k in modes.get(mode, {})})
    lines = ["%d rounds; one way p50, us: median over rounds [min-max]" % len(per_round), "",
             "| backend | size | mode | one way (us) | / sync [95 % CI] | / target at 8 B [95 % CI] |",
             "|---|---:|---|---:|---:|---:|"]
    for key in keys:
        for mode in DEVICE_MODES:
            vals, to_base, to_target = [], [], []
            for modes in per_round.values():
                v = modes.get(mode, {}).get(key)
                if v is None:
                    continue
                vals.append(v)
                base = modes.get(base_of(mode), {}).get(key)
                if base and mode != base_of(mode):
                    to_base.append(v / base)
                host = modes.get("host", {}).get(key)
                if key[1] == 8 and host is not None:
                    to_target.append(v / (COPY_FLOOR_PAIR_US + host))
            if not vals:
                continue
            lines.append("| %s | %d B | %s | %.1f [%.1f-%.1f] | %s | %s |" % (
                key[0], key[1], mode, statistics.median(vals), min(vals), max(vals),
                fmt_ci(median_ci(to_base)) if to_base else "", fmt_ci(median_ci(to_target)) if to_target else ""))
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    per_round = rounds(sys.argv[1])
    if not per_round:
        sys.exit("summary.py: no <mode>_<round>.csv in " + sys.argv[1])
    print("\n".join(table(per_round)))


if __name__ == "__main__":
    main()
