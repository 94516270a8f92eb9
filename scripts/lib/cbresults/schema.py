"""The tidy CSV schema (microbench/harness/result_schema.hpp is the single source of
truth; this module reads the column list from it so external baselines write exactly the
columns the C++ writer does) and CSV/JSON-sidecar reading and writing."""

import csv
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SCHEMA_HEADER = os.path.join(SOURCE_ROOT, "microbench", "harness", "result_schema.hpp")

# Used only when the C++ header is not beside the scripts (a copied results folder).
_FALLBACK_COLUMNS = (
    "benchmark origin backend progress wire mpi memory_send memory_recv gpu_path layout "
    "ranks workers size_bytes iterations reps window latency_us_p50 latency_us_avg "
    "latency_us_min latency_us_p99 bandwidth_MBps bandwidth_MBps_min bandwidth_MBps_max "
    "wall_s comm_s comm_s_max_worker bytes_moved throughput_MBps rows_per_s wrong validated "
    "run run_id"
).split()


def columns():
    try:
        with open(SCHEMA_HEADER) as f:
            text = f.read()
        cols = re.findall(r'std::string_view\{"(\w+)"\}', text)
        if cols:
            return cols
    except OSError:
        pass
    return list(_FALLBACK_COLUMNS)


NUMERIC = {
    "ranks", "workers", "size_bytes", "iterations", "reps", "window", "latency_us_p50",
    "latency_us_avg", "latency_us_min", "latency_us_p99", "bandwidth_MBps",
    "bandwidth_MBps_min", "bandwidth_MBps_max", "wall_s", "comm_s", "comm_s_max_worker",
    "bytes_moved", "throughput_MBps", "rows_per_s", "wrong", "validated", "run",
}


def _convert(row):
    out = {}
    for k, v in row.items():
        if k is None:
            continue
        if k in NUMERIC:
            if v is None or v == "":
                out[k] = None
            else:
                try:
                    out[k] = float(v)
                except ValueError:
                    out[k] = None
        else:
            out[k] = v or ""
    return out


def read_csv(path):
    """Rows of one CSV as dicts; numeric columns become float or None."""
    with open(path, newline="") as f:
        return [_convert(r) for r in csv.DictReader(f)]


def read_many(paths):
    rows = []
    for p in paths:
        for r in read_csv(p):
            r["_file"] = os.path.basename(p)
            rows.append(r)
    return rows


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v:  # NaN
            return ""
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return "%.6g" % v
    return str(v)


def write_csv(path, rows, metadata=None):
    """Writes rows in schema order (unknown keys are an error, like the C++ writer) and,
    with metadata, the JSON sidecar next to it (x.csv -> x.json)."""
    cols = columns()
    for r in rows:
        extra = [k for k in r if k not in cols and not k.startswith("_")]
        if extra:
            raise ValueError("columns not in schema: %s" % ", ".join(extra))
    tmp = path + ".partial"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([_fmt(r.get(c)) for c in cols])
    os.replace(tmp, path)
    if metadata is not None:
        with open(sidecar_path(path), "w") as f:
            json.dump(metadata, f, indent=2, sort_keys=False)
            f.write("\n")


def sidecar_path(csv_path):
    return csv_path[:-4] + ".json" if csv_path.endswith(".csv") else csv_path + ".json"


def read_sidecar(csv_path):
    try:
        with open(sidecar_path(csv_path)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def merge_csvs(paths, out_path):
    """all.csv: every row of every CSV, schema order, plus nothing else."""
    cols = columns()
    with open(out_path + ".partial", "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for p in paths:
            with open(p, newline="") as f:
                for r in csv.DictReader(f):
                    w.writerow([r.get(c, "") or "" for c in cols])
    os.replace(out_path + ".partial", out_path)


def new_run_id():
    import time
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-%d" % os.getpid()


def external_metadata(run_id, program, commands, versions=None, settings=None):
    """A JSON sidecar for rows written by the Python baselines, with the fields the C++
    sidecar has (microbench/harness/metadata.cpp) where they make sense."""
    import platform
    import socket
    import subprocess
    import time
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", SOURCE_ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    from .machine import is_secret
    env = {k: v for k, v in os.environ.items()
           if k.startswith(("UCX_", "OMPI_", "MPIR_", "MPICH_", "DASK_", "COMMBENCH_"))
           and not is_secret(k)}
    return {
        "run_id": run_id,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "program": program,
        "command_line": " ; ".join(" ".join(c) if isinstance(c, (list, tuple)) else c
                                   for c in commands),
        "git_commit": commit or "unknown",
        "origin": "external",
        "hosts": [socket.gethostname()],
        "cpu_model": cpu,
        "cpus_online": os.cpu_count(),
        "versions": dict(versions or {}, python=platform.python_version()),
        "environment": env,
        "settings": settings or {},
    }


def base_row(benchmark, backend, run_id, **kw):
    row = {"benchmark": benchmark, "origin": "external", "backend": backend,
           "memory_send": "host", "memory_recv": "host", "run_id": run_id}
    row.update(kw)
    return row
