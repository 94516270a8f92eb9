#!/usr/bin/python3
"""UCX's own benchmark as an external baseline: ucx_perftest tag_lat (ping-pong, one-way
latency) and tag_bw (streaming bandwidth), server and client on this host, one process
pair per message size. Writes the suite's CSV schema with origin=external,
backend=ucx_perftest, progress = its wait mode (-E poll | sleep).

ucx_perftest prints "MB/s" meaning 2^20 bytes/s; rows are converted to 10^6 bytes/s.
Its latency columns are already one-way (half the round trip) for ping-pong tests."""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

import _common
from cbresults import schema
from cbresults.tool_output import MIB_TO_MB
from cbresults.sizes import SPARSE_LATENCY_SIZES, fmt_size



def parse_final(text):
    """The 'Final:' line -> dict(iterations, lat_p50, lat_avg, lat_overall, bw_avg,
    bw_overall) in ucx_perftest's units (usec, MiB/s), or None."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Final:"):
            parts = line.split()[1:]
            try:
                nums = [float(p.replace(",", "")) for p in parts]
            except ValueError:
                return None
            if len(nums) < 6:
                return None
            keys = ["iterations", "lat_p50", "lat_avg", "lat_overall", "bw_avg", "bw_overall"]
            return dict(zip(keys, nums))
    return None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_pair(test, size, iters, warmup, wait_mode, host, timeout):
    """One server + client run; returns (parsed Final line or None, client command)."""
    port = str(free_port())
    common = ["-t", test, "-s", str(size), "-n", str(iters), "-w", str(warmup), "-p", port]
    if wait_mode != "poll":
        common += ["-E", wait_mode]
    server = subprocess.Popen(["ucx_perftest"] + common, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    client_cmd = ["ucx_perftest", host] + common
    try:
        for attempt in range(20):  # the server needs a moment to listen
            time.sleep(0.2)
            try:
                out = subprocess.run(client_cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return None, client_cmd
            final = parse_final(out.stdout)
            if final:
                return final, client_cmd
            if server.poll() is not None:
                break
        return None, client_cmd
    finally:
        if server.poll() is None:
            try:
                os.killpg(server.pid, 9)
            except ProcessLookupError:
                pass
        server.wait()


def sizes(lo, hi, factor):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= factor
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="output CSV (a .json sidecar goes beside it)")
    ap.add_argument("--profile", choices=["tiny", "quick", "full"], default="quick")
    ap.add_argument("--host", default="127.0.0.1", help="address the client connects to")
    ap.add_argument("--wait-modes", default="poll,sleep",
                    help="comma list of -E modes for tag_lat (poll = busy polling, sleep = "
                         "ucp_worker_arm + wait on the fd)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per client run")
    a = ap.parse_args(argv)
    if not shutil.which("ucx_perftest"):
        print("ucx_perftest: not installed (Debian package ucx-utils); skipped")
        return 3
    quick = a.profile != "full"
    # Both processes busy-poll: on a loaded 2-core machine an iteration can cost a 4 ms
    # time slice, so the quick profile keeps the point count and iterations small.
    lat = {"tiny": [1, 8, 64, 512, 4096], "quick": SPARSE_LATENCY_SIZES,
           "full": sizes(1, 1 << 20, 2)}[a.profile]
    bw = [] if a.profile == "tiny" else sizes(1 << 20, (16 if quick else 128) << 20,
                                              4 if quick else 2)
    run_id = schema.new_run_id()
    rows, cmds, failed = [], [], []
    for mode in [m for m in a.wait_modes.split(",") if m]:
        for s in lat:
            small = s < 8192
            iters = (1000 if quick else 10000) if small else (100 if quick else 1000)
            final, cmd = run_pair("tag_lat", s, iters, iters // 10, mode, a.host, a.timeout)
            cmds.append(cmd)
            if not final:
                failed.append("tag_lat %s %s" % (mode, fmt_size(s)))
                continue
            rows.append(schema.base_row("pingpong", "ucx_perftest", run_id, progress=mode,
                                        wire="tag", ranks=2, size_bytes=s,
                                        iterations=final["iterations"], reps=1,
                                        latency_us_p50=final["lat_p50"],
                                        latency_us_avg=final["lat_avg"]))
            print("tag_lat %-5s %8s  %.3f us" % (mode, fmt_size(s), final["lat_p50"]), flush=True)
    for s in bw:
        iters = 100 if quick else 2000
        final, cmd = run_pair("tag_bw", s, iters, iters // 10, "poll", a.host, a.timeout)
        cmds.append(cmd)
        if not final:
            failed.append("tag_bw %s" % fmt_size(s))
            continue
        rows.append(schema.base_row("bandwidth", "ucx_perftest", run_id, progress="poll",
                                    wire="tag", ranks=2, size_bytes=s,
                                    iterations=final["iterations"], reps=1,
                                    bandwidth_MBps=final["bw_avg"] * MIB_TO_MB))
        print("tag_bw  poll  %8s  %.0f MB/s" % (fmt_size(s), final["bw_avg"] * MIB_TO_MB),
              flush=True)
    meta = schema.external_metadata(run_id, "ucx_perftest", cmds[:2] + ["..."],
                                    {"ucx": _common.deb_version("ucx-utils")},
                                    {"profile": a.profile, "failed": failed,
                                     "bandwidth_units": "converted from MiB/s to 10^6 B/s"})
    schema.write_csv(a.csv, rows, meta)
    if failed:
        print("ucx_perftest: failed points: %s" % ", ".join(failed), file=sys.stderr)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
