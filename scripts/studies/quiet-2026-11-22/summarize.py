#!/usr/bin/python3
"""Prints the tables of SUMMARY.md from the CSV files in this folder (medians; ratios
within one invocation). Usage: scripts/studies/quiet-2026-11-22/summarize.py"""
import csv
import glob
import os
import statistics

# The data this study made (this script lives in scripts/studies/, its CSVs in results/).
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "results",
                    "quiet-2026-11-22")


def load(name):
    with open(os.path.join(HERE, name)) as f:
        return list(csv.DictReader(f))


def table(name, metric, raw, title, unit):
    by = {}
    for r in load(name):
        key = r["backend"] if r["backend"].startswith("raw") else r["backend"] + ":" + r["progress"]
        by.setdefault(int(r["size_bytes"]), {})[key] = float(r[metric])
    keys = [k for k in by[min(by)] if k != raw]
    fmt = (lambda v: f"{v:.3f}") if unit == "µs" else (lambda v: f"{v:.0f}")
    print(f"\n### {title} ({name})\n")
    print("| size (B) | " + " | ".join(f"{k} {unit}" for k in keys) + f" | {raw} {unit} | "
          + " | ".join(f"{k}/raw" for k in keys) + " |")
    print("|" + "---|" * (2 * len(keys) + 2))
    for s in sorted(by):
        v = by[s]
        print(f"| {s} | " + " | ".join(fmt(v[k]) for k in keys) + f" | {fmt(v[raw])} | "
              + " | ".join(f"{v[k] / v[raw]:.2f}x" for k in keys) + " |")


def apps():
    print("\n### Applications: 2 workers, compact layout, median of 5 runs after 5 warm-up runs\n")
    print("| backend:policy | transpose-sum 8192² / 2048² wall (s) | comm (s, sum) | "
          "throughput (MB/s of comm) | merge 1e6 rows/worker wall (s) | comm (s, sum) | "
          "Mrows/s | all validated |")
    print("|---|---|---|---|---|---|---|---|")
    med = {}
    for tag in ["tcp", "mpi-cooperative", "mpi-batched", "ucx-polling", "ucx-cooperative", "ucx-event"]:
        t, m = load(f"transpose-{tag}.csv"), load(f"merge-{tag}.csv")
        tw = statistics.median(float(x["wall_s"]) for x in t)
        mw = statistics.median(float(x["wall_s"]) for x in m)
        tc = statistics.median(float(x["comm_s"]) for x in t)
        mc = statistics.median(float(x["comm_s"]) for x in m)
        tt = statistics.median(float(x["throughput_MBps"]) for x in t)
        mr = statistics.median(float(x["rows_per_s"]) for x in m) / 1e6
        ok = all(x["validated"] == "1" for x in t + m)
        med[tag] = (tw, mw)
        print(f"| {tag.replace('-', ':')} | {tw:.3f} | {tc:.3f} | {tt:.0f} | {mw:.3f} | {mc:.3f} | "
              f"{mr:.1f} | {'yes' if ok else 'NO'} |")
    best = {fam: min((v for k, v in med.items() if k.startswith(fam)), key=lambda v: v[0])
            for fam in ["tcp", "mpi", "ucx"]}
    tr = {fam: best[fam][0] / best["mpi"][0] for fam in best}
    mr = {fam: min(v[1] for k, v in med.items() if k.startswith(fam)) for fam in best}
    print(f"\nTime ratios to the best MPI policy (> 1 = MPI faster; separate invocations): "
          f"transpose-sum ucx/mpi {tr['ucx']:.2f}x, tcp/mpi {tr['tcp']:.2f}x; "
          f"merge ucx/mpi {mr['ucx'] / mr['mpi']:.2f}x, tcp/mpi {mr['tcp'] / mr['mpi']:.2f}x.")
    interleaved()
    for tag in ["mpi-batched", "ucx-polling"]:
        f = f"transpose15-{tag}.csv"
        if os.path.exists(os.path.join(HERE, f)):
            w = sorted(float(x["wall_s"]) for x in load(f))
            print(f"\n{f}: median {statistics.median(w):.3f} s, min {w[0]:.3f}, max {w[-1]:.3f} "
                  f"({len(w)} runs)")


