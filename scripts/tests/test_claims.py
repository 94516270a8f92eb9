"""The claims table (cbresults/claims.py, issue 26 items 1-3 and 5): paired samples, a 95 %
interval, one of five verdicts decided by a stated rule, oversubscribed points left out,
rows that repeat another row's number said to, and the one-page answer of the report on a
committed study. Synthetic rows, plus results/vm-2026-11-26. No binaries."""

import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import ablation, claims, paired, schema, summary  # noqa: E402
from scriptload import load_script  # noqa: E402 (this folder)

STUDY = os.path.join(ROOT, "results", "vm-2026-11-26")
# The main reproduction retaken at wave 3's end (issue 26 item 8), which README points at:
# the last run of results/stability-2026-11-30.
LATEST = os.path.join(ROOT, "results", "vm-2026-11-30")
C = claims


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(kw)
    return r


def claim(cid):
    return C.BY_ID[cid]


def micro_rows(ratios, mpi="openmpi"):
    """One cross-family ping-pong invocation per ratio: ucx:polling `ratio` times slower
    than mpi:cooperative at every size; ucx:cooperative halfway; raw-ucx 0.8 of raw-mpi."""
    rows = []
    for i, k in enumerate(ratios):
        scale = 1.0 + 0.5 * (i % 3)  # the machine moves absolute numbers between invocations
        for s in (1, 64, 4096):
            for (b, p), v in {("mpi", "cooperative"): 1.0, ("ucx", "polling"): k,
                              ("ucx", "cooperative"): (1.0 + k) / 2, ("raw-mpi", "blocking"): 0.8,
                              ("raw-ucx", "polling"): 0.64}.items():
                rows.append(row(benchmark="pingpong", origin="suite", backend=b, progress=p,
                                mpi=mpi, size_bytes=s, latency_us_p50=v * scale,
                                run_id="cmp%d-%s" % (i, mpi),
                                _file="pingpong-compare-r%d-%s.csv" % (i + 1, mpi)))
    return rows


def app_rows(bench, walls_by_w, rounds, mpi="openmpi", drift=True):
    """Rounds of one application: walls_by_w = {workers: {(backend, policy): wall}}; round
    k multiplies every wall of that round by the same factor (the machine's drift), so
    only a within-round ratio is stable. File names carry the round, as reproduce writes
    them."""
    rows = []
    for k in range(1, rounds + 1):
        f = (1.0 + 0.6 * (k % 2)) if drift else 1.0
        for w, walls in walls_by_w.items():
            for (b, p), wall in walls.items():
                name = "%s-%s-%s-compact-w%d-r%02d-%s.csv" % (bench, b, p, w, k, mpi)
                rows.append(row(benchmark=bench, origin="suite", backend=b, progress=p, mpi=mpi,
                                layout="compact", ranks=w + 1, workers=w, run=0,
                                wall_s=wall * f * (1 + 0.01 * ((k * 7) % 5)),
                                comm_s=0.0 if w == 1 else wall * f / 3,
                                rows_per_s=1e6 / (wall * f), run_id="%s-r%d" % (name, k),
                                _file=name))
    return rows


def sidecars_for(rows, cpus):
    out = {}
    for r in rows:
        if r.get("ranks"):
            out[r["run_id"]] = {"run_id": r["run_id"], "cpus_online": cpus, "machine": {
                "cpus_online": cpus, "ranks_on_node": int(r["ranks"]),
                "oversubscribed": r["ranks"] > cpus}}
    return list(out.values())


ROLES = {"mpi": ("mpi", "cooperative"), "ucx": ("ucx", "polling"),
         "ucxc": ("ucx", "cooperative"), "tcp": ("tcp", "epoll")}


def walls(mpi=1.0, ucx=1.5, ucxc=1.2, tcp=2.0):
    return {ROLES["mpi"]: mpi, ROLES["ucx"]: ucx, ROLES["ucxc"]: ucxc, ROLES["tcp"]: tcp}


