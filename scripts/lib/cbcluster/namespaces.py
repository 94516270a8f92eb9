"""The Linux plumbing of a virtual host: a network namespace (`ip netns`, so it has a name
under /run/netns) plus a UTS namespace kept alive by a bind mount of its own (so the host
has its own hostname: MPI launchers and UCX tell hosts apart by hostname), and running
commands inside both with nsenter. Nothing here touches the root namespace's interfaces."""

import os
import shutil
import signal
import subprocess
import time

NETNS_DIR = "/run/netns"
# Every virtual host's one interface, as the launch files and the link setup name it.
IFACE = "eth0"


class ClusterError(RuntimeError):
    """A failure with a one-line message meant for the user."""


def preflight():
    """Raises ClusterError (one line) when this machine cannot make namespaces."""
    if os.geteuid() != 0:
        raise ClusterError("needs root (network namespaces); run as root or skip")
    for tool in ("ip", "nsenter", "unshare", "mount", "umount"):
        if shutil.which(tool) is None:
            raise ClusterError("needs '%s' (Debian: iproute2 / util-linux); run scripts/setup"
                               % tool)


def run(cmd, check=True, capture=False, input_text=None):
    """Runs one plumbing command; a failure raises ClusterError naming the command and the
    tool's own first error line."""
    p = subprocess.run(cmd, input=input_text, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        why = (p.stderr or p.stdout).strip().splitlines()
        raise ClusterError("'%s' failed: %s" % (" ".join(cmd), why[0] if why else
                                                "exit %d" % p.returncode))
    return p.stdout if capture else p.returncode


def netns_path(ns):
    return os.path.join(NETNS_DIR, ns)


def netns_exists(ns):
    return os.path.exists(netns_path(ns))


def add_netns(ns):
    run(["ip", "netns", "add", ns])
    run(["ip", "-n", ns, "link", "set", "lo", "up"])


def ip(ns, *args, check=True):
    return run(["ip", "-n", ns] + list(args), check=check)


def in_netns(ns, cmd, check=True, input_text=None, capture=False):
    """cmd inside the network namespace only (tc, nft, sysctl)."""
    return run(["nsenter", "--net=" + netns_path(ns), "--"] + cmd, check=check,
               input_text=input_text, capture=capture)


def add_uts(path, hostname):
    """A persistent UTS namespace at `path` (a bind mount of the namespace onto an empty
    file) with the given hostname."""
    open(path, "a").close()
    run(["unshare", "--uts=" + path, "hostname", hostname])


def remove_uts(path):
    if os.path.ismount(path):
        run(["umount", path], check=False)
    if os.path.exists(path):
        os.remove(path)


def enter(ns, uts, cmd):
    """The command line that runs cmd inside a host (its network and its hostname)."""
    words = ["nsenter", "--net=" + netns_path(ns)]
    if uts:
        words.append("--uts=" + uts)
    return words + ["--"] + list(cmd)


def pids_in(ns):
    out = run(["ip", "netns", "pids", ns], check=False, capture=True) or ""
    return [int(p) for p in out.split() if p.isdigit()]


def stop_pids(pids, grace_s=2.0):
    """SIGTERM, then SIGKILL whatever is left after grace_s. Only ever called with the
    processes inside this cluster's own namespaces, or its emulator."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + grace_s
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def alive(pid):
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # a zombie is dead for our purposes
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def delete_netns(ns):
    """Stops every process still inside the namespace (they keep it alive after its name
    is gone), then deletes it; its veth and tap devices go with it."""
    stop_pids(pids_in(ns))
    if netns_exists(ns):
        run(["ip", "netns", "del", ns], check=False)
