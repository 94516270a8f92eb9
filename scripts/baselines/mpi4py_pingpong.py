#!/usr/bin/python3
"""The language layer as an external baseline: ping-pong latency through mpi4py, the way a
Python runtime drives MPI, measured against the same MPI library our C++ backends use.

Run under the launcher of the MPI that mpi4py is linked against, two ranks:

    mpirun.openmpi --oversubscribe -np 2 python3 mpi4py_pingpong.py --csv F.csv --mpi openmpi
    mpirun.mpich -np 2 python3 mpi4py_pingpong.py --csv F.csv --mpi mpich

Variants, measured interleaved (per size: every variant warmed up, then each repetition
runs every variant in turn, so their ratio is taken under the same machine state):

- mpi4py:blocking   comm.Send / comm.Recv on preallocated numpy uint8 buffers: the least
                    Python can put between a message and MPI;
- mpi4py:asyncio    MPI4Dask's coroutine design, inside one asyncio event loop: a write is
                    `req = comm.Isend(buf)`, a read `req = comm.Irecv(buf)`, each followed
                    by `while not req.Test(): await asyncio.sleep(0)`; both ranks run it.

Method (OSU's, as microbench/pingpong): rank 0 sends, rank 1 receives and sends the
same size back; rank 0 times every round trip with time.perf_counter_ns; a sample is half a
round trip. Untimed warm-up round trips per variant and size, then --reps repetitions of
iters/reps timed round trips each (fewer from 8 KiB). Rows report the median, mean,
minimum and 99th percentile (linear interpolation) over all samples of all repetitions.

Checks, all where no clock runs (rank 0 after a sample's clock stopped, rank 1 after its
answer went out): the first and last byte of every message carry a per-round-trip value
(a receive that wrote nothing shows the previous one) and are checked (--check ends, the
default: validated=0, as the C++ runs of the study, which do not validate); --check all
compares every byte too (validated=1), but from 8 KiB on (rendezvous) rank 1's compare
delays its next receive and so shows in the samples (1 MiB: about +40 us here), so its
timings are for integrity runs, not for comparison. `wrong` counts the bytes that failed,
summed over both ranks, in both modes; any makes the exit status 1.
Like raw-mpi, each rank sends from its own send buffer and receives into its own receive
buffer (see Bench for why rank 1 does not echo its receive buffer).

Rows: benchmark=pingpong, origin=external, backend=mpi4py, progress=blocking|asyncio,
mpi=<flavor>; only rank 0 writes (CSV + JSON sidecar, scripts/lib/cbresults/schema.py).

Exit status: 0 done; 1 failed or wrong bytes; 2 bad usage (not 2 ranks); 3 skipped, with
one line on stdout saying why: mpi4py is not importable, or it is linked against another
MPI than the one asked for or launched by (Debian builds python3-mpi4py for the default
MPI alternative only, Open MPI on Debian 12; under mpirun.mpich each rank of it would be an
Open MPI singleton)."""

import argparse
import asyncio
import faulthandler
import os
import socket
import sys
import time

import _common  # sets the import path; deb_version
from cbresults import machine, matrix, schema
from cbresults.select import median
from cbresults.sizes import fmt_size, parse_size

SYSTEM_PYTHON = "/usr/bin/python3"
REEXEC_GUARD = "COMMBENCH_MPI4PY_REEXEC"

# microbench/harness/bench_options.cpp's pingpong defaults (OSU's), for what a profile's
# arguments leave out; large from 8 KiB.
CPP_DEFAULTS = {"iters": 10000, "iters_large": 1000, "warmup": 200, "warmup_large": 20,
                "reps": 10, "large_size": "8K"}


def profile(name):
    """The C++ pingpong's profile (cbresults.matrix.PROFILES, CLI of bench_options.cpp) as
    {sizes, iters, iters_large, warmup, warmup_large, reps, large_size}, so rows of the
    same profile have the same sizes and sample counts."""
    args = matrix.PROFILES[name]["pingpong"]
    opt = dict(zip(args[::2], args[1::2]))
    lo, hi, factor = parse_size(opt["-b"]), parse_size(opt["-e"]), int(opt["-f"])
    sizes = [lo]
    while sizes[-1] * factor <= hi:
        sizes.append(sizes[-1] * factor)
    prof = {"sizes": sizes}
    for k, default in CPP_DEFAULTS.items():
        prof[k] = opt.get("--" + k.replace("_", "-"), default)
    for k in ("iters", "iters_large", "warmup", "warmup_large", "reps"):
        prof[k] = int(prof[k])
    prof["large_size"] = parse_size(prof["large_size"])
    return prof


