#!/usr/bin/env python3
"""plot_soak.py OUT_DIR [BACKEND...]: reads OUT_DIR/soak-BACKEND.csv (written by
`soak --csv`), fits RSS and heap-in-use against connect/close cycles by least squares
over the samples after warm-up (the first fifth of the run, as soak's default --warmup),
prints the slopes in KiB per 1,000 cycles and draws OUT_DIR/rss_vs_cycles.png: one
panel per backend, RSS and heap in use against cycles, the fitted line over the window.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


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
    fig, axes = plt.subplots(1, len(backends), figsize=(5 * len(backends), 4.2), squeeze=False)
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
        ax.plot(kc, d["rss_kib"] / 1024, ".", ms=3, label="RSS")
        ax.plot(kc, d["heap_used_kib"] / 1024, ".", ms=3, label="heap in use (mallinfo2)")
        xs = d["cycles"][keep]
        ax.plot(xs / 1000, (s_rss / 1000 * xs + i_rss) / 1024, "-", color="k", lw=1,
                label=f"RSS fit: {s_rss:.1f} KiB / 1,000 cycles")
        ax.axvline(kc[first], color="grey", ls=":", lw=1)
        ax.set_title(f"{b}: {int(d['cycles'][-1]):,} cycles in {d['seconds'][-1] / 60:.1f} min")
        ax.set_xlabel("connect/close cycles (thousands)")
        ax.set_ylabel("MiB")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("soak: memory vs connect/close cycles (dotted: end of warm-up)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "rss_vs_cycles.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv)
