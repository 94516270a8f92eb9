"""The tidy CSV schema (microbench/harness/result_schema.hpp is the single source of
truth; this module reads the column list from it so external baselines write exactly the
columns the C++ writer does) and CSV/JSON-sidecar reading and writing."""

import csv
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SCHEMA_HEADER = os.path.join(SOURCE_ROOT, "microbench", "harness", "result_schema.hpp")


def columns():
    """The columns, in order, read from the C++ header (the scripts always run from the
    source tree that holds it; a results folder copied elsewhere is read with its CSV's
    own header)."""
    try:
        with open(SCHEMA_HEADER) as f:
            cols = re.findall(r'std::string_view\{"(\w+)"\}', f.read())
    except OSError as e:
        raise SystemExit("schema: error: cannot read the CSV schema %s: %s"
                         % (SCHEMA_HEADER, e.strerror))
    if not cols:
        raise SystemExit("schema: error: no columns found in %s" % SCHEMA_HEADER)
    return cols


# The columns that hold names; every other column is a number (a new measurement column
# needs no change here).
TEXT = {"benchmark", "origin", "backend", "progress", "wire", "idle", "mpi", "memory_send",
        "memory_recv", "gpu_path", "layout", "run_id"}
NUMERIC = set(columns()) - TEXT


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


def load_folder(folder):
    """(rows, sidecars, manifest) of a results folder: its csv/*.csv (else all.csv), each
    CSV's JSON sidecar (with "_path") and manifest.json (None when absent). Raises
    FileNotFoundError when the folder has no CSV."""
    merged = os.path.join(folder, "all.csv")
    paths = sorted(glob.glob(os.path.join(folder, "csv", "*.csv")))
    if not paths and os.path.exists(merged):
        paths = [merged]
    if not paths:
        raise FileNotFoundError("no CSV in %s" % folder)
    rows = read_many(paths)
    sidecars = []
    for p in paths:
        s = read_sidecar(p)
        if s:
            s["_path"] = p
            sidecars.append(s)
    manifest = None
    try:
        with open(os.path.join(folder, "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        pass
    return rows, sidecars, manifest


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


def source_commit():
    """The commit of the source tree, "-dirty" when tracked sources differ from it. The
    same rule as the binaries' stamp (cmake/git_commit.cmake): results/ does not count, a
    study writes there between runs."""
    import subprocess

    def git(*a):
        try:
            return subprocess.run(["git", "-C", SOURCE_ROOT] + list(a), capture_output=True,
                                  text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return None
    head = git("rev-parse", "--short=7", "HEAD")
    if head is None or head.returncode != 0 or not head.stdout.strip():
        return "unknown"
    diff = git("diff", "--quiet", "HEAD", "--", ".", ":(exclude)results")
    return head.stdout.strip() + ("-dirty" if diff is not None and diff.returncode else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")),
                        "unknown")
    except OSError:
        return "unknown"


def external_metadata(run_id, program, commands, versions=None, settings=None):
    """A JSON sidecar for rows written by the Python baselines, with the fields the C++
    sidecar has (microbench/harness/metadata.cpp) where they make sense."""
    import platform
    import socket
    import time
    cpu = cpu_model()
    commit = source_commit()
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
        "git_commit": commit,
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
