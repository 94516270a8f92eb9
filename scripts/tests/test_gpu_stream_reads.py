"""scripts/studies/gpu-stream-reads/summary.py on synthetic rounds: per-round ratios to the
sync mode and to the issue-30 target (2 x the copy floor + the host latency of the same
round), validation runs ignored. No GPU, no binaries."""

import csv
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from scriptload import load_script  # noqa: E402 (this folder)

summary = load_script("studies/gpu-stream-reads/summary.py", "stream_reads_summary_under_test")

FIELDS = ["backend", "progress", "size_bytes", "latency_us_p50"]


def write(folder, name, rows):
    with open(os.path.join(folder, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for backend, progress, size, us in rows:
            w.writerow({"backend": backend, "progress": progress, "size_bytes": size,
                        "latency_us_p50": us})


class StreamReadsSummaryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        for r in (1, 2, 3):
            write(d, "host_%d.csv" % r, [("ucx", "cooperative", 8, 0.5)])
            write(d, "sync_%d.csv" % r, [("ucx", "cooperative", 8, 16.0), ("ucx", "cooperative", 64, 16.0)])
            write(d, "sync-stream_%d.csv" % r, [("ucx", "cooperative", 8, 12.0 + r - 2),
                                                ("ucx", "cooperative", 64, 12.0)])
        # A validation run is not a round, however it is named.
        write(d, "validate_sync_1.csv", [("ucx", "cooperative", 8, 999.0)])

    def tearDown(self):
        self.dir.cleanup()

    def test_rounds_skip_validation(self):
        per = summary.rounds(self.dir.name)
        self.assertEqual(sorted(per), [1, 2, 3])
        self.assertNotIn("validate_sync", per[1])

    def test_ratios_to_sync_and_to_the_target(self):
        lines = summary.table(summary.rounds(self.dir.name))
        row = [ln for ln in lines if "| 8 B | sync-stream |" in ln][0]
        self.assertIn("12.0 [11.0-13.0]", row)
        self.assertIn("0.750 [", row)  # 12 / 16, the median of the per-round ratios
        self.assertIn("1.500 [", row)  # 12 / (7.5 + 0.5)
        base = [ln for ln in lines if "| 8 B | sync |" in ln][0]
        self.assertIn("| 2.000 [2.000-2.000] |", base)  # 16 / 8, no ratio to itself
        big = [ln for ln in lines if "| 64 B | sync-stream |" in ln][0]
        self.assertTrue(big.endswith("|  |"), big)  # the target is for 8 B only

    def test_per_repetition_modes_compare_with_their_own_timing(self):
        d = self.dir.name
        for r in (1, 2, 3):
            write(d, "sync-rep_%d.csv" % r, [("ucx", "cooperative", 8, 20.0)])
            write(d, "sync-stream-rep_%d.csv" % r, [("ucx", "cooperative", 8, 10.0)])
        lines = summary.table(summary.rounds(d))
        row = [ln for ln in lines if "| 8 B | sync-stream-rep |" in ln][0]
        self.assertIn("0.500 [", row)  # 10 / 20 (sync-rep), not 10 / 16 (sync)

    def test_an_empty_folder_is_an_error(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(summary.rounds(empty), {})


if __name__ == "__main__":
    unittest.main()
