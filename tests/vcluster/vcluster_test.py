#!/usr/bin/python3
"""CTest checks of scripts/vcluster against one build (its MPI flavor):

  errors   bad input is one line and exit 2; an interrupted `up` and `down` leave nothing
  bridge   2 hosts at full speed: ranks on different hosts, every backend's ping-pong,
           bandwidth and bidirectional bandwidth validated across them; link down/up
  delay    2 hosts through the link emulator at --delay 50us: every backend and raw
           baseline validates and measures an 8 B one-way latency of at least 50 us (the
           proof that no shared memory crosses a host)
  apps     3 hosts through the emulator (a small delay): transpose_sum and merge in both
           layouts on tcp, ucx and mpi, validated; every rank counts the 4 ranks as its
           machine's (the hosts share its CPUs), the sidecar's machine state says so, and
           the loops yield when they outnumber the CPUs
  finalize 4 hosts at full speed: a 4-rank merge, one rank per host, 6 times with the
           finalize watchdog off; every job exits 0 within its minute (MPICH 4.0.2 + UCX
           hung in about half of these before microbench/harness/mpich_ucx_finalize.hpp)

Exit 77 (CTest: skipped) with one line when the machine cannot make namespaces."""

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import time

from vcluster_cli import SKIP, VCLUSTER, Cluster, Failed, leftovers, mpirun, rows, vc  # noqa: F401

BACKENDS = "tcp,ucx,mpi,raw-tcp,raw-ucx,raw-mpi"


def expect_error(name, args, words):
    p = vc(name, *args, check=False)
    lines = [line for line in p.stdout.strip().splitlines() if line]
    if p.returncode != 2 or len(lines) != 1 or not all(w in lines[0] for w in words):
        raise Failed("vcluster %s: wanted exit 2 and one line with %s, got %d:\n%s" % (
            " ".join(args), words, p.returncode, p.stdout))
    print("ok: %s -> %s" % (" ".join(args), lines[0]))


