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
- groupby: `ddf.groupby("key", sort=False).agg({"value": ["sum", "count", "mean"]},
  split_out=max(workers, 2), shuffle="tasks")` on one partition of R rows per worker,
  built by appbench/groupby's generator (global row g: key = ((g * 2654435761) mod G) *
  (K div G), value = g mod 1000; by default G = R distinct keys, K = 2^40, as there).
  A hash shuffle, not a tree reduction: the graph must hold a shuffle layer (checked
  every run). Like appbench/groupby, Dask combines each partition's rows per key before
  the shuffle, so it moves at most min(R, G) partial aggregates per partition. Every
  group's sum and count are checked exactly, and its mean, against numpy.
- sort: `ddf.set_index("key", shuffle="tasks")` (sample sort: quantiles of the keys as
  splitters, computed inside the clock like appbench's sampling; a range partition by a
  task shuffle; a local sort) of one partition of R rows per worker, keys uniformly
  random int64, payload int64. Checked: sorted within and across partitions, row count,
  payload checksum.
- matmul: `y = x.dot(x.T).persist(); wait(y)` of x (random float64, n x n in chunk x
  chunk blocks), persisted before the clock; checked: a few entries of y (both y[i, j]
  and y[j, i]) against numpy dot products of the rows of x.

Rows use the suite's schema with origin=external, backend=dask-tcp, layout=dask (the
client and scheduler in one process, one process per worker: ranks = workers + 1). The
sidecar's `machine` block says whether the largest cluster oversubscribed the CPUs."""

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

# The sizes are the study matrix's (cbresults/matrix.py PROFILES): ts and mm = (n, chunk),
# rows = merge rows per chunk, groupby / sort = rows per worker, groups = groupby's distinct
# keys over the whole table (as many as rows per worker: a high-cardinality groupby).
PROFILES = {
    "tiny": {"sizes": [1, 8, 64, 512, 4096], "iters": 300, "ts": (2048, 512),
             "rows": 100_000, "groupby": 100_000, "groups": 100_000, "sort": 100_000,
             "mm": (512, 256), "runs": 3},
    "quick": {"sizes": SPARSE_LATENCY_SIZES, "iters": 500, "ts": (8192, 2048),
              "rows": 1_000_000, "groupby": 1_000_000, "groups": 1_000_000, "sort": 1_000_000,
              "mm": (2048, 512), "runs": 3},
    "full": {"sizes": [1 << i for i in range(0, 21)], "iters": 2000, "ts": (16384, 4096),
             "rows": 4_000_000, "groupby": 4_000_000, "groups": 4_000_000, "sort": 4_000_000,
             "mm": (8192, 2048), "runs": 5},
}
WORKLOADS = ("transpose_sum", "merge", "groupby", "sort", "matmul")
# appbench/groupby's --key-range default: the keys are the groups spread evenly over it.
KEY_RANGE = 1 << 40
HASH_MULT = 2654435761  # Knuth's multiplicative hash: the key of global row g


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
    """(time with at least one incoming transfer in flight, the sum of their durations,
    bytes): transfers overlap, so only the union of their intervals is wall-clock time,
    as the suite's comm_s (appbench/run_metrics.hpp)."""
    log = list(dask_worker.transfer_incoming_log)
    spans = sorted((e["start"], e["start"] + e["duration"]) for e in log)
    union, end = 0.0, None
    for a, b in spans:
        if end is None or a > end:
            union += b - a
            end = b
        elif b > end:
            union += b - end
            end = b
    return union, sum(e["duration"] for e in log), sum(e["total"] for e in log)


def _task_count(dask_scheduler):
    return len(dask_scheduler.tasks)


def wait_released(client, baseline, timeout=60):
    """Waits until the scheduler has forgotten the last run's tasks: Dask's keys are
    deterministic, so a repeat submitted before the release would be served from memory."""
    deadline = time.time() + timeout
    while client.run_on_scheduler(_task_count) > baseline and time.time() < deadline:
        time.sleep(0.02)


def comm_stats(client):
    """(comm_s: the mean over workers of each one's union, the largest union, bytes moved,
    transfer_s: the plain sum of durations)."""
    per = list(client.run(_transfer_totals).values())
    unions = [u for u, _, _ in per]
    return (sum(unions) / max(len(per), 1), max(unions or [0.0]), sum(b for _, _, b in per),
            sum(d for _, d, _ in per))


