"""The generated reliability table of tests/README.md (scripts/test-table): the gtest list
parser, counts read from names, and the splice between the markers. Synthetic registry.
Run: /usr/bin/python3 -m unittest discover -s scripts/tests"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbtests import registry, table  # noqa: E402

LIST = """AllBackends/FaultSuite.
  DropMidMessage/tcp_epoll  # GetParam() = tcp:epoll
  DropMidMessage/ucx_polling  # GetParam() = ucx:polling
  CorruptHelloIsRefused/tcp_epoll  # GetParam() = tcp:epoll
AllBackends/LoadSuite.
  ThousandConcurrentConnections/tcp_epoll  # GetParam() = tcp:epoll
  TenThousandConnectCloseCyclesLeakNothing/ucx_polling  # GetParam() = ucx:polling
"""


def ctest(name, command=(), will_fail=False):
    return {"name": name, "command": list(command), "labels": [], "timeout": 60,
            "will_fail": will_fail}


class TestTable(unittest.TestCase):
    def test_gtest_list(self):
        cases = registry.parse_gtest_list(LIST)
        self.assertEqual(cases[0], ("AllBackends/FaultSuite", "DropMidMessage", "tcp_epoll"))
        self.assertEqual(len(cases), 5)

    def test_number_in_name(self):
        self.assertEqual(table.number_in_name("ThousandConcurrentConnections"), 1000)
        self.assertEqual(table.number_in_name("TenThousandConnectCloseCycles"), 10000)
        self.assertEqual(table.number_in_name("ThreeThousandConcurrentConnections"), 3000)
        self.assertEqual(table.number_in_name("mpi_connect_close_10000_cycles"), 10000)
        self.assertEqual(table.number_in_name("TwentyFiveHundredConcurrentConnections"), 2500)
        self.assertIsNone(table.number_in_name("DropMidMessage"))

    def test_rows_count_what_is_registered(self):
        g = [("reliability_suite",) + c for c in registry.parse_gtest_list(LIST)]
        c = [ctest("bad_size"), ctest("appbench.bad_runs_zero"), ctest("pingpong_tcp"),
             ctest("kill_peer_pingpong_tcp")]
        rows = table.rows(c, g, {"handshake": (3, 120)},
                          [("asan-mpich", "ASan+UBSan", "mpich", "tsan", False)], [],
                          (30, "asan"))
        text = table.render(rows)
        self.assertIn("2 kinds x 2 backend/policy = 3 runs", text)
        self.assertIn("| 2 cases |", text)  # the two bad_ tests, not pingpong_tcp
        self.assertIn("1,000 connections", text)
        self.assertIn("10,000 cycles each", text)
        self.assertIn("3 inputs, 120 bytes", text)
        self.assertIn("30 s per CI run", text)
        self.assertIn("not in CI: `scripts/test asan-mpich`", text)

    def test_network_fault_timings_summarised(self):
        timings = [{"fault": "link-down", "backend": "tcp", "time_to_error_s": 4.0},
                   {"fault": "loss5", "backend": "tcp", "time_to_error_s": None},
                   {"fault": "link-down", "backend": "mpi", "time_to_error_s": 6.0}]
        text = table.render(table.rows([], [], {}, [], timings))
        self.assertIn("median 5.0 s, max 6.0 s over 2 cases", text)

    def test_splice_needs_markers(self):
        t = table.render([])
        self.assertEqual(table.splice(f"a\n{table.BEGIN}\nold\n{table.END}\nb", t),
                         f"a\n{t}\nb")
        with self.assertRaises(ValueError):
            table.splice("no markers", t)


if __name__ == "__main__":
    unittest.main()