def interleaved():
    """Backend ratios from the round-robin runs (commands.sh app-interleaved)."""
    rows = {}
    for f in sorted(glob.glob(os.path.join(HERE, "il-*.csv"))):
        app, backend = os.path.basename(f)[3:-4].rsplit("-", 1)[0].split("-", 1)
        rows.setdefault((app, backend), []).extend(load(os.path.basename(f)))
    if not rows:
        return
    print("\n### Applications, interleaved rounds (il-*.csv): medians, ratios to MPI\n")
    print("Round-robin invocations in the same minutes (an application run carries one backend).\n")
    print("| workload | column | tcp | mpi:batched | ucx:polling | tcp/mpi | ucx/mpi | runs each |")
    print("|---|---|---|---|---|---|---|---|")
    for app in ["transpose", "merge"]:
        for col in ["wall_s", "comm_s"]:
            m = {b: statistics.median(float(x[col]) for x in rows[(app, b)])
                 for b in ["tcp", "mpi-batched", "ucx-polling"]}
            print(f"| {app} | {col} | {m['tcp']:.3f} | {m['mpi-batched']:.3f} | "
                  f"{m['ucx-polling']:.3f} | {m['tcp'] / m['mpi-batched']:.2f}x | "
                  f"{m['ucx-polling'] / m['mpi-batched']:.2f}x | {len(rows[(app, 'tcp')])} |")


def side(pattern, col, unit, title):
    """One line per file: every size's coroutine / raw figure and their ratio (one invocation each)."""
    files = sorted(glob.glob(os.path.join(HERE, pattern)))
    if not files:
        return
    print(f"\n### {title} ({pattern}, {col}: coroutine / raw {unit})\n")
    for f in files:
        med = {}
        for r in load(os.path.relpath(f, HERE)):
            med.setdefault((int(r["size_bytes"]), r["backend"]), []).append(float(r[col]))
        med = {k: statistics.median(v) for k, v in med.items()}
        raw = next(b for _, b in med if b.startswith("raw"))
        ours = next(b for _, b in med if not b.startswith("raw"))
        sizes = sorted({s for s, _ in med})
        cells = [f"{s} B {med[(s, ours)]:.3f} / {med[(s, raw)]:.3f} = {med[(s, ours)] / med[(s, raw)]:.2f}x"
                 for s in sizes]
        print(f"- {os.path.basename(f)}: " + "; ".join(cells))


table("pingpong-tcp.csv", "latency_us_p50", "raw-tcp", "TCP one-way latency, p50", "µs")
table("bandwidth-tcp.csv", "bandwidth_MBps", "raw-tcp", "TCP bandwidth, median", "MB/s")
table("pingpong-mpi.csv", "latency_us_p50", "raw-mpi", "MPI one-way latency, p50", "µs")
table("bandwidth-mpi.csv", "bandwidth_MBps", "raw-mpi", "MPI bandwidth, per-message receive buffers", "MB/s")
table("bandwidth-mpi-shared.csv", "bandwidth_MBps", "raw-mpi",
      "MPI bandwidth, raw-mpi with OSU's shared receive buffer", "MB/s")
table("pingpong-mpi-mpich.csv", "latency_us_p50", "raw-mpi", "MPI one-way latency on MPICH, p50", "µs")
table("pingpong-ucx.csv", "latency_us_p50", "raw-ucx", "UCX one-way latency, p50", "µs")
table("bandwidth-ucx.csv", "bandwidth_MBps", "raw-ucx", "UCX bandwidth, per-message receive buffers", "MB/s")
apps()
side("eager-pingpong-*.csv", "latency_us_p50", "µs", "MPI inline budget, one-way latency (commands.sh mpi-eager, mpi-eager-mpich)")
side("eager-bandwidth-*.csv", "bandwidth_MBps", "MB/s", "MPI inline budget, bandwidth (commands.sh mpi-eager)")
side("shift-pingpong-mpi-*.csv", "latency_us_p50", "µs", "MPI raw latency at S and S + 20 bytes (commands.sh mpi-shift)")
side("shift-pingpong-ucx-*.csv", "latency_us_p50", "µs", "UCX payload shifted by the header (commands.sh ucx-shift)")
side("sweep-ucx-2k/pingpong-ucx-*.csv", "latency_us_p50", "µs", "UCX around 2 KiB, one invocation per size (commands.sh ucx-sweep, commit 60302d0)")
side("cma-bandwidth-ucx-*.csv", "bandwidth_MBps", "MB/s", "UCX with and without CMA (commands.sh ucx-cma)")