def app_row(bench, run_id, workers, size, run, wall, comm, comm_max, moved, transfer, **kw):
    """One application row in the suite's schema. ranks: the busy processes, one per
    worker and the client's, which hosts the scheduler (the nannies only watch)."""
    return schema.base_row(bench, "dask-tcp", run_id, progress="asyncio", layout="dask",
                           ranks=workers + 1, workers=workers, size_bytes=size, run=run,
                           wall_s=wall, comm_s=comm, comm_s_max_worker=comm_max,
                           transfer_s=transfer, bytes_moved=moved, **kw)


def timed(client, make):
    """Builds a graph with make() and persists it: (result, wall_s, comm_s, comm_s of the
    busiest worker, bytes moved, transfer_s). The clock covers building the graph too (set_index
    computes its splitters there)."""
    from distributed import wait
    client.run(_clear_logs)
    t0 = time.perf_counter()
    out = make().persist()
    wait(out)
    wall = time.perf_counter() - t0
    comm, comm_max, moved, transfer = comm_stats(client)
    return out, wall, comm, comm_max, moved, transfer


def block_matrix(client, bench, op, check, n, chunk, runs, workers, run_id):
    """transpose_sum and matmul: y = op(x) persisted, x random float64 n x n in chunk x chunk
    blocks, a fresh x per run (a worker keeps the blocks it fetched as replicas, so a repeat
    on the same x would find them local and move nothing). check(x, y, n, run), when given,
    counts wrong entries. The same definitions as appbench (app_session.cpp): size = matrix
    order, throughput = bytes moved between workers / communication time."""
    import dask.array as da
    from distributed import wait
    rows = []
    for run in range(runs):
        x = da.random.random((n, n), chunks=(chunk, chunk)).persist()
        wait(x)
        baseline = client.run_on_scheduler(_task_count)
        y, wall, comm, comm_max, moved, transfer = timed(client, lambda x=x: op(x))
        checked = {} if check is None else {"wrong": check(x, y, n, run), "validated": 1}
        del y
        wait_released(client, baseline)
        del x
        rows.append(app_row(bench, run_id, workers, n, run, wall, comm, comm_max, moved, transfer,
                            throughput_MBps=moved / comm / 1e6 if comm > 0 else None,
                            **checked))
        print("dask-tcp %s n=%d chunk=%d workers=%d run %d: %.3f s (comm %.3f s)%s"
              % (bench, n, chunk, workers, run, wall, comm,
                 ", %d wrong" % checked["wrong"] if checked else ""), flush=True)
    return rows


def transpose_sum(client, n, chunk, runs, workers, run_id):
    return block_matrix(client, "transpose_sum", lambda x: x + x.T, None, n, chunk, runs,
                        workers, run_id)


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
        comm, comm_max, moved, transfer = comm_stats(client)
        got = len(joined)
        del joined
        wait_released(client, baseline)
        out.append(app_row("merge", run_id, workers, rows, run, wall, comm, comm_max, moved, transfer,
                           rows_per_s=got / wall, wrong=abs(got - want), validated=1))
        print("dask-tcp merge rows=%d workers=%d run %d: %.3f s, %d matched (want %d)"
              % (rows, workers, run, wall, got, want), flush=True)
    return out


# --- groupby: hash shuffle, then sum / count / mean per key ---------------------------------