class DecideTest(unittest.TestCase):
    """The rule, one verdict at a time."""

    def test_each_verdict(self):
        self.assertEqual(C.decide(4.0, (3.5, 4.5), 10, 5.0)[0], C.REPRODUCED)
        self.assertEqual(C.decide(1.8, (1.6, 2.0), 10, 5.0)[0], C.NOT_REPRODUCED)
        self.assertEqual(C.decide(0.8, (0.7, 0.9), 10, 5.0)[0], C.OPPOSITE)
        self.assertEqual(C.decide(1.1, (0.9, 1.3), 10, 5.0)[0], C.NO_DIFFERENCE)
        v, why = C.decide(1.2, (1.1, 1.3), 10, 5.0, null=(0.9, 1.4))
        self.assertEqual(v, C.NO_DIFFERENCE)
        self.assertIn("null spread", why)
        # the null's spread does not swallow an interval that reaches past it
        self.assertEqual(C.decide(1.3, (1.1, 1.5), 10, 5.0, null=(0.9, 1.4))[0],
                         C.NOT_REPRODUCED)
        self.assertEqual(C.decide(None, None, 0, 5.0)[0], C.NOT_TESTABLE)

    def test_too_few_samples_decide_at_most_no_difference(self):
        v, why = C.decide(0.5, (0.45, 0.55), 4, 5.0, unit="interleaved invocations")
        self.assertEqual(v, C.NO_DIFFERENCE)
        self.assertEqual(why, "4 interleaved invocations; a verdict needs >= 5")
        self.assertEqual(C.decide(9.0, None, 1, 5.0, unit="rounds")[1],
                         "1 round; a verdict needs >= 5")

    def test_reproduced_means_within_the_factor_of_the_papers_lower_end(self):
        low = 3.0
        self.assertEqual(C.decide(low / C.REPRODUCED_WITHIN, (1.9, 2.1), 10, low)[0],
                         C.REPRODUCED)
        self.assertEqual(C.decide(low / C.REPRODUCED_WITHIN * 0.99, (1.9, 2.1), 10, low)[0],
                         C.NOT_REPRODUCED)


