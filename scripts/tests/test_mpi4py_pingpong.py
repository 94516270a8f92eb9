"""scripts/baselines/mpi4py_pingpong.py under both MPIs' launchers, with a minimal sweep:
every (size, variant) row is there and well formed, the sidecar says what ran, and a
launcher of an MPI that mpi4py is not linked against is a clean skip (exit 3, one line).
Skipped with the reason when mpi4py (or a launcher) is missing.
Run: python3 -m unittest discover -s scripts/tests -p 'test_mpi4py*'"""

import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
SCRIPT = os.path.join(SCRIPTS, "baselines", "mpi4py_pingpong.py")
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
sys.path.insert(0, os.path.join(SCRIPTS, "baselines"))

from cbresults import schema  # noqa: E402
from cbresults.select import median  # noqa: E402
import mpi4py_pingpong as pp  # noqa: E402

try:
    import numpy
except ImportError:
    numpy = None

SIZES = [1, 64, 4096]
ITERS, REPS = 50, 5
VARIANTS = ["blocking", "asyncio"]
PYTHONS = [sys.executable, "/usr/bin/python3"]


def _probe(python):
    """(mpi4py version, MPI library flavor) as seen by `python`, or None."""
    code = ("import mpi4py, numpy; mpi4py.rc.initialize = False; from mpi4py import MPI; "
            "print(mpi4py.__version__); print(MPI.Get_library_version().splitlines()[0])")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    lines = out.stdout.splitlines()
    return (lines[0], pp.library_flavor(lines[1])) if len(lines) >= 2 else None


def _find_mpi4py():
    for py in PYTHONS:
        if py and os.access(py, os.X_OK):
            got = _probe(py)
            if got:
                return py, got[0], got[1]
    return None, None, None


PYTHON, MPI4PY_VERSION, LIB_FLAVOR = _find_mpi4py()
NO_MPI4PY = "mpi4py (with numpy) is not importable by %s" % " or ".join(PYTHONS)

LAUNCH = {
    "openmpi": ["mpirun.openmpi", "--oversubscribe", "--allow-run-as-root", "-np", "2"],
    "mpich": ["mpirun.mpich", "-np", "2"],
}


def _env():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # A test run from inside another MPI job must not make the launcher think it is nested.
    for k in list(env):
        if k.startswith(("OMPI_COMM_WORLD", "PMI_", "PMIX_RANK")):
            del env[k]
    return env


def run_script(flavor, csv_path, extra=()):
    cmd = LAUNCH[flavor] + [PYTHON, SCRIPT, "--csv", csv_path, "--mpi", flavor,
                            "--sizes", ",".join(str(s) for s in SIZES), "--iters", str(ITERS),
                            "--reps", str(REPS), "--warmup", "5", "--timeout", "120"]
    cmd += list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=_env())


