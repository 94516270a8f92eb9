"""scripts/studies/layer/request_floor.py's arithmetic on synthetic rows: per band the
three series' medians, the api / layer / total differences and their range over rounds,
each column under its own series. No binaries."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from scriptload import load_script  # noqa: E402 (this folder)

rf = load_script("studies/layer/request_floor.py", "request_floor_under_test")


def row(backend, progress, size, us):
    return {"backend": backend, "progress": progress, "size_bytes": size, "latency_us_p50": us}


def invocation(coop_us, blocking_us=0.19, test_us=0.2):
    rows = []
    for size in (1, 64, 256, 4096):
        rows += [row("mpi", "cooperative", size, coop_us), row("raw-mpi", "blocking", size, blocking_us),
                 row("raw-mpi", "test", size, test_us)]
    rows.append(row("raw-mpi", "blocking", 65536, 99.0))  # outside every band: ignored
    return rf.band_medians(rows)


class RequestFloorTest(unittest.TestCase):
    def test_differences_per_band(self):
        per = invocation(0.33)["1-64 B"]
        d = rf.differences(per)
        self.assertAlmostEqual(d["api"], 10)
        self.assertAlmostEqual(d["layer"], 130)
        self.assertAlmostEqual(d["total"], 140)

    def test_a_band_missing_a_series_is_left_out(self):
        rows = [row("mpi", "cooperative", 8, 0.3), row("raw-mpi", "blocking", 8, 0.2)]
        self.assertEqual(rf.band_medians(rows), {})

    def test_table_puts_each_series_under_its_heading_with_its_range(self):
        md = rf.table({"openmpi": [invocation(0.33), invocation(0.25), invocation(0.29)]})
        head = next(x for x in md.splitlines() if x.startswith("| MPI build"))
        line = next(x for x in md.splitlines() if x.startswith("| openmpi | 1-64 B"))
        cells = dict(zip([c.strip() for c in head.split("|")], [c.strip() for c in line.split("|")]))
        self.assertEqual(cells["mpi:cooperative"], "290 [250-330]")
        self.assertEqual(cells["raw-mpi:blocking"], "190 [190-190]")
        self.assertEqual(cells["raw-mpi:test"], "200 [200-200]")
        self.assertEqual(cells["layer"], "90 [50-130]")
        self.assertEqual(cells["rounds"], "3")


if __name__ == "__main__":
    unittest.main()
