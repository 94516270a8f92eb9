#!/usr/bin/env python3
"""plot_soak.py OUT_DIR [BACKEND...]: reads OUT_DIR/soak-BACKEND.csv (written by
`soak --csv`), fits RSS and heap-in-use against connect/close cycles by least squares
over the samples after warm-up (the first fifth of the run, as soak's default --warmup),
prints the slopes in KiB per 1,000 cycles and draws OUT_DIR/rss_vs_cycles.png: one
panel per backend, RSS and heap in use against cycles (KiB since the end of warm-up),
the fitted line over the window and the 64 KiB per 1,000 cycles limit beside it.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


LIMIT = 64  # KiB per 1,000 cycles: soak.sh's --max-slope-kib-per-kcycle


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"plot_soak.py: error: {path} has no samples")
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0] if k != "backend"}


def fit(d, column, warmup_fraction=0.2):
    """Slope (KiB per 1,000 cycles) and intercept over the samples after warm-up."""
    keep = d["seconds"] >= warmup_fraction * d["seconds"][-1]
    if keep.sum() < 3:
        raise SystemExit("plot_soak.py: error: fewer than 3 samples after warm-up")
    slope, icpt = np.polyfit(d["cycles"][keep], d[column][keep], 1)
    return 1000 * slope, icpt, keep


def main(argv):
    if len(argv) < 2:
        raise SystemExit("usage: plot_soak.py OUT_DIR [BACKEND...]")
    out = argv[1]
    backends = argv[2:] or ["tcp", "ucx", "mpi"]
    fig, axes = plt.subplots(1, len(backends), figsize=(5 * len(backends) + 0.5, 4.4), squeeze=False)
    print("backend,cycles,minutes,rss_start_kib,rss_end_kib,rss_slope_kib_per_kcycle,"
          "heap_used_slope_kib_per_kcycle")
    for ax, b in zip(axes[0], backends):
        d = load(os.path.join(out, f"soak-{b}.csv"))
        s_rss, i_rss, keep = fit(d, "rss_kib")
        s_heap, _, _ = fit(d, "heap_used_kib")
        first = np.argmax(keep)
        print(f"{b},{int(d['cycles'][-1])},{d['seconds'][-1] / 60:.1f},"
              f"{int(d['rss_kib'][first])},{int(d['rss_kib'][-1])},{s_rss:.1f},{s_heap:.1f}")
        kc = d["cycles"] / 1000
        # Everything relative to the first sample after warm-up, so that the limit line
        # (what a failing backend would at least climb) and the data share one scale.
        x0 = d["cycles"][first]
        ax.plot(kc, d["rss_kib"] - d["rss_kib"][first], ".", ms=3, label="RSS")
        ax.plot(kc, d["heap_used_kib"] - d["heap_used_kib"][first], ".", ms=3,
                label="heap in use (mallinfo2)")
        xs = d["cycles"][keep]
        base = s_rss / 1000 * x0 + i_rss
        ax.plot(xs / 1000, s_rss / 1000 * xs + i_rss - base, "-", color="k", lw=1,
                label=f"RSS fit: {s_rss:.1f} KiB / 1,000 cycles")
        ax.plot(xs / 1000, LIMIT / 1000 * (xs - x0), "--", color="tab:red", lw=1,
                label=f"limit: {LIMIT} KiB / 1,000 cycles")
        ax.axvline(kc[first], color="grey", ls=":", lw=1, label="end of warm-up (a fifth of the run)")
        ax.set_title(f"{b}: {int(d['cycles'][-1]):,} cycles in {d['seconds'][-1] / 60:.1f} min")
        ax.set_xlabel("connect/close cycles (thousands)")
        ax.set_ylabel("KiB since the end of warm-up")
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle("soak: memory against connect/close cycles")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "rss_vs_cycles.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv)