class MicroClaimTest(unittest.TestCase):
    def evaluate(self, rows, cid="5a"):
        ctx = C.Context(rows)
        return C.evaluate(ctx, claim(cid), "openmpi")

    def test_one_invocation_is_not_enough(self):
        r = self.evaluate(micro_rows([1.8]))
        self.assertAlmostEqual(r["median"], 1.8)
        self.assertIsNone(r["ci"])
        self.assertEqual(r["verdict"], C.NO_DIFFERENCE)
        self.assertEqual(r["why"], "1 interleaved invocation; a verdict needs >= 5")

    def test_five_interleaved_invocations_decide(self):
        r = self.evaluate(micro_rows([0.78, 0.80, 0.82, 0.79, 0.81]))
        self.assertEqual((r["n"], r["verdict"]), (5, C.OPPOSITE))
        lo, hi = r["ci"]
        self.assertTrue(0.78 <= lo <= r["median"] <= hi <= 0.82)
        r = self.evaluate(micro_rows([1.9, 2.0, 2.1, 2.0, 1.95, 2.05]))
        self.assertEqual(r["verdict"], C.NOT_REPRODUCED)
        r = self.evaluate(micro_rows([4.0, 4.1, 3.9, 4.2, 4.0]))
        self.assertEqual(r["verdict"], C.REPRODUCED)
        r = self.evaluate(micro_rows([0.9, 1.1, 1.05, 0.95, 1.0]))
        self.assertEqual(r["verdict"], C.NO_DIFFERENCE)
        self.assertIn("includes 1.0", r["why"])

    def test_micro_roles_run_under_the_papers_idle_rules_where_the_run_has_them(self):
        # the compare run carries mpi:cooperative@spin and ucx:polling@spin besides the
        # plain entries: the claim takes those (here 3x), not the suite-default ones (1.5x)
        rows = micro_rows([1.5] * 5)
        for r in list(rows):
            if (r["backend"], r["progress"]) in (("mpi", "cooperative"), ("ucx", "polling")):
                k = 3.0 if r["backend"] == "ucx" else 1.0
                rows.append(dict(r, idle="spin", latency_us_p50=r["latency_us_p50"] * k / (
                    1.5 if r["backend"] == "ucx" else 1.0)))
        r = self.evaluate(rows)
        self.assertAlmostEqual(r["median"], 3.0)
        self.assertEqual(r["idle"],
                         "the paper's, mpi:cooperative@spin and ucx:polling@spin")
        # a run without them: the plain series, and the table says it ran the default
        r = self.evaluate(micro_rows([1.5] * 5))
        self.assertAlmostEqual(r["median"], 1.5)
        self.assertEqual(r["idle"], C.DEFAULT_IDLE)
        detail = C.detail_table([(claim("5a"), {"openmpi": r})], ["openmpi"])
        self.assertIn("3 sizes; idle budget, the suite's default", detail)

    def test_the_account_is_the_ablation_split(self):
        rows = micro_rows([1.8])
        f = ablation.factors(rows, "openmpi", "latency", bandname="1B-4KiB")
        self.assertAlmostEqual(f["progress"], 1.8 / 1.4)
        self.assertAlmostEqual(f["transport"], 0.8)
        self.assertAlmostEqual(f["total"], f["progress"] * f["transport"] * f["layer"])
        r = self.evaluate(rows)
        text = C.account_text([r["account"]])
        # largest first: what remains after progress and transport is 1.8 / (1.29 * 0.8)
        self.assertEqual(text, "layers 1.75x; progress 1.29x; transport 0.80x")
        self.assertLessEqual(len(text.split()), C.MAX_ACCOUNT_WORDS)


