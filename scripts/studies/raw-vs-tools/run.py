#!/usr/bin/python3
"""Each raw baseline against its library's own tool, alternating (issue 29 item 1): in every
round and MPI build, the raw baseline's invocation is followed at once by its tool's, so a
change of the VM's latency mode between rounds moves both sides alike.

  raw-mpi (alone in its invocation)  then  NetPIPE NPopenmpi / NPmpich2   8 B - 4 KiB
  raw-ucx:polling                     then  ucx_perftest tag_lat (poll)    8 B - 4 KiB
  raw-ucx bandwidth (both buffers)    then  ucx_perftest tag_bw            1, 4 MiB
  raw-tcp (blocking, busy-poll)       then  NPtcp                          8 B, 64 KiB, 1 MiB

raw-mpi runs alone so the process asks MPI for what raw-mpi needs (MPI_THREAD_SINGLE, as
MPI_Init gives the tools), not the level another policy in its invocation would need.
Against NetPIPE, raw-mpi and raw-tcp are timed as NetPIPE times (--timing per-repetition:
one clock pair per repetition) and judged by NetPIPE's statistic (the best repetition's
mean); raw-ucx, like ucx_perftest, times every round trip and is judged by its median.
Ping-pong reuses one send and one receive buffer on both sides, as the tools do; raw-ucx
bandwidth runs with both receive-buffer policies (one buffer per window as the tool, one per
message as the suite). Writes OUT/ROUND/FLAVOR/
(the suite's CSVs and the tools' outputs) and OUT/manifest.json; summarize.py reads them.

Usage: run.py OUT [--rounds N] [--mpi openmpi,mpich]"""

import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "baselines"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

import netpipe  # noqa: E402
import ucx_perftest  # noqa: E402
from cbresults import schema  # noqa: E402
from cbresults.launch import mpi_env, mpirun_prefix  # noqa: E402

# (first, last, factor): the suite's -b/-e/-f
LAT_SIZES = (8, 4096, 8)  # 8, 64, 512, 4096
BW_SIZES = (1 << 20, 4 << 20, 4)
TCP_SIZES = (1, 1 << 20, 1024)  # 1, 1024, 1 MiB


def sizes(spec):
    first, last, factor = spec
    out = [first]
    while out[-1] * factor <= last:
        out.append(out[-1] * factor)
    return out
ITERS = 20000  # round trips per repetition (ours) and per trial / run (the tools)
REPS = 5


def suite(flavor, binary, backend, spec, out, extra=()):
    first, last, factor = spec
    cmd = mpirun_prefix(flavor, 2) + [
        os.path.join(ROOT, "build", flavor, "microbench", binary), "--backend", backend,
        "-b", str(first), "-e", str(last), "-f", str(factor), "--reps", str(REPS),
        "--csv", out] + list(extra)
    p = subprocess.run(cmd, env=mpi_env(flavor), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()[-300:]))
    return cmd


def perftest(test, size, iters, folder):
    final, cmd = ucx_perftest.run_pair(test, size, iters, iters // 10, "poll", "127.0.0.1", 300)
    if not final:
        raise RuntimeError("ucx_perftest %s %d: no result" % (test, size))
    with open(os.path.join(folder, "perftest-%s-%d.json" % (test, size)), "w") as f:
        json.dump(final, f)
    return cmd


def one_round(flavor, folder):
    os.makedirs(folder, exist_ok=True)
    cmds = []
    # Against NetPIPE, timed as NetPIPE times: one clock pair per repetition.
    cmds.append(suite(flavor, "pingpong", "raw-mpi", LAT_SIZES,
                      os.path.join(folder, "raw-mpi.csv"),
                      ["--iters", str(ITERS), "--timing", "per-repetition"]))
    points, cmd = netpipe.run_npmpi(flavor, LAT_SIZES[1], 600, folder, repeats=ITERS)
    if not points:
        raise RuntimeError("%s: no result" % " ".join(cmd))
    cmds.append(cmd)
    cmds.append(suite(flavor, "pingpong", "raw-ucx:polling", LAT_SIZES,
                      os.path.join(folder, "raw-ucx.csv"), ["--iters", str(ITERS)]))
    cmds += [perftest("tag_lat", s, ITERS, folder) for s in sizes(LAT_SIZES)]
    # Both receive-buffer policies: one buffer for the whole window, as the tool receives
    # (the like-for-like pair), and a buffer per message, the suite's own footprint.
    for policy, name in (("shared", "raw-ucx-bw-shared.csv"), ("per-message", "raw-ucx-bw.csv")):
        cmds.append(suite(flavor, "bandwidth", "raw-ucx:polling", BW_SIZES,
                          os.path.join(folder, name),
                          ["--iters", "100", "--iters-large", "100", "--recv-buffers", policy]))
    cmds += [perftest("tag_bw", s, 100, folder) for s in sizes(BW_SIZES)]
    cmds.append(suite(flavor, "pingpong", "raw-tcp:blocking,raw-tcp:busy-poll", TCP_SIZES,
                      os.path.join(folder, "raw-tcp.csv"),
                      ["--iters", "2000", "--iters-large", "500", "--timing", "per-repetition"]))
    points, cmd = netpipe.run_nptcp(TCP_SIZES[1], "127.0.0.1", 600, folder, repeats=2000)
    if not points:
        raise RuntimeError("%s: no result" % " ".join(cmd))
    cmds.append(cmd)
    return cmds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mpi", default="openmpi,mpich")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out)  # NetPIPE over MPI runs in the round's folder
    flavors = [m for m in a.mpi.split(",") if m]
    started = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = schema.source_commit()  # of what runs, taken before anything else changes
    commands = {}  # each build's first round, as run
    for r in range(1, a.rounds + 1):
        for flavor in (flavors if r % 2 else flavors[::-1]):
            print("raw-vs-tools: round %d %s" % (r, flavor), flush=True)
            cmds = one_round(flavor, os.path.join(out, str(r), flavor))
            commands.setdefault(flavor, [" ".join(c) for c in cmds])
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"study": "raw-vs-tools", "rounds": a.rounds, "mpi": flavors,
                   "started_utc": started,
                   "finished_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "source_commit": commit, "iterations": ITERS,
                   "reps": REPS, "load_avg_1min_after": os.getloadavg()[0],
                   "command": "scripts/studies/raw-vs-tools/run.py %s --rounds %d --mpi %s" % (
                       a.out, a.rounds, a.mpi),
                   "commands_round_1": commands}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
