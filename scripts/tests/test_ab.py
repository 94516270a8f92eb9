"""scripts/ab's arithmetic on synthetic rows: bands, ratios within one invocation, medians
over rounds, and the verdict on a ratio that grew. No binaries."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbresults import schema  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)


def load_ab():
    return load_script("ab", "ab_under_test")


ab = load_ab()


def row(backend, size, lat, progress=""):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(origin="suite", mpi="openmpi", benchmark="pingpong", backend=backend,
             progress=progress, size_bytes=size, latency_us_p50=lat)
    return r


def invocation(slow):
    rows = []
    for size in (8, 256, 1024):
        rows.append(row("raw-ucx", size, 1.0))
        rows.append(row("ucx", size, 1.1 * slow, "polling"))
    return ab.invocation_stats(rows)


class AbTest(unittest.TestCase):
    def test_named_backends_group_by_family(self):
        got = ab.named_entries("mpi:cooperative,raw-mpi,ucx:polling,raw-ucx:sleep,")
        self.assertEqual(got, {"mpi": ["mpi:cooperative", "raw-mpi"],
                               "ucx": ["ucx:polling", "raw-ucx:sleep"]})

    def test_named_backends_need_a_raw_baseline_per_family(self):
        with self.assertRaises(SystemExit) as e:
            ab.named_entries("mpi:cooperative,raw-mpi,tcp:epoll")
        self.assertIn("family tcp has no raw-tcp", str(e.exception))

    def test_bands(self):
        self.assertEqual(ab.band_of(1), "1-64 B")
        self.assertEqual(ab.band_of(128), "128 B-2 KiB")
        self.assertEqual(ab.band_of(2048), "128 B-2 KiB")
        self.assertIsNone(ab.band_of(100))  # between bands: not compared
        self.assertIsNone(ab.band_of(4 << 20))

    def test_ratio_and_ns_per_band(self):
        stats = invocation(1.0)
        ratio, ns, excess = stats[("ucx:polling", "128 B-2 KiB")]
        self.assertAlmostEqual(ratio, 1.1)
        self.assertAlmostEqual(ns, 1100)
        self.assertAlmostEqual(excess, 100)

    def test_baseline_is_the_fastest_raw_variant(self):
        # one row per backend and size in an invocation (its p50 is over all its reps)
        rows = [row("raw-tcp", 64, 20.0, "blocking"),  # slower: not the ceiling
                row("raw-tcp", 64, 4.2, "busy-poll"),
                row("tcp", 64, 5.0, "epoll")]
        ratio, _ns, excess = ab.invocation_stats(rows)[("tcp:epoll", "1-64 B")]
        self.assertAlmostEqual(ratio, 5.0 / 4.2)
        self.assertAlmostEqual(excess, 800)

    def test_verdict_flags_only_what_grew_past_the_limit(self):
        results = {"openmpi": {"before": [invocation(1.0)] * 3,
                               "after": [invocation(1.0), invocation(1.1), invocation(1.1)]}}
        lines, worse = ab.summarize(results, ["openmpi"], 0.03)
        self.assertEqual({w[2] for w in worse}, {"1-64 B", "128 B-2 KiB"})
        self.assertTrue(all(abs(w[3] - 0.1) < 1e-9 for w in worse))
        lines, worse = ab.summarize(results, ["openmpi"], 0.2)
        self.assertEqual(worse, [])
        self.assertTrue(any("+10.0 %" in line for line in lines))


    def test_summary_gives_each_median_its_range_over_rounds(self):
        results = {"openmpi": {"before": [invocation(1.0), invocation(1.2), invocation(1.1)],
                               "after": [invocation(1.0)] * 3}}
        lines, _worse = ab.summarize(results, ["openmpi"], 0.03)
        line = next(x for x in lines if x.startswith("| ucx:polling | 1-64 B"))
        # ratio 1.1 * slow: median 1.21 of 1.10, 1.32, 1.21; excess over 1 us raw in ns
        self.assertIn("| 1.210 [1.100-1.320] | 1.100 [1.100-1.100] |", line)
        self.assertIn("| 210 [100-320] | 100 [100-100] |", line)

    def test_resummarize_rebuilds_the_summary_from_the_rounds_csvs(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as out:
            rounds = []
            for rnd, slow in ((1, 1.0), (2, 1.2)):
                for side, s in (("before", slow), ("after", 1.0)):
                    rows = []
                    for size in (8, 256):
                        rows.append(row("raw-ucx", size, 1.0))
                        rows.append(row("ucx", size, 1.1 * s, "polling"))
                    schema.write_csv(os.path.join(out, "openmpi-%s-%d-ucx.csv" % (side, rnd)),
                                     rows)
                rounds.append({"round": rnd, "flavor": "openmpi"})
            with open(os.path.join(out, "rounds.json"), "w") as f:
                json.dump({"command": "scripts/ab t", "rounds": rounds}, f)
            ab.main(["t", "--resummarize", "--out", out])
            with open(os.path.join(out, "summary.md")) as f:
                text = f.read()
        self.assertIn("Medians over 2 alternating rounds", text)
        self.assertIn("| ucx:polling | 1-64 B | 1.210 [1.100-1.320] | 1.100 [1.100-1.100] |", text)

    def test_resummarize_needs_an_earlier_run(self):
        import tempfile
        with tempfile.TemporaryDirectory() as out:
            with self.assertRaises(SystemExit) as e:
                ab.main(["t", "--resummarize", "--out", out])
        self.assertIn("no rounds.json", str(e.exception))


if __name__ == "__main__":
    unittest.main()
