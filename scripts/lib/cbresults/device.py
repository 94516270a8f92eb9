"""Device memory in a study (issue 30, item 7): the report's GPU rows. One row per GPU path,
memory pair and backend with the median one-way latency at a few sizes and the bandwidth at
64 MiB, from the rows whose buffers were device memory (memory_send or memory_recv cuda), and
the same backends' host-memory rows beside them; staged runs with stream-ordered reads are
a series of their own. Medians over the study's runs of each
series, with min-max when there are several. A run under NVIDIA's MPS daemon (its sidecar's
environment names CUDA_MPS_PIPE_DIRECTORY) is a series of its own: ranks sharing one GPU
without MPS pay a GPU time slice per small copy (157 against 17 us one way at 8 B,
results/gpu-2026-11-29). Empty when the study moved no device memory."""

import statistics

LATENCY_SIZES = (8, 65536, 4 << 20)
BANDWIDTH_SIZE = 64 << 20


def _key(r, mps_runs, stream_runs=frozenset()):
    path = r["gpu_path"] or "none"
    if r["run_id"] in stream_runs and path == "staged":
        path += ", stream-ordered reads"
    if r["run_id"] in mps_runs:
        path += " (MPS)"
    return (path, "%s->%s" % (r["memory_send"], r["memory_recv"]),
            r["backend"] + (":" + r["progress"] if r["progress"] else ""))


def _cell(values, fmt):
    if not values:
        return ""
    m = statistics.median(values)
    if len(values) == 1:
        return fmt % m
    return (fmt + " [" + fmt + "-" + fmt + "]") % (m, min(values), max(values))


def table(rows, sidecars=()):
    """Markdown lines, or [] when no row moved device memory. `sidecars` (their run_id and
    environment) tell the runs under MPS."""
    mps_runs = {s.get("run_id") for s in sidecars
                if "CUDA_MPS_PIPE_DIRECTORY" in (s.get("environment") or {})}
    # Reads that complete on the default stream (--gpu-read-completion stream) are a
    # different promise to the caller, so a series of their own.
    stream_runs = {s.get("run_id") for s in sidecars
                   if (s.get("settings") or {}).get("gpu_read_completion") == "stream"}
    on_device = [r for r in rows if "cuda" in (r["memory_send"], r["memory_recv"])]
    if not on_device:
        return []
    backends = {r["backend"] for r in on_device}
    chosen = on_device + [r for r in rows if r["memory_send"] == "host" and
                          r["memory_recv"] == "host" and r["backend"] in backends]
    lat, bw = {}, {}
    for r in chosen:
        size = int(r["size_bytes"] or 0)
        if r["benchmark"] == "pingpong" and r["latency_us_p50"] is not None:
            lat.setdefault(_key(r, mps_runs, stream_runs), {}).setdefault(size, []).append(r["latency_us_p50"])
        elif r["benchmark"] == "bandwidth" and r["bandwidth_MBps"] is not None:
            bw.setdefault(_key(r, mps_runs, stream_runs), {}).setdefault(size, []).append(r["bandwidth_MBps"])
    names = ["%d B" % s if s < 1024 else "%d KiB" % (s >> 10) if s < 1 << 20 else "%d MiB" % (s >> 20)
             for s in LATENCY_SIZES]
    lines = ["| GPU path | memory | backend | " + " | ".join("one way %s (µs)" % n for n in names) +
             " | bandwidth 64 MiB (MB/s) |",
             "|---|---|---|" + "---:|" * (len(LATENCY_SIZES) + 1)]
    order = {"none": 0, "staged": 1, "pass-through": 2, "cuda-ipc": 3}
    for key in sorted(set(lat) | set(bw), key=lambda k: (order.get(k[0].split(" ")[0], 9), k[0], k[1], k[2])):
        cells = [_cell(lat.get(key, {}).get(s, []), "%.1f") for s in LATENCY_SIZES]
        cells.append(_cell(bw.get(key, {}).get(BANDWIDTH_SIZE, []), "%.0f"))
        if any(cells):
            lines.append("| %s | %s | %s | %s |" % (key[0], key[1], key[2], " | ".join(cells)))
    return lines
