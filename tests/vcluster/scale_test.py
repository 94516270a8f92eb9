#!/usr/bin/python3
"""Scale on the virtual cluster (issue 17): many ranks spread round robin over virtual
hosts, on 2 cores, so it measures correctness and cost *per rank*, not speed.

For every rank count and backend (tcp, ucx, mpi; each at its default progress policy):
  probe   microbench/scale_probe: bootstrap, listener, address exchange and the first
          all-to-all of connections (every rank holds one to every other, a validated
          message each way), with each rank's setup times, RSS, descriptors, UCX
          endpoints and MPI communicators; the CSV must have one row per rank, on every
          host, each holding ranks-1 connections
  apps    transpose_sum and merge in the dask layout (rank 0 scheduler, rank 1 client,
          ranks-2 workers), validated (every block's checksum / every matched row)

  scale_test.py ci ...     4 hosts, 16 ranks (14 workers): the CTest check vcluster_scale
  scale_test.py full ...   8 hosts, 8/16/32/64 ranks (6-62 workers): the committed study
                           (results/scale-2026-11-27/, its commands.sh)

Every run appends one JSON line to OUT/records.jsonl (kind, program, backend, ranks,
hosts, flavor, passed, the job's wall seconds, the error line), beside its CSV and sidecar;
scripts/studies/scale-2026-11-27/summarize.py makes the table, the figure and the model from them.
A failing run is recorded and the matrix goes on; the exit is 1 if any failed.
Exit 77 (CTest: skipped) with one line when the machine cannot make namespaces."""

import argparse
import json
import os
import signal
import sys
import tempfile
import time

from vcluster_cli import SKIP, Cluster, Failed, mpirun, rows

BACKENDS = ["tcp", "ucx", "mpi"]
APPS = {
    # Blocks in row-major runs, one run per worker: 16 x 16 blocks keep every one of 62
    # workers busy; small enough that 64 ranks on 2 cores finish in seconds.
    "transpose_sum": ["-n", "2048", "-c", "128"],
    "merge": ["--chunk-size", "2000"],
}
LEVELS = {"ci": {"hosts": 4, "ranks": [16]}, "full": {"hosts": 8, "ranks": [8, 16, 32, 64]}}


def record(a, **fields):
    fields.update(flavor=a.flavor, hosts=a.hosts, variant=a.variant)
    with open(os.path.join(a.out, "records.jsonl"), "a") as f:
        f.write(json.dumps(fields, sort_keys=True) + "\n")


def run_probe(a, backend, np):
    out_csv = os.path.join(a.out, "probe_%s_%s%s_np%d.csv" % (a.flavor, backend, a.suffix, np))
    cmd = [os.path.join(a.build_dir, "microbench", "scale_probe"), "--backend", backend,
           "--csv", out_csv] + a.opts + \
        (["--timeout", str(a.probe_timeout)] if a.probe_timeout else [])
    t0 = time.monotonic()
    text = mpirun(a.name, a.flavor, np, cmd, timeout=a.job_timeout)
    job_s = time.monotonic() - t0
    got = rows(out_csv)
    if sorted(int(r["rank"]) for r in got) != list(range(np)):
        raise Failed("probe %s np %d: rows for ranks %s" % (backend, np, [r["rank"] for r in got]))
    short = [r["rank"] for r in got if int(r["connections"]) != np - 1]
    if short:
        raise Failed("probe %s np %d: ranks %s hold fewer than %d connections" % (
            backend, np, short, np - 1))
    hosts = {r["host"] for r in got}
    if len(hosts) != min(np, a.hosts):
        raise Failed("probe %s np %d ran on %d hosts, wanted %d" % (
            backend, np, len(hosts), min(np, a.hosts)))
    return job_s, text


