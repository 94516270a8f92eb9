"""What the link emulator itself costs: two hosts on the full-speed bridge against two
hosts through linkemu at zero delay, frame by frame and with TCP's superframes whole, the
same 8 B ping-pong and 4 MiB bandwidth on each, alternating within each round so all see the
same machine state. Latency is probed with raw-ucx
(UCX_TLS=tcp: a busy-polling loop over a TCP socket), not raw-tcp: raw-tcp's blocking
receive pays a scheduler wake-up that flips between about 3 and 35 us on this VM from one
run to the next, which would swamp the few microseconds measured here. Medians over rounds; the
result (with every round's raw numbers and the command) is what `up` puts into every run's
sidecar over the emulator (COMMBENCH_LINK.emulator_cost). Beside it, the floor under any
user-space forwarder's cost on this machine: one process wake-up (microbench/wake_probe)."""

import csv
import datetime
import json
import os
import statistics
import subprocess
import tempfile

LATENCY_PROBE = "raw-ucx"
BANDWIDTH_PROBE = "raw-tcp"


def _vc(vcluster, name, *args, timeout=300):
    p = subprocess.run([vcluster, "--name", name] + list(args), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("vcluster %s: %s" % (" ".join(args[:3]), p.stdout.strip()[-500:]))
    return p.stdout


def _measure(vcluster, name, build_dir, folder, tag):
    pp = os.path.join(folder, "pp-%s.csv" % tag)
    bw = os.path.join(folder, "bw-%s.csv" % tag)
    _vc(vcluster, name, "mpirun", "openmpi" if "openmpi" in build_dir else "mpich", "--",
        os.path.join(build_dir, "microbench", "pingpong"), "--backend", LATENCY_PROBE, "-b", "8",
        "-e", "8", "--iters", "4000", "--reps", "4", "--csv", pp)
    _vc(vcluster, name, "mpirun", "openmpi" if "openmpi" in build_dir else "mpich", "--",
        os.path.join(build_dir, "microbench", "bandwidth"), "--backend", BANDWIDTH_PROBE, "-b", "4M",
        "-e", "4M", "--iters", "20", "--iters-large", "20", "--reps", "2", "--window", "16",
        "--csv", bw)
    with open(pp) as f:
        lat = float(next(csv.DictReader(f))["latency_us_p50"])
    with open(bw) as f:
        mbps = float(next(csv.DictReader(f))["bandwidth_MBps"])
    return lat, mbps


def _commit():
    """The checkout's commit, -dirty when tracked files outside results/ differ (the record
    this writes is under results/ and differs from the last one by design)."""
    here = os.path.dirname(os.path.abspath(__file__))

    def git(*args):
        return subprocess.run(["git", "-C", here] + list(args), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()

    commit = git("rev-parse", "--short=7", "HEAD")
    if not commit:
        return None
    top = git("rev-parse", "--show-toplevel")
    dirty = git("-C", top, "status", "--porcelain", "--untracked-files=no", "--", ".",
                ":(exclude)results")
    return commit + ("-dirty" if dirty else "")


def wake_floor(build_dir):
    """The least one user-space hop costs here (microbench/wake_probe: a process woken from
    read() by another's write, on the same CPU and on another), or None without the probe.
    At zero delay linkemu adds at least the same-CPU figure to every frame."""
    probe = os.path.join(build_dir, "microbench", "wake_probe")
    if not os.access(probe, os.X_OK):
        return None
    p = subprocess.run([probe], text=True, stdout=subprocess.PIPE, timeout=120)
    return json.loads(p.stdout) if p.returncode == 0 else None


# How each mode brings the two hosts up. The emulator carries TCP's offload superframes whole
# on links with only delay and rate (what `up` does there), frame by frame on the others.
MODES = (("bridge", []),
         ("frames", ["--via-emulator", "--link", "superframes=off"]),
         ("superframes", ["--via-emulator"]))
# Issue 28's bound on the emulator's own cost at zero delay.
TARGETS = {"added_latency_us_one_way_max": 2.0, "bandwidth_ratio_min": 0.8}


def _spread(values, digits):
    return round(statistics.median(values), digits), [round(min(values), digits),
                                                      round(max(values), digits)]


def summarize(rounds_out):
    """Per emulator mode: its cost within each round (against that round's bridge run, so a
    machine that changes mode between rounds moves both sides alike), median and range."""
    by = {(r["round"], r["mode"]): r for r in rounds_out}
    rounds = sorted({r["round"] for r in rounds_out})
    modes = {}
    for mode, _ in MODES[1:]:
        added = [by[(i, mode)]["latency_us_p50"] - by[(i, "bridge")]["latency_us_p50"]
                 for i in rounds]
        ratio = [by[(i, mode)]["bandwidth_MBps"] / by[(i, "bridge")]["bandwidth_MBps"]
                 for i in rounds]
        lat, lat_range = _spread(added, 2)
        bw, bw_range = _spread(ratio, 3)
        modes[mode] = {
            "added_latency_us_one_way": lat, "added_latency_us_one_way_range": lat_range,
            "latency_us_emulator": statistics.median(by[(i, mode)]["latency_us_p50"]
                                                     for i in rounds),
            "bandwidth_MBps_emulator": round(statistics.median(
                by[(i, mode)]["bandwidth_MBps"] for i in rounds), 1),
            "bandwidth_ratio_emulator_over_bridge": bw, "bandwidth_ratio_range": bw_range,
            "meets_targets": {
                "latency": lat <= TARGETS["added_latency_us_one_way_max"],
                "bandwidth": bw >= TARGETS["bandwidth_ratio_min"]},
        }
    return modes


def cost_of_mode(cost, superframes):
    """The cost a run over the emulator records: the shared fields and its own mode's
    figures, flat (a record from before the modes is returned as it is)."""
    if not cost or "modes" not in cost:
        return cost
    mode = "superframes" if superframes else "frames"
    flat = {k: v for k, v in cost.items() if k not in ("modes", "rounds")}
    flat.update(cost["modes"][mode], mode=mode)
    return flat


def run(name, build_dir, rounds, out, vcluster):
    rounds_out = []
    with tempfile.TemporaryDirectory(prefix="vcluster-calibrate-") as tmp:
        for i in range(rounds):
            # Each round starts one mode later, so no mode always runs first after a rest.
            for mode, extra in MODES[i % len(MODES):] + MODES[:i % len(MODES)]:
                _vc(vcluster, name, "down")
                _vc(vcluster, name, "up", "--hosts", "2", *extra)
                try:
                    lat, mbps = _measure(vcluster, name, build_dir, tmp, "%s-%d" % (mode, i))
                finally:
                    _vc(vcluster, name, "down")
                rounds_out.append({"round": i, "mode": mode, "latency_us_p50": lat,
                                   "bandwidth_MBps": mbps})
    bridge = [r for r in rounds_out if r["mode"] == "bridge"]
    result = {
        "what": "2 virtual hosts, full-speed bridge vs linkemu at zero delay, frame by frame "
                "and with superframes whole, alternating in each round: 8 B latency (%s, "
                "UCX_TLS=tcp), 4 MiB bandwidth (%s); each mode's added latency and bandwidth "
                "ratio are medians of per-round differences and ratios against the round's "
                "bridge run, [min, max] beside them" % (LATENCY_PROBE, BANDWIDTH_PROBE),
        "modes": summarize(rounds_out),
        "targets": TARGETS,
        "latency_us_bridge": statistics.median(r["latency_us_p50"] for r in bridge),
        "bandwidth_MBps_bridge": round(statistics.median(r["bandwidth_MBps"] for r in bridge), 1),
        "wake_floor_us_one_way": wake_floor(build_dir),
        "rounds": rounds_out, "build_dir": os.path.relpath(build_dir),
        "commit": _commit(),
        "measured_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load_avg_1min_after": os.getloadavg()[0],
        "command": "scripts/vcluster calibrate --build-dir %s --rounds %d" % (
            os.path.relpath(build_dir), rounds),
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    return result
