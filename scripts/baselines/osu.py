#!/usr/bin/python3
"""OSU Micro-Benchmarks as an external baseline, when OSU_HOME (or --osu-home) points at a
build: osu_latency (one-way latency, µs) and osu_bw (windowed bandwidth; OSU's MB/s is
10^6 bytes/s) under the mpirun that matches the MPI OSU was linked with."""

import argparse
import os
import subprocess
import sys

import _common  # noqa: F401  (sets the import path)
from cbresults import schema
from cbresults.launch import mpi_env, mpirun_prefix


def find_tool(home, name):
    for root, _dirs, files in os.walk(home):
        if name in files and os.access(os.path.join(root, name), os.X_OK):
            return os.path.join(root, name)
    return None


def linked_flavor(binary):
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return "mpich" if "mpich" in out else "openmpi"


def parse_two_columns(text):
    """[(size, value)] from OSU's '# Size  Latency (us)' style output."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split()
        try:
            out.append((int(parts[0]), float(parts[1])))
        except (ValueError, IndexError):
            continue
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--osu-home", default=os.environ.get("OSU_HOME"))
    ap.add_argument("--profile", choices=["tiny", "quick", "full"], default="quick")
    ap.add_argument("--hostfile")
    ap.add_argument("--interface", help="network interface the launcher and MPI's tcp "
                                        "transport use (cbresults.launch.mpirun_prefix)")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args(argv)
    if not a.osu_home or not os.path.isdir(a.osu_home):
        print("osu: OSU_HOME is not set to an OSU Micro-Benchmarks build; skipped")
        return 3
    run_id = schema.new_run_id()
    rows, cmds = [], []
    lat_max = "4096" if a.profile == "tiny" else str(512 * 1024)
    jobs = [("osu_latency", "pingpong", ["-m", "1:" + lat_max]),
            ("osu_bw", "bandwidth", ["-m", "%d:%d" % (1 << 20, (16 if a.profile != "full" else 128) << 20)])]
    for tool, bench, extra in jobs:
        exe = find_tool(a.osu_home, tool)
        if not exe:
            print("osu: %s not found under %s" % (tool, a.osu_home))
            continue
        flavor = linked_flavor(exe)
        cmd = mpirun_prefix(flavor, 2, a.hostfile, 1 if a.hostfile else None,
                            interface=a.interface) + [exe] + extra
        cmds.append(cmd)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout,
                               env=mpi_env(flavor))
        except subprocess.TimeoutExpired:
            print("osu: %s timed out" % tool, file=sys.stderr)
            continue
        for size, value in parse_two_columns(p.stdout):
            r = schema.base_row(bench, "osu", run_id, mpi=flavor, ranks=2, size_bytes=size,
                                progress="blocking")
            if bench == "pingpong":
                r["latency_us_avg"] = value  # OSU prints the mean over its iterations
                r["latency_us_p50"] = value
            else:
                r["bandwidth_MBps"] = value
                r["window"] = 64
            rows.append(r)
    if not rows:
        return 1
    meta = schema.external_metadata(run_id, "osu", cmds, {}, {
        "osu_home": a.osu_home, "latency": "OSU prints the mean; stored in p50 and avg"})
    schema.write_csv(a.csv, rows, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