def _groupby_keys(first, rows, groups, key_range):
    """appbench/groupby's generator for global rows [first, first + rows): (group index,
    key, value). The multiplier is prime, so unless G is a multiple of it any G
    consecutive rows hit every group once."""
    import numpy as np
    if (first + rows) * HASH_MULT >= 1 << 64:  # appbench multiplies in 128 bits
        raise ValueError("groupby: row numbers this large overflow the 64-bit hash")
    g = np.arange(first, first + rows, dtype=np.uint64)
    idx = (g * np.uint64(HASH_MULT)) % np.uint64(groups)
    key = (idx * np.uint64(key_range // groups)).astype(np.int64)
    return idx.astype(np.int64), key, (g % np.uint64(1000)).astype(np.int64)


def _groupby_part(worker, rows, groups, key_range):
    import pandas as pd
    _idx, key, value = _groupby_keys(worker * rows, rows, groups, key_range)
    return pd.DataFrame({"key": key, "value": value})


def groupby_expected(rows, nparts, groups, key_range):
    """(keys, sums, counts) of every group of the whole table, sorted by key, counted with
    numpy one partition at a time (independently of Dask)."""
    import numpy as np
    # bincount sums in float64: exact while every group's sum stays below 2^53
    if rows * nparts * 999 >= 2 ** 53:
        raise ValueError("groupby: a group's sum could exceed float64's exact integers")
    sums = np.zeros(groups, dtype=np.int64)
    counts = np.zeros(groups, dtype=np.int64)
    for w in range(nparts):
        idx, _key, value = _groupby_keys(w * rows, rows, groups, key_range)
        counts += np.bincount(idx, minlength=groups)
        sums += np.rint(np.bincount(idx, weights=value, minlength=groups)).astype(np.int64)
    keys = np.arange(groups, dtype=np.int64) * (key_range // groups)
    have = counts > 0
    return keys[have], sums[have], counts[have]


def groupby_wrong(result, expected):
    """Groups whose sum, count or mean is wrong, plus groups missing, extra or present
    in more than one output partition."""
    import numpy as np
    keys, sums, counts = expected
    res = result.copy()
    res.columns = ["_".join(c) if isinstance(c, tuple) else c for c in res.columns]
    dup = int(res.index.duplicated().sum())
    res = res[~res.index.duplicated()]
    got = res.reindex(keys)
    missing = int(got["value_count"].isna().sum())
    extra = len(res) - (len(keys) - missing)
    ok = got["value_count"].notna()
    bad = ((got["value_sum"][ok].astype(np.int64).to_numpy() != sums[ok.to_numpy()]) |
           (got["value_count"][ok].astype(np.int64).to_numpy() != counts[ok.to_numpy()]) |
           ~np.isclose(got["value_mean"][ok].to_numpy(), sums[ok.to_numpy()] /
                       counts[ok.to_numpy()], rtol=1e-12, atol=0))
    return int(bad.sum()) + missing + extra + dup


def shuffle_layers(collection):
    """Names of the graph's shuffle layers (a tree reduction has none)."""
    return [name for name in collection.dask.layers if "shuffle" in name.split("-")[:2]]


def groupby(client, rows, groups, key_range, runs, workers, run_id):
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed
    from distributed import wait
    meta = pd.DataFrame({"key": pd.Series([], dtype="int64"),
                         "value": pd.Series([], dtype="int64")})
    table = dd.from_delayed([delayed(_groupby_part)(w, rows, groups, key_range)
                             for w in range(workers)], meta=meta).persist()
    wait(table)
    expected = groupby_expected(rows, workers, groups, key_range)
    split_out = max(workers, 2)
    baseline = client.run_on_scheduler(_task_count)
    out = []

    def make():
        agg = table.groupby("key", sort=False).agg({"value": ["sum", "count", "mean"]},
                                                   split_out=split_out, shuffle="tasks")
        if not shuffle_layers(agg):  # Dask fell back to a tree reduction: not this workload
            raise RuntimeError("groupby graph has no shuffle layer: %s" % list(agg.dask.layers))
        return agg

    for run in range(runs):
        res, wall, comm, comm_max, moved, transfer = timed(client, make)
        wrong = groupby_wrong(res.compute(), expected)  # after the clock
        del res
        wait_released(client, baseline)
        out.append(app_row("groupby", run_id, workers, rows, run, wall, comm, comm_max, moved, transfer,
                           rows_per_s=rows * workers / wall, wrong=wrong, validated=1))
        print("dask-tcp groupby rows=%d groups=%d split_out=%d workers=%d run %d: %.3f s "
              "(comm %.3f s), %d wrong" % (rows, groups, split_out, workers, run, wall, comm,
                                           wrong), flush=True)
    return out


# --- sort: set_index on random int64 keys (sample sort) ----------------------------------------

def _sort_part(i, rows, seed):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(seed + i)
    info = np.iinfo(np.int64)
    return pd.DataFrame({"key": rng.integers(info.min, info.max, size=rows, dtype=np.int64,
                                             endpoint=True),
                         "payload": np.arange(i * rows, (i + 1) * rows, dtype=np.int64)})


def _sort_summary(part):
    """One line per partition: rows, first and last key, adjacent pairs out of order, and
    the payload's sum."""
    import numpy as np
    import pandas as pd
    keys = part.index.to_numpy()
    return pd.DataFrame({"n": [len(keys)],
                         "first": [keys[0] if len(keys) else 0],
                         "last": [keys[-1] if len(keys) else 0],
                         "inversions": [int(np.count_nonzero(keys[1:] < keys[:-1]))],
                         "payload_sum": [int(part["payload"].sum())]})


def sort_wrong(summary, rows):
    """|rows - expected| + keys out of order (within partitions and across their
    boundaries) + 1 when the payload checksum differs (rows lost or duplicated)."""
    wrong = abs(int(summary["n"].sum()) - rows) + int(summary["inversions"].sum())
    nonempty = summary[summary["n"] > 0]
    wrong += int((nonempty["first"].to_numpy()[1:] < nonempty["last"].to_numpy()[:-1]).sum())
    if int(summary["payload_sum"].sum()) != rows * (rows - 1) // 2:
        wrong += 1
    return wrong


def sort(client, rows, runs, workers, run_id):
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed
    from distributed import wait
    meta = pd.DataFrame({"key": pd.Series([], dtype="int64"),
                         "payload": pd.Series([], dtype="int64")})
    table = dd.from_delayed([delayed(_sort_part)(i, rows, 42) for i in range(workers)],
                            meta=meta).persist()
    wait(table)
    baseline = client.run_on_scheduler(_task_count)
    summary_meta = pd.DataFrame({c: pd.Series([], dtype="int64") for c in (
        "n", "first", "last", "inversions", "payload_sum")})
    out = []
    for run in range(runs):
        res, wall, comm, comm_max, moved, transfer = timed(
            client, lambda: table.set_index("key", shuffle="tasks"))
        summary = res.map_partitions(_sort_summary, meta=summary_meta).compute()
        wrong = sort_wrong(summary, rows * workers)
        del res
        wait_released(client, baseline)
        out.append(app_row("sort", run_id, workers, rows, run, wall, comm, comm_max, moved, transfer,
                           rows_per_s=rows * workers / wall, wrong=wrong, validated=1))
        print("dask-tcp sort rows=%d workers=%d run %d: %.3f s (comm %.3f s), %d wrong"
              % (rows, workers, run, wall, comm, wrong), flush=True)
    return out


# --- matmul: y = x . x^T ----------------------------------------------------------------------

def matmul_wrong(x, y, n, seed, pairs=3):
    """Entries of y checked against numpy: y[i, j] and y[j, i] against the dot product of
    rows i and j of x, for a diagonal entry and `pairs` random ones; one per mismatch."""
    import numpy as np
    rng = np.random.default_rng(seed)
    checks = [(int(rng.integers(n)),) * 2] + [tuple(int(v) for v in rng.integers(n, size=2))
                                              for _ in range(pairs)]
    wrong = 0
    for i, j in checks:
        want = float(np.dot(x[i].compute(), x[j].compute()))
        for a, b in ((i, j), (j, i)):
            wrong += not np.isclose(float(y[a, b].compute()), want, rtol=1e-9, atol=0)
    return wrong


def matmul(client, n, chunk, runs, workers, run_id):
    return block_matrix(client, "matmul", lambda x: x.dot(x.T), matmul_wrong, n, chunk, runs,
                        workers, run_id)


BLAS_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _thread_env(dask_worker):
    return {k: os.environ.get(k) for k in BLAS_THREADS}


def workload_rows(run_id, workers_list, prof, which, worker_env=None):
    """Rows of every workload in `which` per cluster size; `worker_env` (a dict) gets the
    workers' BLAS thread settings (distributed's nanny sets them to 1: one thread each)."""
    from distributed import Client, LocalCluster
    rows = []
    for w in workers_list:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=40) as cluster, \
                Client(cluster) as client:
            if worker_env is not None and not worker_env:
                worker_env.update(next(iter(client.run(_thread_env).values()), {}))
            if "transpose_sum" in which:
                n, chunk = prof["ts"]
                rows += transpose_sum(client, n, chunk, prof["runs"], w, run_id)
            if "merge" in which:
                rows += merge(client, prof["rows"], 0.3, prof["runs"], w, run_id)
            if "groupby" in which:
                rows += groupby(client, prof["groupby"], prof["groups"], prof["key_range"],
                                prof["runs"], w, run_id)
            if "sort" in which:
                rows += sort(client, prof["sort"], prof["runs"], w, run_id)
            if "matmul" in which:
                n, chunk = prof["mm"]
                rows += matmul(client, n, chunk, prof["runs"], w, run_id)
    return rows


def machine_block(workers, load_start):
    """The sidecar's machine state, as the C++ benchmarks write it: the largest cluster's
    busy processes (workers + the client's, which hosts the scheduler) against the CPUs."""
    cpus = os.cpu_count()
    ranks = max(workers or [0]) + 1
    la = os.getloadavg()
    return {"load_avg_1min_start": round(load_start[0], 2),
            "load_avg_5min_start": round(load_start[1], 2),
            "load_avg_1min_end": round(la[0], 2), "load_avg_5min_end": round(la[1], 2),
            "cpus_online": cpus, "ranks_on_node": ranks, "oversubscribed": ranks > cpus}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="output CSV (a .json sidecar goes beside it)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--workers", default="1,2", help="comma list of LocalCluster sizes")
    ap.add_argument("--what", default=",".join(("pingpong",) + WORKLOADS),
                    help="comma list of pingpong, %s (default: all)" % ", ".join(WORKLOADS))
    ap.add_argument("--host", default="127.0.0.1", help="address the ping-pong listens on")
    ap.add_argument("--groups", type=int,
                    help="groupby: distinct keys in the whole table (default: the profile's, "
                         "as many as rows per worker, like appbench/groupby)")
    ap.add_argument("--key-range", type=int, default=KEY_RANGE,
                    help="groupby: keys are the groups spread over [0, this) (default 2^40, "
                         "appbench/groupby's)")
    a = ap.parse_args(argv)
    try:
        import dask
        import distributed
    except ImportError:
        print("dask: python3-distributed is not installed; skipped")
        return 3
    prof = dict(PROFILES[a.profile], key_range=a.key_range)
    if a.groups:
        prof["groups"] = a.groups
    if prof["key_range"] < prof["groups"]:
        ap.error("--key-range is smaller than the groups: the groups need distinct keys")
    which = set(a.what.split(",")) - {""}
    unknown = which - set(("pingpong",) + WORKLOADS)
    if unknown:
        ap.error("--what: unknown %s" % ",".join(sorted(unknown)))
    run_id = schema.new_run_id()
    load_start = os.getloadavg()
    rows = []
    if "pingpong" in which:
        rows += pingpong_rows(run_id, prof["sizes"], prof["iters"], a.host)
    workers = [int(w) for w in a.workers.split(",") if w]
    worker_env = {}
    if which & set(WORKLOADS):
        rows += workload_rows(run_id, workers, prof, which, worker_env)
    meta = schema.external_metadata(
        run_id, "dask_baseline", [sys.argv],
        {"dask": dask.__version__, "distributed": distributed.__version__},
        {"profile": a.profile, "workers": workers, "what": sorted(which),
         "transpose_sum": prof["ts"], "merge_rows_per_chunk": prof["rows"], "frac_match": 0.3,
         "groupby_rows_per_chunk": prof["groupby"], "groupby_groups": prof["groups"],
         "groupby_key_range": prof["key_range"], "groupby_split_out": "max(workers, 2)",
         "sort_rows_per_chunk": prof["sort"], "matmul": prof["mm"],
         "cluster": "LocalCluster processes=True threads_per_worker=1",
         "worker_thread_env": worker_env,
         "ranks": "workers + 1 (the client process hosts the scheduler)",
         "comm_s": "mean over workers of the union of transfer_incoming_log intervals",
         "transfer_s": "sum over workers of transfer_incoming_log durations"})
    if which & set(WORKLOADS):
        meta["machine"] = machine_block(workers, load_start)
    schema.write_csv(a.csv, rows, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
