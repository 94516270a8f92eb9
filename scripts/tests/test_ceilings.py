"""Raw baselines as ceilings: the coroutine/raw ratio is taken against the fastest raw
variant of a run, and a raw baseline slower than its library's own tool by more than 10 %
is flagged in the report. Synthetic rows only.
Run: /usr/bin/python3 -m unittest discover -s scripts/tests"""

import csv
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import ablation, ceilings, matrix, schema, select  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)


def _load_report():
    return load_script("report")


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(kw)
    return r


def lat(backend, progress, size, us, run="r1", origin="suite", mpi="openmpi"):
    return row(benchmark="pingpong", origin=origin, backend=backend, progress=progress,
               mpi=mpi, size_bytes=float(size), latency_us_p50=us, run_id=run)


def bw(backend, progress, size, mbps, run="b1", origin="suite", mpi="openmpi"):
    return row(benchmark="bandwidth", origin=origin, backend=backend, progress=progress,
               mpi=mpi, size_bytes=float(size), bandwidth_MBps=mbps, run_id=run)


def tcp_run():
    """tcp:epoll at 6 us; raw-tcp blocking at 10 us, busy-poll at 5 us (1 B-4 KiB)."""
    rows = []
    for s in (1, 64, 4096):
        rows += [lat("tcp", "epoll", s, 6.0), lat("raw-tcp", "blocking", s, 10.0),
                 lat("raw-tcp", "busy-poll", s, 5.0)]
    return rows


class FastestVariantTest(unittest.TestCase):
    def test_overhead_is_taken_against_the_faster_raw_variant(self):
        ratios = select.overhead_ratios(tcp_run())
        # against blocking it would read 0.6x (the layer "faster" than raw); against
        # busy-poll it is 1.2x
        for s, v in ratios[("tcp", "epoll", "openmpi")].items():
            self.assertAlmostEqual(v, 1.2, msg=s)

    def test_bandwidth_ceiling_is_the_higher_one(self):
        rows = [bw("raw-tcp", "blocking", 1 << 20, 900.0), bw("raw-tcp", "busy-poll", 1 << 20, 1200.0),
                bw("tcp", "epoll", 1 << 20, 1000.0)]
        ratios = select.overhead_ratios(rows, "bandwidth", "bandwidth_MBps")
        self.assertAlmostEqual(ratios[("tcp", "epoll", "openmpi")][1 << 20], 1000.0 / 1200.0)

    def test_choices_name_the_variant_per_size(self):
        rows = tcp_run() + [lat("raw-tcp", "blocking", 1 << 20, 100.0),
                            lat("raw-tcp", "busy-poll", 1 << 20, 120.0)]
        self.assertEqual(select.raw_choices(rows)[("raw-tcp", "openmpi")],
                         {"busy-poll": 3, "blocking": 1})
        self.assertEqual(ablation._raw_progress(rows, "tcp"), "busy-poll")

    def test_report_states_the_variant(self):
        text = _load_report().raw_variant_statement(tcp_run())
        self.assertIn("fastest raw variant", text)
        self.assertIn("raw-tcp latency: busy-poll at 3 of 3 sizes", text)


class MatrixVariantsTest(unittest.TestCase):
    def test_every_variant_of_a_raw_baseline_is_run(self):
        fams = matrix.families([
            {"name": "tcp", "kind": "coroutine", "policies": [{"name": "epoll"}],
             "default_policy": "epoll", "raw_baseline": "raw-tcp", "options": []},
            {"name": "raw-tcp", "kind": "raw", "policies": [{"name": "blocking"},
                                                           {"name": "busy-poll"}]},
            {"name": "raw-mpi", "kind": "raw", "policies": [{"name": "blocking"}]},
            {"name": "mpi", "kind": "coroutine", "policies": [{"name": "cooperative"}],
             "default_policy": "cooperative", "raw_baseline": "raw-mpi", "options": []}])
        self.assertEqual(matrix.family_backend_list("tcp", fams["tcp"]),
                         ["tcp:epoll", "raw-tcp:blocking", "raw-tcp:busy-poll"])
        # one variant: the command is what it always was
        self.assertEqual(matrix.family_backend_list("mpi", fams["mpi"]),
                         ["mpi:cooperative", "raw-mpi"])