class PureParts(unittest.TestCase):
    def test_percentile_matches_the_cpp_summary(self):
        v = [1.0, 2.0, 3.0, 4.0]
        self.assertEqual(pp.percentile(v, 0.5), 2.5)
        self.assertEqual(pp.percentile(v, 0.5), median(v))  # the p50 column's
        self.assertAlmostEqual(pp.percentile(v, 0.99), 3.97)
        self.assertEqual(pp.percentile([7.0], 0.99), 7.0)

    def test_library_flavor(self):
        self.assertEqual(pp.library_flavor("Open MPI v4.1.4, package: Debian OpenMPI"),
                         "openmpi")
        self.assertEqual(pp.library_flavor("MPICH Version:\t4.0.2\nMPICH Release date"),
                         "mpich")

    def test_cpp_defaults_are_bench_options(self):
        """What a profile leaves out comes from the C++ pingpong's defaults."""
        src = os.path.join(SCRIPTS, "..", "microbench", "harness", "bench_options.cpp")
        with open(src) as f:
            text = f.read()
        cpp = dict(re.findall(r"o\.(\w+) = pp \? \"?(\w+)\"? :", text))
        for k, v in pp.CPP_DEFAULTS.items():
            self.assertEqual(str(v), cpp.get(k), k)

    def test_profiles_mirror_the_cpp_sweeps(self):
        self.assertEqual(pp.profile("tiny"), {
            "sizes": [1, 16, 256, 4096], "iters": 1000, "iters_large": 1000, "warmup": 100,
            "warmup_large": 20, "reps": 10, "large_size": 8192})
        self.assertEqual(pp.profile("quick"), {
            "sizes": [1 << i for i in range(21)], "iters": 1000, "iters_large": 200,
            "warmup": 100, "warmup_large": 20, "reps": 5, "large_size": 8192})
        self.assertEqual(pp.profile("full"), {
            "sizes": [1 << i for i in range(21)], "iters": 10000, "iters_large": 1000,
            "warmup": 200, "warmup_large": 20, "reps": 10, "large_size": 8192})

    def test_overrides(self):
        a = pp.parse_args(["--csv", "x.csv", "--profile", "tiny", "--sizes", "8,2K",
                           "--iters", "30", "--reps", "3", "--variants", "asyncio"])
        self.assertEqual(a.prof["sizes"], [8, 2048])
        self.assertEqual((a.prof["iters"], a.prof["iters_large"], a.prof["reps"]), (30, 30, 3))
        self.assertEqual(a.prof["warmup"], 100)  # the profile's
        self.assertEqual(a.variant_list, ["asyncio"])

    def test_bad_usage_exits_2(self):
        for bad in (["--variants", "x"], ["--variants", ","], ["--sizes", "0"],
                    ["--iters", "4", "--reps", "5"], ["--reps", "0"]):
            p = subprocess.run([sys.executable, SCRIPT, "--csv", os.devnull] + bad,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))


@unittest.skipIf(numpy is None, "numpy is not importable by %s" % sys.executable)
class Checks(unittest.TestCase):
    """Bench._check, without MPI: the wrong-byte counts both modes report."""

    class Comm:
        def Get_rank(self):
            return 0

    def bench(self, size, check_all):
        b = pp.Bench(None, numpy, self.Comm(), check_all)
        b.MPI = type("MPI", (), {"BYTE": None})
        b.buffers(size)
        return b

    def test_a_good_message_has_no_wrong_bytes(self):
        for size in (1, 2, 3, 4096):
            for check_all in (False, True):
                b = self.bench(size, check_all)
                b._set_ends(7)
                b.rbuf[:] = b.sbuf
                self.assertEqual(b._check(7), 0, (size, check_all))

    def test_a_stale_receive_shows_at_the_ends(self):
        b = self.bench(4096, False)
        b._set_ends(6)
        b.rbuf[:] = b.sbuf          # round trip 6's message, still there at round trip 7
        b._set_ends(7)
        self.assertEqual(b._check(7), 2)
        b = self.bench(1, False)
        self.assertEqual(b._check(0), 1)  # one byte: both ends, counted once

    def test_middle_bytes_only_with_check_all(self):
        for check_all, want in ((False, 0), (True, 3)):
            b = self.bench(4096, check_all)
            b._set_ends(0)
            b.rbuf[:] = b.sbuf
            b.rbuf[10:13] ^= 0xFF
            self.assertEqual(b._check(0), want, check_all)