VARIANTS = ("blocking", "asyncio")
TAGS = {"blocking": 11, "asyncio": 12}
THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")


def env_rank():
    """This process's rank as the launcher tells it (before MPI is initialised)."""
    for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        if os.environ.get(k, "").isdigit():
            return int(os.environ[k])
    return 0


def launcher_flavor():
    """Which launcher started us: Open MPI's mpirun sets OMPI_COMM_WORLD_*, MPICH's Hydra
    PMI_RANK / PMI_SIZE; '' when started by hand."""
    if "OMPI_COMM_WORLD_SIZE" in os.environ:
        return "openmpi"
    if "PMI_SIZE" in os.environ or "PMI_RANK" in os.environ:
        return "mpich"
    return ""


def library_flavor(version):
    if "Open MPI" in version:
        return "openmpi"
    if "MPICH" in version:
        return "mpich"
    return "other"


def say(line):
    """One line from rank 0 only (every rank takes the same decision)."""
    if env_rank() == 0:
        print(line, flush=True)


def import_mpi4py():
    """mpi4py without initialising MPI; under an interpreter that lacks it (a pyenv or venv
    python3 first on PATH), re-executes this rank with the system interpreter, where
    Debian's python3-mpi4py lives. Returns (mpi4py, numpy) or (None, None)."""
    try:
        import mpi4py
        import numpy
        return mpi4py, numpy
    except ImportError:
        pass
    here = os.path.realpath(sys.executable or "")
    if (not os.environ.get(REEXEC_GUARD) and os.access(SYSTEM_PYTHON, os.X_OK)
            and here != os.path.realpath(SYSTEM_PYTHON)):
        os.environ[REEXEC_GUARD] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    return None, None


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="output CSV (a .json sidecar goes beside it)")
    ap.add_argument("--profile", choices=sorted(matrix.PROFILES), default="quick")
    ap.add_argument("--mpi", choices=["openmpi", "mpich"],
                    help="the MPI this job runs on (default: the launcher's); a mismatch "
                         "with mpi4py's library is a skip (exit 3)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma list of %s" % ", ".join(VARIANTS))
    ap.add_argument("--check", choices=["ends", "all"], default="ends",
                    help="ends: the first and last byte of every message (validated=0); "
                         "all: every byte (validated=1; slows rendezvous sizes)")
    ap.add_argument("--thread-level", choices=THREAD_LEVELS, default="funneled",
                    help="MPI_Init_thread level (default funneled, as the C++ benchmarks; "
                         "mpi4py's own default is multiple)")
    ap.add_argument("--timeout", type=float, default=900,
                    help="abort with a traceback after this many seconds")
    # Overrides of the profile (tests, ad-hoc runs).
    ap.add_argument("--sizes", help="comma list of sizes (K/M suffixes), instead of the profile's")
    ap.add_argument("--iters", type=int, help="timed round trips per size, over all reps")
    ap.add_argument("--iters-large", type=int, help="the same from 8 KiB")
    ap.add_argument("--warmup", type=int, help="untimed round trips per variant and size")
    ap.add_argument("--warmup-large", type=int, help="the same from 8 KiB")
    ap.add_argument("--reps", type=int, help="repetitions per size")
    a = ap.parse_args(argv)
    prof = profile(a.profile)
    if a.sizes:
        prof["sizes"] = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    for k in ("iters", "iters_large", "warmup", "warmup_large", "reps"):
        if getattr(a, k) is not None:
            prof[k] = getattr(a, k)
    if a.iters is not None and a.iters_large is None:
        prof["iters_large"] = a.iters
    variants = [v for v in a.variants.split(",") if v]
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        ap.error("--variants: unknown %s" % ",".join(bad or ["(none)"]))
    if any(s < 1 for s in prof["sizes"]) or not prof["sizes"]:
        ap.error("--sizes: every size must be >= 1 byte")
    if prof["reps"] < 1 or min(prof["iters"], prof["iters_large"]) < prof["reps"]:
        ap.error("--iters / --iters-large must be >= --reps >= 1")
    a.prof, a.variant_list = prof, variants
    return a


