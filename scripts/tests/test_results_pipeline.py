"""Unit tests of the results pipeline: schema, tool-output parsers, ratios and speedups,
figures and report from a synthetic CSV. Run: python3 -m unittest discover -s scripts/tests"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
sys.path.insert(0, os.path.join(SCRIPTS, "baselines"))

from cbresults import compare, launch, matrix, schema, select, sizes  # noqa: E402

UCX_OUTPUT = """\
+--------------+--------------+------------------------------+---------------------+
|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |
[thread 0]               128   4001.394  3906.239  3906.239        0.00       0.00         256         256
Final:                  2000      0.531    19.561  1268.378        0.39       0.01       51122         788
"""

NP_OUT = """\
       1 0.808344   0.00000944
       3 2.466608   0.00000928
       8 6.685783   0.00000913
"""

OSU_OUT = """\
# OSU MPI Latency Test v7.1
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       0.38
8                       0.40
"""


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(kw)
    return r


def _windows(words, n):
    """Every run of `n` consecutive words: an option must keep its value next to it."""
    return [words[i:i + n] for i in range(len(words) - n + 1)]


class SchemaTest(unittest.TestCase):
    def test_columns_come_from_the_cpp_header(self):
        cols = schema.columns()
        self.assertEqual(cols[0], "benchmark")
        self.assertIn("latency_us_p50", cols)
        self.assertEqual(cols[-1], "run_id")
        # every column is a name or a number: the measurements, counts and sizes numbers
        self.assertEqual(schema.TEXT | schema.NUMERIC, set(cols))
        self.assertTrue({"latency_us_p999", "wall_s", "size_bytes", "wrong"} <= schema.NUMERIC)
        self.assertFalse(schema.TEXT & schema.NUMERIC)

    def test_a_missing_header_is_one_line(self):
        saved = schema.SCHEMA_HEADER
        schema.SCHEMA_HEADER = "/nonexistent/result_schema.hpp"
        try:
            with self.assertRaises(SystemExit) as e:
                schema.columns()
            self.assertIn("cannot read the CSV schema /nonexistent/result_schema.hpp", str(e.exception))
        finally:
            schema.SCHEMA_HEADER = saved

    def test_write_then_read_round_trip_and_unknown_column(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.csv")
            schema.write_csv(p, [{"benchmark": "pingpong", "size_bytes": 8,
                                  "latency_us_p50": 0.5}], {"run_id": "r"})
            rows = schema.read_csv(p)
            self.assertEqual(rows[0]["size_bytes"], 8.0)
            self.assertIsNone(rows[0]["bandwidth_MBps"])
            self.assertEqual(json.loads(read(os.path.join(d, "x.json")))["run_id"], "r")
            with self.assertRaises(ValueError):
                schema.write_csv(p, [{"latency_ms": 1}])


class ParserTest(unittest.TestCase):
    def test_ucx_perftest_final_line(self):
        import ucx_perftest
        f = ucx_perftest.parse_final(UCX_OUTPUT)
        self.assertEqual(f["iterations"], 2000)
        self.assertAlmostEqual(f["lat_p50"], 0.531)
        self.assertAlmostEqual(f["bw_avg"], 0.39)
        self.assertIsNone(ucx_perftest.parse_final("no final line"))

    def test_netpipe_keeps_powers_of_two_and_one_way_time(self):
        import netpipe
        rows = netpipe.to_rows(netpipe.parse_np_out(NP_OUT), "NPtcp", "r")
        self.assertEqual([r["size_bytes"] for r in rows], [1, 8])
        self.assertAlmostEqual(rows[1]["latency_us_p50"], 9.13)
        self.assertAlmostEqual(rows[1]["bandwidth_MBps"], 8 / 9.13e-6 / 1e6)

    def test_osu_two_columns(self):
        import osu
        self.assertEqual(osu.parse_two_columns(OSU_OUT), [(1, 0.38), (8, 0.40)])

    def test_merge_expected_rows_match_brief(self):
        import dask_baseline
        self.assertEqual(dask_baseline.expected_matches(1_000_000, 2, 0.3), 600_000)

    def test_merge_generator_yields_expected_matches(self):
        import dask_baseline
        import pandas as pd
        rows, n = 1000, 3
        build = pd.concat([dask_baseline._build_chunk(i, rows, n, 1) for i in range(n)])
        other = pd.concat([dask_baseline._other_chunk(i, rows, n, 0.3, 1) for i in range(n)])
        self.assertTrue(build["key"].is_unique)
        self.assertEqual(len(build.merge(other, on="key")),
                         dask_baseline.expected_matches(rows, n, 0.3))


def have_dask():
    try:
        import dask.array  # noqa: F401
        import dask.dataframe  # noqa: F401
        return True
    except ImportError:
        return False


@unittest.skipUnless(have_dask(), "python3-distributed (dask) is not installed")
class DaskWorkloadTest(unittest.TestCase):
    """The Dask baseline's new workloads without a cluster: the generators, the checks
    that fill the 'wrong' column, and that groupby really is a hash shuffle."""

    def test_groupby_generator_is_appbench_s(self):
        import dask_baseline
        idx, key, value = dask_baseline._groupby_keys(10, 5, 7, 1 << 32)
        for i, g in enumerate(range(10, 15)):
            self.assertEqual(key[i], ((g * 2654435761) % 7) * ((1 << 32) // 7))
            self.assertEqual(value[i], g % 1000)
            self.assertEqual(idx[i], (g * 2654435761) % 7)
        part = dask_baseline._groupby_part(1, 5, 7, 1 << 32)  # worker 1: rows 5..9
        self.assertEqual(list(part["value"]), [5, 6, 7, 8, 9])
        self.assertEqual(str(part["key"].dtype), "int64")

    def test_groupby_check_is_exact_and_catches_errors(self):
        import dask_baseline
        import pandas as pd
        rows, parts, groups = 1000, 3, 50
        table = pd.concat([dask_baseline._groupby_part(w, rows, groups, 1 << 32)
                           for w in range(parts)])
        result = table.groupby("key").agg({"value": ["sum", "count", "mean"]})
        want = dask_baseline.groupby_expected(rows, parts, groups, 1 << 32)
        self.assertEqual(len(want[0]), groups)
        self.assertEqual(int(want[2].sum()), rows * parts)
        self.assertEqual(dask_baseline.groupby_wrong(result, want), 0)
        bad = result.copy()
        bad.iloc[3, 0] += 1           # one sum off by one
        self.assertEqual(dask_baseline.groupby_wrong(bad, want), 1)
        self.assertEqual(dask_baseline.groupby_wrong(result.iloc[1:], want), 1)  # missing
        split = pd.concat([result, result.iloc[:2]])  # two groups in two partitions
        self.assertEqual(dask_baseline.groupby_wrong(split, want), 2)

    def test_groupby_graph_is_a_hash_shuffle_not_a_tree_reduction(self):
        import dask.dataframe as dd
        import dask_baseline
        ddf = dd.from_pandas(dask_baseline._groupby_part(0, 400, 20, 1 << 32), npartitions=2)
        spec = {"value": ["sum", "count", "mean"]}
        g = ddf.groupby("key", sort=False)
        shuffled = g.agg(spec, split_out=2, shuffle="tasks")
        self.assertTrue(dask_baseline.shuffle_layers(shuffled), list(shuffled.dask.layers))
        self.assertEqual(shuffled.npartitions, 2)
        tree = g.agg(spec, split_out=1)
        self.assertEqual(dask_baseline.shuffle_layers(tree), [])
        want = dask_baseline.groupby_expected(200, 2, 20, 1 << 32)
        self.assertEqual(dask_baseline.groupby_wrong(shuffled.compute(scheduler="sync"),
                                                     want), 0)

    def test_sort_check(self):
        import dask.dataframe as dd
        import dask_baseline
        import pandas as pd
        parts = [dask_baseline._sort_part(i, 500, 1) for i in range(3)]
        ddf = dd.from_pandas(pd.concat(parts, ignore_index=True), npartitions=3)
        out = ddf.set_index("key", shuffle="tasks")
        summary = pd.concat([dask_baseline._sort_summary(d.compute(scheduler="sync"))
                             for d in out.to_delayed()], ignore_index=True)
        self.assertEqual(dask_baseline.sort_wrong(summary, 1500), 0)
        self.assertEqual(dask_baseline.sort_wrong(summary, 1501), 2)  # count and checksum
        unsorted = pd.concat([dask_baseline._sort_summary(p.set_index("key")) for p in parts],
                             ignore_index=True)
        self.assertGreater(dask_baseline.sort_wrong(unsorted, 1500), 100)
        swapped = summary.iloc[::-1].reset_index(drop=True)  # partitions out of order
        self.assertGreater(dask_baseline.sort_wrong(swapped, 1500), 0)

    def test_matmul_check(self):
        import dask
        import dask.array as da
        import dask_baseline
        with dask.config.set(scheduler="sync"):
            x = da.random.random((64, 64), chunks=(16, 16)).persist()
            y = x.dot(x.T)
            self.assertEqual(dask_baseline.matmul_wrong(x, y, 64, 0), 0)
            # the diagonal entry checked (y[i, i], both ways) is always caught
            self.assertGreaterEqual(dask_baseline.matmul_wrong(x, y + da.eye(64, chunks=16),
                                                               64, 0), 2)

    def test_profiles_match_the_study_matrix(self):
        import dask_baseline
        for name, prof in dask_baseline.PROFILES.items():
            m = matrix.PROFILES[name]
            self.assertEqual(prof["ts"], (m["transpose_sum"]["n"], m["transpose_sum"]["chunk"]))
            self.assertEqual(prof["mm"], (m["matmul"]["n"], m["matmul"]["chunk"]))
            for app, key in (("merge", "rows"), ("groupby", "groupby"), ("sort", "sort")):
                self.assertEqual(prof[key], m[app]["rows_per_chunk"], (name, app))
            self.assertEqual(prof["groups"], m["groupby"]["groups"], name)
        self.assertEqual(dask_baseline.WORKLOADS, matrix.APPS)


class SizesAndLaunchTest(unittest.TestCase):
    def test_sizes(self):
        self.assertEqual(sizes.fmt_size(4096), "4K")
        self.assertEqual(sizes.fmt_size(3), "3")
        self.assertEqual(sizes.parse_size("128M"), 128 << 20)
        self.assertEqual(sizes.band(4096), "1B-4KiB")
        self.assertEqual(sizes.band(8192), "8KiB-512KiB")
        self.assertEqual(sizes.band(1 << 20), ">=1MiB")

    def test_hostfile_conversion(self):
        with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
            f.write("# nodes\nn1 slots=4\nn2:2\nn3\n")
        try:
            mp = read(launch.hostfile_for("mpich", f.name)).split()
            om = read(launch.hostfile_for("openmpi", f.name)).splitlines()
        finally:
            os.remove(f.name)
        self.assertEqual(mp, ["n1:4", "n2:2", "n3"])
        self.assertEqual(om, ["n1 slots=4", "n2 slots=2", "n3"])

    def test_mpirun_prefix_one_rank_per_node(self):
        cmd = launch.mpirun_prefix("openmpi", 2, None, 1)
        self.assertEqual(cmd[:2], ["mpirun.openmpi", "--oversubscribe"])
        self.assertIn("ppr:1:node", cmd)
        self.assertEqual(launch.mpirun_prefix("mpich", 4)[-2:], ["-np", "4"])

    def test_mpirun_prefix_steers_the_launcher_to_an_interface(self):
        om = launch.mpirun_prefix("openmpi", 2, None, 1, interface="ib0")
        self.assertIn(["--mca", "btl_tcp_if_include", "ib0"], _windows(om, 3))
        self.assertIn(["--mca", "oob_tcp_if_include", "ib0"], _windows(om, 3))
        self.assertEqual(om[-2:], ["-np", "2"])
        mp = launch.mpirun_prefix("mpich", 2, interface="ib0")
        self.assertIn(["-iface", "ib0"], _windows(mp, 2))
        # None, or an IP (which names no interface on the other hosts): nothing added.
        for iface in (None, "10.0.0.1"):
            self.assertEqual(launch.mpirun_prefix("openmpi", 2, interface=iface),
                             launch.mpirun_prefix("openmpi", 2))
            self.assertEqual(launch.mpirun_prefix("mpich", 2, interface=iface),
                             launch.mpirun_prefix("mpich", 2))

    def test_matrix_passes_the_interface_to_binary_and_launcher(self):
        opts = {"options": [{"name": n, "aliases": [], "default": None, "takes_value": True,
                             "description": ""} for n in ("--backend", "--progress", "--layout",
                                                          "--runs", "--csv", "--interface")],
                "layouts": ["compact"], "sizes": {}}
        cmd = matrix.app_command("mpich", "/nonexistent/merge", opts, "tcp", None, "compact", 1,
                                 [], 1, "x.csv", interface="eth1")
        self.assertIn(["-iface", "eth1"], _windows(cmd, 2))
        self.assertIn(["--interface", "eth1"], _windows(cmd, 2))

    def test_matrix_groups_policies_with_raw_baseline(self):
        def b(name, pols, raw=None, default=None):
            return {"name": name, "kind": "raw" if name.startswith("raw-") else "coroutine",
                    "policies": [{"name": p, "description": ""} for p in pols],
                    "default_policy": default or (pols[0] if pols else None),
                    "raw_baseline": raw, "options": []}
        fams = matrix.families([b("tcp", ["epoll"], "raw-tcp"), b("raw-tcp", ["blocking"]),
                                b("mpi", ["cooperative", "batched"], "raw-mpi", "batched"),
                                b("raw-mpi", ["blocking"]),
                                b("ucx", ["event", "polling", "cooperative"], None)])
        self.assertEqual(matrix.family_backend_list("mpi", fams["mpi"]),
                         ["mpi:cooperative", "mpi:batched", "raw-mpi"])
        self.assertEqual(fams["mpi"]["default"], "batched")
        self.assertEqual(matrix.compare_backend_list(fams),
                         ["mpi:cooperative", "tcp:epoll", "ucx:polling", "ucx:cooperative",
                          "raw-mpi", "raw-tcp"])


def synthetic_rows():
    rows = []
    for run, scale in (("r1", 1.0), ("r2", 3.0)):  # two VM modes: absolute x3, ratios equal
        for s in (1, 64, 4096, 65536):
            rows.append(row(benchmark="pingpong", origin="suite", backend="tcp", progress="epoll",
                            mpi="openmpi", size_bytes=s, latency_us_p50=2.0 * scale,
                            run_id=run))
            rows.append(row(benchmark="pingpong", origin="suite", backend="raw-tcp",
                            progress="blocking", mpi="openmpi", size_bytes=s,
                            latency_us_p50=4.0 * scale, run_id=run))
            rows.append(row(benchmark="pingpong", origin="suite", backend="mpi",
                            progress="cooperative", mpi="openmpi", size_bytes=s,
                            latency_us_p50=0.5 * scale, run_id=run))
    for s in (1 << 20, 4 << 20):
        for b, bw in (("tcp", 2000.0), ("raw-tcp", 1800.0), ("mpi", 9000.0)):
            rows.append(row(benchmark="bandwidth", origin="suite", backend=b,
                            progress="cooperative" if b == "mpi" else "epoll", mpi="openmpi",
                            size_bytes=s, bandwidth_MBps=bw, run_id="r3"))
    for w in (1, 2):
        for run in range(3):
            for b, wall in (("tcp", 2.0), ("mpi", 1.0)):
                rows.append(row(benchmark="transpose_sum", origin="suite", backend=b,
                                progress="cooperative" if b == "mpi" else "epoll",
                                mpi="openmpi", layout="compact", workers=w, run=run,
                                wall_s=wall, comm_s=wall / 2, throughput_MBps=100 / wall,
                                run_id="a%d" % w))
            rows.append(row(benchmark="transpose_sum", origin="external", backend="dask-tcp",
                            progress="asyncio", layout="dask", workers=w, run=run, wall_s=4.0,
                            comm_s=1.0, run_id="d"))
    return rows


class IdleRuleSeriesTest(unittest.TestCase):
    """An entry's @idle rule (CSV column `idle`) makes its own series, as a chosen wire does;
    an empty cell (the run's --idle-spin) keeps the plain policy name of older results."""

    def test_label(self):
        row = {"origin": "suite", "backend": "ucx", "progress": "polling", "wire": "",
               "idle": "spin", "mpi": "openmpi"}
        self.assertEqual(select.progress_label(row), "polling@spin")
        self.assertEqual(select.progress_label(dict(row, idle="")), "polling")
        self.assertEqual(select.progress_label(dict(row, wire="per-frame")),
                         "polling,wire=per-frame@spin")
        self.assertNotEqual(select.series_key(row), select.series_key(dict(row, idle="block")))
        self.assertIn("idle", schema.columns())

    def test_the_ablation_runs_each_family_s_paper_policy_under_every_rule(self):
        listing = [
            {"name": "mpi", "kind": "coroutine", "default_policy": "batched",
             "raw_baseline": "raw-mpi",
             "policies": [{"name": "batched"}, {"name": "cooperative"}]},
            {"name": "ucx", "kind": "coroutine", "default_policy": "cooperative",
             "raw_baseline": "raw-ucx",
             "policies": [{"name": "cooperative"}, {"name": "polling"}, {"name": "event"}]},
            {"name": "raw-mpi", "kind": "raw", "policies": [{"name": "blocking"}]},
            {"name": "raw-ucx", "kind": "raw", "policies": [{"name": "polling"}]},
        ]
        self.assertEqual(matrix.idle_rule_groups(matrix.families(listing)), [])
        for b in listing:
            if b["kind"] == "coroutine":
                b["idle_rules"] = ["spin", "budget", "block"]
        self.assertEqual(matrix.idle_rule_groups(matrix.families(listing)), [
            ("mpi", ["mpi:cooperative@spin", "mpi:cooperative@budget", "mpi:cooperative@block",
                     "raw-mpi"]),
            ("ucx", ["ucx:polling@spin", "ucx:polling@budget", "ucx:polling@block",
                     "ucx:event@block", "raw-ucx"])])
        # the micro claims' roles under the paper's rules, for the compare run
        self.assertEqual(matrix.paper_role_entries(matrix.families(listing)),
                         ["mpi:cooperative@spin", "ucx:polling@spin"])
        for b in listing:
            if b["name"] == "ucx":
                b["idle_rules"] = ["budget", "block"]  # no spin: no paper-rule entry
        self.assertEqual(matrix.paper_role_entries(matrix.families(listing)),
                         ["mpi:cooperative@spin"])


class ProgressTest(unittest.TestCase):
    """reproduce's per-run line: [k/n] name (elapsed, ~remaining), the remaining time from
    the expected cost of the runs left against that of the runs done."""

    def test_remaining_time_scales_with_the_weight_left(self):
        import io
        p = launch.Progress(total_weight=4.0, total_runs=3, out=io.StringIO())
        p.start = 1000.0
        p.begin("pingpong openmpi")
        self.assertEqual(p.line("pingpong openmpi", now=1000.0),
                         "[1/3] pingpong openmpi (elapsed 0:00, time left unknown until a run ends)")
        p.end(1.0)
        p.begin("merge openmpi")
        # one unit of weight took 60 s; three units are left: ~3 min
        self.assertEqual(p.line("merge openmpi", now=1060.0),
                         "[2/3] merge openmpi (elapsed 1:00, ~3:00 left)")
        self.assertIn("[2/3] merge openmpi (elapsed", p.out.getvalue())


class CompareTest(unittest.TestCase):
    def test_overhead_is_taken_within_a_run(self):
        ratios = select.overhead_ratios(synthetic_rows())
        self.assertEqual(set(ratios), {("tcp", "epoll", "openmpi")})
        for v in ratios[("tcp", "epoll", "openmpi")].values():
            self.assertAlmostEqual(v, 0.5)

    def test_speedups(self):
        rows = synthetic_rows()
        g, how, n = compare.micro_speedup(rows, "mpi", "tcp", "latency", "1B-4KiB", "openmpi")
        self.assertAlmostEqual(g, 4.0)
        self.assertEqual((how, n), ("interleaved", 3))
        g, _, _ = compare.micro_speedup(rows, "mpi", "tcp", "bandwidth", ">=1MiB", "openmpi")
        self.assertAlmostEqual(g, 4.5)
        g, n = compare.app_speedup(rows, "mpi", "tcp", "transpose_sum", "wall_s", "openmpi")
        self.assertAlmostEqual(g, 2.0)
        self.assertEqual(n, 2)
        g, n = compare.app_speedup(rows, "mpi", "dask-tcp", "transpose_sum", "wall_s", "openmpi")
        self.assertAlmostEqual(g, 4.0)
        self.assertEqual(compare.micro_speedup(rows, "mpi", "ucx", "latency", "1B-4KiB",
                                               "openmpi")[0], None)


class OursVsDaskTest(unittest.TestCase):
    def test_fastest_series_at_two_workers_against_dask(self):
        rows = synthetic_rows()
        rows.append(row(benchmark="transpose_sum", origin="suite", backend="ucx",
                        progress="polling", mpi="mpich", layout="compact", workers=2, run=0,
                        wall_s=0.5, run_id="u"))
        rows.append(row(benchmark="transpose_sum", origin="suite", backend="mpi",
                        progress="cooperative", mpi="openmpi", layout="dask", workers=2, run=0,
                        wall_s=0.1, run_id="other-layout"))
        c = compare.ours_vs_dask(rows, "transpose_sum")
        self.assertEqual(c["series"], ("ucx", "polling", "mpich"))
        self.assertAlmostEqual(c["ours"], 0.5)
        self.assertAlmostEqual(c["dask"], 4.0)
        self.assertAlmostEqual(c["ratio"], 8.0)
        self.assertEqual(c["wrong"], 0)
        c = compare.ours_vs_dask(rows, "transpose_sum", workers=1)
        self.assertEqual(c["series"], ("mpi", "cooperative", "openmpi"))
        self.assertAlmostEqual(c["ratio"], 4.0)
        none = compare.ours_vs_dask(rows, "groupby")
        self.assertEqual((none["ours"], none["dask"], none["ratio"]), (None, None, None))

    def test_failed_checks_are_counted(self):
        rows = [row(benchmark="sort", origin=o, backend=b, progress=p, mpi=m,
                    layout=lay, workers=2, run=0, wall_s=w, wrong=wr, run_id=o)
                for o, b, p, m, lay, w, wr in (
                    ("suite", "tcp", "epoll", "openmpi", "compact", 1.0, 3),
                    ("external", "dask-tcp", "asyncio", "", "dask", 2.0, 0))]
        c = compare.ours_vs_dask(rows, "sort")
        self.assertEqual((c["ratio"], c["wrong"]), (2.0, 1))


class FiguresAndReportTest(unittest.TestCase):
    def test_plot_and_report_from_csv_alone(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "csv"))
            schema.write_csv(os.path.join(d, "csv", "x.csv"), synthetic_rows())
            for tool in ("plot", "report"):
                p = subprocess.run([sys.executable, os.path.join(SCRIPTS, tool), d],
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
            # figures/index.json lists every figure (PNG + PDF); test_plot.py checks the rest
            index = json.loads(read(os.path.join(d, "figures", "index.json")))
            figs = [e["file"] for e in index]
            for name in ("latency_small.png", "latency_medium.png", "bandwidth.png",
                         "overhead.png", "transpose_sum.png"):
                self.assertIn(name, figs)
            self.assertNotIn("merge.png", figs)  # no merge rows: no empty figure
            for e in index:
                self.assertEqual(read(os.path.join(d, "figures", e["file"]), "rb")[:8],
                                 b"\x89PNG\r\n\x1a\n")
                self.assertEqual(read(os.path.join(d, "figures", e["pdf"]), "rb")[:5], b"%PDF-")
            self.assertIn("scaling_transpose_sum.png", figs)
            md = read(os.path.join(d, "report.md"))
            self.assertIn("| mpi:cooperative vs tcp:epoll | latency 1B-4KiB | 4.00x", md)
            # ours against Dask: one row per workload, 2 workers, compact layout
            self.assertIn("## Appendix G: ours against Dask", md)
            self.assertIn("| transpose_sum | strong | 1.00 s | mpi:cooperative (openmpi) | "
                          "4.00 s | 4.00x |", md)
            self.assertIn("| groupby | weak | – | – | – | – |", md)
            self.assertIn("Not measured in this study: merge, groupby, sort, matmul", md)
            # the scaling figures, referenced; no sidecars: oversubscription unknown
            self.assertIn("## Appendix H: scaling with workers", md)
            self.assertIn("(figures/scaling_transpose_sum.png)", md)
            self.assertIn("do not say whether these runs were oversubscribed", md)
            # the newer apps add no empty rows to the speedup table
            self.assertNotIn("| sort execution time |", md)
            self.assertIn("| tcp:epoll | openmpi | 0.50x |", md)
            page = read(os.path.join(d, "report.html"))
            self.assertIn("data:image/png;base64,", page)
            self.assertIn("<figcaption>", page)  # an image alone in its paragraph is a figure
            self.assertIn("<table>", page)


class StudyPlaceTest(unittest.TestCase):
    def test_study_scripts_live_in_scripts_studies(self):
        """results/ holds data; a study's commands and summarizers are in scripts/studies/
        (one place to look for how a committed number was made)."""
        results = os.path.join(os.path.dirname(SCRIPTS), "results")
        scripts = [os.path.relpath(os.path.join(d, f), results)
                   for d, _, fs in os.walk(results) for f in fs
                   if f.endswith((".py", ".sh", ".c", ".cpp"))]
        self.assertEqual(scripts, [], "move these to scripts/studies/<study>/")


if __name__ == "__main__":
    unittest.main()
