"""The study's plumbing without MPI: the matrix built from the binaries' JSON answers (a
missing option is a hard error), the machine state and the secret filter (the claims
table: test_claims.py). Run: python3 -m unittest discover -s scripts/tests"""

import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import machine, matrix, schema  # noqa: E402


def row(**kw):
    r = {c: None if c in schema.NUMERIC else "" for c in schema.columns()}
    r.update(kw)
    return r


def backend(name, pols, raw=None, options=()):
    return {"name": name, "kind": "raw" if name.startswith("raw-") else "coroutine",
            "policies": [{"name": p, "description": p} for p in pols],
            "default_policy": pols[0], "raw_baseline": raw, "options": list(options)}


BACKENDS = [backend("mpi", ["batched", "cooperative", "blocking"], "raw-mpi",
                    [{"key": "wire", "values": ["packed", "per-frame"], "default": "packed",
                      "description": ""}]),
            backend("raw-mpi", ["blocking"]),
            backend("ucx", ["polling", "event", "cooperative"], "raw-ucx"),
            backend("raw-ucx", ["polling"]),
            backend("tcp", ["epoll"], "raw-tcp"), backend("raw-tcp", ["blocking"])]

MICRO_OPTIONS = ["--backend", "--backend-opt", "--min-size", "--max-size", "--factor",
                 "--iters", "--iters-large", "--warmup", "--warmup-large", "--reps",
                 "--window", "--bidirectional", "--csv", "--timeout", "--interface"]
APP_OPTIONS = ["--backend", "--progress", "--layout", "--runs", "--warmup", "--csv",
               "--interface"]


def options(names, sizes=None, layouts=()):
    aliases = {"--min-size": ["-b"], "--max-size": ["-e"], "--factor": ["-f"]}
    return {"options": [{"name": n, "aliases": aliases.get(n, []), "default": "",
                         "takes_value": True, "description": ""} for n in names],
            "sizes": sizes or {}, "layouts": list(layouts)}