class AppClaimTest(unittest.TestCase):
    def test_ratios_are_paired_within_rounds(self):
        # every round moves all walls by the same factor (1.0 or 1.6): the paired ratio
        # stays 1.5, so the interval is tight, though the walls themselves span 1.6x
        rows = app_rows("merge", {2: walls(ucx=1.5)}, rounds=10)
        per_w = paired.app_pairs(rows, "merge", ROLES["mpi"], ROLES["ucx"], "wall_s", "openmpi")
        self.assertEqual(per_w[2]["rounds"], list(range(1, 11)))
        self.assertTrue(per_w[2]["paired"])
        for v in per_w[2]["ratios"]:
            self.assertAlmostEqual(v, 1.5)
        r = C.evaluate(C.Context(rows), claim("8a"), "openmpi")
        self.assertAlmostEqual(r["median"], 1.5)
        self.assertAlmostEqual(r["ci"][0], 1.5)
        self.assertEqual((r["n"], r["unit"], r["where"]), (10, "rounds", "2 workers"))
        self.assertEqual(r["verdict"], C.NOT_REPRODUCED)  # 1.5 < 3.11 / 1.5

    def test_one_worker_is_the_null_never_a_sample(self):
        rows = app_rows("merge", {1: walls(ucx=1.2), 2: walls(ucx=3.0)}, rounds=10)
        r = C.evaluate(C.Context(rows), claim("8a"), "openmpi")
        self.assertAlmostEqual(r["median"], 3.0)  # not the geometric mean with 1.2
        self.assertAlmostEqual(r["null"]["median"], 1.2)
        self.assertEqual(r["verdict"], C.REPRODUCED)
        only_null = app_rows("merge", {1: walls()}, rounds=10)
        r = C.evaluate(C.Context(only_null), claim("8a"), "openmpi")
        self.assertEqual(r["verdict"], C.NOT_TESTABLE)
        self.assertIn("nothing moves", r["why"])

    def test_an_interval_inside_the_null_spread_is_no_difference(self):
        rows = []
        for k, (null, moving) in enumerate([(0.8, 1.20), (1.5, 1.22), (1.0, 1.18), (1.3, 1.21),
                                            (0.9, 1.19), (1.4, 1.20)], start=1):
            rows += [r for r in app_rows("merge", {1: walls(ucx=null), 2: walls(ucx=moving)},
                                         rounds=1, drift=False)]
            for r in rows[-8:]:
                r["_file"] = r["_file"].replace("-r01-", "-r%02d-" % k)
        r = C.evaluate(C.Context(rows), claim("8a"), "openmpi")
        self.assertEqual(r["n"], 6)
        self.assertEqual(r["verdict"], C.NO_DIFFERENCE)
        self.assertIn("null spread 0.80-1.50x", r["why"])

    def test_oversubscribed_points_are_left_out(self):
        """Fails on the old claims table: it averaged these points and said "reproduced"."""
        rows = app_rows("merge", {1: walls(), 2: walls(ucx=4.0), 3: walls(ucx=4.0)}, rounds=10)
        ctx = C.Context(rows, sidecars_for(rows, cpus=2))
        r = C.evaluate(ctx, claim("8a"), "openmpi")
        self.assertEqual(r["verdict"], C.NOT_TESTABLE)
        self.assertIn("oversubscribed", r["why"])
        self.assertIsNone(r["median"])
        self.assertEqual([l["workers"] for l in r["left_out"]], [2, 3])
        self.assertAlmostEqual(r["left_out"][0]["median"], 4.0)
        self.assertIn("not judged: 4.00x at 2 workers, n=10", C.ours_cell(r, short=True))
        # 3 CPUs: 2 workers (3 ranks) count, 3 workers (4 ranks) stay out
        ctx = C.Context(rows, sidecars_for(rows, cpus=3))
        r = C.evaluate(ctx, claim("8a"), "openmpi")
        self.assertEqual((r["verdict"], r["where"]), (C.REPRODUCED, "2 workers"))
        self.assertEqual([l["workers"] for l in r["left_out"]], [3])

    def test_a_sign_flip_between_worker_counts_is_not_averaged_away(self):
        rows = app_rows("transpose_sum", {1: walls(), 2: walls(ucx=1.8), 3: walls(ucx=0.6)},
                        rounds=10)
        r = C.evaluate(C.Context(rows, sidecars_for(rows, cpus=8)), claim("7a"), "openmpi")
        self.assertEqual(r["verdict"], C.NO_DIFFERENCE)
        self.assertIn("mixed across workers", r["why"])
        self.assertIn("opposite at 3", r["why"])

    def test_rows_equal_by_construction_say_so(self):
        rows = app_rows("merge", {1: walls(), 2: walls(ucx=4.0)}, rounds=10)
        ev, mpis, _ctx = C.evaluate_all(rows)
        per = {c[4]["id"]: p["openmpi"] for c, p in ev}
        self.assertEqual(per["8c"]["same_as"], "8a")
        self.assertEqual(C.ours_cell(per["8c"]), "= Fig 8a")
        self.assertIn("same number by construction", per["8c"]["why"])
        self.assertEqual(per["S1"]["same_as"], "8a")
        self.assertEqual(per["8a"]["verdict"], C.REPRODUCED)     # 4.0 >= 3.11 / 1.5
        self.assertEqual(per["S1"]["verdict"], C.REPRODUCED)     # 4.0 >= 4.94 / 1.5
        line = [l for l in C.answer_table(ev, mpis).splitlines() if "| Fig 8c " in l][0]
        self.assertIn("| = Fig 8a |", line)
        self.assertIn("| as Fig 8a |", line)
        # counted once
        counts = C.counts(ev, mpis)
        self.assertEqual(sum(counts.values()), len(C.CLAIMS) - 3)

    def test_old_csvs_are_one_unpaired_sample(self):
        rows = app_rows("merge", {2: walls(ucx=4.0)}, rounds=1)
        for r in rows:
            r["_file"] = r["_file"].replace("-r01", "")
        r = C.evaluate(C.Context(rows), claim("8a"), "openmpi")
        self.assertEqual((r["n"], r["unit"], r["verdict"]),
                         (1, "unpaired invocations", C.NO_DIFFERENCE))
        self.assertIn("1 unpaired invocation", r["why"])

    def test_the_split_uses_a_backend_that_ran_outside_the_rounds(self):
        # reproduce runs ucx:cooperative (the split's middle) once per point, not in rounds:
        # its factors are one unpaired sample each, and still account for the claim
        rows = app_rows("merge", {1: {ROLES["mpi"]: 1.0, ROLES["ucx"]: 1.0},
                                  2: {ROLES["mpi"]: 1.0, ROLES["ucx"]: 3.0}}, rounds=10,
                        drift=False)
        rows += [r for r in app_rows("merge", {1: {ROLES["ucxc"]: 1.0}, 2: {ROLES["ucxc"]: 2.0}},
                                     rounds=1, drift=False)]
        for r in rows:
            if r["progress"] == "cooperative" and r["backend"] == "ucx":
                r["_file"] = r["_file"].replace("-r01", "")
        per_w = paired.app_pairs(rows, "merge", ROLES["ucxc"], ROLES["ucx"], "wall_s", "openmpi")
        self.assertEqual((per_w[2]["paired"], len(per_w[2]["ratios"])), (False, 1))
        r = C.evaluate(C.Context(rows), claim("8a"), "openmpi")
        self.assertEqual(r["n"], 10)  # the claim itself stays paired
        self.assertRegex(C.account_text([r["account"]]),
                         r"^transport 2\.0\dx; progress 1\.[45]\dx$")

    def test_against_tcp_the_language_layer_accounts(self):
        rows = app_rows("matmul", {1: walls(), 2: walls(tcp=2.0)}, rounds=10, drift=False)
        rows += [row(benchmark="matmul", origin="external", backend="dask-tcp",
                     progress="asyncio", layout="dask", workers=2, run=0, wall_s=8.0,
                     run_id="dask", _file="external-dask.csv")]
        r = C.evaluate(C.Context(rows), claim("S4"), "openmpi")
        # Dask 8 s against ours ~2 s on tcp:epoll
        self.assertRegex(C.account_text([r["account"]]),
                         r"^language layer 3\.9\dx \(Dask's LocalCluster over our tcp:epoll\)$")

    def test_old_summed_comm_time_is_flagged(self):
        rows = app_rows("merge", {2: walls()}, rounds=10)
        r = C.evaluate(C.Context(rows), claim("8b"), "openmpi")
        self.assertTrue(r["old_comm"])  # no transfer_s column: comm_s is the old sum
        for x in rows:
            x["transfer_s"] = x["comm_s"]
        r = C.evaluate(C.Context(rows), claim("8b"), "openmpi")
        self.assertFalse(r["old_comm"])

    def test_missing_workloads_are_not_testable_and_show_no_number(self):
        ev, mpis, _ = C.evaluate_all(micro_rows([1.0]))
        md = C.answer_table(ev, mpis)
        for source, what, paper, _low, _spec in C.CLAIMS:
            self.assertIn("| %s %s | %s |" % (source, what, paper), md)
        for line in [l for l in md.splitlines() if "matrix multiply" in l]:
            self.assertIn("no matmul runs", line)
            self.assertNotRegex(line.split("|")[3], r"\d+\.\d+x")


