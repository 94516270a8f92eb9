#!/usr/bin/env python3
"""check_scale_probe.py CSV -- LAUNCHER... scale_probe ... --csv CSV

Runs the command, which must exit 0, then checks the CSV scale_probe wrote: every
column of its schema in order, one row per rank (ranks 0..n-1 once each), every
connection of the all-to-all held (n-1 per rank, initiated + accepted), no wrong byte,
the phase times and RSS/descriptor readings present and sane, and the backend's own
counts: ucx two endpoints per connection, mpi the communicators of its pair
construction (world: control + 1 + 8 lanes; create/create_group: control + n + 8) and
one live tag per connection. And the JSON sidecar beside it names the MPI and the
command line.
"""
import csv
import json
import os
import subprocess
import sys

from checklib import fail, args_and_command  # this folder

COLUMNS = (
    "benchmark,origin,backend,progress,mpi,ranks,run_id,pattern,pair_comms,rank,host,"
    "message_bytes,bootstrap_s,setup_listen_s,address_exchange_s,first_all_to_all_s,"
    "teardown_s,bootstrap_cpu_s,setup_listen_cpu_s,address_exchange_cpu_s,"
    "first_all_to_all_cpu_s,teardown_cpu_s,rss_before_kib,rss_listening_kib,rss_after_kib,rss_per_connection_kib,"
    "fds_before,fds_listening,fds_after,fds_per_connection,fd_soft_limit,fd_hard_limit,"
    "fd_soft_limit_at_start,connections,connections_initiated,connections_accepted,"
    "ucx_endpoints,mpi_comms,mpi_tags_live,mpi_tags_allocated,mpi_tag_limit,wrong,validated"
).split(",")
LANES = 8


def main():
    (path,), cmd = args_and_command(__doc__, 1)
    for p in (path, path[:-4] + ".json"):
        if os.path.exists(p):
            os.remove(p)
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        fail(f"exit status {run.returncode}\n{run.stderr}")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            fail(f"columns {reader.fieldnames}, expected {COLUMNS}")
        rows = list(reader)
    n = int(rows[0]["ranks"])
    if sorted(int(r["rank"]) for r in rows) != list(range(n)):
        fail(f"{len(rows)} rows for {n} ranks: {[r['rank'] for r in rows]}")
    for r in rows:
        rank = int(r["rank"])
        where = f"rank {rank}"

        def num(k):
            v = r[k]
            if v == "":
                fail(f"{where}: {k} is empty")
            return float(v)

        if r["benchmark"] != "scale_probe" or r["origin"] != "suite" or r["mpi"] == "":
            fail(f"{where}: benchmark/origin/mpi: {r['benchmark']} {r['origin']} {r['mpi']}")
        if int(num("connections")) != n - 1:
            fail(f"{where}: {r['connections']} connections, expected {n - 1}")
        if int(num("connections_initiated")) != n - 1 - rank or int(
                num("connections_accepted")) != rank:
            fail(f"{where}: initiated {r['connections_initiated']}, accepted "
                 f"{r['connections_accepted']}")
        if num("wrong") != 0 or num("validated") != 1:
            fail(f"{where}: wrong {r['wrong']}, validated {r['validated']}")
        for k in ("bootstrap_s", "setup_listen_s", "address_exchange_s", "first_all_to_all_s",
                  "teardown_s", "bootstrap_cpu_s", "setup_listen_cpu_s", "address_exchange_cpu_s",
                  "first_all_to_all_cpu_s", "teardown_cpu_s"):
            if not 0 <= num(k) < 300:
                fail(f"{where}: {k} = {r[k]}")
        for k in ("rss_before_kib", "rss_listening_kib", "rss_after_kib", "fds_before",
                  "fds_listening", "fds_after"):
            if num(k) <= 0:
                fail(f"{where}: {k} = {r[k]}")
        if num("fd_soft_limit") < num("fd_soft_limit_at_start"):
            fail(f"{where}: soft limit lowered: {r['fd_soft_limit']}")
        backend = r["backend"]
        if backend == "tcp" and num("fds_per_connection") != 1:
            fail(f"{where}: tcp holds {r['fds_per_connection']} descriptors per connection")
        if backend == "ucx" and int(num("ucx_endpoints")) != 2 * (n - 1):
            fail(f"{where}: {r['ucx_endpoints']} ucx endpoints for {n - 1} connections")
        if backend != "ucx" and r["ucx_endpoints"] != "":
            fail(f"{where}: ucx_endpoints set on {backend}")
        if backend == "mpi":
            pairs = 1 if r["pair_comms"] == "world" else n
            if int(num("mpi_comms")) != 1 + pairs + LANES:
                fail(f"{where}: {r['mpi_comms']} communicators under pair_comms="
                     f"{r['pair_comms']}, expected {1 + pairs + LANES}")
            if int(num("mpi_tags_live")) != n - 1:
                fail(f"{where}: {r['mpi_tags_live']} live tags, expected {n - 1}")
        elif r["mpi_comms"] != "":
            fail(f"{where}: mpi_comms set on {backend}")
    with open(path[:-4] + ".json") as f:
        meta = json.load(f)
    if meta.get("mpi_flavor") != rows[0]["mpi"] or "scale_probe" not in str(
            meta.get("command_line")):
        fail(f"sidecar: mpi_flavor {meta.get('mpi_flavor')}, command {meta.get('command_line')}")
    print(f"ok: {n} ranks, {rows[0]['backend']}, every connection held and validated")


if __name__ == "__main__":
    main()
