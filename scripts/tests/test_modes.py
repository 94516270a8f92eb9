"""The latency mode decided from data (cbresults/modes.py, issue 26 item 6): two modes only
when two clusters are far apart relative to their spread; the committed study whose probe
values (100-154 ns) the old 120 ns cut split into "fast" and "slow" is one mode, and the
report no longer says the VM changed mode. No binaries."""

import glob
import json
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import modes  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)

STUDY = os.path.join(ROOT, "results", "vm-2026-11-26")


def load_report():
    return load_script("report")


def sidecars(folder):
    out = []
    for p in sorted(glob.glob(os.path.join(folder, "csv", "*.json"))):
        with open(p) as f:
            s = json.load(f)
        s["_path"] = p
        out.append(s)
    return out


def probe_sidecar(ns, name):
    return {"_path": name, "run_state": {"latency_mode": "fast" if ns < 120 else "slow",
                                         "latency_probe": {"one_way_ns_p50": ns}}}


class ClassifyTest(unittest.TestCase):
    def test_the_briefs_two_modes_are_two(self):
        rng = random.Random(1)
        vals = [rng.gauss(54, 4) for _ in range(30)] + [rng.gauss(250, 15) for _ in range(12)]
        c = modes.classify(vals)
        self.assertEqual(c["modes"], 2)
        self.assertAlmostEqual(c["clusters"][0]["median_ns"], 54, delta=5)
        self.assertAlmostEqual(c["clusters"][1]["median_ns"], 250, delta=20)
        self.assertEqual(c["label"](55.0), "fast")
        self.assertEqual(c["label"](240.0), "slow")

    def test_one_spread_is_one_mode_however_it_straddles_120_ns(self):
        rng = random.Random(2)
        vals = [rng.uniform(100, 154) for _ in range(100)]
        c = modes.classify(vals)
        self.assertEqual(c["modes"], 1)
        self.assertEqual({c["label"](v) for v in vals}, {"one mode"})

    def test_a_lone_value_is_an_outlier_not_a_mode(self):
        vals = [110.0 + i % 7 for i in range(40)] + [18.9]
        c = modes.classify(vals)
        self.assertEqual(c["modes"], 1)
        self.assertEqual(c["outliers"], [18.9])
        self.assertEqual(c["label"](18.9), "outlier")

    def test_close_clusters_are_not_two_modes(self):
        # two tight groups only 1.3x apart: separated, but too close to be the VM's modes
        vals = [100.0 + 0.1 * i for i in range(10)] + [130.0 + 0.1 * i for i in range(10)]
        c = modes.classify(vals)
        self.assertEqual(c["modes"], 1)
        self.assertIn("differ only 1.30x", c["why"])

    def test_a_lower_ratio_can_be_asked_for(self):
        # scripts/regress asks for two states of a benchmark metric 10 % apart
        vals = [100.0 + 0.1 * i for i in range(10)] + [130.0 + 0.1 * i for i in range(10)]
        c = modes.classify(vals, min_ratio=1.1)
        self.assertEqual(c["modes"], 2)
        self.assertEqual([x["n"] for x in c["clusters"]], [10, 10])

    def test_repeated_values_are_one_mode(self):
        # the prefix sums left -4e-15 as the sum of squares of ten equal logs of 0.3, and
        # its square root raised (a gate metric that repeats a value exactly)
        for v in (0.3, 1.7, 13.0):
            c = modes.classify([v] * 10, min_ratio=1.1)
            self.assertEqual(c["modes"], 1)

    def test_too_few_probes_decide_nothing(self):
        self.assertEqual(modes.classify([100.0, 250.0])["modes"], 0)
        self.assertEqual(modes.classify([])["label"](1.0), "unknown")


class ReportModeTest(unittest.TestCase):
    def test_committed_study_is_one_mode_and_no_change_is_claimed(self):
        """Fails on the old report: it printed "The VM changed latency mode during the
        study (fast, slow)" for these sidecars, because the probe's 120 ns cut split them."""
        if not os.path.isdir(STUDY):
            self.skipTest("results/vm-2026-11-26 is not in this checkout")
        side = sidecars(STUDY)
        labels = {s["run_state"]["latency_mode"] for s in side if s.get("run_state")}
        self.assertEqual(labels, {"fast", "slow"})  # what the fixed cut said
        report = load_report()
        text = report.machine_state(side, None)
        self.assertNotIn("changed latency mode", text)
        self.assertIn("**one mode**", text)
        self.assertIn("18.9", text)  # the lone outlier is named, not hidden

    def test_two_real_modes_are_reported_as_a_change(self):
        side = [probe_sidecar(55.0 + i % 5, "a%d.json" % i) for i in range(10)] + [
            probe_sidecar(250.0 + i % 9, "b%d.json" % i) for i in range(6)]
        text = load_report().machine_state(side, None)
        self.assertIn("**two modes**", text)
        self.assertIn("changed latency mode", text)


if __name__ == "__main__":
    unittest.main()
