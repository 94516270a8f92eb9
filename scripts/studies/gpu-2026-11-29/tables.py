#!/usr/bin/python3
"""Tables and a figure for one run of scripts/gpu/run_gpu_bench.sh and the MPS run after it (their unpacked tarballs).

  tables.py RESULTS_DIR OUT_DIR     (RESULTS_DIR: results/gpu-2026-11-29, with run1/ and mps/)

Writes OUT_DIR/tables.md (the probe per mechanism and scheduling mode; ping-pong latency
per path x backend x size with its spread; bandwidth; the staged 8 B message against
issue 30's target) and OUT_DIR/latency.png (+ .pdf): median one-way latency against size,
one panel per backend, host memory beside each device path."""

import csv
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# CSV path under the results folder (no .csv) -> how the run moved device memory, in table
# order. run1: run_gpu_bench.sh (no MPS); mps: mps_pingpong.sh (under NVIDIA's MPS daemon).
CONFIGS = [
    ("run1/pingpong_host", "host memory"),
    ("run1/pingpong_cuda_staged", "staged, lane copies, no MPS (auto)"),
    ("run1/pingpong_cuda_staged_synccopy", "staged, blocking copies <= 64 KiB, no MPS (auto)"),
    ("run1/pingpong_cuda_staged_spin", "staged, lane copies (spin)"),
    ("run1/pingpong_cuda_staged_synccopy_spin", "staged, blocking copies (spin)"),
    ("run1/pingpong_cuda_staged_blocking", "staged, lane copies (blocking)"),
    ("run1/pingpong_cuda_staged_synccopy_blocking", "staged, blocking copies (blocking)"),
    ("mps/mps_lanes_1", "MPS: staged, lane copies (1st)"),
    ("mps/mps_lanes_2", "MPS: staged, lane copies (2nd)"),
    ("mps/mps_sync_1", "MPS: staged, blocking copies (1st)"),
    ("mps/mps_sync_2", "MPS: staged, blocking copies (2nd)"),
    ("mps/mps_host", "MPS run: host memory"),
    ("cuda-ipc/pingpong_cuda_staged_mps", "MPS: staged, lane copies (3rd)"),
    ("cuda-ipc/pingpong_cuda_ipc", "cuda-ipc, no MPS"),
    ("cuda-ipc/pingpong_cuda_ipc_mps", "MPS: cuda-ipc"),
    ("run1/pingpong_cuda_ucxcuda_passthrough", "pass-through, CUDA-aware UCX"),
    ("run1/pingpong_cuda_ucxcuda_passthrough_daskcuda", "pass-through, UCX as Dask-CUDA sets it"),
]
STAGED = [c for c in CONFIGS if "staged" in c[1]]
BW_CONFIGS = [
    ("run1/bandwidth_host", "host memory"),
    ("run1/bandwidth_cuda_staged", "staged"),
    ("cuda-ipc/bandwidth_cuda_ipc", "cuda-ipc, no MPS"),
    ("run1/bandwidth_cuda_ucxcuda_passthrough", "pass-through, CUDA-aware UCX"),
    ("run1/bandwidth_cuda_ucxcuda_passthrough_daskcuda", "pass-through, UCX as Dask-CUDA sets it"),
]
# The copy floor issue 30 states (PyTorch, async copies timed with CUDA events on the H200).
EVENT_FLOOR = 3.6 + 3.9
SIZES = [8, 64, 512, 4096, 32768, 65536, 262144, 4 << 20]
BW_SIZES = [1 << 20, 4 << 20, 16 << 20, 64 << 20]


