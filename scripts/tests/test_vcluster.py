"""scripts/lib/cbcluster without root: the link spec, the launcher commands and agent, and
reproduce's use of the cluster (launch.use_cluster)."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))

from cbcluster import calibrate, launchers, linkspec  # noqa: E402
from cbresults import launch, network  # noqa: E402


class LinkSpecTest(unittest.TestCase):
    def test_units(self):
        self.assertEqual(linkspec.parse_us("50us", "d"), 50)
        self.assertEqual(linkspec.parse_us("1.5ms", "d"), 1500)
        self.assertEqual(linkspec.parse_us("7", "d"), 7)
        self.assertEqual(linkspec.parse_rate("10gbit"), 10_000_000_000)
        self.assertEqual(linkspec.parse_rate("0"), 0)

    def test_spec(self):
        link = linkspec.parse("delay=50us,jitter=10us,reorder=1,rate=100mbit,loss=0.5")
        self.assertTrue(link.needs_emulator)
        self.assertEqual((link.delay_us, link.jitter_us, link.reorder_pct, link.rate_bps,
                          link.loss_pct), (50, 10, 1, 100_000_000, 0.5))
        self.assertIn("delay 50us", link.describe())
        bridge = linkspec.parse("rate=1gbit,loss=1")
        self.assertFalse(bridge.needs_emulator)  # tbf and nftables on the bridge
        self.assertEqual(linkspec.parse("").describe(), "full speed")

    def test_superframes_only_where_the_model_acts_alike(self):
        for spec, whole in (("delay=50us", True), ("delay=50us,rate=1gbit", True),
                            ("delay=20us,loss=1", False), ("delay=100us,jitter=90us", False),
                            ("delay=20us,reorder=1", False)):
            link = linkspec.parse(spec)
            self.assertEqual(link.whole_superframes, whole, spec)
            self.assertEqual(link.summary()["emulator_superframes"], whole, spec)
        self.assertNotIn("emulator_superframes", linkspec.parse("").summary())  # the bridge
        self.assertTrue(linkspec.parse("").summary(via_emulator=True)["emulator_superframes"])
        # What calibrate compares: frame by frame on a link that would carry superframes.
        off = linkspec.parse("delay=50us,superframes=off")
        self.assertFalse(off.whole_superframes)
        self.assertFalse(off.summary()["emulator_superframes"])
        self.assertNotIn("superframes", off.to_json())  # not part of the link model
        self.assertEqual(off.to_json(), linkspec.parse("delay=50us").to_json())

    def test_bad_input_is_one_line(self):
        for bad, words in (("delay=soon", "duration"), ("rate=fast", "not a rate"),
                           ("loss=150", "outside 0..100"), ("colour=red", "unknown link key"),
                           ("delay", "KEY=VALUE"), ("jitter=5us", "needs a delay"),
                           ("superframes=maybe", "not on or off")):
            with self.assertRaises(linkspec.SpecError) as e:
                linkspec.parse(bad)
            self.assertIn(words, str(e.exception))
            self.assertNotIn("\n", str(e.exception))


class CalibrateTest(unittest.TestCase):
    ROUNDS = [{"round": i, "mode": m, "latency_us_p50": lat, "bandwidth_MBps": bw}
              for i, per in enumerate(([8, 11, 9], [9, 20, 30], [7, 8, 8.5]))
              for m, lat, bw in zip(("bridge", "frames", "superframes"), per,
                                    (1000.0, 150.0 * (i + 1), 800.0 + 100 * i))]

    def test_each_mode_against_its_rounds_bridge(self):
        modes = calibrate.summarize(self.ROUNDS)
        # per-round added latency: frames 3, 11, 1 -> median 3; superframes 1, 21, 1.5
        self.assertEqual(modes["frames"]["added_latency_us_one_way"], 3)
        self.assertEqual(modes["frames"]["added_latency_us_one_way_range"], [1, 11])
        self.assertEqual(modes["superframes"]["added_latency_us_one_way"], 1.5)
        self.assertEqual(modes["superframes"]["bandwidth_ratio_emulator_over_bridge"], 0.9)
        self.assertEqual(modes["superframes"]["bandwidth_ratio_range"], [0.8, 1.0])
        self.assertEqual(modes["superframes"]["meets_targets"],
                         {"latency": True, "bandwidth": True})
        self.assertEqual(modes["frames"]["meets_targets"], {"latency": False, "bandwidth": False})

    def test_a_run_records_its_own_modes_cost_flat(self):
        cost = {"command": "c", "modes": calibrate.summarize(self.ROUNDS), "rounds": self.ROUNDS}
        frames = calibrate.cost_of_mode(cost, superframes=False)
        self.assertEqual((frames["mode"], frames["added_latency_us_one_way"], frames["command"]),
                         ("frames", 3, "c"))
        self.assertNotIn("rounds", frames)
        self.assertEqual(calibrate.cost_of_mode(cost, True)["mode"], "superframes")
        old = {"added_latency_us_one_way": 7.4}  # a record from before the modes
        self.assertIs(calibrate.cost_of_mode(old, True), old)
        self.assertIsNone(calibrate.cost_of_mode(None, True))


STATE = {"name": "t", "link": {"mode": "emulator", "delay_us": 50.0, "description": "delay 50us"},
         "emulator": {"cost": {"added_latency_us_one_way": 5.7}},
         "hosts": [{"index": i, "hostname": "t-h%d" % i, "netns": "t-h%d" % i,
                    "uts": "/run/x/uts/t-h%d" % i, "address": "10.254.0.%d" % (i + 1)}
                   for i in range(3)]}


class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        launchers.write_files(self.dir, STATE["hosts"])

    def test_openmpi(self):
        argv, env = launchers.mpirun_argv(self.dir, STATE, "openmpi", [], ["a.out"])
        for words in (["--mca", "hwloc_base_binding_policy", "none"], ["--map-by", "node"],
                      ["--mca", "btl", "tcp,self"],
                      ["--mca", "oob_tcp_if_include", "eth0"], ["-np", "3"]):
            self.assertTrue(any(argv[i:i + len(words)] == words for i in range(len(argv))),
                            "%s not in %s" % (words, argv))
        self.assertEqual(argv[-1], "a.out")
        link = json.loads(env["COMMBENCH_LINK"])
        self.assertEqual(link["emulator_cost"]["added_latency_us_one_way"], 5.7)
        self.assertIn("-x", argv)

    def test_mpich_keeps_user_np(self):
        argv, env = launchers.mpirun_argv(self.dir, STATE, "mpich", ["-np", "5"], ["a.out"])
        self.assertEqual(argv.count("-np"), 1)
        self.assertIn("-iface", argv)
        self.assertEqual(argv[argv.index("-launcher-exec") + 1], launchers.agent_path(self.dir))
        with open(launchers.hostfile_path(self.dir, "mpich")) as f:
            self.assertEqual(f.read().split(), ["10.254.0.1:1", "10.254.0.2:1", "10.254.0.3:1"])

    def test_agent_maps_every_host(self):
        with open(launchers.agent_path(self.dir)) as f:
            text = f.read()
        for h in STATE["hosts"]:
            self.assertIn("%s|%s) ns=%s" % (h["address"], h["hostname"], h["netns"]), text)
        self.assertTrue(os.access(launchers.agent_path(self.dir), os.X_OK))


class ReproduceThroughClusterTest(unittest.TestCase):
    def tearDown(self):
        launch.use_cluster(None)

    def test_prefix(self):
        launch.use_cluster("cbstudy")
        cmd = launch.mpirun_prefix("mpich", 4, hostfile="ignored", interface="eth0")
        self.assertEqual(cmd[1:], ["--name", "cbstudy", "mpirun", "mpich", "-np", "4", "--"])
        launch.use_cluster(None)
        self.assertEqual(launch.mpirun_prefix("mpich", 2)[0], "mpirun.mpich")


class NetworkSectionTest(unittest.TestCase):
    def test_paper_lines_are_interleaved_ratios(self):
        rows = []
        for run, factor in (("r1", 1.0), ("r2", 1.0)):
            for b, p, us in (("mpi", "cooperative", 10.0), ("ucx", "polling", 22.0),
                             ("tcp", "epoll", 13.0)):
                rows.append({"benchmark": "pingpong", "origin": "suite", "mpi": "mpich",
                             "backend": b, "progress": p, "size_bytes": "8", "wire": "",
                             "latency_us_p50": us * factor, "run_id": run})
        lines = network.paper_lines(rows)
        self.assertEqual(len(lines), 1)
        self.assertIn("mpi:cooperative vs ucx:polling 2.20x", lines[0])
        self.assertIn("mpi:cooperative vs tcp:epoll 1.30x", lines[0])
        self.assertNotIn("separate runs", lines[0])

    def test_latest_study_and_label(self):
        root = tempfile.mkdtemp()
        for name, started in (("vcluster2-bridge-x", "2026-01-01T00:00:00Z"),
                              ("vcluster2-delay50us-x", "2026-01-02T00:00:00Z")):
            os.makedirs(os.path.join(root, name))
            with open(os.path.join(root, name, "all.csv"), "w") as f:
                f.write("benchmark\n")
            with open(os.path.join(root, name, "manifest.json"), "w") as f:
                json.dump({"started_utc": started, "vcluster": {"hosts": 2, "link": {
                    "mode": "emulator", "description": name}}}, f)
        where, m = network.latest_study(root)
        self.assertTrue(where.endswith("vcluster2-delay50us-x"))
        self.assertIsNone(network.latest_study(tempfile.mkdtemp()))
        label = network.link_label(dict(m["vcluster"], emulator_cost={
            "added_latency_us_one_way": 5.72, "command": "scripts/vcluster calibrate"}))
        self.assertIn("emulator, vcluster2-delay50us-x; the emulator itself adds 5.72 us", label)


if __name__ == "__main__":
    unittest.main()
