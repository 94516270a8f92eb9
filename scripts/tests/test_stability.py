"""The stability study's summary (cbresults/stability.py, issue 26 item 4): every run's
claims evaluated as the report does, read from csv/ or from the committed csv.tar.xz, the
spread and verdict counts across runs, each run's machine state, and the report's column
"across runs". Synthetic runs written as CSVs with sidecars. No binaries."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
sys.path.insert(0, HERE)

from cbresults import claims, schema, stability  # noqa: E402
from test_claims import micro_rows  # noqa: E402 (this folder)

SUMMARIZE = os.path.join(SCRIPTS, "studies", "stability", "summarize.py")


def write_run(folder, ratios, probe_ns, quiet=True, packed=False):
    """One reproduction: the cross-family ping-pong invocations of `ratios` (ucx:polling
    over mpi:cooperative), each CSV with a sidecar carrying reproduce's run_state."""
    csv_dir = os.path.join(folder, "csv")
    os.makedirs(csv_dir)
    by_file = {}
    for r in micro_rows(ratios):
        by_file.setdefault(r["_file"], []).append(r)
    for k, (name, rows) in enumerate(sorted(by_file.items())):
        schema.write_csv(os.path.join(csv_dir, name), rows, {
            "run_id": rows[0]["run_id"], "git_commit": "abc1234",
            "date_utc": "2026-11-30T08:%02d:00Z" % k,
            "run_state": {"quiet": quiet, "load_avg_1min_before": 0.5 + k,
                          "load_avg_1min_max_during": 1.5 + k,
                          "latency_probe": {"one_way_ns_p50": probe_ns}}})
    if packed:
        with tarfile.open(os.path.join(folder, "csv.tar.xz"), "w:xz") as t:
            t.add(csv_dir, arcname="csv")
        shutil.rmtree(csv_dir)


class StabilityTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        not_reproduced = [1.9, 2.0, 2.1, 2.0, 1.95]
        write_run(os.path.join(self.d, "run-1"), not_reproduced, 40.0)
        write_run(os.path.join(self.d, "run-2"), [4.0, 4.1, 3.9, 4.2, 4.0], 150.0, quiet=False)
        write_run(os.path.join(self.d, "run-3"), not_reproduced, 41.0, packed=True)
        os.makedirs(os.path.join(self.d, "run-4"))   # stopped before writing a CSV

    def test_each_run_is_evaluated_as_the_report_does(self):
        data = stability.summarize(self.d)
        self.assertEqual([r["run"] for r in data["runs"]], [1, 2, 3])
        self.assertEqual(data["git_commit"], "abc1234")
        self.assertEqual(data["date_utc"], "2026-11-30T08:00:00Z")
        got = [r["claims"]["5a"]["openmpi"]["verdict"] for r in data["runs"]]
        self.assertEqual(got, [claims.NOT_REPRODUCED, claims.REPRODUCED, claims.NOT_REPRODUCED])
        # the packed run reads the same numbers as the unpacked one
        self.assertEqual(data["runs"][0]["claims"]["5a"], data["runs"][2]["claims"]["5a"])

    def test_spread_and_verdict_counts(self):
        data = stability.summarize(self.d)
        sp = stability.spread(data, "5a", "openmpi")
        self.assertEqual((sp["runs"], sp["judged"]), (3, 3))
        self.assertAlmostEqual(sp["lo"], 2.0)
        self.assertAlmostEqual(sp["hi"], 4.0)
        self.assertAlmostEqual(sp["ratio"], 2.0)
        self.assertEqual(stability.verdict_text(sp), "2 not reproduced, 1 reproduced")
        self.assertEqual(stability.cell(sp), "2.00-4.00x; 2/3")
        self.assertEqual(stability.cell(sp, claims.REPRODUCED), "2.00-4.00x; 1/3")
        self.assertEqual(stability.cell(sp, claims.OPPOSITE), "2.00-4.00x; 0/3")
        one = dict(data, runs=[data["runs"][0], data["runs"][2]])
        self.assertEqual(stability.verdict_text(stability.spread(one, "5a", "openmpi")),
                         "held 2/2")
        # a claim no run could measure: no value, the verdicts still counted
        self.assertEqual(stability.cell(stability.spread(data, "7a", "openmpi")),
                         "no value; 3/3")

    def test_machine_state_per_run(self):
        data = stability.summarize(self.d)
        m1, m2 = data["runs"][0]["machine"], data["runs"][1]["machine"]
        self.assertEqual((m1["invocations"], m1["quiet"]), (5, 5))
        self.assertEqual(m2["quiet"], 0)
        self.assertEqual(m1["probe_ns"], [40.0] * 5)
        self.assertEqual(m1["load_before_median"], 2.5)
        self.assertEqual(m1["load_during_max"], 5.5)

    def test_summary_file_and_the_reports_column(self):
        out = subprocess.run([sys.executable, SUMMARIZE, self.d], capture_output=True,
                             text=True, check=True).stdout
        self.assertIn("| Fig 5a small-message latency, 1 B-4 KiB | Open MPI | 2.00x [", out)
        self.assertIn("| 2.00-4.00x | 2.00 | 2 not reproduced, 1 reproduced |", out)
        with open(os.path.join(self.d, "tables.md")) as f:
            self.assertEqual(f.read(), out)
        root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, root)
        self.assertEqual(stability.latest(root), (None, None))
        shutil.copytree(self.d, os.path.join(root, "stability-2026-11-30"))
        folder, data = stability.latest(root)
        self.assertEqual(os.path.basename(folder), "stability-2026-11-30")
        with open(os.path.join(self.d, stability.SUMMARY)) as f:
            self.assertEqual(json.load(f), data)
        # this report's own verdict (not reproduced, at 2.0x) is counted across the runs
        evaluated, mpis, _ = claims.evaluate_all(micro_rows([2.0] * 5), [])
        table = claims.answer_table(evaluated, mpis, [(claims.column_heading(
            "across 3 runs", mpis), stability.cells(data, mpis, evaluated))]).splitlines()
        self.assertTrue(table[0].endswith("| across 3 runs (Open MPI) |"))
        row5a = [l for l in table if l.startswith("| Fig 5a")][0]
        self.assertTrue(row5a.endswith("| 2.00-4.00x; 2/3 |"))
        evaluated, mpis, _ = claims.evaluate_all(micro_rows([4.0] * 5), [])
        row5a = [l for l in claims.answer_table(evaluated, mpis, [("x", stability.cells(
            data, mpis, evaluated))]).splitlines() if l.startswith("| Fig 5a")][0]
        self.assertTrue(row5a.endswith("| 2.00-4.00x; 1/3 |"))
        row7c = [l for l in table if l.startswith("| Fig 7c")][0]
        self.assertTrue(row7c.endswith("| as Fig 7b |"))

    def test_no_run_is_a_one_line_error(self):
        empty = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, empty)
        p = subprocess.run([sys.executable, SUMMARIZE, empty], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip().count("\n"), 0)
        self.assertIn("no run-<i> folder with CSVs", p.stderr)


if __name__ == "__main__":
    unittest.main()
