"""Starting MPI jobs: the launcher that matches each MPI build (never a bare `mpirun`),
the root/oversubscribe settings Open MPI needs here, hostfiles, time limits, and finding
out which backends and progress policies a benchmark binary was built with."""

import os
import re
import shutil
import subprocess
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


def mpirun_prefix(flavor, nprocs, hostfile=None, per_node=None, launcher=None):
    """The launcher words for `nprocs` ranks. per_node=1 spreads ranks one per host (the
    ping-pong layout on a cluster)."""
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
    cmd += ["-np", str(nprocs)]
    return cmd


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


_KNOWN = re.compile(r"\(known: ([^)]*)\)")


def discover_backends(flavor, binary, timeout=60):
    """{backend: [progress policies]} (raw baselines map to []), asked from the binary
    itself: an unknown backend name makes it list the known ones, an unknown policy makes
    it list the policies. Returns {} when the binary cannot run."""
    if not os.path.exists(binary):
        return {}
    pre = mpirun_prefix(flavor, 2)
    env = mpi_env(flavor)
    rc, out = run(pre + [binary, "--backend", "no-such-backend", "-b", "1", "-e", "1"],
                  env=env, timeout=timeout)
    m = _KNOWN.search(out)
    if not m:
        return {}
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    result = {}
    for name in names:
        if name.startswith("raw-"):
            result[name] = []
            continue
        rc, out = run(pre + [binary, "--backend", name + ":no-such-policy", "-b", "1", "-e", "1"],
                      env=env, timeout=timeout)
        m = _KNOWN.search(out)
        result[name] = [p.strip() for p in m.group(1).split(",")] if m else [""]
    return result


class Progress:
    """'[run i/n] elapsed, ETA' lines; the ETA weighs each run by its expected cost."""

    def __init__(self, total_weight, total_runs):
        self.start = time.time()
        self.total_weight = max(total_weight, 1e-9)
        self.done_weight = 0.0
        self.total_runs = total_runs
        self.i = 0

    def begin(self, label):
        self.i += 1
        el = time.time() - self.start
        if self.done_weight > 0:
            eta = el / self.done_weight * (self.total_weight - self.done_weight)
            eta_s = _hms(eta)
        else:
            eta_s = "?"
        print("[run %d/%d] elapsed %s, ETA %s: %s" % (self.i, self.total_runs, _hms(el), eta_s,
                                                    label), flush=True)

    def end(self, weight):
        self.done_weight += weight


def _hms(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60) if s >= 3600 else \
        "%d:%02d" % (s // 60, s % 60)
