"""Starting MPI jobs: the launcher that matches each MPI build (never a bare `mpirun`),
the root/oversubscribe settings Open MPI needs here, hostfiles, time limits, and asking a
benchmark binary (through its JSON interface, never its help or error text) which
backends, policies and options it was built with."""

import ipaddress
import json
import os
import shutil
import subprocess
import sys
import time

LAUNCHERS = {"openmpi": "mpirun.openmpi", "mpich": "mpirun.mpich"}


def mpi_env(flavor):
    env = dict(os.environ)
    if flavor == "openmpi" and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


_converted = {}


def hostfile_for(flavor, path):
    """The hostfile in the launcher's own format. Accepts lines `host`, `host slots=N`
    (Open MPI) or `host:N` (MPICH's Hydra); `#` comments. Converted copies are cached."""
    key = (flavor, path)
    if key in _converted:
        return _converted[key]
    hosts = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, slots = line.split()[0], None
            if ":" in name:
                name, slots = name.split(":", 1)
            for word in line.split()[1:]:
                if word.startswith("slots="):
                    slots = word.split("=", 1)[1]
            hosts.append((name, slots))
    import tempfile
    fd, out = tempfile.mkstemp(prefix="commbench-hosts-%s-" % flavor, text=True)
    with os.fdopen(fd, "w") as f:
        for name, slots in hosts:
            if flavor == "openmpi":
                f.write("%s%s\n" % (name, " slots=%s" % slots if slots else ""))
            else:
                f.write("%s%s\n" % (name, ":%s" % slots if slots else ""))
    _converted[key] = out
    if len(_converted) == 1:
        import atexit
        atexit.register(lambda: [os.remove(p) for p in _converted.values() if os.path.exists(p)])
    return out


def is_ip(text):
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


# The virtual cluster every launch goes through, when one is in use (use_cluster).
_CLUSTER = None
VCLUSTER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "vcluster")


def use_cluster(name):
    """From now on every mpirun_prefix launches across the hosts of virtual cluster `name`
    (scripts/vcluster mpirun: from host 0, ranks spread round robin, transports forced
    onto the network); None goes back to this host."""
    global _CLUSTER
    _CLUSTER = name


def mpirun_prefix(flavor, nprocs, hostfile=None, per_node=None, launcher=None, interface=None):
    """The launcher words for `nprocs` ranks. per_node=1 spreads ranks one per host (the
    ping-pong layout on a cluster). `interface` (a name such as eth0 or ib0) steers the
    launcher's own traffic and MPI's tcp transport to it: Open MPI's oob and tcp BTL
    (`--mca ..._if_include`), MPICH's Hydra (`-iface`). The benchmarks steer the rest
    themselves from --interface (UCX_NET_DEVICES; README "Networks"). An IP address names
    no interface on the other hosts, so it steers nothing here."""
    if _CLUSTER:
        # The cluster makes its own hostfile and steering; round robin already puts the
        # two ping-pong ranks on two hosts.
        return [VCLUSTER, "--name", _CLUSTER, "mpirun", flavor, "-np", str(nprocs), "--"]
    exe = launcher or LAUNCHERS[flavor]
    if hostfile:
        hostfile = hostfile_for(flavor, hostfile)
    cmd = [exe]
    if flavor == "openmpi":
        cmd += ["--oversubscribe"]
        if hostfile:
            cmd += ["--hostfile", hostfile]
        if per_node:
            cmd += ["--map-by", "ppr:%d:node" % per_node]
    else:
        if hostfile:
            cmd += ["-f", hostfile]
        if per_node:
            cmd += ["-ppn", str(per_node)]
    cmd += steering_args(flavor, interface)
    cmd += ["-np", str(nprocs)]
    return cmd


def steering_args(flavor, interface):
    """The launcher words that keep its own traffic and MPI's tcp transport on one
    interface: Open MPI's oob and tcp BTL, MPICH's Hydra. None for an IP address, which
    names no interface on the other hosts."""
    if not interface or is_ip(interface):
        return []
    if flavor == "openmpi":
        return ["--mca", "btl_tcp_if_include", interface, "--mca", "oob_tcp_if_include",
                interface]
    return ["-iface", interface]


def have_launcher(flavor):
    return shutil.which(LAUNCHERS[flavor]) is not None