class MatrixFromJsonTest(unittest.TestCase):
    def test_every_option_is_checked_against_the_binary(self):
        opts = options(["--backend", "--csv"])
        self.assertEqual(matrix.checked("pingpong", opts, ["--backend", "tcp", "-5"]),
                         ["--backend", "tcp", "-5"])  # a negative number is a value
        with self.assertRaises(matrix.MissingOption) as e:
            matrix.checked("pingpong", opts, ["--backend", "tcp", "--window", "64"])
        self.assertIn("--window", str(e.exception))

    def test_merge_size_comes_from_its_sizes_map(self):
        merge = options(APP_OPTIONS + ["--chunk-size"], {"rows_per_chunk": "--chunk-size"},
                        ["compact", "dask"])
        self.assertEqual(matrix.size_args("merge", "full", merge), ["--chunk-size", "4000000"])
        self.assertEqual(matrix.size_args("merge", "tiny", merge), ["--chunk-size", "100000"])
        no_size = options(APP_OPTIONS, {}, ["compact"])
        with self.assertRaises(matrix.MissingOption):
            matrix.size_args("merge", "quick", no_size)

    def test_micro_runs_include_the_ablation_runs(self):
        fams = matrix.families(BACKENDS)
        opts = options(MICRO_OPTIONS, {"min": "--min-size"})
        runs = matrix.micro_runs("openmpi", "/b", fams, "quick", "/tmp",
                                 {"pingpong": opts, "bandwidth": opts})
        cmds = [" ".join(r.cmd) for r in runs]
        self.assertTrue(any("wire=per-frame" in c and "mpi:cooperative,raw-mpi" in c
                            for c in cmds))
        self.assertTrue(any("--bidirectional" in c and "ucx:cooperative" in c for c in cmds))
        self.assertFalse(any("bandwidth" in c and "wire=per-frame" in c for c in cmds))

    def test_a_fourth_backend_joins_the_study_from_its_listing_alone(self):
        """A backend only --list-backends knows ("fake" and its baseline "raw-fake") gets its
        family run (every policy beside its raw baseline) and a place in the cross-family
        run, with no change to the matrix (issue 27 item 8)."""
        fams = matrix.families(BACKENDS + [backend("fake", ["spin", "nap"], "raw-fake"),
                                           backend("raw-fake", ["plain"])])
        self.assertEqual(fams["fake"]["raw"], "raw-fake")
        opts = options(MICRO_OPTIONS, {"min": "--min-size"})
        runs = matrix.micro_runs("openmpi", "/b", fams, "quick", "/tmp",
                                 {"pingpong": opts, "bandwidth": opts})
        cmds = [" ".join(r.cmd) for r in runs]
        self.assertTrue(any("fake:spin,fake:nap,raw-fake" in c for c in cmds), cmds)
        self.assertTrue(any("fake" in c and "mpi:cooperative" in c for c in cmds))

    def test_app_runs_play_the_paper_and_the_closest_policy(self):
        fams = matrix.families(BACKENDS)
        app = options(APP_OPTIONS + ["--size", "--chunk", "--chunk-size"],
                      {"n": "--size", "chunk": "--chunk", "rows_per_chunk": "--chunk-size"},
                      ["compact", "dask"])
        runs = matrix.app_runs("openmpi", "/b", fams, "quick", "/tmp", [2], ["compact"],
                               {"transpose_sum": app, "merge": app})
        labels = {r.label for r in runs}
        self.assertIn("merge ucx:polling layout=compact workers=2 (openmpi)", labels)
        self.assertIn("merge ucx:cooperative layout=compact workers=2 (openmpi)", labels)
        self.assertIn("merge mpi:cooperative layout=compact workers=2 (openmpi)", labels)
        with self.assertRaises(matrix.MissingOption):
            matrix.app_runs("openmpi", "/b", fams, "quick", "/tmp", [2], ["paper"],
                            {"merge": app})

    def test_every_app_runs_at_its_profile_sizes(self):
        self.assertEqual(matrix.APPS, ("transpose_sum", "merge", "groupby", "sort", "matmul"))
        self.assertEqual(matrix.PROFILES["quick"]["workers"], [1, 2, 3])
        fams = {k: v for k, v in matrix.families(BACKENDS).items() if k == "tcp"}
        rows = options(APP_OPTIONS + ["--chunk-size", "--groups"],
                       {"rows_per_chunk": "--chunk-size", "groups": "--groups"}, ["compact"])
        mm = options(APP_OPTIONS + ["--size", "--chunk"], {"n": "--size", "chunk": "--chunk"},
                     ["compact"])
        want = {"tiny": ("100000", ("512", "256")), "quick": ("1000000", ("2048", "512")),
                "full": ("4000000", ("8192", "2048"))}
        for profile, (nrows, (n, chunk)) in want.items():
            runs = matrix.app_runs("openmpi", "/b", fams, profile, "/tmp", [1, 3], ["compact"],
                                   {"groupby": rows, "sort": rows, "matmul": mm})
            cmds = {r.kind: [] for r in runs}
            for r in runs:
                cmds[r.kind].append(r.cmd)
            self.assertEqual(sorted(cmds), ["groupby", "matmul", "sort"])
            for app in ("groupby", "sort"):
                for c in cmds[app]:
                    self.assertEqual(c[c.index("--chunk-size") + 1], nrows)
            for c in cmds["groupby"]:  # pinned: the Dask baseline runs the same groups
                self.assertEqual(c[c.index("--groups") + 1], nrows)
            for c in cmds["sort"]:
                self.assertNotIn("--groups", c)
            for c in cmds["matmul"]:
                self.assertEqual((c[c.index("--size") + 1], c[c.index("--chunk") + 1]),
                                 (n, chunk))
            # 3 workers in the compact layout: 4 ranks
            self.assertTrue(any(c[c.index("-np") + 1] == "4" for c in cmds["sort"]))
        self.assertEqual({a: matrix.SCALING[a] for a in matrix.APPS},
                         {"transpose_sum": "strong", "merge": "weak", "groupby": "weak",
                          "sort": "weak", "matmul": "strong"})


