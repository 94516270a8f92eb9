#!/usr/bin/python3
"""Where each policy's instructions per message go (issue 29 item 2's profiles): the
in-process ping-pong of tests/icount (64 B, one loop, both ends counted) under callgrind,
the main thread's N2 block (300 round trips after warm-up and the N1 block), each
function's own instructions (self cost) divided by the block's 600 messages and summed by
who executes them: the library (UCX, MPI, libc) or this suite's layer (by source folder of
backends/: comm/ framing and buffers, runtime/ loop and coroutine machinery, the backend's
own folder), and the driver (the echo and round-trip coroutines of the test itself).

Counts, not time: the same binary and inputs give the same numbers on a busy machine.
  profile.py OUT --driver build/openmpi/tests/icount/icount_pingpong \\
      --mpiexec mpirun.openmpi --mpi-flavor openmpi [--policies ucx:cooperative,...]
Writes OUT/<flavor>-<policy>.callgrind.xz (the block's dump) and OUT/<flavor>.json, and
prints the table; summarize.py makes profile.md from the JSON files."""
import argparse
import glob
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

POLICIES = "tcp:epoll,ucx:cooperative,ucx:polling,mpi:cooperative,mpi:batched"
N1, N2, WARMUP, SIZE = 100, 300, 50, 64
LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$")
LIBRARY = re.compile(r"lib(ucp|uct|ucs|ucm|mpi|open-pal|open-rte|pmix|hwloc|event)|mca_|"
                     r"ld-linux")
RUNTIME = "layer: runtime (loop, coroutines)"
NAMESPACE = (("commbench::ucx::", "layer: ucx backend"), ("commbench::mpi", "layer: mpi backend"),
             ("commbench::tcp", "layer: tcp backend"), ("EventLoop", RUNTIME),
             ("commbench::Task", RUNTIME))


def category(src, fn, obj):
    """Who runs a function's own instructions (module docstring)."""
    if LIBRARY.search(obj):
        name = os.path.basename(obj).split(".so")[0]
        return "library: " + ("mpi" if re.search(r"mpi|open-|pmix|mca_", name) else name)
    if "libc.so" in obj or "libstdc++" in obj or "libm.so" in obj:
        return "libc"
    if "/tests/icount/" in src or "round_trips" in fn or "::echo()" in fn:
        return "driver"
    m = re.search(r"/backends/([a-z_]+)/", src)
    if m:
        return {"comm": "layer: comm (framing, buffers)", "runtime": RUNTIME}.get(
            m.group(1), "layer: %s backend" % m.group(1))
    for key, cat in NAMESPACE:  # inlined library headers: the function that inlined them
        if key in fn:
            return cat
    if re.search(r"check_limits|unpack_bare|Storage::|Message::|allocator_for", fn):
        return "layer: comm (framing, buffers)"
    return "other"


def breakdown(dump, messages):
    """{category: instructions per message} and the block's total per message."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                          "--auto=no", dump], capture_output=True, text=True, check=True).stdout
    cats, total = {}, None
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        n, rest = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in rest:
            total = n
            continue
        if n == total:
            # the frames that were on the stack when the counters were zeroed (main, the
            # loop's run) show the whole block as their own: callgrind's artefact
            continue
        o = re.search(r"\[([^\]]+)\]\s*$", rest)
        src, _, fn = rest.partition(":")
        c = category(src, fn, o.group(1) if o else "")
        cats[c] = cats.get(c, 0) + n
    return {k: v / messages for k, v in cats.items()}, (total or 0) / messages


def run(args, policy, tmp):
    out = os.path.join(tmp, "cg.out")
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
           "--callgrind-out-file=" + out, args.driver, "--size", str(SIZE), "--warmup",
           str(WARMUP), "--counts", "%d,%d" % (N1, N2), policy]
    if policy.startswith("mpi:"):
        cmd = [args.mpiexec, "-np", "1"] + (
            ["--oversubscribe"] if args.mpi_flavor == "openmpi" else []) + cmd
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        sys.exit("profile: %s exited %d: %s" % (" ".join(cmd), r.returncode,
                                                 (r.stdout + r.stderr)[-2000:]))
    for path in glob.glob(out + ".*-01"):   # the main thread's dumps
        with open(path) as f:
            head = f.read(4096)
        if "commbench-icount %s %d" % (policy, N2) in head:
            return path
    sys.exit("profile: no N2 dump of %s's main thread" % policy)


def tree_commit(path):
    """The commit of the source tree a binary was built in (its build folder lies inside
    that tree), "-dirty" when tracked sources outside results/ differ from it."""
    where = os.path.dirname(os.path.abspath(path))

    def git(*a):
        return subprocess.run(["git", "-C", where] + list(a), capture_output=True, text=True)
    head = git("rev-parse", "--short=7", "HEAD")
    if head.returncode != 0:
        return "unknown"
    clean = git("diff", "--quiet", "HEAD", "--", ":/", ":(exclude,top)results").returncode == 0
    return head.stdout.strip() + ("" if clean else "-dirty")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--driver", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--mpi-flavor", required=True, choices=("openmpi", "mpich"))
    ap.add_argument("--policies", default=POLICIES)
    a = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("profile: valgrind (callgrind_annotate) is not installed")
    os.makedirs(a.out, exist_ok=True)
    result = {"what": __doc__.split("\n\n")[0], "size": SIZE, "warmup": WARMUP,
              "counts": [N1, N2], "mpi_flavor": a.mpi_flavor, "policies": {},
              "git_commit": tree_commit(a.driver), "driver": a.driver,
              "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True,
                                         text=True).stdout.strip()}
    for policy in a.policies.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            dump = run(a, policy, tmp)
            cats, total = breakdown(dump, 2.0 * N2)
            with open(dump, "rb") as f, lzma.open(os.path.join(
                    a.out, "%s-%s.callgrind.xz" % (a.mpi_flavor, policy.replace(":", "-"))),
                    "wb") as z:
                z.write(f.read())
        result["policies"][policy] = {"total": total, "categories": cats}
        layer = sum(v for k, v in cats.items() if k.startswith("layer"))
        lib = sum(v for k, v in cats.items() if k.startswith("library") or k == "libc")
        print("%-16s %7.1f instructions/message: layer %6.1f, library %6.1f, driver %5.1f" % (
            policy, total, layer, lib, cats.get("driver", 0.0)))
    with open(os.path.join(a.out, "%s.json" % a.mpi_flavor), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
