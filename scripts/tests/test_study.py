"""The study's plumbing without MPI: the matrix built from the binaries' JSON answers (a
missing option is a hard error), the claims table and its ablation split, the machine
state and the secret filter. Run: python3 -m unittest discover -s scripts/tests"""

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

from cbresults import ablation, claims, machine, matrix, schema  # noqa: E402


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
APP_OPTIONS = ["--backend", "--progress", "--layout", "--runs", "--csv", "--interface"]


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
    def run_reproduce(self, d, merge_sizes):
        fake_build(os.path.join(d, "build", "openmpi"), merge_sizes)
        return subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, "reproduce"), "--full", "--dry-run",
             "--no-setup", "--mpi", "openmpi", "--skip", "external,dask",
             "--build-dir", os.path.join(d, "build", "{mpi}"), "--out", os.path.join(d, "out")],
            capture_output=True, text=True, timeout=120)

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


def study_rows():
    """One interleaved cross-family run: ucx:polling 2x slower than ucx:cooperative,
    raw-ucx 0.8 of raw-mpi; plus application runs."""
    rows = []
    lat = {("mpi", "cooperative"): 1.0, ("ucx", "cooperative"): 0.9, ("ucx", "polling"): 1.8,
           ("tcp", "epoll"): 10.0, ("raw-mpi", "blocking"): 0.8, ("raw-ucx", "polling"): 0.64,
           ("raw-tcp", "blocking"): 12.0}
    for s in (1, 64, 4096):
        for (b, p), v in lat.items():
            rows.append(row(benchmark="pingpong", origin="suite", backend=b, progress=p,
                            mpi="openmpi", size_bytes=s, latency_us_p50=v, run_id="cmp",
                            _file="pingpong-compare-openmpi.csv"))
    for w in (1, 2):
        for (b, p), wall in {("mpi", "cooperative"): 1.0, ("ucx", "cooperative"): 1.2,
                             ("ucx", "polling"): 1.5, ("tcp", "epoll"): 2.0}.items():
            rows.append(row(benchmark="merge", origin="suite", backend=b, progress=p,
                            mpi="openmpi", layout="compact", workers=w, run=0, wall_s=wall,
                            comm_s=wall / 4, rows_per_s=1e6 / wall, run_id="m%s%s%d" % (b, p, w)))
    return rows


class ClaimsTest(unittest.TestCase):
    def test_latency_claim_and_its_split(self):
        rows = study_rows()
        v, where, files = claims.measure(rows, claims.CLAIMS[0][4], "openmpi")
        self.assertAlmostEqual(v, 1.8)
        self.assertIn("interleaved", where)
        self.assertEqual(files, ["pingpong-compare-openmpi.csv"])
        f = ablation.factors(rows, "openmpi", "latency", bandname="1B-4KiB")
        self.assertAlmostEqual(f["progress"], 2.0)
        self.assertAlmostEqual(f["transport"], 0.8)
        self.assertAlmostEqual(f["total"], f["progress"] * f["transport"] * f["layer"])
        text = claims.verdict(rows, claims.CLAIMS[0], "openmpi", v)
        self.assertIn("not reproduced here", text)
        self.assertIn("*progress* row", text)

    def test_table_has_every_claim_and_pending_rows_show_no_number(self):
        md = claims.table(study_rows())
        for source, what, paper, _low, _spec in claims.CLAIMS:
            self.assertIn("| %s | %s | %s |" % (source, what, paper), md)
        matmul = [l for l in md.splitlines() if "matrix multiply" in l]
        self.assertEqual(len(matmul), 2)
        for line in matmul:  # no matmul rows in this study: pending, no number
            self.assertIn("pending: needs matmul runs of mpi:cooperative", line)
            self.assertNotRegex(line.split("|")[4], r"\d+\.\d+x")
        merge = [l for l in md.splitlines() if "| Fig 8a |" in l][0]
        self.assertIn("1.50x (1,2 workers)", merge)

    def test_matmul_claims_are_measured_once_matmul_ran(self):
        rows = study_rows()
        for w in (1, 2):
            for (b, p), wall in {("mpi", "cooperative"): 1.0, ("ucx", "polling"): 4.0,
                                 ("ucx", "cooperative"): 2.0, ("tcp", "epoll"): 5.0}.items():
                rows.append(row(benchmark="matmul", origin="suite", backend=b, progress=p,
                                mpi="openmpi", layout="compact", workers=w, run=0,
                                wall_s=wall, comm_s=wall / 2, run_id="mm%s%s%d" % (b, p, w),
                                _file="matmul-%s-%s-w%d.csv" % (b, p, w)))
            rows.append(row(benchmark="matmul", origin="external", backend="dask-tcp",
                            progress="asyncio", layout="dask", workers=w, run=0, wall_s=20.0,
                            run_id="dask", _file="external-dask.csv"))
        ucx = next(c for c in claims.CLAIMS if c[1] == "matrix multiply vs UCX")
        tcp = next(c for c in claims.CLAIMS if c[1] == "matrix multiply vs TCP")
        self.assertNotIn("needs", ucx[4])
        v, where, files = claims.measure(rows, ucx[4], "openmpi")
        self.assertAlmostEqual(v, 4.0)
        self.assertEqual(where, "1,2 workers")
        self.assertIn("matmul-mpi-cooperative-w2.csv", files)
        self.assertIn("**reproduced here**", claims.verdict(rows, ucx, "openmpi", v))
        v, _, _ = claims.measure(rows, tcp[4], "openmpi")
        self.assertAlmostEqual(v, 5.0)
        text = claims.verdict(rows, tcp, "openmpi", v)
        # the language layer: Dask's LocalCluster 4x slower than ours on tcp:epoll
        self.assertIn("runs this workload 4.0x slower", text)
        line = [l for l in claims.table(rows).splitlines() if "matrix multiply vs UCX" in l][0]
        self.assertIn("4.00x (1,2 workers)", line)

    def test_reproduced_when_within_the_factor(self):
        claim = ("Fig X", "x", "2x", 2.0, claims.CLAIMS[0][4])
        self.assertIn("**reproduced here**",
                      claims.verdict(study_rows(), claim, "openmpi", 1.5))


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