def fake_build(root, merge_sizes):
    """A build folder whose binaries answer only the JSON queries."""
    for sub, name, answer in (
            ("microbench", "pingpong", {"backends": BACKENDS}),
            ("microbench", "bandwidth", {"backends": BACKENDS}),
            ("appbench", "transpose_sum", {"backends": BACKENDS[::2]}),
            ("appbench", "merge", {"backends": BACKENDS[::2]})):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
        if sub == "microbench":
            opts = options(MICRO_OPTIONS, {"min": "--min-size"})
        elif name == "merge":
            opts = options(APP_OPTIONS + ["--chunk-size"], merge_sizes, ["compact", "dask"])
        else:
            opts = options(APP_OPTIONS + ["--size", "--chunk"], {"n": "--size",
                                                                 "chunk": "--chunk"},
                           ["compact", "dask"])
        path = os.path.join(root, sub, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\ncase \"$1\" in\n--list-backends) cat <<'EOF'\n%s\nEOF\n;;\n"
                    "--list-options) cat <<'EOF'\n%s\nEOF\n;;\n*) exit 9;;\nesac\n" % (
                        json.dumps(answer), json.dumps(opts)))
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class ReproduceDryRunTest(unittest.TestCase):
    def run_reproduce(self, d, merge_sizes, profile="--full", extra=()):
        fake_build(os.path.join(d, "build", "openmpi"), merge_sizes)
        return subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, "reproduce"), profile, "--dry-run",
             "--no-setup", "--mpi", "openmpi", "--skip", "external,dask",
             "--build-dir", os.path.join(d, "build", "{mpi}"), "--out", os.path.join(d, "out")]
            + list(extra), capture_output=True, text=True, timeout=120)

    def quick_plan(self, extra=()):
        with tempfile.TemporaryDirectory() as d:
            p = self.run_reproduce(d, {"rows_per_chunk": "--chunk-size"}, "--quick", extra)
            if "not found; skipped" in p.stdout:
                self.skipTest("mpirun.openmpi is not installed")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(d, "out", "manifest.json")) as f:
                return json.load(f)

    def test_quick_runs_the_claims_backends_in_paired_rounds(self):
        """Fails on the old plan: one invocation per backend and worker count, always in the
        same order (mpi, tcp, ucx), 3 runs each, and one cross-family run."""
        m = self.quick_plan()
        self.assertEqual(m["rounds"]["rounds"], 10)
        runs = m["runs"]
        merge = [r for r in runs if r["label"].startswith("merge ")]
        in_rounds = [r for r in merge if r["round"] is not None]
        # merge's claims compare mpi:cooperative, ucx:polling and tcp:epoll at 1 (the null)
        # and 2 workers: 3 x 2 per round
        self.assertEqual(len(in_rounds), 10 * 3 * 2)
        for k in range(1, 11):
            block = [r for r in in_rounds if r["round"] == k and "workers=2" in r["label"]]
            self.assertEqual(sorted(r["label"].split()[1] for r in block),
                             ["mpi:cooperative", "tcp:epoll", "ucx:polling"])
            for r in block:
                self.assertIn("-w2-r%02d-openmpi.csv" % k, r["command"])
                self.assertIn("--runs 1", r["command"])
                self.assertIn("--warmup 2", r["command"])
        # the order inside a round is shuffled, not always the same
        orders = {tuple(r["label"].split()[1] for r in in_rounds
                        if r["round"] == k and "workers=2" in r["label"]) for k in range(1, 11)}
        self.assertGreater(len(orders), 2)
        # rounds come after everything that runs once, round by round
        idx = [i for i, r in enumerate(runs) if r["round"] is not None]
        self.assertEqual(idx, list(range(idx[0], len(runs))))
        self.assertEqual([runs[i]["round"] for i in idx], sorted(runs[i]["round"] for i in idx))
        # 3 workers run once, with the profile's runs, for the figures; so does the
        # ablation's ucx:cooperative at every worker count
        once = sorted(r["label"] for r in merge if r["round"] is None)
        self.assertEqual(len(once), 3 + 3)
        self.assertTrue(all("--runs 3" in r["command"] for r in merge if r["round"] is None))
        self.assertEqual([l for l in once if "ucx:cooperative" in l],
                         ["merge ucx:cooperative layout=compact workers=%d (openmpi)" % w
                          for w in (1, 2, 3)])
        # transpose-sum has no TCP claim: tcp:epoll runs once per worker count
        ts_tcp = [r for r in runs if r["label"].startswith("transpose_sum tcp:epoll")]
        self.assertEqual([r["round"] for r in ts_tcp], [None, None, None])

    def test_the_cross_family_run_is_invoked_once_per_round_five_times(self):
        runs = self.quick_plan()["runs"]
        for bench in ("pingpong", "bandwidth"):
            cmp_ = [r for r in runs if r["label"].startswith("%s compare-r" % bench)]
            self.assertEqual([r["round"] for r in cmp_], [1, 2, 3, 4, 5])
            for k, r in enumerate(cmp_, start=1):
                self.assertIn("%s-compare-r%d-openmpi.csv" % (bench, k), r["command"])
                if bench == "bandwidth":
                    self.assertIn("--reps 2", r["command"])
        # the bi-directional one is no claim's: once
        self.assertEqual(len([r for r in runs if "compare-bidirectional" in r["label"]]), 1)

    def test_the_plan_is_the_same_every_time_and_rounds_can_be_turned_off(self):
        a = [r["label"] for r in self.quick_plan()["runs"]]
        self.assertEqual(a, [r["label"] for r in self.quick_plan()["runs"]])
        self.assertNotEqual(a, [r["label"] for r in self.quick_plan(["--seed", "7"])["runs"]])
        m = self.quick_plan(["--rounds", "0"])
        self.assertIsNone(m["rounds"])
        self.assertTrue(all(r["round"] is None for r in m["runs"]))
        self.assertEqual(len([r for r in m["runs"] if r["label"].startswith("merge ")]),
                         4 * 3)  # 4 backends x 3 worker counts, once each

    def test_full_dry_run_manifest_shows_merge_at_its_size(self):
        if not matrix.mpirun_prefix:  # pragma: no cover
            self.skipTest("no launcher module")
        with tempfile.TemporaryDirectory() as d:
            p = self.run_reproduce(d, {"rows_per_chunk": "--chunk-size"})
            if "not found; skipped" in p.stdout:
                self.skipTest("mpirun.openmpi is not installed")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(d, "out", "manifest.json")) as f:
                manifest = json.load(f)
            merges = [r["command"] for r in manifest["runs"] if r["label"].startswith("merge")]
            self.assertTrue(merges)
            for c in merges:
                self.assertIn("--chunk-size 4000000", c)

    def test_a_missing_size_option_is_a_hard_error(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.run_reproduce(d, {})
            if "not found; skipped" in p.stdout:
                self.skipTest("mpirun.openmpi is not installed")
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("reproduce: error: merge has no option for its size 'rows_per_chunk'",
                          p.stderr)


class MachineTest(unittest.TestCase):
    def test_launcher_secrets_are_recognised(self):
        for name in ("OMPI_MCA_orte_precondition_transports", "OMPI_MCA_orte_hnp_uri",
                     "PMIX_SERVER_URI41", "PMIX_SECURITY_MODE", "SLURM_JOB_TOKEN",
                     "OMPI_MCA_orte_local_daemon_uri"):
            self.assertTrue(machine.is_secret(name), name)
        for name in ("UCX_TLS", "OMPI_MCA_btl", "OMPI_COMM_WORLD_SIZE"):
            self.assertFalse(machine.is_secret(name), name)

    def test_schema_sidecar_drops_secrets(self):
        os.environ["OMPI_MCA_orte_precondition_transports"] = "abc-def"
        try:
            meta = schema.external_metadata("r", "x", [["x"]])
        finally:
            del os.environ["OMPI_MCA_orte_precondition_transports"]
        self.assertNotIn("OMPI_MCA_orte_precondition_transports", meta["environment"])

    def test_watch_records_typed_state_and_annotates(self):
        with machine.Watch(None) as w:
            pass
        st = w.state()
        self.assertIsInstance(st["load_avg_1min_before"], float)
        self.assertIsInstance(st["quiet"], bool)
        self.assertEqual(st["latency_mode"], "unknown")  # no probe without a build
        with tempfile.TemporaryDirectory() as d:
            side = os.path.join(d, "x.json")
            with open(side, "w") as f:
                json.dump({"run_id": "r"}, f)
            self.assertTrue(machine.annotate(side, st))
            with open(side) as f:
                self.assertEqual(json.load(f)["run_state"]["quiet"], st["quiet"])
        self.assertTrue(math.isfinite(machine.load1()))

    def test_a_busy_study_makes_every_run_not_quiet(self):
        with machine.Watch(None, study_before=machine.QUIET_BEFORE + 4) as w:
            pass
        self.assertFalse(w.quiet())
        self.assertEqual(w.state()["load_avg_1min_before_study"], machine.QUIET_BEFORE + 4)


if __name__ == "__main__":
    unittest.main()
