"""The report's note on progress threads (issue 16): the handoff cost per message next to
the cooperative policy of the same run, and the oversubscription the sidecars record."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import schema  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)


def load_report():
    return load_script("report")


def row(backend, progress, size, lat, run="r1", mpi="openmpi"):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(benchmark="pingpong", origin="suite", backend=backend, progress=progress,
             mpi=mpi, size_bytes=size, latency_us_p50=lat, run_id=run)
    return r


class ProgressThreadNoteTest(unittest.TestCase):
    def setUp(self):
        self.report = load_report()
        self.rows = []
        for size in (1, 64, 1024):
            self.rows += [row("raw-ucx", "polling", size, 0.25),
                          row("ucx", "cooperative", size, 0.35),
                          row("ucx", "thread", size, 5.25)]

    def test_thread_policy_cost_is_shown_beside_cooperative(self):
        md = "\n".join(self.report.progress_thread_lines(self.rows, []))
        self.assertIn("ucx:thread (openmpi): 5000 ns added per message", md)
        self.assertIn("+4900 ns over ucx:cooperative", md)

    def test_oversubscription_comes_from_the_sidecars(self):
        side = [{"settings": {"progress_threads": {
            "policies": ["ucx:thread"], "polling_threads_per_rank": 1, "local_ranks": 2,
            "cpus_online": 2, "oversubscribed": True}}}]
        md = "\n".join(self.report.progress_thread_lines(self.rows, side))
        self.assertIn("*Oversubscribed:* 1 of 1 runs", md)
        side[0]["settings"]["progress_threads"]["oversubscribed"] = False
        md = "\n".join(self.report.progress_thread_lines(self.rows, side))
        self.assertNotIn("Oversubscribed", md)
        self.assertIn("no run with progress threads oversubscribed", md)

    def test_no_thread_policy_no_note(self):
        rows = [r for r in self.rows if r["progress"] != "thread"]
        self.assertEqual(self.report.progress_thread_lines(rows, []), [])


if __name__ == "__main__":
    unittest.main()