class CeilingFlagTest(unittest.TestCase):
    def study(self, raw_ucx_bw_16m, raw_tcp_us):
        rows = [bw("raw-ucx", "polling", 1 << 20, 10000.0), bw("raw-ucx", "polling", 16 << 20,
                                                              raw_ucx_bw_16m),
                bw("ucx_perftest", "poll", 1 << 20, 10500.0, run="x1", origin="external", mpi=""),
                bw("ucx_perftest", "poll", 16 << 20, 12000.0, run="x1", origin="external", mpi=""),
                lat("raw-tcp", "blocking", 8, raw_tcp_us * 2), lat("raw-tcp", "busy-poll", 8, raw_tcp_us),
                lat("NPtcp", "blocking", 8, 10.0, run="x2", origin="external", mpi=""),
                lat("raw-mpi", "blocking", 8, 0.5),
                lat("NPmpi", "blocking", 8, 0.5, run="x3", origin="external", mpi="openmpi"),
                lat("NPmpi", "blocking", 8, 0.1, run="x4", origin="external", mpi="mpich")]
        return ceilings.check(rows)

    def by(self, res, raw, metric):
        return next(c for c in res if c["raw"] == raw and c["metric"] == metric)

    def test_flag_fires_when_raw_is_more_than_ten_percent_slower(self):
        res = self.study(raw_ucx_bw_16m=8000.0, raw_tcp_us=12.0)
        ucx = self.by(res, "raw-ucx", "bandwidth_MBps")
        self.assertEqual([p[0] for p in ucx["flagged"]], [16 << 20])  # 1 MiB: 5 %, not flagged
        self.assertAlmostEqual(ucx["worst"][4], 1.5)
        tcp = self.by(res, "raw-tcp", "latency_us_p50")
        self.assertEqual(len(tcp["flagged"]), 1)
        self.assertEqual(tcp["flagged"][0][2], "busy-poll")  # judged in its fastest form
        lines = ceilings.flag_lines(res)
        self.assertEqual(len(lines), 2)
        self.assertTrue(all("RAW BASELINE BELOW ITS TOOL" in l for l in lines))

    def test_no_flag_within_ten_percent_or_when_faster(self):
        res = self.study(raw_ucx_bw_16m=11500.0, raw_tcp_us=9.0)
        self.assertEqual([c for c in res if c["flagged"]], [])
        self.assertEqual(ceilings.flag_lines(res), [])

    def test_mpi_tools_compare_only_with_their_own_mpi_build(self):
        res = self.study(raw_ucx_bw_16m=11500.0, raw_tcp_us=9.0)
        mpi = self.by(res, "raw-mpi", "latency_us_p50")
        # the mpich NPmpi row (0.1 us) would flag raw-mpi of the openmpi build
        self.assertEqual(mpi["mpi"], "openmpi")
        self.assertEqual(mpi["flagged"], [])

    def test_report_shows_the_flag_at_the_top_and_in_the_table(self):
        report = _load_report()
        rows = [bw("raw-ucx", "polling", 16 << 20, 6000.0),
                bw("ucx_perftest", "poll", 16 << 20, 12000.0, run="x1", origin="external", mpi="")]
        empty = tempfile.mkdtemp()  # no alternating study there: this run's rows decide
        section = report.ceiling_section(rows, results_root=empty)
        self.assertIn("RAW BASELINE BELOW ITS TOOL: raw-ucx (openmpi) bandwidth", section)
        self.assertIn("16M 2.00x", section)
        self.assertIn("**FLAG: slower than the tool by >10% at 1 size**", section)
        ok = report.ceiling_section([bw("raw-ucx", "polling", 16 << 20, 12500.0),
                                     bw("ucx_perftest", "poll", 16 << 20, 12000.0, run="x1",
                                        origin="external", mpi="")], results_root=empty)
        self.assertNotIn("FLAG", ok)
        self.assertIn("No raw baseline is more than 10% slower than its tool", ok)
        self.assertIn("| ok |", ok)


def write_csv(path, rows):
    """One invocation's rows as the suite writes them (a raw backend, Open MPI build)."""
    name = os.path.basename(path)
    raw = "raw-" + name.split("-")[1].split(".")[0]
    bench = "bandwidth" if "-bw" in name else "pingpong"
    rows = [dict(r, origin="suite", backend=raw, benchmark=bench, mpi="openmpi") for r in rows]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
        w.writeheader()
        w.writerows(rows)


