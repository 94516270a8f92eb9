"""The distance to the machine (issue 29, item 3): each backend's best policy at 8 B and
16 MiB beside the floor the study's probes measured. Synthetic rows and sidecars only.
Run: /usr/bin/python3 -m unittest discover -s scripts/tests"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbresults import distance, schema  # noqa: E402

MIB16 = 16 << 20


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(origin="suite", mpi="openmpi", memory_send="host", memory_recv="host")
    r.update(kw)
    return r


def lat(backend, progress, us, size=8, **kw):
    return row(benchmark="pingpong", backend=backend, progress=progress,
               size_bytes=float(size), latency_us_p50=us, **kw)


def bw(backend, progress, mbps, size=MIB16, **kw):
    return row(benchmark="bandwidth", backend=backend, progress=progress,
               size_bytes=float(size), bandwidth_MBps=mbps, **kw)


def sidecar(ns, mbps, nbytes=MIB16):
    return {"run_state": {"latency_probe": {"one_way_ns_p50": ns},
                          "memcpy_probe": {"copy_MBps_p50": mbps, "bytes": nbytes}}}


def cells(lines, name):
    """The table row whose first cell is `name`, as a list of cells."""
    for line in lines:
        parts = [c.strip() for c in line.strip().strip("|").split("|")]
        if parts[0] == name:
            return parts
    raise AssertionError("no row %r in\n%s" % (name, "\n".join(lines)))


class FloorTest(unittest.TestCase):
    def test_floor_is_the_median_over_runs(self):
        fl = distance.floor([sidecar(50, 10000), sidecar(60, 12000), sidecar(250, 8000)])
        self.assertEqual(fl["one_way_ns"], 60)
        self.assertEqual(fl["copy_MBps"], 10000)
        self.assertEqual((fl["latency_runs"], fl["memcpy_runs"]), (3, 3))

    def test_memcpy_at_another_size_is_not_the_16_mib_floor(self):
        fl = distance.floor([sidecar(50, 40000, nbytes=1 << 20)])
        self.assertIsNone(fl["copy_MBps"])
        self.assertEqual(fl["memcpy_runs"], 0)

    def test_runs_without_probes_leave_the_floor_unknown(self):
        fl = distance.floor([{"run_state": {"latency_probe": None}}, {}])
        self.assertIsNone(fl["one_way_ns"])
        self.assertIsNone(fl["copy_MBps"])


class TableTest(unittest.TestCase):
    def test_best_policy_per_backend_against_the_floor(self):
        rows = [lat("ucx", "polling", 0.40), lat("ucx", "polling", 0.60),  # median 0.50
                lat("ucx", "cooperative", 0.30),
                lat("raw-ucx", "polling", 0.25),
                lat("ucx", "cooperative", 0.10, size=16),  # another size: ignored
                bw("ucx", "polling", 9000.0), bw("ucx", "cooperative", 6000.0),
                bw("raw-ucx", "polling", 10000.0)]
        lines = distance.table(rows, [sidecar(50, 12000), sidecar(50, 12000)])
        floor = cells(lines, "*the machine: floor*")
        self.assertEqual(floor[2], "*0.050*")
        self.assertEqual(floor[5], "*12,000*")
        ucx = cells(lines, "ucx (openmpi)")
        self.assertEqual(ucx[1:4], ["cooperative", "0.300", "6.0"])  # 300 ns / 50 ns
        self.assertEqual(ucx[4:7], ["polling", "9,000", "0.75"])
        raw = cells(lines, "raw-ucx (openmpi)")
        self.assertEqual(raw[1:4], ["polling", "0.250", "5.0"])

    def test_rows_that_are_not_this_hosts_default_path_stay_out(self):
        rows = [lat("mpi", "cooperative", 0.30),
                lat("mpi", "cooperative", 0.01, wire="per-frame"),
                lat("mpi", "blocking", 0.02, memory_send="cuda", memory_recv="cuda"),
                lat("mpi", "cooperative", 0.02, origin="external")]
        mpi = cells(distance.table(rows, [sidecar(100, 10000)]), "mpi (openmpi)")
        self.assertEqual(mpi[1:4], ["cooperative", "0.300", "3.0"])
        self.assertEqual(mpi[5], "not measured")

    def test_each_mpi_build_has_its_own_rows(self):
        rows = [lat("mpi", "cooperative", 0.30), lat("mpi", "cooperative", 0.45, mpi="mpich")]
        lines = distance.table(rows, [sidecar(100, 10000)])
        self.assertEqual(cells(lines, "mpi (mpich)")[2], "0.450")
        self.assertEqual(cells(lines, "mpi (openmpi)")[2], "0.300")

    def test_no_floor_is_said_not_guessed(self):
        lines = distance.table([lat("tcp", "epoll", 5.0, mpi="")], [{}])
        self.assertEqual(cells(lines, "*the machine: floor*")[2], "*not probed*")
        self.assertEqual(cells(lines, "tcp (no MPI)")[3], "–")

    def test_a_study_without_the_sizes_has_no_table(self):
        self.assertEqual(distance.table([lat("tcp", "epoll", 5.0, size=1)], [sidecar(50, 1)]),
                         [])


if __name__ == "__main__":
    unittest.main()
