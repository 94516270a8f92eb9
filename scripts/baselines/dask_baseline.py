#!/usr/bin/python3
"""Dask itself as the external baseline (Debian's python3-distributed): what a user would
run without the suite.

- pingpong: Dask's TCP Comm API between two processes (distributed.comm.listen in one,
  distributed.comm.connect in the other), one message of N bytes each way; one-way
  latency = half the round trip, per-iteration samples, median.
- transpose_sum: `y = (x + x.T).persist(); wait(y)` on a LocalCluster (processes, one
  thread each) with the given worker counts; x (random float64, n x n in chunk x chunk
  blocks) is persisted before the clock starts.
- merge: dask.dataframe merge with a task shuffle of two tables built by the frac_match
  generator described in shared BRIEF (dask-cuda's local_cudf_merge, on pandas), one
  chunk per worker; the matched row count is checked (the 'wrong' column).

Rows use the suite's schema with origin=external, backend=dask-tcp."""

import argparse
import asyncio
import multiprocessing as mp
import os
import statistics
import sys
import time

import _common  # noqa: F401  (sets the import path)
from cbresults import schema
from cbresults.sizes import SPARSE_LATENCY_SIZES

PROFILES = {
    "tiny": {"sizes": [1, 8, 64, 512, 4096], "iters": 300, "ts": (2048, 512),
             "rows": 100_000, "runs": 3},
    "quick": {"sizes": SPARSE_LATENCY_SIZES, "iters": 500, "ts": (8192, 2048),
              "rows": 1_000_000, "runs": 3},
    "full": {"sizes": [1 << i for i in range(0, 21)], "iters": 2000, "ts": (16384, 4096),
             "rows": 4_000_000, "runs": 5},
}


# --- ping-pong through distributed.comm ----------------------------------------------------

def _echo_server(host, queue):
    from distributed.comm import listen

    async def handler(comm):
        try:
            while True:
                msg = await comm.read()
                await comm.write(msg)
        except Exception:  # the client closed: CommClosedError ends the echo loop
            pass

    async def serve():
        listener = listen("tcp://%s:0" % host, handler)
        await listener.start()
        queue.put(listener.contact_address)
        while True:
            await asyncio.sleep(3600)

    asyncio.run(serve())