def test_errors(a):
    n = a.name
    vc(n, "down", check=False)
    expect_error(n, ["up", "--hosts", "0"], ["--hosts 0"])
    expect_error(n, ["up", "--hosts", "2", "--jitter", "5us"], ["jitter needs a delay"])
    expect_error(n, ["up", "--hosts", "2", "--rate", "fast"], ["rate", "fast"])
    expect_error(n, ["up", "--hosts", "2", "--loss", "120"], ["outside 0..100"])
    expect_error(n, ["up", "--hosts", "2", "--link", "delay=1ms,color=red"], ["unknown link key"])
    expect_error(n, ["exec", "0", "--", "true"], ["no virtual cluster"])
    expect_error(n, ["mpirun", a.flavor, "-np", "2"], ["after '--'"])
    if leftovers(n):
        raise Failed("a refused up left: %s" % leftovers(n))
    # An interrupted up removes what it made.
    p = subprocess.Popen([VCLUSTER, "--name", n, "up", "--hosts", "40"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 20
    while not glob.glob("/run/netns/%s-h3" % n) and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    print("interrupted up: exit %d: %s" % (p.returncode, out.strip()))
    if p.returncode != 130 or leftovers(n):
        raise Failed("interrupted up: exit %d, left %s" % (p.returncode, leftovers(n)))
    # Unknown host, then link down really cuts a host off and up restores it.
    with Cluster(n, "--hosts", "2"):
        expect_error(n, ["exec", "7", "--", "true"], ["no host '7'"])
        probe = ["python3", "-c", "import socket,sys; s=socket.socket(); s.settimeout(1.5)\n"
                 "try:\n s.connect(('10.254.0.2', 9)); sys.exit(0)\n"
                 "except ConnectionRefusedError: sys.exit(0)\n"
                 "except OSError: sys.exit(1)"]
        if vc(n, "exec", "0", "--", *probe, check=False).returncode != 0:
            raise Failed("host 1 unreachable before link down")
        vc(n, "link", "1", "down")
        if vc(n, "exec", "0", "--", *probe, check=False).returncode == 0:
            raise Failed("host 1 still reachable with its link down")
        vc(n, "link", "1", "up")
        if vc(n, "exec", "0", "--", *probe, check=False).returncode != 0:
            raise Failed("host 1 unreachable after link up")
        st = json.loads(vc(n, "status").stdout)
        if [h["hostname"] for h in st["hosts"]] != ["%s-h0" % n, "%s-h1" % n]:
            raise Failed("status hosts: %s" % st["hosts"])


def spread_check(a, np, hosts):
    out = mpirun(a.name, a.flavor, np, ["hostname"])
    names = sorted(line.strip() for line in out.splitlines() if line.strip())
    want = sorted("%s-h%d" % (a.name, i % hosts) for i in range(np))
    if names != want:
        raise Failed("ranks ran on %s, wanted %s" % (names, want))


def pingpong(a, out_csv, extra=()):
    mpirun(a.name, a.flavor, 2, [
        os.path.join(a.build_dir, "microbench", "pingpong"), "--backend", BACKENDS,
        "-b", "8", "-e", "8", "--validate", "--iters", "400", "--warmup", "50", "--reps", "4",
        "--csv", out_csv] + list(extra))
    got = rows(out_csv)
    if sorted(r["backend"] for r in got) != sorted(BACKENDS.split(",")):
        raise Failed("pingpong rows: %s" % [r["backend"] for r in got])
    with open(out_csv[:-4] + ".json") as f:
        link = json.loads(json.load(f)["environment"]["COMMBENCH_LINK"])
    print("sidecar link: %s" % link)
    return got, link


def test_bridge(a):
    with Cluster.of(a, 2):
        spread_check(a, 2, 2)
        got, link = pingpong(a, os.path.join(a.out, "bridge_pingpong.csv"))
        if link["mode"] != "bridge":
            raise Failed("sidecar link mode %s" % link["mode"])
        bw = os.path.join(a.build_dir, "microbench", "bandwidth")
        small = ["-b", "1K", "-e", "1M", "--iters", "4", "--iters-large", "2", "--reps", "2",
                 "--window", "8", "--validate"]
        mpirun(a.name, a.flavor, 2, [bw, "--backend", BACKENDS] + small)
        mpirun(a.name, a.flavor, 2, [bw, "--backend", BACKENDS, "--bidirectional"] + small)


def test_delay(a):
    with Cluster.of(a, 2, delay="50us"):
        got, link = pingpong(a, os.path.join(a.out, "delay_pingpong.csv"))
        if link["mode"] != "emulator" or link["delay_us"] != 50:
            raise Failed("sidecar link: %s" % link)
        short = [(r["backend"], float(r["latency_us_min"])) for r in got
                 if float(r["latency_us_min"]) < 50]
        if short:
            raise Failed("one-way latency below the link's 50 us (shared memory across "
                         "hosts?): %s" % short)
        print("every backend >= 50 us: %s" % [(r["backend"], r["latency_us_p50"]) for r in got])


def test_apps(a):
    with Cluster.of(a, 3, delay="20us"):
        spread_check(a, 4, 3)
        for app, size in (("transpose_sum", ["-n", "512", "-c", "128"]),
                          ("merge", ["--chunk-size", "2000"])):
            exe = os.path.join(a.build_dir, "appbench", app)
            for layout in ("compact", "dask"):
                for backend in ("tcp", "ucx", "mpi"):
                    out_csv = os.path.join(a.out, "%s_%s_%s.csv" % (app, layout, backend))
                    text = mpirun(a.name, a.flavor, 4, [
                        exe, "--backend", backend, "--layout", layout, "--runs", "1",
                        "--warmup", "1", "--timeout", "120", "--csv", out_csv] + size)
                    got = rows(out_csv)
                    if "validation: PASSED" not in text or not got or \
                            any(r["validated"] != "1" or r["wrong"] not in ("0", "") for r in got):
                        raise Failed("%s %s %s not validated" % (app, layout, backend))
                    machine_ranks_check(out_csv[:-4] + ".json", 4)


def machine_ranks_check(sidecar, ranks):
    """The virtual hosts share this machine's CPUs: every rank counts all `ranks` as its
    machine's, and the loops yield when they outnumber the CPUs (harness/machine_ranks.hpp),
    though the launcher puts at most 2 on any one host."""
    with open(sidecar) as f:
        meta = json.load(f)
    counted = meta["environment"].get("COMMBENCH_MACHINE_RANKS")
    yield_ns = meta["settings"]["spin_yield_after_ns"]
    over = ranks > os.cpu_count()
    want_yield = 2000 if over else 2**63 - 1
    machine = meta["machine"]
    if counted != str(ranks) or yield_ns != want_yield or \
            machine["ranks_on_node"] != ranks or machine["oversubscribed"] is not over:
        raise Failed("%s: COMMBENCH_MACHINE_RANKS %s, spin_yield_after_ns %s, machine %s "
                     "(want %d ranks on the machine, yield %d)"
                     % (sidecar, counted, yield_ns, machine, ranks, want_yield))


def test_finalize(a):
    exe = os.path.join(a.build_dir, "appbench", "merge")
    with Cluster.of(a, 4):
        for i in range(6):
            # The watchdog off: a finalize that hangs times the job out instead of being
            # ended by it, and mpirun() fails on any exit but 0.
            mpirun(a.name, a.flavor, 4, ["env", "COMMBENCH_FINALIZE_GRACE_S=0", exe,
                                         "--backend", "tcp", "--runs", "1", "--warmup", "0",
                                         "--chunk-size", "2000"], timeout=60)
            print("job %d of 6 exited 0" % (i + 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("check", choices=["errors", "bridge", "delay", "apps", "finalize"])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--name", help="cluster name (default: from check and flavor)")
    ap.add_argument("--emulator", help="linkemu binary")
    ap.add_argument("--out", help="folder for CSVs (default: a temporary one)")
    a = ap.parse_args()
    a.name = a.name or "t%s%s" % (a.check[:3], a.flavor[0])
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces)")
        return SKIP
    import tempfile
    a.out = a.out or tempfile.mkdtemp(prefix="vcluster-test-")
    os.makedirs(a.out, exist_ok=True)
    try:
        {"errors": test_errors, "bridge": test_bridge, "delay": test_delay,
         "apps": test_apps, "finalize": test_finalize}[a.check](a)
    except Failed as e:
        print("FAILED: %s" % e)
        return 1
    print("PASSED: vcluster %s (%s)" % (a.check, a.flavor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