def percentile(sorted_samples, q):
    """Linear interpolation between order statistics (microbench/harness/stats.hpp)."""
    pos = q * (len(sorted_samples) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_samples) - 1)
    frac = pos - lo
    return sorted_samples[lo] * (1 - frac) + sorted_samples[hi] * frac


class Bench:
    """Both sides of both variants, on separate send and receive buffers on each rank (as
    raw-mpi: rank 1 answers from its own send buffer; echoing the buffer it had just
    received into makes the other rank read lines dirty in this core's cache, which cost
    +0.3 us at 4 KiB and +30 us at 1 MiB here, a cost raw-mpi does not pay).

    Both ranks' send buffers hold the same pattern, and the first and last byte of every
    message carry value(i) = i % 251 + 1, i counting round trips per (size, variant) from
    the warm-up on; so each rank expects to receive exactly its own send buffer, and a
    receive that wrote nothing shows the previous round trip's value. All checks happen
    where no clock runs: rank 0 after a sample's clock stopped, rank 1 after its answer
    went out; rank 1 also sets its next answer's ends there."""

    def __init__(self, MPI, np, comm, check_all):
        self.MPI, self.np, self.comm = MPI, np, comm
        self.rank = comm.Get_rank()
        self.peer = 1 - self.rank
        self.check_all = check_all
        self.counter = {}

    def buffers(self, size):
        np = self.np
        self.sbuf = (np.arange(size, dtype=np.uint64) * 7 + 3).astype(np.uint8)
        self.rbuf = np.zeros(size, dtype=np.uint8)
        self.last = size - 1
        # Message specs built once: [buffer, MPI.BYTE] spares mpi4py the datatype lookup
        # from the array's format (about 0.04 us per call here).
        self.smsg = [self.sbuf, self.MPI.BYTE]
        self.rmsg = [self.rbuf, self.MPI.BYTE]

    def _set_ends(self, i):
        v = i % 251 + 1
        self.sbuf[0] = v
        self.sbuf[self.last] = v

    def _check(self, i):
        """Wrong bytes in the message of round trip i (rbuf against this rank's sbuf, whose
        ends carry value(i)): the ends always, every byte with --check all."""
        rbuf, last, v = self.rbuf, self.last, i % 251 + 1
        wrong = 0
        if rbuf[0] != v or rbuf[last] != v:
            wrong = int(rbuf[0] != v) + int(last > 0 and rbuf[last] != v)
        if self.check_all and last > 1 and not self.np.array_equal(rbuf, self.sbuf):
            wrong += int(self.np.count_nonzero(rbuf[1:last] != self.sbuf[1:last]))
        return wrong

    # The two variants' loops are kept apart on purpose: sharing one would put an await (or
    # a call through a parameter) between the clock reads of the blocking variant.

    # -- blocking: comm.Send / comm.Recv --------------------------------------------------
    def blocking(self, n, first, out):
        comm, peer, tag = self.comm, self.peer, TAGS["blocking"]
        smsg, rmsg = self.smsg, self.rmsg
        clock, check, set_ends = time.perf_counter_ns, self._check, self._set_ends
        wrong = 0
        if self.rank == 0:
            for i in range(first, first + n):
                set_ends(i)
                t0 = clock()
                comm.Send(smsg, peer, tag)
                comm.Recv(rmsg, peer, tag)
                t1 = clock()
                wrong += check(i)
                if out is not None:
                    out.append(t1 - t0)
        else:
            set_ends(first)
            for i in range(first, first + n):
                comm.Recv(rmsg, peer, tag)
                comm.Send(smsg, peer, tag)
                wrong += check(i)
                set_ends(i + 1)
        return wrong

    # -- asyncio: Isend / Irecv, then Test until done, yielding to the loop in between ----
    async def asyncio(self, n, first, out):
        comm, peer, tag = self.comm, self.peer, TAGS["asyncio"]
        smsg, rmsg = self.smsg, self.rmsg
        clock, check, set_ends = time.perf_counter_ns, self._check, self._set_ends
        wrong = 0
        if self.rank == 0:
            for i in range(first, first + n):
                set_ends(i)
                t0 = clock()
                await _write(comm, smsg, peer, tag)
                await _read(comm, rmsg, peer, tag)
                t1 = clock()
                wrong += check(i)
                if out is not None:
                    out.append(t1 - t0)
        else:
            set_ends(first)
            for i in range(first, first + n):
                await _read(comm, rmsg, peer, tag)
                await _write(comm, smsg, peer, tag)
                wrong += check(i)
                set_ends(i + 1)
        return wrong

    async def run(self, variant, n, out):
        """n round trips of one variant at the current size; returns the wrong-byte count."""
        first = self.counter.get(variant, 0)
        self.counter[variant] = first + n
        if variant == "blocking":
            return self.blocking(n, first, out)
        return await self.asyncio(n, first, out)


