"""scripts/lib/ctest_failures.py: each failed or timed-out test's own output is found in a
parallel CTest log (between its result line and the next test's), passes and skips are not."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import ctest_failures  # noqa: E402

LOG = """\
      Start 311: regress_detects_injected_delay_tcp
450/514 Test #311: regress_detects_injected_delay_tcp .........   Passed   30.10 sec
      Start 312: regress_gate
451/514 Test #312: regress_gate ...............................***Failed   51.57 sec
regress: measuring pingpong
overhead/mpi:batched  1.411  1.73 1.75 1.74  +23%  20%  REGRESSED
regress: FAILED: 1 metric(s) moved the wrong way: overhead/mpi:batched
      Start 313: soak_short
452/514 Test #313: soak_short .................................   Passed    9.01 sec
453/514 Test #314: Net.Hangs ..................................***Timeout 600.01 sec
waiting for the peer
454/514 Test #315: CudaDevice.AllocatesAndCopiesOnLanes .......***Skipped   0.01 sec
not printed: a skip's reason
      Start 316: gpu_bundle_closure
455/514 Test #316: gpu_bundle_closure .........................***Failed  Required regular expression not found. Regex=[PASS: bundle closure and check
]  45.10 sec
bundle: libcudart.so.13 missing
456/514 Test #317: Disabled.One ...............................***Not Run (Disabled)   0.00 sec

98% tests passed, 2 tests failed out of 514
The following tests FAILED:
\t312 - regress_gate (Failed)
"""


class FailuresTest(unittest.TestCase):
    def test_each_failure_with_its_own_output(self):
        found = ctest_failures.failures(LOG.splitlines())
        self.assertEqual([(n, r) for n, r, _ in found],
                         [("regress_gate", "Failed"), ("Net.Hangs", "Timeout"),
                          ("gpu_bundle_closure", "Failed  Required regular expression not found. "
                           "Regex=[PASS: bundle closure and check")])
        self.assertEqual(found[0][2][-1],
                         "regress: FAILED: 1 metric(s) moved the wrong way: overhead/mpi:batched")
        self.assertEqual(len(found[0][2]), 3)  # not the next test's Start line
        self.assertEqual(found[1][2], ["waiting for the peer"])
        # its result line went on over the regex's newline; its output is its own
        self.assertEqual(found[2][2], ["]  45.10 sec", "bundle: libcudart.so.13 missing"])

    def test_a_clean_log_has_none(self):
        clean = [l for l in LOG.splitlines() if "Failed" not in l and "Timeout" not in l]
        self.assertEqual(ctest_failures.failures(clean), [])


if __name__ == "__main__":
    unittest.main()
