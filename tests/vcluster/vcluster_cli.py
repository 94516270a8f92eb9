"""scripts/vcluster as the virtual-cluster tests call it: one command, its output, a hang
turned into a failure, and exit 77 (CTest: skipped) passed on when the machine cannot
make namespaces. Shared by vcluster_test.py and netfault_test.py."""

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