@unittest.skipIf(PYTHON is None, NO_MPI4PY)
class UnderLaunchers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def _check_rows(self, path, flavor):
        with open(path, newline="") as f:
            header = next(csv.reader(f))
        self.assertEqual(header, schema.columns())
        rows = schema.read_csv(path)
        got = {(int(r["size_bytes"]), r["progress"]) for r in rows}
        want = {(s, v) for s in SIZES for v in VARIANTS}
        self.assertEqual(got, want, "missing: %s" % sorted(want - got))
        self.assertEqual(len(rows), len(want), "duplicate rows")
        self.assertEqual(len({r["run_id"] for r in rows}), 1)
        for r in rows:
            where = "%s %s" % (r["progress"], r["size_bytes"])
            self.assertEqual((r["benchmark"], r["origin"], r["backend"], r["mpi"]),
                             ("pingpong", "external", "mpi4py", flavor), where)
            self.assertEqual((r["memory_send"], r["memory_recv"]), ("host", "host"))
            self.assertEqual(r["ranks"], 2)
            self.assertEqual(r["iterations"], ITERS)
            self.assertEqual(r["reps"], REPS)
            self.assertEqual((r["wrong"], r["validated"]), (0, 1), where)
            self.assertGreater(r["latency_us_min"], 0, where)
            self.assertLessEqual(r["latency_us_min"], r["latency_us_p50"], where)
            self.assertLessEqual(r["latency_us_p50"], r["latency_us_p99"], where)
            self.assertLessEqual(r["latency_us_min"], r["latency_us_avg"], where)
            for col in ("bandwidth_MBps", "wall_s", "workers", "window"):
                self.assertIsNone(r[col], col)
        return rows

    def _check_sidecar(self, path, rows, flavor):
        meta = schema.read_sidecar(path)
        self.assertIsNotNone(meta, "no JSON sidecar")
        self.assertEqual(meta["run_id"], rows[0]["run_id"])
        self.assertEqual(meta["program"], "mpi4py_pingpong")
        self.assertEqual(meta["origin"], "external")
        self.assertEqual(meta["mpi_flavor"], flavor)
        self.assertEqual(len(meta["hosts"]), 2)
        self.assertIn("mpi4py_pingpong.py", meta["command_line"])
        for k in ("python", "mpi4py", "mpi", "numpy"):
            self.assertTrue(meta["versions"].get(k), k)
        self.assertEqual(meta["versions"]["mpi4py"], MPI4PY_VERSION)
        self.assertNotIn("\0", meta["versions"]["mpi"])
        for k in ("load_avg_before", "load_avg_after", "cpus_online", "date_utc"):
            self.assertIn(k, meta)
        for k in ("load_avg_1min_before", "load_avg_1min_max_during", "load_avg_1min_after"):
            self.assertIsInstance(meta["run_state"][k], float, k)
        self.assertEqual(meta["settings"]["thread_level_provided"], "funneled")
        self.assertEqual(meta["settings"]["sizes_bytes"], SIZES)

    def _flavor(self, flavor):
        if not shutil.which(LAUNCH[flavor][0]):
            self.skipTest("%s not installed" % LAUNCH[flavor][0])
        path = os.path.join(self.tmp.name, "mpi4py-%s.csv" % flavor)
        p = run_script(flavor, path, ["--check", "all"])
        out = p.stdout + p.stderr
        if LIB_FLAVOR != flavor:
            # mpi4py linked against the other MPI: a skip with a reason, nothing written.
            self.assertEqual(p.returncode, 3, out)
            lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
            self.assertEqual(len(lines), 1, p.stdout)
            self.assertIn("skipped", lines[0])
            self.assertIn("linked against %s" % LIB_FLAVOR, lines[0])
            self.assertFalse(os.path.exists(path))
            self.assertFalse(os.path.exists(schema.sidecar_path(path)))
            return
        self.assertEqual(p.returncode, 0, out)
        rows = self._check_rows(path, flavor)
        self._check_sidecar(path, rows, flavor)

    def test_openmpi(self):
        self._flavor("openmpi")

    def test_mpich(self):
        self._flavor("mpich")

    def test_one_variant_only(self):
        flavor = LIB_FLAVOR if LIB_FLAVOR in LAUNCH else None
        if not flavor or not shutil.which(LAUNCH[flavor][0]):
            self.skipTest("no launcher for mpi4py's MPI (%s)" % LIB_FLAVOR)
        path = os.path.join(self.tmp.name, "one.csv")
        p = run_script(flavor, path, ["--variants", "asyncio"])  # default --check ends
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = schema.read_csv(path)
        self.assertEqual(sorted(int(r["size_bytes"]) for r in rows), SIZES)
        self.assertEqual({r["progress"] for r in rows}, {"asyncio"})
        self.assertEqual({(r["validated"], r["wrong"]) for r in rows}, {(0, 0)})


if __name__ == "__main__":
    unittest.main()
