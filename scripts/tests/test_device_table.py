"""The report's GPU rows (issue 30 item 7): cbresults.device.table from synthetic rows.
Run: /usr/bin/python3 -m unittest discover -s scripts/tests"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbresults import device, schema  # noqa: E402


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(origin="suite", mpi="openmpi", memory_send="host", memory_recv="host", gpu_path="none")
    r.update(kw)
    return r


def lat(backend, us, size=8, **kw):
    return row(benchmark="pingpong", backend=backend, progress="p", size_bytes=float(size),
               latency_us_p50=us, **kw)


def cells(lines, *first):
    for line in lines:
        c = [x.strip() for x in line.strip("|").split("|")]
        if tuple(c[:len(first)]) == first:
            return c
    return None


class DeviceTable(unittest.TestCase):
    def test_no_device_rows_no_section(self):
        self.assertEqual(device.table([lat("ucx", 1.0)]), [])

    def test_paths_side_by_side_with_host_and_medians(self):
        cuda = dict(memory_send="cuda", memory_recv="cuda")
        rows = [lat("ucx", 0.6), lat("tcp", 5.0),
                lat("ucx", 160.0, gpu_path="staged", **cuda),
                lat("ucx", 20.0, gpu_path="staged", **cuda),
                lat("ucx", 18.0, gpu_path="staged", **cuda),
                lat("ucx", 16.7, gpu_path="cuda-ipc", **cuda),
                row(benchmark="bandwidth", backend="ucx", progress="p", size_bytes=float(64 << 20),
                    bandwidth_MBps=996000.0, gpu_path="cuda-ipc", **cuda)]
        lines = device.table(rows)
        host = cells(lines, "none", "host->host", "ucx:p")
        staged = cells(lines, "staged", "cuda->cuda", "ucx:p")
        ipc = cells(lines, "cuda-ipc", "cuda->cuda", "ucx:p")
        self.assertEqual(host[3], "0.6")
        self.assertEqual(staged[3], "20.0 [18.0-160.0]")  # median of three runs, min-max
        self.assertEqual(ipc[3], "16.7")
        self.assertEqual(ipc[6], "996000")
        # tcp moved no device memory: its host row stays out
        self.assertIsNone(cells(lines, "none", "host->host", "tcp:p"))
        # host first, then staged, then cuda-ipc
        order = [c.split("|")[1].strip() for c in lines[2:]]
        self.assertEqual(order, ["none", "staged", "cuda-ipc"])


    def test_runs_under_mps_are_their_own_series(self):
        cuda = dict(memory_send="cuda", memory_recv="cuda", gpu_path="staged")
        rows = [lat("ucx", 160.0, run_id="a", **cuda), lat("ucx", 17.5, run_id="b", **cuda)]
        sidecars = [{"run_id": "a", "environment": {}},
                    {"run_id": "b", "environment": {"CUDA_MPS_PIPE_DIRECTORY": "/tmp/mps"}}]
        lines = device.table(rows, sidecars)
        self.assertEqual(cells(lines, "staged", "cuda->cuda", "ucx:p")[3], "160.0")
        self.assertEqual(cells(lines, "staged (MPS)", "cuda->cuda", "ucx:p")[3], "17.5")
        # without the sidecars the two runs are one series
        self.assertEqual(cells(device.table(rows), "staged", "cuda->cuda", "ucx:p")[3],
                         "88.8 [17.5-160.0]")

    def test_stream_ordered_reads_are_their_own_series(self):
        cuda = dict(memory_send="cuda", memory_recv="cuda", gpu_path="staged")
        rows = [lat("ucx", 17.0, run_id="a", **cuda), lat("ucx", 12.0, run_id="b", **cuda)]
        mps = {"CUDA_MPS_PIPE_DIRECTORY": "/tmp/mps"}
        sidecars = [{"run_id": "a", "environment": mps, "settings": {"gpu_read_completion": "host"}},
                    {"run_id": "b", "environment": mps, "settings": {"gpu_read_completion": "stream"}}]
        lines = device.table(rows, sidecars)
        self.assertEqual(cells(lines, "staged (MPS)", "cuda->cuda", "ucx:p")[3], "17.0")
        self.assertEqual(cells(lines, "staged, stream-ordered reads (MPS)", "cuda->cuda", "ucx:p")[3],
                         "12.0")


if __name__ == "__main__":
    unittest.main()