class PairedTableTest(unittest.TestCase):
    def test_null_column_and_oversubscribed_marks(self):
        rows = app_rows("merge", {1: walls(ucx=1.1), 2: walls(ucx=2.0)}, rounds=10)
        ctx = C.Context(rows, sidecars_for(rows, cpus=2))
        md = summary.paired_table(ctx, ["openmpi"])
        self.assertIn("| 1 worker (null) | 2 workers |", md)
        line = [l for l in md.splitlines()
                if "| merge | Open MPI | mpi:cooperative / ucx:polling |" in l][0]
        self.assertRegex(line, r"\| 1\.10x \(1\.\d\d-1\.\d\dx, n=10\) \| 2\.00x \(2\.00-2\.00x, "
                               r"n=10\) † \|")


def report_module():
    return load_script("report")


def report_of(study):
    """(tmp, folder, report.md's text): `scripts/report` run on a copy of a committed study's
    CSVs and manifest in a temporary folder (removed with `tmp`)."""
    tmp = tempfile.TemporaryDirectory()
    folder = os.path.join(tmp.name, os.path.basename(study))
    os.makedirs(folder)
    shutil.copytree(os.path.join(study, "csv"), os.path.join(folder, "csv"))
    shutil.copy(os.path.join(study, "manifest.json"), folder)
    # the figures are read, never drawn: link them instead of running scripts/plot
    os.symlink(os.path.join(study, "figures"), os.path.join(folder, "figures"))
    report_module().build_report(folder)
    with open(os.path.join(folder, "report.md")) as f:
        return tmp, folder, f.read()


