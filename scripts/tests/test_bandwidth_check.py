"""scripts/studies/layer/bandwidth_check.py's arithmetic on synthetic rows: each policy
against the fastest raw variant of its own library within one invocation, and the
verdict against 0.97x. No binaries."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from scriptload import load_script  # noqa: E402 (this folder)

bc = load_script("studies/layer/bandwidth_check.py", "bandwidth_check_under_test")


def row(backend, progress, size, mbps):
    return {"backend": backend, "progress": progress, "size_bytes": size, "bandwidth_MBps": mbps}


class BandwidthCheckTest(unittest.TestCase):
    def test_ratio_against_its_own_library_only(self):
        rows = [row("ucx", "cooperative", 1 << 20, 900.0), row("raw-ucx", "polling", 1 << 20, 1000.0),
                row("raw-mpi", "blocking", 1 << 20, 5000.0),  # another library: not ucx's ceiling
                row("mpi", "cooperative", 1 << 20, 4900.0)]
        got = {(p, s): v for p, s, v in bc.ratios(rows)}
        self.assertAlmostEqual(got[("ucx:cooperative", 1 << 20)], 0.9)
        self.assertAlmostEqual(got[("mpi:cooperative", 1 << 20)], 0.98)
        self.assertNotIn(("tcp:epoll", 1 << 20), got)  # no rows: no ratio

    def test_verdict_per_median(self):
        md = bc.table({"mpich": [("mpi:cooperative", 1, 0.95), ("mpi:cooperative", 2, 0.96),
                                 ("mpi:cooperative", 4, 1.2), ("tcp:epoll", 1, 0.98)]})
        self.assertIn("| mpich | mpi:cooperative | 0.960 [0.950-1.200] | 3 | **not met** |", md)
        self.assertIn("| mpich | tcp:epoll | 0.980 [0.980-0.980] | 1 | met |", md)


if __name__ == "__main__":
    unittest.main()