class AlternatingStudyTest(unittest.TestCase):
    """scripts/studies/raw-vs-tools: the ratio is taken within each round, raw judged by the
    tool's own statistic, only like-for-like pairs flagged, and the report reads it."""

    def study(self):
        root = tempfile.mkdtemp()
        folder = os.path.join(root, "raw-vs-tools-2026-01-01")
        # round r: the VM 1x, 2x, 3x slower; raw-mpi's best repetition 5 % above NetPIPE,
        # its p50 30 % above (NetPIPE reports its best trial); raw-ucx 50 % slower than
        # ucx_perftest at 8 B; bandwidth: the shared-buffer run as fast as tag_bw, the
        # per-message run half as fast
        for r, k in ((1, 1.0), (2, 2.0), (3, 3.0)):
            sub = os.path.join(folder, str(r), "openmpi")
            os.makedirs(sub)
            write_csv(os.path.join(sub, "raw-mpi.csv"), [dict(
                size_bytes=8, progress="blocking", latency_us_p50=0.26 * k,
                latency_us_best_rep_avg=0.21 * k)])
            with open(os.path.join(sub, "np-openmpi.out"), "w") as f:
                f.write("       8 400.0   %.8f\n" % (0.2e-6 * k))
            write_csv(os.path.join(sub, "raw-ucx.csv"), [dict(
                size_bytes=8, progress="polling", latency_us_p50=0.3 * k,
                latency_us_best_rep_avg=0.3 * k)])
            with open(os.path.join(sub, "perftest-tag_lat-8.json"), "w") as f:
                json.dump({"lat_p50": 0.2 * k}, f)
            mib = 1 << 20
            write_csv(os.path.join(sub, "raw-ucx-bw-shared.csv"), [dict(
                size_bytes=mib, progress="polling", bandwidth_MBps=10000 / k)])
            write_csv(os.path.join(sub, "raw-ucx-bw.csv"), [dict(
                size_bytes=mib, progress="polling", bandwidth_MBps=5000 / k)])
            with open(os.path.join(sub, "perftest-tag_bw-%d.json" % mib), "w") as f:
                json.dump({"bw_avg": 10000 / k / ceilings.MIB_TO_MB}, f)
            with open(os.path.join(folder, "manifest.json"), "w") as f:
                json.dump({"study": "raw-vs-tools"}, f)
        return root, folder

    def test_ratios_within_rounds_with_the_tools_statistic(self):
        _, folder = self.study()
        res = ceilings.alternating(folder)
        mpi = next(c for c in res if c["raw"] == "raw-mpi")
        self.assertAlmostEqual(mpi["points"][0][4], 1.05)  # best repetition, not p50's 1.3
        self.assertEqual(mpi["flagged"], [])
        self.assertEqual(mpi["points_detail"][0]["rounds"], 3)
        ucx = next(c for c in res if "tag_lat" in c["what"])
        self.assertAlmostEqual(ucx["points"][0][4], 1.5)
        self.assertEqual(len(ucx["flagged"]), 1)
        shared = next(c for c in res if "one receive buffer" in c["what"])
        per_message = next(c for c in res if "per message" in c["what"])
        self.assertAlmostEqual(shared["points"][0][4], 1.0)
        self.assertAlmostEqual(per_message["points"][0][4], 2.0)
        self.assertEqual(per_message["flagged"], [])  # not like for like: shown only

    def test_no_flag_when_the_interval_includes_parity(self):
        _, folder = self.study()
        # a fourth round where raw-ucx is faster than the tool: median 1.5x still, but the
        # rounds straddle 1.0
        sub = os.path.join(folder, "4", "openmpi")
        os.makedirs(sub)
        write_csv(os.path.join(sub, "raw-ucx.csv"), [dict(size_bytes=8, progress="polling",
                                                          latency_us_p50=0.1)])
        with open(os.path.join(sub, "perftest-tag_lat-8.json"), "w") as f:
            json.dump({"lat_p50": 0.2}, f)
        ucx = next(c for c in ceilings.alternating(folder) if "tag_lat" in c["what"])
        self.assertGreater(ucx["points"][0][4], 1.1)
        self.assertLessEqual(ucx["points_detail"][0]["ci"][0], 1.0)
        self.assertEqual(ucx["flagged"], [])

    def test_report_takes_the_newest_study(self):
        report = _load_report()
        root, folder = self.study()
        section = report.ceiling_section([], results_root=root)
        self.assertIn(os.path.basename(folder), section)
        self.assertIn("RAW BASELINE BELOW ITS TOOL: raw-ucx (openmpi) latency", section)
        self.assertIn("shown, not flagged (not like for like)", section)
        self.assertNotIn("raw-mpi (openmpi) latency is more", section)


if __name__ == "__main__":
    unittest.main()


class IdleRuleRowsTest(unittest.TestCase):
    """The idle-rules run: each `policy@rule` is its own row of the progress table, its
    ratio against the raw baseline of its own run, and the table says what the rules are."""

    def test_progress_table_rows_per_rule(self):
        rows = []
        for size in (1, 64):
            rows.append(lat("raw-ucx", "polling", size, 1.0, run="idle"))
            for rule, us in (("spin", 1.2), ("block", 10.0)):
                rows.append(dict(lat("ucx", "polling", size, us, run="idle"), idle=rule))
            rows.append(lat("ucx", "polling", size, 1.5, run="idle"))
        md = "\n".join(_load_report().progress_table(rows))
        self.assertIn("| ucx:polling@spin | openmpi | 1.20x", md)
        self.assertIn("| ucx:polling@block | openmpi | 10.00x", md)
        self.assertIn("| ucx:polling | openmpi | 1.50x", md)
        self.assertIn("`spin` never sleeps while the loop runs", md)