VERDICT = re.compile(r"\*\*(%s)\*\*" % "|".join(re.escape(v) for v in C.VERDICTS))


@unittest.skipUnless(os.path.isdir(STUDY), "results/vm-2026-11-26 is not in this checkout")
class CommittedStudyReportTest(unittest.TestCase):
    """The report of the committed reproduction: the one-page answer first, <= 40 KB. Fails
    on the old report (96 KB, provenance and a 140-row machine table before the claims,
    ~1,500-character verdict cells)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.dir, cls.md = report_of(STUDY)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def answer_rows(self):
        section = self.md.split("## The answer", 1)[1].split("\n## ", 1)[0]
        return [l for l in section.splitlines() if l.startswith("| Fig") or
                l.startswith("| Frontera") or l.startswith("| SC'22")]

    def test_at_most_40_kb_and_the_answer_comes_first(self):
        self.assertLessEqual(len(self.md.encode()), 40 * 1024)
        lines = [l for l in self.md.splitlines() if l.strip()]
        self.assertTrue(lines[0].startswith("# commbench report"))
        self.assertEqual(lines[1], "## The answer")
        first_table = next(l for l in lines if l.startswith("|"))
        self.assertTrue(first_table.startswith("| claim | paper | ours, Open MPI | ours, MPICH |"))
        self.assertLess(self.md.index("## The answer"), self.md.index("## Appendix A"))
        self.assertLess(self.md.index("## Appendix A"), self.md.index("machine state"))

    def test_every_claim_has_one_of_five_verdicts_in_short_cells(self):
        rows = self.answer_rows()
        self.assertEqual(len(rows), len(C.CLAIMS))
        for line in rows:
            cells = [c.strip() for c in line.strip("|").split("|")]
            verdicts = cells[4:6]
            self.assertTrue(VERDICT.search(verdicts[0]), line)
            for v in verdicts:
                self.assertLessEqual(len(v), C.MAX_WHY, v)
                self.assertTrue(VERDICT.search(v) or v == "= Open MPI", v)
            self.assertLessEqual(len(cells[6].split()), C.MAX_ACCOUNT_WORDS, cells[6])

    def test_what_the_committed_data_supports(self):
        rows = {l.split("|")[1].strip(): l for l in self.answer_rows()}
        # one cross-family invocation per MPI: no verdict beyond "no measurable difference"
        self.assertIn("1 interleaved invocation; a verdict needs >= 5",
                      rows["Fig 5a small-message latency, 1 B-4 KiB"])
        # every application point with data moving ran 3-4 ranks on 2 CPUs
        self.assertIn("**not testable here**: data moves only at oversubscribed points",
                      rows["Fig 7a transpose-sum execution time"])
        self.assertIn("= Fig 7b", rows[
            "Fig 7c transpose-sum throughput (bytes moved / communication time)"])
        self.assertIn("= Fig 8a", rows["Fig 8c merge throughput (joined rows / execution time)"])
        # the wrong template of the old table: UCX's shared memory for a factor between hosts
        self.assertNotIn("shared-memory path", self.md)
        self.assertIn("comm_s is the old summed transfer time", self.md)

    def test_the_machine_table_is_beside_the_report(self):
        with open(os.path.join(self.dir, "machine-state.md")) as f:
            table = f.read()
        self.assertEqual(table.count("\n| "), 1 + 146)  # the header, one row per run
        self.assertIn("[`machine-state.md`](machine-state.md)", self.md)


@unittest.skipUnless(os.path.isdir(LATEST), "results/vm-2026-11-30 is not in this checkout")
class LatestStudyTest(unittest.TestCase):
    """The retaken main reproduction (issue 26, "Done when"): every application row has
    comm_s <= wall_s, the report opens with the answer within 40 KB with one of the five
    verdicts per claim, and Appendix E has the distance to the machine with both floors."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.dir, cls.md = report_of(LATEST)
        cls.rows = schema.read_many(sorted(
            os.path.join(LATEST, "csv", n) for n in os.listdir(os.path.join(LATEST, "csv"))
            if n.endswith(".csv")))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_communication_time_never_exceeds_wall_time(self):
        app = [r for r in self.rows if r.get("wall_s") is not None and r.get("comm_s") is not None
               and r["origin"] == "suite"]
        self.assertTrue(app)
        over = [r for r in app if r["comm_s"] > r["wall_s"] * (1 + 1e-9)]
        self.assertEqual(over, [])

    def test_the_answer_first_within_40_kb_with_a_verdict_per_claim(self):
        self.assertLessEqual(len(self.md.encode()), 40 * 1024)
        lines = [l for l in self.md.splitlines() if l.strip()]
        self.assertEqual(lines[1], "## The answer")
        section = self.md.split("## The answer", 1)[1].split("\n## ", 1)[0]
        rows = [l for l in section.splitlines() if l.startswith("| Fig") or
                l.startswith("| Frontera") or l.startswith("| SC'22")]
        self.assertEqual(len(rows), len(C.CLAIMS))
        for line in rows:
            self.assertTrue(VERDICT.search(line), line)

    def test_each_claim_quotes_its_spread_across_the_stability_runs(self):
        """Issue 26 item 4: beside each claim, the range over the five back-to-back
        reproductions and how many reached the row's verdict (results/stability-*)."""
        section = self.md.split("## The answer", 1)[1].split("\n## ", 1)[0]
        lines = section.splitlines()
        head = next(l for l in lines if l.startswith("| claim | paper"))
        self.assertTrue(head.endswith("| across 5 runs (Open MPI / MPICH) |"), head)
        part = r"(\d+\.\d\d-\d+\.\d\dx|no value); [0-5]/5"
        cell = re.compile(r"^(as (Fig|SC'22|Frontera) \w+|%s / %s)$" % (part, part))
        rows = [l for l in lines if re.match(r"^\| (Fig|Frontera|SC'22) ", l)]
        self.assertEqual(len(rows), len(C.CLAIMS))
        for line in rows:
            self.assertRegex(line.rstrip().rstrip("|").rsplit("|", 1)[1].strip(), cell)

    def test_the_distance_to_the_machine_has_both_floors(self):
        part = self.md.split("### The distance to the machine", 1)[1].split("\n## ", 1)[0]
        floor = next(l for l in part.splitlines() if l.startswith("| *the machine: floor*"))
        self.assertNotIn("not probed", floor)


if __name__ == "__main__":
    unittest.main()
