"""scripts/vcluster as the virtual-cluster tests call it: one command, its output, a hang
turned into a failure, and exit 77 (CTest: skipped) passed on when the machine cannot
make namespaces; a cluster up for a `with` block and down after it (also on failure);
mpirun across it. Shared by vcluster_test.py, netfault_test.py and scale_test.py."""

import csv
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VCLUSTER = os.path.join(ROOT, "scripts", "vcluster")
SKIP = 77


class Failed(Exception):
    pass


def vc(name, *args, check=True, timeout=120):
    """Runs `scripts/vcluster --name NAME ARGS...`; stdout and stderr together."""
    try:
        p = subprocess.run([VCLUSTER, "--name", name] + list(args), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        # The launcher is killed; the ranks left in the namespaces go with `down`.
        out = e.output.decode(errors="replace") if isinstance(e.output, bytes) else e.output
        raise Failed("vcluster %s: no answer in %d s (a hang):\n%s" % (
            " ".join(args), timeout, (out or "")[-3000:])) from None
    if p.returncode == SKIP:
        print("SKIP: " + p.stdout.strip())
        sys.exit(SKIP)
    if check and p.returncode != 0:
        raise Failed("vcluster %s exited %d:\n%s" % (" ".join(args), p.returncode, p.stdout))
    return p


def mpirun(name, flavor, np, cmd, timeout=240):
    p = vc(name, "mpirun", flavor, "-np", str(np), "--", *cmd, check=False, timeout=timeout)
    print(p.stdout[-3000:])
    if p.returncode != 0:
        said = [line.strip() for line in p.stdout.splitlines() if "error" in line.lower()]
        raise Failed("%s exited %d%s" % (" ".join(os.path.basename(w) for w in cmd[:7]),
                                         p.returncode, (": " + said[0]) if said else ""))
    return p.stdout


def leftovers(name):
    """What a cluster left behind: namespaces, state, processes of the emulator."""
    left = [os.path.basename(p) for p in glob.glob("/run/netns/%s-*" % name)]
    if os.path.exists("/run/commbench-vcluster/%s" % name):
        left.append("/run/commbench-vcluster/%s" % name)
    out = subprocess.run(["pgrep", "-af", "linkemu.*/run/netns/%s-" % name], text=True,
                         stdout=subprocess.PIPE).stdout.strip()
    if out:
        left.append(out)
    return left


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


class Cluster:
    """up on entry, down on exit (also on failure), and a check that down left nothing."""

    def __init__(self, name, *up_args):
        self.name, self.up_args = name, up_args

    @classmethod
    def of(cls, a, hosts, delay=None):
        """a's cluster of `hosts` hosts; with a delay, through a's emulator build."""
        args = ["--hosts", str(hosts)]
        if delay:
            args += ["--delay", delay] + (["--emulator", a.emulator] if a.emulator else [])
        return cls(a.name, *args)

    def __enter__(self):
        vc(self.name, "down", check=False)  # a cluster a killed earlier run left
        vc(self.name, "up", *self.up_args)
        return self

    def __exit__(self, *exc):
        vc(self.name, "down", check=False)
        left = leftovers(self.name)
        if left and exc[0] is None:
            raise Failed("down left: %s" % left)