_sleep = asyncio.sleep  # a module global: one lookup per Test in the asyncio variant


async def _progress(req):
    while not req.Test():
        await _sleep(0)


async def _write(comm, buf, peer, tag):
    await _progress(comm.Isend(buf, peer, tag))


async def _read(comm, buf, peer, tag):
    await _progress(comm.Irecv(buf, peer, tag))


async def sweep(bench, prof, variants, log):
    """{(variant, size): (round-trip samples in ns (rank 0; [] on rank 1), wrong bytes
    seen by this rank, timed round trips)}."""
    loop = asyncio.get_running_loop()
    bench.loop_name = "%s, %s" % (type(loop).__name__,
                                  type(getattr(loop, "_selector", None)).__name__)
    results = {}
    for size in prof["sizes"]:
        large = size >= prof["large_size"]
        iters = prof["iters_large"] if large else prof["iters"]
        warm = prof["warmup_large"] if large else prof["warmup"]
        per_rep = iters // prof["reps"]
        bench.buffers(size)
        bench.counter = {}
        wrong = {v: 0 for v in variants}
        samples = {v: [] for v in variants}
        for v in variants:
            wrong[v] += await bench.run(v, warm, None)
        for _ in range(prof["reps"]):
            for v in variants:
                wrong[v] += await bench.run(v, per_rep, samples[v] if bench.rank == 0 else None)
        for v in variants:
            results[(v, size)] = (samples[v], wrong[v], per_rep * prof["reps"])
        if bench.rank == 0:
            log("  %8s B  %s" % (fmt_size(size), "  ".join(
                "%s %.2f us" % (v, median(samples[v]) / 2000.0)
                for v in variants)))
    return results


