"""scripts/slurm/local_cluster without root or daemons: the generated slurm.conf for one
node and for one node per virtual host, the command a node's daemon runs under, and the
environment its clients pass on to jobs (tests/slurm runs the real thing)."""

import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from scriptload import load_script

lc = load_script("slurm/local_cluster", "cb_local_cluster")

HOSTS = [{"hostname": "sl-h%d" % i, "address": "10.254.0.%d" % (i + 1),
          "netns": "sl-h%d" % i, "uts": "/run/commbench-vcluster/sl/uts/sl-h%d" % i}
         for i in range(4)]


def conf_lines(text, key):
    return [line for line in text.splitlines() if line.startswith(key + "=")]


class SlurmConfTest(unittest.TestCase):
    def conf(self, nodes):
        return lc.slurm_conf("cb", nodes[0][:2], nodes, "/run/x", 100, 101, "/run/x/m.sock")

    def test_one_node(self):
        text = self.conf([("vm", "127.0.0.1", 2)])
        self.assertEqual(conf_lines(text, "SlurmctldHost"), ["SlurmctldHost=vm(127.0.0.1)"])
        self.assertEqual(conf_lines(text, "NodeName"),
                         ["NodeName=vm NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN"])
        self.assertIn("PartitionName=debug Nodes=vm Default=YES", text)

    def test_four_nodes_share_one_folder_by_node_name(self):
        nodes = [(h["hostname"], h["address"], 2) for h in HOSTS]
        text = self.conf(nodes)
        self.assertEqual(conf_lines(text, "SlurmctldHost"), ["SlurmctldHost=sl-h0(10.254.0.1)"])
        self.assertEqual(len(conf_lines(text, "NodeName")), 4)
        self.assertIn("NodeName=sl-h3 NodeAddr=10.254.0.4 CPUs=2", text)
        self.assertIn("Nodes=sl-h0,sl-h1,sl-h2,sl-h3 ", text)
        # every per-node path is per node: the nodes share this machine's files
        for key in ("SlurmdSpoolDir", "SlurmdPidFile", "SlurmdLogFile", "TmpFS"):
            (line,) = conf_lines(text, key)
            self.assertIn("%n", line, key)


class OnHostTest(unittest.TestCase):
    def cluster(self, hosts, vcluster=None):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "cluster.json"), "w") as f:
            json.dump({"daemons": [], "hosts": hosts, "vcluster": vcluster}, f)
        return lc.Cluster(d)

    def test_this_machine_runs_as_is(self):
        c = self.cluster([])
        self.assertEqual(c.on_host(0, ["sinfo"]), ["sinfo"])
        self.assertEqual(c.job_env()["SLURM_CONF"], c.conf)

    def test_virtual_host_enters_its_namespaces_with_private_hosts_file(self):
        c = self.cluster(HOSTS, "sl")
        argv = c.on_host(2, ["slurmd", "-D", "-N", "sl-h2"])
        self.assertEqual(argv[:3], ["nsenter", "--net=/run/netns/sl-h2",
                                    "--uts=" + HOSTS[2]["uts"]])
        self.assertIn("unshare", argv)
        self.assertIn("--mount", argv)
        self.assertIn(c.hosts_file, argv)
        self.assertEqual(argv[-4:], ["slurmd", "-D", "-N", "sl-h2"])

    def test_job_env_makes_hosts_real_and_keeps_the_users_choice(self):
        c = self.cluster(HOSTS, "sl")
        state = {"name": "sl", "hosts": HOSTS, "link": {"mode": "bridge"}}
        with mock.patch("cbcluster.cluster.Cluster.load", return_value=state), \
                mock.patch.dict(os.environ, {"UCX_TLS": "rc"}, clear=False):
            os.environ.pop("OMPI_MCA_btl", None)
            env = c.job_env()
        self.assertEqual(env["UCX_TLS"], "rc")            # the user's, kept
        self.assertEqual(env["OMPI_MCA_btl"], "tcp,self")  # no shared memory across hosts
        self.assertEqual(env["OMPI_MCA_hwloc_base_binding_policy"], "none")
        self.assertEqual(env["COMMBENCH_INTERFACE"], "eth0")
        self.assertEqual(json.loads(env["COMMBENCH_LINK"])["cluster"], "sl")


if __name__ == "__main__":
    unittest.main()
