"""scripts/lib/ctest_skips.py: a CTest log's skips are counted apart from the passes, and a
skip that tests/allowed_skips.txt does not allow on this machine fails."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "lib", "ctest_skips.py")

LOG = """\
  1/4 Test  #1: A.Passes .........   Passed    0.01 sec
  2/4 Test  #2: CudaDevice.AllocatesAndCopiesOnLanes ...***Skipped   0.01 sec
  3/4 Test  #3: {skipped} ...***Skipped   0.01 sec
  4/4 Test  #4: B.Fails ...***Failed   0.01 sec

75% tests passed, 1 tests failed out of 4

The following tests did not run:
\t  2 - CudaDevice.AllocatesAndCopiesOnLanes (Skipped)
\t  3 - {skipped} (Skipped)

The following tests FAILED:
\t  4 - B.Fails (Failed)
"""


def run(skipped, preset="openmpi", env=None):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(LOG.format(skipped=skipped))
    try:
        e = dict(os.environ, **(env or {}))
        return subprocess.run([sys.executable, TOOL, f.name, preset], capture_output=True,
                              text=True, env=e)
    finally:
        os.remove(f.name)


class CtestSkipsTest(unittest.TestCase):
    def test_counts_skips_apart_from_passes(self):
        r = run("Task.SymmetricTransferKeepsStackFlat", preset="asan")
        self.assertIn("asan: 1 passed, 1 failed, 2 skipped", r.stdout)

    def test_an_unlisted_skip_fails(self):
        r = run("Comm.SomethingThatStoppedRunning")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("NOT ALLOWED here: Comm.SomethingThatStoppedRunning", r.stdout)

    def test_a_rule_holds_only_where_its_condition_does(self):
        # Allowed in a sanitizer preset, not in a plain one.
        self.assertEqual(run("Task.SymmetricTransferKeepsStackFlat", preset="tsan").returncode,
                         0 if not os.path.exists("/dev/nvidia0") else 1)
        self.assertEqual(run("Task.SymmetricTransferKeepsStackFlat", preset="openmpi").returncode, 1)

    def test_require_gpu_forbids_the_no_gpu_skips(self):
        r = run("Task.SymmetricTransferKeepsStackFlat", preset="asan",
                env={"COMMBENCH_REQUIRE_GPU": "1"})
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("NOT ALLOWED here: CudaDevice.AllocatesAndCopiesOnLanes", r.stdout)


if __name__ == "__main__":
    unittest.main()