def run(cmd, env=None, timeout=None, log=None):
    """Runs cmd; returns (returncode, combined output). The output is appended to `log`
    line by line as it comes (so a long run can be followed with tail -f). A run past
    `timeout` seconds is killed (its whole process group) and reported as returncode 124,
    never left hanging."""
    import threading
    start = time.time()
    logf = open(log, "a") if log else None
    if logf:
        logf.write("$ %s\n" % " ".join(cmd))
        logf.flush()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         text=True, errors="replace", start_new_session=True)
    chunks = []

    def pump():
        for line in p.stdout:
            chunks.append(line)
            if logf:
                logf.write(line)
                logf.flush()
    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        p.wait()
        chunks.append("\n[killed after %.0f s time limit]\n" % (time.time() - start))
        rc = 124
    reader.join(10)
    out = "".join(chunks)
    if logf:
        logf.write("[exit %d after %.1f s]\n\n" % (rc, time.time() - start))
        logf.close()
    return rc, out


class InterfaceError(RuntimeError):
    """A binary of ours did not answer a machine-readable query (--list-backends,
    --list-options) the way the pipeline needs: not built, too old, or broken."""


def describe(flavor, binary, flag, timeout=60):
    """The JSON a benchmark binary prints for `flag` (--list-backends or --list-options).
    These queries need no MPI job: the binary answers before it bootstraps. Raises
    InterfaceError with one line when the binary is missing or does not answer."""
    if not os.path.exists(binary):
        raise InterfaceError("%s: not built" % binary)
    rc, out = run([binary, flag], env=mpi_env(flavor), timeout=timeout)
    if rc != 0:
        tail = out.strip().splitlines()[-1:] or ["no output"]
        raise InterfaceError("%s %s exited %d: %s" % (binary, flag, rc, tail[0]))
    try:
        return json.loads(out)
    except ValueError:
        raise InterfaceError("%s %s did not print JSON (an older build? rebuild it)" % (
            binary, flag)) from None


def list_backends(flavor, binary, timeout=60):
    """The binary's backend table: [{name, kind, policies: [{name, description}],
    default_policy, raw_baseline, options: [{key, values, default, description}]}]."""
    table = describe(flavor, binary, "--list-backends", timeout)
    if not isinstance(table.get("backends"), list):
        raise InterfaceError("%s --list-backends: no 'backends' list" % binary)
    # The @idle rules an entry may name are the binary's, not a backend's: each coroutine
    # backend carries their names ("idle_rules"; absent when the binary has none).
    rules = [r["name"] for r in table.get("idle_rules") or [] if r.get("name")]
    if rules:
        for b in table["backends"]:
            if b.get("kind") == "coroutine":
                b["idle_rules"] = rules
    return table["backends"]


def list_options(flavor, binary, timeout=60):
    """The binary's options: {options: [{name, aliases, default, takes_value,
    description}], sizes: {semantic: option}, layouts: [...]}."""
    opts = describe(flavor, binary, "--list-options", timeout)
    if not isinstance(opts.get("options"), list):
        raise InterfaceError("%s --list-options: no 'options' list" % binary)
    return opts


def option_names(opts):
    """Every spelling an --list-options answer accepts."""
    names = set()
    for o in opts.get("options", []):
        names.add(o.get("name"))
        names.update(o.get("aliases") or [])
    return names


class Progress:
    """'[k/n] label (elapsed 1:02, ~3:10 left)' lines, one per run as it starts. The time
    left is the time so far scaled by the expected cost (weight) of the runs still to come
    against that of the runs done: the profile's earlier runs are its estimate."""

    def __init__(self, total_weight, total_runs, out=None):
        self.start = time.time()
        self.total_weight = max(total_weight, 1e-9)
        self.done_weight = 0.0
        self.total_runs = total_runs
        self.i = 0
        self.out = out or sys.stdout

    def line(self, label, now=None):
        el = (time.time() if now is None else now) - self.start
        if self.done_weight > 0:
            left = "~%s left" % _hms(el / self.done_weight * (self.total_weight - self.done_weight))
        else:
            left = "time left unknown until a run ends"
        return "[%d/%d] %s (elapsed %s, %s)" % (self.i, self.total_runs, label, _hms(el), left)

    def begin(self, label):
        self.i += 1
        print(self.line(label), file=self.out, flush=True)

    def end(self, weight):
        self.done_weight += weight


def _hms(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60) if s >= 3600 else \
        "%d:%02d" % (s // 60, s % 60)
