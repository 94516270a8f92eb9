"""scripts/studies/layer (issue 29 item 2): who a profiled function's instructions are
charged to, the profile table, and the targets computed per reproduction against the raw
ceiling of the same invocation. Synthetic inputs; no valgrind, no binaries."""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbresults import schema  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)

profile = load_script("studies/layer/profile.py", "cb_layer_profile")
summarize = load_script("studies/layer/summarize.py", "cb_layer_summarize")
targets = load_script("studies/layer/targets.py", "cb_layer_targets")
BIN = "/x/build/openmpi/tests/icount/icount_pingpong"


class CategoryTest(unittest.TestCase):
    def test_owners(self):
        c = profile.category
        self.assertEqual(c("???", "ucp_tag_send_nbx", "/usr/lib/libucp.so.0.0.0"), "library: libucp")
        self.assertEqual(c("???", "PMPI_Test", "/usr/lib/libmpi.so.40"), "library: mpi")
        self.assertEqual(c("???", "mca_pml_ob1_send", "/usr/lib/openmpi/mca_pml_ob1.so"),
                         "library: mpi")
        self.assertEqual(c("memmove.S", "__memcpy_avx", "/lib/libc.so.6"), "libc")
        self.assertEqual(c("/w/backends/ucx/ucx_comm.cpp", "commbench::ucx::UcxComm::read", BIN),
                         "layer: ucx backend")
        self.assertEqual(c("/w/backends/comm/frame_header.cpp", "commbench::check_limits", BIN),
                         "layer: comm (framing, buffers)")
        self.assertEqual(c("/w/backends/runtime/event_loop.cpp", "commbench::EventLoop::turn", BIN),
                         profile.RUNTIME)
        # a library header inlined into our code: the function that inlined it decides
        self.assertEqual(c("/usr/include/c++/12/bits/stl_vector.h", "commbench::check_limits(x)",
                           BIN), "layer: comm (framing, buffers)")
        self.assertEqual(c("/usr/include/c++/12/coroutine", "commbench::EventLoop::turn()", BIN),
                         profile.RUNTIME)
        self.assertEqual(c("/w/tests/icount/icount_pingpong.cpp", "(anon)::round_trips", BIN),
                         "driver")


class TableTest(unittest.TestCase):
    def test_layer_against_library(self):
        data = {"mpi_flavor": "openmpi", "policies": {
            "ucx:cooperative": {"total": 1600.0, "categories": {
                "library: libucp": 500.0, "library: libuct": 80.0, "libc": 20.0,
                "layer: ucx backend": 600.0, "layer: comm (framing, buffers)": 200.0,
                profile.RUNTIME: 100.0, "driver": 100.0}},
            "tcp:epoll": {"total": 2000.0, "categories": {
                "libc": 50.0, "layer: tcp backend": 1000.0, "driver": 100.0}}}}
        rows = summarize.table(data)
        self.assertIn("| ucx:cooperative | 1600 | 600 | 600 | 200 | 100 | 900 | 100 | 1.50 |",
                      rows)
        self.assertIn("| tcp:epoll | 2000 | 50 | 1000 | 0 | 0 | 1000 | 100 | – (kernel) |", rows)


def lat(backend, progress, size, us, run, mpi="openmpi"):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(benchmark="pingpong", origin="suite", backend=backend, progress=progress, mpi=mpi,
             size_bytes=size, latency_us_p50=us, run_id=run)
    return r


def bw(backend, progress, size, mbps, run, mpi="openmpi"):
    r = lat(backend, progress, size, None, run, mpi)
    r.update(benchmark="bandwidth", latency_us_p50=None, bandwidth_MBps=mbps)
    return r


class TargetsTest(unittest.TestCase):
    def write_run(self, folder, added_us, bw_ratio):
        os.makedirs(os.path.join(folder, "csv"))
        rows, family = [], []
        for s in (1, 64, 4096):
            rows += [lat("raw-ucx", "polling", s, 1.0, "u"), lat("raw-ucx", "sleep", s, 2.0, "u"),
                     lat("ucx", "cooperative", s, 1.0 + added_us, "u")]
            # a per-family invocation (another thread level): not counted
            family += [lat("raw-ucx", "polling", s, 1.0, "f"), lat("ucx", "cooperative", s, 9.0, "f")]
        bws = []
        for s in (1 << 20, 4 << 20):
            bws += [bw("raw-ucx", "polling", s, 1000.0, "b"),
                    bw("ucx", "cooperative", s, 1000.0 * bw_ratio, "b")]
        csv = os.path.join(folder, "csv")
        schema.write_csv(os.path.join(csv, "pingpong-compare-r1-openmpi.csv"), rows, {"run_id": "u"})
        schema.write_csv(os.path.join(csv, "pingpong-ucx-openmpi.csv"), family, {"run_id": "f"})
        schema.write_csv(os.path.join(csv, "bandwidth-compare-r1-openmpi.csv"), bws, {"run_id": "b"})

    def test_targets_per_run_then_median(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        self.write_run(os.path.join(d, "run-1"), 0.030, 0.99)   # 30 ns, 1.03x: met
        self.write_run(os.path.join(d, "run-2"), 0.200, 0.90)   # 200 ns, 1.20x: not met
        self.write_run(os.path.join(d, "run-3"), 0.035, 0.98)
        data = targets.summarize(d)
        self.assertEqual(data["runs"], [1, 2, 3])
        (e,) = data["series"]
        self.assertEqual((e["backend"], e["policy"], e["mpi"]), ("ucx", "cooperative", "openmpi"))
        self.assertAlmostEqual(e["added_ns"]["median"], 35.0)
        self.assertAlmostEqual(e["added_ns"]["max"], 200.0)
        self.assertAlmostEqual(e["ratio"]["median"], 1.035)   # against raw's fastest variant
        self.assertAlmostEqual(e["bw_ratio"]["median"], 0.98)
        self.assertTrue(e["latency_target_met"])
        self.assertTrue(e["bandwidth_target_met"])
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(targets.main([d, out]), 0)
        with open(os.path.join(out, "targets.json")) as f:
            self.assertEqual(json.load(f)["runs"], [1, 2, 3])
        with open(os.path.join(out, "targets.md")) as f:
            self.assertIn("| ucx:cooperative | openmpi | 1.03 [1.03-1.20] | 35 [30-200] | met |",
                          f.read())


if __name__ == "__main__":
    unittest.main()