def parent_launcher_cmdline():
    """The mpirun / mpiexec command line that started this rank, looked up the process
    tree (rank <- [hydra_pmi_proxy / orted] <- launcher); None if not found."""
    pid = os.getppid()
    for _ in range(4):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = [w.decode(errors="replace") for w in f.read().split(b"\0") if w]
            with open("/proc/%d/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None
        if argv and os.path.basename(argv[0]).startswith(("mpirun", "mpiexec", "orterun",
                                                           "prterun")):
            return argv
        if ppid <= 1:
            return None
        pid = ppid
    return None


def main(argv=None):
    a = parse_args(argv)
    mpi4py, np = import_mpi4py()
    if mpi4py is None:
        say("mpi4py: not importable by %s (Debian package python3-mpi4py, with "
            "python3-numpy); skipped" % (sys.executable or "python3"))
        return 3

    mpi4py.rc.initialize = False   # decide first whether this MPI is the right one
    mpi4py.rc.finalize = True
    from mpi4py import MPI

    lib_version = MPI.Get_library_version().replace("\0", "").strip()
    lib = library_flavor(lib_version)
    launcher = launcher_flavor()
    other = why = None
    if a.mpi and a.mpi != lib:
        other, why = a.mpi, "--mpi %s" % a.mpi
    elif launcher and launcher != lib:
        other, why = launcher, "launched by %s's mpirun" % launcher
    if other:
        say("mpi4py %s is linked against %s (%s), not %s (%s): it cannot join this job "
            "(Debian builds python3-mpi4py for the default MPI alternative only); skipped"
            % (mpi4py.__version__, lib, lib_version.splitlines()[0].split(",")[0], other, why))
        return 3

    faulthandler.dump_traceback_later(a.timeout, exit=True)

    levels = {getattr(MPI, "THREAD_" + t.upper()): t for t in THREAD_LEVELS}
    MPI.Init_thread(getattr(MPI, "THREAD_" + a.thread_level.upper()))
    provided = levels.get(MPI.Query_thread(), "?")
    comm = MPI.COMM_WORLD
    rank, nranks = comm.Get_rank(), comm.Get_size()
    if nranks != 2:
        if rank == 0:
            print("mpi4py_pingpong: needs exactly 2 ranks, got %d%s" % (
                nranks, " (started without a launcher?)" if not launcher else ""), flush=True)
        return 2
    watch = machine.Watch().__enter__() if rank == 0 else None  # load before/during/after

    run_id = schema.new_run_id() if rank == 0 else None
    run_id = comm.bcast(run_id, root=0)
    hosts = comm.gather(socket.gethostname(), root=0)
    prof = a.prof
    if rank == 0:
        print("# mpi4py_pingpong  run %s  mpi %s  reps %d  variants %s (interleaved), "
              "thread level %s" % (run_id, lib, prof["reps"], ",".join(a.variant_list),
                                   a.thread_level), flush=True)
    bench = Bench(MPI, np, comm, a.check == "all")
    comm.Barrier()
    results = asyncio.run(sweep(bench, prof, a.variant_list, lambda s: print(s, flush=True)))

    # wrong counts from rank 1's checks as well
    mine = {k: w for k, (_, w, _) in results.items()}
    theirs = comm.gather(mine, root=0)
    comm.Barrier()
    if rank != 0:
        faulthandler.cancel_dump_traceback_later()
        return 0
    watch.__exit__(None, None, None)

    rows, total_wrong = [], 0
    for size in prof["sizes"]:
        for v in a.variant_list:
            samples, _, n = results[(v, size)]
            wrong = sum(t[(v, size)] for t in theirs)
            total_wrong += wrong
            us = sorted(s / 2000.0 for s in samples)
            rows.append(schema.base_row(
                "pingpong", "mpi4py", run_id, progress=v, mpi=lib, gpu_path="none",
                ranks=nranks, size_bytes=size, iterations=n, reps=prof["reps"],
                latency_us_p50=median(us), latency_us_avg=sum(us) / len(us),
                latency_us_min=us[0], latency_us_p99=percentile(us, 0.99),
                wrong=wrong, validated=1 if a.check == "all" else 0))
    launcher_cmd = parent_launcher_cmdline()
    this_cmd = [sys.executable] + sys.argv
    versions = {"mpi4py": mpi4py.__version__, "numpy": np.__version__,
                "mpi": lib_version, "mpi_standard": "%d.%d" % MPI.Get_version(),
                "python3-mpi4py": _common.deb_version("python3-mpi4py")}
    settings = {
        "backends": ["mpi4py:%s" % v for v in a.variant_list],
        "sizes_bytes": prof["sizes"], "iters": prof["iters"],
        "iters_large": prof["iters_large"], "warmup": prof["warmup"],
        "warmup_large": prof["warmup_large"], "large_size_bytes": prof["large_size"],
        "reps": prof["reps"], "profile": a.profile,
        "check": ("every byte of every message, on both ranks, where no clock runs (from "
                  "8 KiB rank 1's compare delays its next receive: slower samples)"
                  if a.check == "all" else
                  "first and last byte of every message, on both ranks, where no clock runs"),
        "thread_level": a.thread_level, "thread_level_provided": provided,
        "python_executable": sys.executable,
        "asyncio": "one event loop (%s) for the whole run; write = Isend, read = Irecv, "
                   "then 'while not req.Test(): await asyncio.sleep(0)'" % bench.loop_name,
        "timer": "time.perf_counter_ns on rank 0, one sample per round trip",
        "buffers": "preallocated numpy uint8 arrays, a send and a receive buffer per rank "
                   "(as raw-mpi), passed as [array, MPI.BYTE] specs built once per size",
    }
    # The launcher's command line (it names this script and its arguments) when the
    # process tree shows it, else this rank's own.
    meta = schema.external_metadata(run_id, "mpi4py_pingpong", [launcher_cmd or this_cmd],
                                    versions, settings)
    meta["hosts"] = hosts
    meta["mpi_flavor"] = lib
    meta["ranks"] = nranks
    state = watch.state()
    meta["run_state"] = state
    meta["load_avg_before"] = state["load_avg_1min_before"]
    meta["load_avg_after"] = state["load_avg_1min_after"]
    schema.write_csv(a.csv, rows, meta)
    faulthandler.cancel_dump_traceback_later()
    if total_wrong:
        print("mpi4py_pingpong: %d wrong bytes" % total_wrong, file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
