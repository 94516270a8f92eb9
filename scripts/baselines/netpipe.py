#!/usr/bin/python3
"""NetPIPE as an external baseline: NPtcp (blocking TCP sockets, receiver + transmitter on
this host) and NPmpi (Debian's NPopenmpi / NPmpich2 under the matching mpirun). NetPIPE
ping-pongs each size (plus its own perturbed sizes; we ask for none with -p 0) and
writes "bytes  Mbps  seconds" lines, the time being one-way (half the round trip).

Rows: benchmark=pingpong, origin=external, backend=NPtcp | NPmpi, latency_us_p50 = that
one-way time (NetPIPE reports the best of its trials, not a median: say so when comparing)
and bandwidth_MBps = bytes / one-way time / 10^6 (ping-pong throughput, not windowed)."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import _common
from cbresults import schema
from cbresults.tool_output import parse_np_out
from cbresults.launch import mpi_env, mpirun_prefix

NPMPI = {"openmpi": ("NPopenmpi", "netpipe-openmpi"),
         "mpich": ("NPmpich2", "netpipe-mpich2")}


def to_rows(points, backend, run_id, mpi="", power_of_two_only=True):
    rows = []
    for size, _mbps, t in points:
        if size <= 0 or t <= 0:
            continue
        if power_of_two_only and size & (size - 1):
            continue  # NetPIPE's in-between sizes would make ragged curves
        rows.append(schema.base_row("pingpong", backend, run_id, mpi=mpi, ranks=2,
                                    progress="blocking", size_bytes=size,
                                    latency_us_p50=t * 1e6, bandwidth_MBps=size / t / 1e6))
    return rows


def np_args(upper, repeats):
    # -p 0: no perturbed sizes; -n: a fixed repeat count (NetPIPE otherwise sizes its trials
    # from the previous size's time, which a loaded machine throws off for minutes)
    return ["-p", "0", "-l", "1", "-u", str(upper)] + (["-n", str(repeats)] if repeats else [])


def run_nptcp(upper, host, timeout, workdir, repeats=None):
    rx_out = os.path.join(workdir, "rx.out")
    tx_out = os.path.join(workdir, "np.out")
    args = np_args(upper, repeats)
    rx = subprocess.Popen(["NPtcp"] + args + ["-o", rx_out], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    cmd = ["NPtcp", "-h", host] + args + ["-o", tx_out]
    try:
        for _ in range(20):
            time.sleep(0.2)
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return None, cmd
            if p.returncode == 0 and os.path.exists(tx_out):
                with open(tx_out) as f:
                    return parse_np_out(f.read()), cmd
            if rx.poll() is not None:
                break
        return None, cmd
    finally:
        if rx.poll() is None:
            try:
                os.killpg(rx.pid, 9)
            except ProcessLookupError:
                pass
        rx.wait()


def run_npmpi(flavor, upper, timeout, workdir, hostfile=None, repeats=None, interface=None):
    exe = NPMPI[flavor][0]
    out = os.path.join(workdir, "np-%s.out" % flavor)
    cmd = mpirun_prefix(flavor, 2, hostfile, 1 if hostfile else None, interface=interface) + [
        exe] + np_args(upper, repeats) + ["-o", out]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env=mpi_env(flavor), cwd=workdir)
    except subprocess.TimeoutExpired:
        return None, cmd
    if p.returncode != 0 or not os.path.exists(out):
        return None, cmd
    with open(out) as f:
        return parse_np_out(f.read()), cmd


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="output CSV (a .json sidecar goes beside it)")
    ap.add_argument("--tool", choices=["tcp", "mpi"], default="tcp")
    ap.add_argument("--mpi", choices=sorted(NPMPI), default="openmpi", help="for --tool mpi")
    ap.add_argument("--upper", default=str(1 << 20), help="largest size in bytes")
    ap.add_argument("--host", default="127.0.0.1", help="NPtcp: address of the receiver")
    ap.add_argument("--hostfile", help="NPmpi: hostfile (one rank per node)")
    ap.add_argument("--interface", help="NPmpi: network interface the launcher and MPI's tcp "
                                        "transport use")
    ap.add_argument("--repeats", type=int,
                    help="fixed round trips per trial (NetPIPE's -n; default: its own choice)")
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args(argv)
    exe, pkg = ("NPtcp", "netpipe-tcp") if a.tool == "tcp" else NPMPI[a.mpi]
    if not shutil.which(exe):
        print("%s: not installed (Debian package %s); skipped" % (exe, pkg))
        return 3
    run_id = schema.new_run_id()
    with tempfile.TemporaryDirectory() as work:
        if a.tool == "tcp":
            points, cmd = run_nptcp(int(a.upper), a.host, a.timeout, work, a.repeats)
            rows = to_rows(points or [], "NPtcp", run_id)
        else:
            points, cmd = run_npmpi(a.mpi, int(a.upper), a.timeout, work, a.hostfile, a.repeats,
                                    a.interface)
            rows = to_rows(points or [], "NPmpi", run_id, mpi=a.mpi)
    if not rows:
        print("%s: no result (command: %s)" % (exe, " ".join(cmd)), file=sys.stderr)
        return 1
    meta = schema.external_metadata(run_id, exe, [cmd], {"netpipe": _common.deb_version(pkg)},
                                    {"latency": "one-way time of NetPIPE's best trial"})
    schema.write_csv(a.csv, rows, meta)
    for r in rows[:: max(1, len(rows) // 6)]:
        print("%s %8d B  %.2f us" % (exe, r["size_bytes"], r["latency_us_p50"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