def size_name(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def rows(raw, stem):
    path = os.path.join(raw, stem + ".csv")
    if not os.path.exists(path):
        return []
    return list(csv.DictReader(open(path)))


def series(raw, stem):
    """{backend: {size: row}} for a ping-pong or bandwidth CSV."""
    out = {}
    for r in rows(raw, stem):
        key = r["backend"] + (":" + r["progress"] if r["backend"] == "ucx" else "")
        out.setdefault(key, {})[int(r["size_bytes"])] = r
    return out


def probe_table(raw):
    probes = {}
    for f in sorted(glob.glob(os.path.join(raw, "run1", "cuda_sync_probe_*.json"))):
        try:
            j = json.load(open(f))
        except ValueError:
            continue
        probes[j["schedule_requested"]] = j
    if not probes:
        return ["No cuda_sync_probe output."], None
    modes = [m for m in ("auto", "spin", "yield", "blocking") if m in probes]
    first = probes[modes[0]]
    lines = [
        "Device: %s (cc %s), driver %s, runtime %s. Host-observed time of one call sequence,"
        " median [10th-90th percentile] of %d, microseconds." % (
            first["device"], first["cc"], first["driver"], first["runtime"], first["iters"]),
        "",
        "| mechanism | bytes | " + " | ".join("%s (%s)" % (m, probes[m]["schedule"]) for m in modes) + " |",
        "|---|---:|" + "---:|" * len(modes),
    ]
    keys = [(r["mechanism"], r["bytes"]) for r in first["results"]]
    for mech, n in keys:
        cells = []
        for m in modes:
            hit = [r for r in probes[m]["results"] if r["mechanism"] == mech and r["bytes"] == n]
            cells.append("%.1f [%.1f-%.1f]" % (hit[0]["median_us"], hit[0]["p10_us"], hit[0]["p90_us"])
                         if hit else "-")
        lines.append("| %s | %d | %s |" % (mech, n, " | ".join(cells)))
    return lines, probes


def size_table(raw, configs, sizes, cell):
    """| path | backend | one column per size |: cell(row) formats a CSV row's value."""
    lines = ["| path | backend | " + " | ".join(size_name(s) for s in sizes) + " |",
             "|---|---|" + "---:|" * len(sizes)]
    for stem, label in configs:
        for backend, by_size in sorted(series(raw, stem).items()):
            cells = [cell(by_size[s]) if s in by_size else "" for s in sizes]
            lines.append("| %s | %s | %s |" % (label, backend, " | ".join(cells)))
    return lines


def latency_cell(r):
    if not r["latency_us_p50"]:
        return ""
    bad = "" if r["wrong"] in ("", "0") else " (%s wrong)" % r["wrong"]
    return "%.1f [%.1f-%.1f]%s" % (float(r["latency_us_p50"]), float(r["latency_us_min"]),
                                  float(r["latency_us_p90"]), bad)


def bandwidth_cell(r):
    if not r["bandwidth_MBps"]:
        return ""
    return "%.0f [%.0f-%.0f]" % (float(r["bandwidth_MBps"]), float(r["bandwidth_MBps_min"] or 0),
                                 float(r["bandwidth_MBps_max"] or 0))


def target_table(raw, probes):
    """Issue 30 item 2: staged 8 B <= 2 x (copy floor) + the backend's host latency."""
    if not probes:
        return []
    # The copy floor as the host sees it: the cheaper of the two ways to copy 8 B each way,
    # under the default mode (auto), as a staged message needs one copy per side.
    res = probes.get("auto", next(iter(probes.values())))["results"]

    def best(prefix):
        c = [r["median_us"] for r in res if r["bytes"] == 8 and r["mechanism"].startswith(prefix)
             and "submit" not in r["mechanism"]]
        return min(c) if c else float("nan")
    floor = best("d2h_") + best("h2d_")
    lines = ["Issue 30's target: 2 x the copy floor (CUDA-event timed, BRIEF section 7: 8 B"
             " device-to-host 3.6 us + host-to-device 3.9 us = %.1f us) + the backend's host 8 B"
             " latency in the same run. Beside it the floor as the host waits for it (run1's probe, auto"
             " mode: the cheapest 8 B device-to-host + host-to-device mechanism) = %.1f us." % (EVENT_FLOOR, floor),
             "",
             "| path | backend | staged 8 B p50 | host 8 B p50 | target | staged / target |"
             " host-observed floor + host | staged / that |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for stem, label in STAGED:
        # The host row of the same call (the cuda-ipc call had none: run1's).
        host = series(raw, "mps/mps_host" if stem.startswith("mps/") else "run1/pingpong_host")
        for backend, by_size in sorted(series(raw, stem).items()):
            r, h = by_size.get(8), host.get(backend, {}).get(8)
            if not r or not h:
                continue
            v, hv = float(r["latency_us_p50"]), float(h["latency_us_p50"])
            target, seen = EVENT_FLOOR + hv, floor + hv
            lines.append("| %s | %s | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f |" % (
                label, backend, v, hv, target, v / target, seen, v / seen))
    return lines


def figure(raw, out):
    backends = ["tcp", "ucx:cooperative", "mpi"]
    named = dict(CONFIGS)
    shown = [(k, named[k]) for k in ("run1/pingpong_host", "run1/pingpong_cuda_staged", "mps/mps_lanes_2",
                                    "mps/mps_sync_2", "cuda-ipc/pingpong_cuda_ipc_mps",
                                    "run1/pingpong_cuda_ucxcuda_passthrough")]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    for ax, b in zip(axes, backends):
        for stem, label in shown:
            by = series(raw, stem).get(b)
            if not by:
                continue
            xs = sorted(by)
            ys = [float(by[x]["latency_us_p50"]) for x in xs]
            lo = [float(by[x]["latency_us_p50"]) - float(by[x]["latency_us_min"]) for x in xs]
            hi = [float(by[x]["latency_us_p90"]) - float(by[x]["latency_us_p50"]) for x in xs]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=3, capsize=2, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(b)
        ax.set_xlabel("message size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("one-way latency, median (us); bars: min to p90")
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Ping-pong on one H200, two ranks sharing it: host memory and device memory by path"
                 " (MPS: NVIDIA's multi-process service)")
    fig.tight_layout(rect=(0, 0.12, 1, 0.95))
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(out, "latency." + ext), dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tables.py RESULTS_DIR OUT_DIR")
    raw, out = sys.argv[1], sys.argv[2]
    probe_lines, probes = probe_table(raw)
    text = ["# GPU run tables (generated by scripts/studies/gpu-2026-11-29/tables.py)", "",
            "## What one small copy costs as the host waits for it (cuda_sync_probe)", ""]
    text += probe_lines
    text += ["", "## Staged 8 B against issue 30's target", ""] + target_table(raw, probes)
    text += ["", "## Ping-pong one-way latency, median [min-p90], microseconds", ""] + size_table(raw, CONFIGS, SIZES, latency_cell)
    text += ["", "## Bandwidth, MB/s, median [min-max] over repetitions", ""] + size_table(raw, BW_CONFIGS, BW_SIZES, bandwidth_cell)
    open(os.path.join(out, "tables.md"), "w").write("\n".join(text) + "\n")
    figure(raw, out)


if __name__ == "__main__":
    main()
