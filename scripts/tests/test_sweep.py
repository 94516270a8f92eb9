"""cbresults/sweep.py on a made-up sweep folder: per-repetition ratios and their intervals,
pairing inside and across invocations, what an entry adds over its raw library, the
crossover sentence, the applications' rounds, the claims column and the report section."""

import csv
import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))

from cbresults import claims, sweep  # noqa: E402

SIZES = (8, 1024, 65536)
REPS = 5


def write_samples(path, series):
    """series: {(backend, progress, idle): f(size, rep) -> one-way us}"""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["backend", "progress", "idle", "size_bytes", "rep", "iteration", "ns"])
        for (b, p, i), fn in series.items():
            for s in SIZES:
                for r in range(REPS):
                    for it in range(3):
                        w.writerow([b, p, i, s, r, it, fn(s, r) * 1000.0])


def write_app(path, wall, comm):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, ["wall_s", "comm_s"])
        w.writeheader()
        w.writerow({"wall_s": wall, "comm_s": comm})


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d, True)
        runs = []
        # bridge: MPI4Dask slower than UCX-Py polling (1.25x its latency); 50 us: 2x faster
        factor = {"bridge": 0.8, "delay=50us": 2.0}
        for link, f in factor.items():
            name = "bridge" if link == "bridge" else "d50us"
            os.makedirs(os.path.join(self.d, "csv", name))
            for group, series in (
                    ("paper", {("mpi", "cooperative", "spin"): lambda s, r: 10.0 + r * 0.01,
                               ("ucx", "polling", "spin"): lambda s, r, f=f: (10.0 + r * 0.01) * f,
                               ("tcp", "epoll", "spin"): lambda s, r: 30.0,
                               ("raw-mpi", "blocking", ""): lambda s, r: 9.0,
                               ("raw-ucx", "polling", ""): lambda s, r: 8.0,
                               ("raw-tcp", "blocking", ""): lambda s, r: 25.0}),
                    ("tcp", {("tcp", "epoll", "block"): lambda s, r: 40.0,
                             ("tcp", "epoll", "budget"): lambda s, r: 35.0,
                             ("raw-tcp", "blocking", ""): lambda s, r: 25.0}),
                    ("ucx", {("ucx", "event", "block"): lambda s, r: 50.0,
                             ("ucx", "polling", "budget"): lambda s, r: 60.0 + r,
                             ("raw-ucx", "polling", ""): lambda s, r: 8.0}),
            ):
                rel = os.path.join("csv", name, "pingpong-%s-openmpi.csv" % group)
                open(os.path.join(self.d, rel), "w").close()
                write_samples(os.path.join(self.d, rel[:-4] + "-samples.csv"), series)
                runs.append({"link": link, "hosts": 2, "mpi": "openmpi", "bench": "pingpong",
                             "group": group, "backends": [], "csv": rel, "exit": 0})
            for r in (1, 2, 3):
                for b, wall in (("mpi:cooperative@spin", 1.0), ("ucx:polling@spin", 2.0),
                                ("ucx:event@block", 1.2), ("tcp:epoll@block", 1.1 + r / 10)):
                    rel = os.path.join("csv", name, "merge-%s-r%d.csv" % (b, r))
                    write_app(os.path.join(self.d, rel), wall, wall / 2)
                    runs.append({"link": link, "hosts": 2, "mpi": "openmpi", "bench": "merge",
                                 "group": "r%d" % r, "backends": [b], "csv": rel, "exit": 0})
        # a failed run is left out
        runs.append({"link": "bridge", "hosts": 2, "mpi": "openmpi", "bench": "merge",
                     "group": "r9", "backends": ["ucx:event@block"], "csv": "nope.csv",
                     "exit": 1})
        with open(os.path.join(self.d, "manifest.json"), "w") as f:
            json.dump({"links": list(factor), "mpi": ["openmpi"], "runs": runs,
                       "command": "scripts/network-sweep", "git_commit": "abc",
                       "started_utc": "2026-11-30T00:00:00Z"}, f)
        self.sw = sweep.Sweep(self.d)

    def test_interleaved_speedup_and_interval(self):
        res = self.sw.speedup("delay=50us", "openmpi", sweep.MPI4DASK, sweep.DESIGNS[0][1],
                              "1B-4KiB")
        self.assertAlmostEqual(res["median"], 2.0, places=6)
        self.assertEqual(res["n"], REPS)
        self.assertEqual(res["paired"], "interleaved")
        self.assertEqual(res["sizes"], (8, 1024))   # 64 KiB is the next band
        self.assertEqual(self.sw.verdict(res), "faster")

    def test_compressed_samples_read_the_same(self):
        before = self.sw.speedup("bridge", "openmpi", sweep.MPI4DASK, sweep.DESIGNS[0][1],
                                 "1B-4KiB")
        path = os.path.join(self.d, "csv", "bridge", "pingpong-paper-openmpi-samples.csv")
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
            dst.write(src.read())
        os.remove(path)
        after = sweep.Sweep(self.d).speedup("bridge", "openmpi", sweep.MPI4DASK,
                                            sweep.DESIGNS[0][1], "1B-4KiB")
        self.assertEqual(before["median"], after["median"])
        self.assertEqual(before["n"], after["n"])

    def test_across_invocations(self):
        res = self.sw.speedup("bridge", "openmpi", sweep.MPI4DASK, sweep.DESIGNS[2][1],
                              "1B-4KiB")
        self.assertEqual(res["paired"], "across invocations")
        self.assertAlmostEqual(res["median"], 40.0 / 10.02, places=3)

    def test_added_over_raw(self):
        res = self.sw.added_us("bridge", "openmpi", ("ucx", "ucx", "polling", "budget"), "ucx",
                               "1B-4KiB")
        self.assertAlmostEqual(res["median"], 54.0)   # 60 + rep 2 (the median) - 8
        self.assertEqual(res["n"], REPS)
        self.assertLessEqual(res["ci"][0], 54.0)

    def test_crossover(self):
        text = self.sw.crossover("openmpi", sweep.DESIGNS[0][1], "1B-4KiB")
        self.assertEqual(text, "slower at 0 us, faster from 50 us")
        self.assertEqual("faster at every delay",
                      self.sw.crossover("openmpi", sweep.DESIGNS[1][1], "1B-4KiB"))
        self.assertEqual(self.sw.crossover("mpich", sweep.DESIGNS[0][1], "1B-4KiB"),
                         "not measured")

    def test_apps(self):
        ratios = self.sw.app_ratios("bridge", 2, "openmpi", "merge")
        self.assertAlmostEqual(ratios["mpi:cooperative@spin"]["median"], 1.0)
        self.assertAlmostEqual(ratios["ucx:polling@spin"]["median"], 2.0)
        self.assertEqual(ratios["ucx:event@block"]["n"], 3)   # the failed run left out
        table = "\n".join(sweep.app_table(self.sw))
        self.assertIn("2.00x misses", table)
        sp = self.sw.app_speedups("bridge", 2, "openmpi", "merge", "comm_s")
        self.assertAlmostEqual(sp["ucx:polling@spin"]["median"], 2.0)

    def test_claims_column(self):
        across = self.sw.across_hosts(at=("bridge", "delay=50us"))
        self.assertEqual(across["8a"], "bridge: 2.00x; 50 us: 2.00x")
        self.assertEqual(self.sw.across_hosts()["8a"], "2.00x")
        self.assertIn("bridge: 0.80x", across["5a"])
        self.assertEqual(across["7a"], "–")   # no transpose_sum in this sweep
        evaluated, mpis, _ = claims.evaluate_all([], [])
        plain = claims.answer_table(evaluated, ["openmpi"])
        table = claims.answer_table(evaluated, ["openmpi"], [(claims.column_heading(
            "across hosts, bridge and 50 us", ["openmpi"]), across)])
        head = table.splitlines()[0]
        self.assertIn("across hosts, bridge and 50 us (Open MPI)", head)
        self.assertNotIn("across hosts", plain.splitlines()[0])
        row8a = [l for l in table.splitlines() if l.startswith("| Fig 8a")][0]
        self.assertTrue(row8a.endswith("bridge: 2.00x; 50 us: 2.00x |"))
        row8c = [l for l in table.splitlines() if l.startswith("| Fig 8c")][0]
        self.assertTrue(row8c.endswith("as Fig 8a |"))

    def test_section_and_tables(self):
        md = "\n".join(sweep.section(self.sw, self.d, os.path.dirname(self.d)))
        self.assertIn("`mpi:cooperative@spin`", md)
        self.assertNotIn("![", md)   # no figure drawn yet
        sweep.figure(self.sw, os.path.join(self.d, sweep.FIGURE))
        md = "\n".join(sweep.section(self.sw, self.d, os.path.dirname(self.d)))
        self.assertIn("](speedup.png)", md)
        text = sweep.tables(self.sw)
        self.assertIn("## Crossover", text)
        self.assertIn("| 50 us | openmpi | 2.00x", text)


if __name__ == "__main__":
    unittest.main()