def run_app(a, app, backend, np):
    out_csv = os.path.join(a.out, "%s_%s_%s%s_np%d.csv" % (app, a.flavor, backend, a.suffix, np))
    cmd = [os.path.join(a.build_dir, "appbench", app), "--backend", backend, "--layout", "dask",
           "--runs", "1", "--warmup", "1", "--timeout", str(a.job_timeout - 30),
           "--csv", out_csv] + APPS[app] + a.opts
    t0 = time.monotonic()
    text = mpirun(a.name, a.flavor, np, cmd, timeout=a.job_timeout)
    job_s = time.monotonic() - t0
    got = rows(out_csv)
    if "validation: PASSED" not in text or not got or \
            any(r["validated"] != "1" or r["wrong"] not in ("0", "") for r in got):
        raise Failed("%s %s np %d not validated" % (app, backend, np))
    return job_s, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("level", choices=sorted(LEVELS))
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--out", help="folder for CSVs, sidecars and records.jsonl (default: a "
                                  "temporary one)")
    ap.add_argument("--ranks", help="comma list of rank counts (default: the level's)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="comma list (default: all)")
    ap.add_argument("--apps", default=",".join(APPS), help="comma list, or 'none'")
    ap.add_argument("--no-probe", action="store_true", help="run the apps only")
    ap.add_argument("--app-ranks", help="comma list: run the apps only at these rank counts "
                                        "(default: every one of --ranks)")
    ap.add_argument("--backend-opt", action="append", default=[], metavar="K=V",
                    help="passed to every program (e.g. pair_comms=create, the mpi ablation)")
    ap.add_argument("--probe-timeout", type=int,
                    help="scale_probe's --timeout (default: its own, 60 s + 1 s per rank; "
                         "the pair_comms=create ablation needs far more)")
    ap.add_argument("--variant", default="",
                    help="a name for this configuration (with --backend-opt): in the file "
                         "names and records, so summarize.py plots it as its own series")
    ap.add_argument("--job-timeout", type=int, default=300,
                    help="seconds one job may take before it counts as a hang (default 300)")
    ap.add_argument("--name", help="cluster name (default: sc + level + flavor)")
    ap.add_argument("--subnet", help="private /24 (default: one per flavor and level)")
    a = ap.parse_args()
    level = LEVELS[a.level]
    a.hosts = level["hosts"]
    ranks = [int(x) for x in a.ranks.split(",")] if a.ranks else level["ranks"]
    backends = a.backends.split(",")
    apps = [] if a.apps == "none" else a.apps.split(",")
    app_ranks = [int(x) for x in a.app_ranks.split(",")] if a.app_ranks else ranks
    a.opts = [x for kv in a.backend_opt for x in ("--backend-opt", kv)]
    a.suffix = "+" + a.variant if a.variant else ""
    for x in backends:
        if x not in BACKENDS:
            ap.error("unknown backend '%s' (known: %s)" % (x, ",".join(BACKENDS)))
    for x in apps:
        if x not in APPS:
            ap.error("unknown app '%s' (known: %s)" % (x, ",".join(APPS)))
    if any(n < 4 for n in ranks):
        ap.error("--ranks: at least 4 (the dask layout needs a scheduler, a client and 2 workers)")
    # A SIGTERM (a stopped test run) unwinds like an error: the `with` block takes the
    # cluster's namespaces and bridge down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.name = a.name or "sc17%s%s" % (a.level[0], a.flavor[0])
    # Apart from vcluster_test.py's 10.254.0 and netfault_test.py's 10.219.x.
    subnet = a.subnet or "10.217.%d" % (10 + 2 * (a.flavor == "mpich") + (a.level == "full"))
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces)")
        return SKIP
    a.out = a.out or tempfile.mkdtemp(prefix="scale-")
    os.makedirs(a.out, exist_ok=True)
    failures = []
    t0 = time.monotonic()
    with Cluster(a.name, "--hosts", str(a.hosts), "--subnet", subnet):
        for np in ranks:
            runs = [("probe", "scale_probe", b) for b in backends if not a.no_probe] + \
                [("app", app, b) for app in apps for b in backends if np in app_ranks]
            for kind, program, backend in runs:
                try:
                    if kind == "probe":
                        job_s, _ = run_probe(a, backend, np)
                    else:
                        job_s, _ = run_app(a, program, backend, np)
                    record(a, kind=kind, program=program, backend=backend, ranks=np,
                           passed=True, job_s=round(job_s, 2), error="")
                    print("ok: %s %s np %d (%.1f s)" % (program, backend, np, job_s))
                except Failed as e:
                    msg = str(e).splitlines()[0]
                    record(a, kind=kind, program=program, backend=backend, ranks=np,
                           passed=False, job_s=None, error=msg)
                    failures.append(msg)
                    print("FAILED: %s" % e)
    print("took %.0f s" % (time.monotonic() - t0))
    if failures:
        print("FAILED: %d run(s):\n  %s" % (len(failures), "\n  ".join(failures)))
        return 1
    print("PASSED: scale %s (%s, %d hosts, ranks %s)" % (
        a.level, a.flavor, a.hosts, ",".join(map(str, ranks))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
