"""The machine's state around a run: load average before, during and after, the VM's
latency mode (a short raw shared-memory probe), one core's memcpy bandwidth (the floor
under large messages), and whether the run counts as *quiet*.

Why: on this machine class a busy neighbour or the VM's vCPU placement moves every
figure (BRIEF section 2: a raw two-thread ping-pong is 0.054 or 0.25 us one-way, and MPI/UCX
small-message latency moves 3-4x with it), so a result is only worth as much as the state
it was taken in. Every sidecar carries that state and the report marks runs that were not
quiet; `scripts/regress --update` refuses to write a reference from one.

Quiet (issue "The study's answer"): 1-minute load average below QUIET_BEFORE before the
run and at most QUIET_DURING while it runs."""

import json
import os
import re
import subprocess
import threading
import time

QUIET_BEFORE = 1.0
QUIET_DURING = 2.5
QUIET_RULE = ("quiet = 1-minute load average < %.1f before the run and <= %.1f during it "
              "(sampled every second)" % (QUIET_BEFORE, QUIET_DURING))

# Launchers pass secrets to their ranks through the environment (Open MPI's job key, the
# HNP contact URI, PMIx server URIs and security tokens). They identify a live job and
# mean nothing afterwards; a sidecar is committed, so they never go in. The same rule as
# microbench/harness/secret_env.cpp.
_SECRET = re.compile(r"precondition_transports|_URI|PMIX_SECURITY|TOKEN|SECRET|PASSWORD|KEY",
                     re.I)


def is_secret(name):
    return bool(_SECRET.search(name))


def load1():
    return round(os.getloadavg()[0], 2)


def probe(build_dir, timeout=20, name="latency_probe"):
    """A probe's JSON, or None when the build has no such probe or it fails (then the mode
    is 'unknown', not guessed). latency_probe: {one_way_ns_p50, mode: fast|slow, ...};
    memcpy_probe: {copy_MBps_p50, bytes, ...}."""
    exe = os.path.join(build_dir, "microbench", name) if build_dir else None
    if not exe or not os.access(exe, os.X_OK):
        return None
    try:
        out = subprocess.run([exe], capture_output=True, text=True, timeout=timeout)
        return json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


class Watch:
    """Samples the 1-minute load average once a second while a run goes on. `study_before`:
    the load before a whole study began; back-to-back runs keep the load near the ranks'
    own count, so within a study the quiet rule's "before" is the study's."""

    def __init__(self, build_dir=None, study_before=None):
        self.build_dir = build_dir
        self.study_before = study_before
        self.before = self.after = self.max_during = None
        self.probe = None
        self.memcpy = None
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        self.before = load1()
        self.probe = probe(self.build_dir)
        self.memcpy = probe(self.build_dir, name="memcpy_probe")
        self.max_during = self.before
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(1.0):
            self.max_during = max(self.max_during, load1())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(2)
        self.after = load1()
        self.max_during = max(self.max_during, self.after)
        return False

    def quiet(self):
        before = self.before if self.study_before is None else self.study_before
        return before < QUIET_BEFORE and self.max_during <= QUIET_DURING

    def state(self):
        """The sidecar's "run_state" object."""
        p = self.probe or {}
        out = {
            "load_avg_1min_before": self.before,
            "load_avg_1min_max_during": self.max_during,
            "load_avg_1min_after": self.after,
            "cpus_online": os.cpu_count(),
            "latency_mode": p.get("mode", "unknown"),
            "latency_probe": self.probe,
            "memcpy_probe": self.memcpy,
            "quiet": self.quiet(),
            "quiet_rule": QUIET_RULE,
        }
        if self.study_before is not None:
            out["load_avg_1min_before_study"] = self.study_before
        return out


def annotate(sidecar, state):
    """Adds `state` to a JSON sidecar as "run_state" (written by the program that ran; the
    launcher alone sees the load before and during the whole job)."""
    try:
        with open(sidecar) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return False
    meta["run_state"] = state
    tmp = sidecar + ".partial"
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    os.replace(tmp, sidecar)
    return True


def wait_quiet(limit_s=0, log=print):
    """Waits up to limit_s seconds for the load to fall below QUIET_BEFORE; returns the
    load it saw last. Runs taken anyway are marked, not hidden."""
    deadline = time.time() + limit_s
    now = load1()
    while now >= QUIET_BEFORE and time.time() < deadline:
        log("machine: load %.2f >= %.1f, waiting for it to settle" % (now, QUIET_BEFORE))
        time.sleep(min(15, max(1, deadline - time.time())))
        now = load1()
    return now