async def _pingpong_client(address, sizes, iters):
    from distributed.comm import connect
    comm = await connect(address)
    out = []
    for size in sizes:
        payload = b"\x01" * size
        n = max(20, iters if size < 65536 else iters // 10)
        for _ in range(max(5, n // 10)):  # warm-up
            await comm.write(payload)
            await comm.read()
        samples = []
        for _ in range(n):
            t0 = time.perf_counter_ns()
            await comm.write(payload)
            back = await comm.read()
            samples.append((time.perf_counter_ns() - t0) / 2000.0)
            if len(back) != size:
                raise RuntimeError("echo returned %d bytes for %d" % (len(back), size))
        out.append((size, n, samples))
    await comm.close()
    return out


def pingpong_rows(run_id, sizes, iters, host):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    server = ctx.Process(target=_echo_server, args=(host, q), daemon=True)
    server.start()
    try:
        address = q.get(timeout=60)
        results = asyncio.run(_pingpong_client(address, sizes, iters))
    finally:
        server.terminate()
        server.join(10)
    rows = []
    for size, n, samples in results:
        samples.sort()
        p99 = samples[min(len(samples) - 1, int(0.99 * (len(samples) - 1) + 0.5))]
        rows.append(schema.base_row("pingpong", "dask-tcp", run_id, progress="asyncio",
                                    ranks=2, size_bytes=size, iterations=n, reps=1,
                                    latency_us_p50=statistics.median(samples),
                                    latency_us_avg=statistics.fmean(samples),
                                    latency_us_min=samples[0], latency_us_p99=p99))
        print("dask-tcp pingpong %8d B  %.1f us" % (size, statistics.median(samples)), flush=True)
    return rows


# --- workloads on a LocalCluster ------------------------------------------------------------

def _clear_logs(dask_worker):
    dask_worker.transfer_incoming_log.clear()


def _transfer_totals(dask_worker):
    log = list(dask_worker.transfer_incoming_log)
    return sum(e["duration"] for e in log), sum(e["total"] for e in log)


def _task_count(dask_scheduler):
    return len(dask_scheduler.tasks)


def wait_released(client, baseline, timeout=60):
    """Waits until the scheduler has forgotten the last run's tasks: Dask's keys are
    deterministic, so a repeat submitted before the release would be served from memory."""
    deadline = time.time() + timeout
    while client.run_on_scheduler(_task_count) > baseline and time.time() < deadline:
        time.sleep(0.02)


def comm_stats(client):
    per = client.run(_transfer_totals)
    durations = [d for d, _ in per.values()]
    return sum(durations), max(durations or [0.0]), sum(b for _, b in per.values())


def transpose_sum(client, n, chunk, runs, workers, run_id):
    import dask.array as da
    from distributed import wait
    rows = []
    for run in range(runs):
        # A fresh x per run: a worker keeps the blocks it fetched as replicas, so a repeat
        # on the same x would find them local and move nothing.
        x = da.random.random((n, n), chunks=(chunk, chunk)).persist()
        wait(x)
        baseline = client.run_on_scheduler(_task_count)
        client.run(_clear_logs)
        t0 = time.perf_counter()
        y = (x + x.T).persist()
        wait(y)
        wall = time.perf_counter() - t0
        comm, comm_max, moved = comm_stats(client)
        del y
        wait_released(client, baseline)
        del x
        # The same definitions as appbench (app_session.cpp): size = matrix order,
        # throughput = bytes moved between workers / communication time.
        rows.append(schema.base_row(
            "transpose_sum", "dask-tcp", run_id, progress="asyncio", layout="dask",
            workers=workers, size_bytes=n, run=run, wall_s=wall, comm_s=comm,
            comm_s_max_worker=comm_max, bytes_moved=moved,
            throughput_MBps=moved / comm / 1e6 if comm > 0 else None))
        print("dask-tcp transpose_sum n=%d chunk=%d workers=%d run %d: %.3f s (comm %.3f s)"
              % (n, chunk, workers, run, wall, comm), flush=True)
    return rows


def _build_chunk(i, rows, nchunks, seed):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(seed + i)
    start = rows * i
    return pd.DataFrame({"key": np.arange(start, start + rows, dtype="int64"),
                         "payload": rng.permutation(rows).astype("int64")})


def _other_chunk(i, rows, nchunks, frac, seed):
    """`frac` of a balanced share of every build chunk's keys, then keys no build chunk has."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(seed + 1000 + i)
    share = rows // nchunks
    take = max(int(share * frac), 1)
    parts = []
    for b in range(nchunks):
        lo = rows * b + share * i
        parts.append(rng.permutation(np.arange(lo, lo + share, dtype="int64"))[:take])
    matched = np.concatenate(parts)
    missing = rows - matched.size
    first_unmatched = rows * nchunks + rows * i
    keys = np.concatenate([matched, np.arange(first_unmatched, first_unmatched + missing,
                                              dtype="int64")])
    return pd.DataFrame({"key": rng.permutation(keys),
                         "payload": rng.permutation(rows).astype("int64")})


def expected_matches(rows, nchunks, frac):
    return nchunks * nchunks * max(int((rows // nchunks) * frac), 1)


def merge(client, rows, frac, runs, workers, run_id):
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed
    from distributed import wait
    nchunks = workers
    meta = pd.DataFrame({"key": pd.Series([], dtype="int64"),
                         "payload": pd.Series([], dtype="int64")})
    base = dd.from_delayed([delayed(_build_chunk)(i, rows, nchunks, 42) for i in range(nchunks)],
                           meta=meta).persist()
    other = dd.from_delayed([delayed(_other_chunk)(i, rows, nchunks, frac, 42)
                             for i in range(nchunks)], meta=meta).persist()
    wait([base, other])
    baseline = client.run_on_scheduler(_task_count)
    want = expected_matches(rows, nchunks, frac)
    out = []
    for run in range(runs):
        client.run(_clear_logs)
        t0 = time.perf_counter()
        joined = base.merge(other, on="key", how="inner", shuffle="tasks").persist()
        wait(joined)
        wall = time.perf_counter() - t0
        comm, comm_max, moved = comm_stats(client)
        got = len(joined)
        del joined
        wait_released(client, baseline)
        out.append(schema.base_row(
            "merge", "dask-tcp", run_id, progress="asyncio", layout="dask", workers=workers,
            size_bytes=rows, run=run, wall_s=wall, comm_s=comm, comm_s_max_worker=comm_max,
            bytes_moved=moved, rows_per_s=got / wall, wrong=abs(got - want), validated=1))
        print("dask-tcp merge rows=%d workers=%d run %d: %.3f s, %d matched (want %d)"
              % (rows, workers, run, wall, got, want), flush=True)
    return out


def workload_rows(run_id, workers_list, prof, which):
    from distributed import Client, LocalCluster
    rows = []
    for w in workers_list:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=40) as cluster, \
                Client(cluster) as client:
            if "transpose_sum" in which:
                n, chunk = prof["ts"]
                rows += transpose_sum(client, n, chunk, prof["runs"], w, run_id)
            if "merge" in which:
                rows += merge(client, prof["rows"], 0.3, prof["runs"], w, run_id)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="output CSV (a .json sidecar goes beside it)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--workers", default="1,2", help="comma list of LocalCluster sizes")
    ap.add_argument("--what", default="pingpong,transpose_sum,merge")
    ap.add_argument("--host", default="127.0.0.1", help="address the ping-pong listens on")
    a = ap.parse_args(argv)
    try:
        import dask
        import distributed
    except ImportError:
        print("dask: python3-distributed is not installed; skipped")
        return 3
    prof = PROFILES[a.profile]
    which = set(a.what.split(","))
    run_id = schema.new_run_id()
    rows = []
    if "pingpong" in which:
        rows += pingpong_rows(run_id, prof["sizes"], prof["iters"], a.host)
    workers = [int(w) for w in a.workers.split(",") if w]
    if which & {"transpose_sum", "merge"}:
        rows += workload_rows(run_id, workers, prof, which)
    meta = schema.external_metadata(
        run_id, "dask_baseline", [sys.argv],
        {"dask": dask.__version__, "distributed": distributed.__version__},
        {"profile": a.profile, "workers": workers, "transpose_sum": prof["ts"],
         "merge_rows_per_chunk": prof["rows"], "frac_match": 0.3,
         "cluster": "LocalCluster processes=True threads_per_worker=1",
         "comm_s": "sum over workers of transfer_incoming_log durations"})
    schema.write_csv(a.csv, rows, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