def ucx_repeats():
    """pingpong-ucx.csv and its two repeats (commands.sh ucx-lat-repeat): ucx:cooperative /
    raw-ucx p50 per invocation, and the median of the three."""
    files = ["pingpong-ucx.csv", "repeat-pingpong-ucx-2.csv", "repeat-pingpong-ucx-3.csv"]
    if not all(os.path.exists(os.path.join(HERE, f)) for f in files):
        return
    per = []
    for f in files:
        by = {}
        for r in load(f):
            by.setdefault(int(r["size_bytes"]), {})[r["backend"] + ":" + r["progress"]] = float(r["latency_us_p50"])
        per.append({s: v["ucx:cooperative"] / v["raw-ucx:polling"] for s, v in by.items()})
    print("\n### ucx:cooperative / raw-ucx p50, three invocations (pingpong-ucx.csv, repeat-pingpong-ucx-{2,3}.csv)\n")
    print("| size (B) | " + " | ".join(files) + " | median |")
    print("|" + "---|" * (len(files) + 2))
    for s in sorted(per[0]):
        xs = [p[s] for p in per]
        print(f"| {s} | " + " | ".join(f"{x:.2f}x" for x in xs) + f" | {statistics.median(xs):.2f}x |")

def ab_app(d):
    """An application before/after (NP=3 ab.sh): wall time of the timed part, median
    of each invocation's runs, and the median over invocations."""
    per = {}
    for f in sorted(glob.glob(os.path.join(d, "*.csv"))):
        side_name = os.path.basename(f).split("-")[0]
        rows = load(os.path.relpath(f, HERE))
        per.setdefault(side_name, []).append(statistics.median(float(r["wall_s"]) for r in rows))
        what = f"{rows[0]['benchmark']} {rows[0]['backend']}:{rows[0]['progress']}"
    print(f"\n### Before / after ({os.path.basename(d)}, ab.sh, NP=3): {what}, wall time of the timed part\n")
    for side_name in ("before", "after"):
        xs = per.get(side_name, [])
        print(f"- {side_name}: median {statistics.median(xs):.3f} s; per invocation " +
              ", ".join(f"{x:.3f}" for x in xs))


def ab():
    """ab.sh runs: per size and coroutine backend, the median over rounds of the
    within-invocation ratio to raw, before and after; and each invocation's raw 1 B level
    (this VM switches between ~0.13 and ~0.55 µs, and ratios differ with it)."""
    for d in sorted(glob.glob(os.path.join(HERE, "ab-*"))):
        if os.path.basename(d).startswith("ab-app-"):
            ab_app(d)
            continue
        ratios, levels = {}, {}
        for f in sorted(glob.glob(os.path.join(d, "*.csv"))):
            side_name = os.path.basename(f).split("-")[0]
            by = {}
            for r in load(os.path.relpath(f, HERE)):
                key = r["backend"] if r["backend"].startswith("raw") else r["backend"] + ":" + r["progress"]
                by.setdefault(int(r["size_bytes"]), {})[key] = float(r["latency_us_p50"])
            raw = next(k for k in by[min(by)] if k.startswith("raw"))
            levels.setdefault(side_name, []).append(by[min(by)][raw])
            for s, v in by.items():
                for k in v:
                    own_raw = "raw-" + k.split(":")[0]  # each backend against its own library
                    if not k.startswith("raw") and own_raw in v:
                        ratios.setdefault((s, k), {}).setdefault(side_name, []).append(v[k] / v[own_raw])
        keys = sorted({k for _, k in ratios})
        print(f"\n### Before / after ({os.path.basename(d)}, ab.sh): median over rounds of coroutine/raw latency\n")
        print(f"{raw} p50 at the smallest size, per invocation (µs): " +
              "; ".join(f"{s} " + ", ".join(f"{x:.3f}" for x in levels[s]) for s in ("before", "after") if s in levels))
        print("\n| size (B) | " + " | ".join(f"{k} before | {k} after" for k in keys) + " |")
        print("|" + "---|" * (1 + 2 * len(keys)))
        for s in sorted({s for s, _ in ratios}):
            cells = []
            for k in keys:
                for side_name in ("before", "after"):
                    xs = ratios.get((s, k), {}).get(side_name, [])
                    cells.append(f"{statistics.median(xs):.2f}x" if xs else "-")
            print(f"| {s} | " + " | ".join(cells) + " |")


ucx_repeats()
ab()
