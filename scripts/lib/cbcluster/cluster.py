"""One virtual cluster: N hosts (network + UTS namespaces named NAME-h0..), each with one
interface `eth0` on a private /24, joined either by a bridge that lives in a switch
namespace of its own (NAME-sw: nothing of the cluster is in the root namespace, so nothing
can route out) or, when the link needs delay, jitter or reordering, by TAP devices that the
link emulator (scripts/linkemu) forwards between.

Everything made is named after the cluster, and its state lives in STATE_ROOT/NAME/
(state.json, the UTS bind mounts, the launcher agent, hostfiles, the emulator's pid, log and
statistics), so `down` can remove all of it, also after a failed or interrupted `up`."""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import time

from . import calibrate, launchers, linkspec, namespaces as nsx
from .namespaces import IFACE, ClusterError

STATE_ROOT = os.environ.get("COMMBENCH_VCLUSTER_STATE", "/run/commbench-vcluster")
DEFAULT_NAME = "cbvc"
MAX_HOSTS = 250


def state_dir(name):
    return os.path.join(STATE_ROOT, name)


def host_ns(name, i):
    return "%s-h%d" % (name, i)


def switch_ns(name):
    return "%s-sw" % name


def check_name(name):
    # Namespace and interface names derive from it: keep them short and plain.
    if not re.fullmatch(r"[a-z][a-z0-9]{0,7}", name):
        raise ClusterError("cluster name '%s': 1-8 lower-case letters/digits, starting with a "
                           "letter" % name)


class Cluster:
    def __init__(self, name=DEFAULT_NAME):
        check_name(name)
        self.name = name
        self.dir = state_dir(name)
        self.state = None

    # --- state ---------------------------------------------------------------------------
    @property
    def state_file(self):
        return os.path.join(self.dir, "state.json")

    def exists(self):
        return os.path.exists(self.state_file)

    def load(self):
        if not self.exists():
            raise ClusterError("no virtual cluster '%s' is up (scripts/vcluster up --hosts N)"
                               % self.name)
        with open(self.state_file) as f:
            self.state = json.load(f)
        return self.state

    def _save(self):
        tmp = self.state_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f, indent=2)
        os.replace(tmp, self.state_file)

    def hosts(self):
        return self.load()["hosts"]

    def host(self, key):
        """A host by index (0), hostname (cbvc-h0) or address (10.254.0.1)."""
        hosts = self.hosts()
        for h in hosts:
            if str(key) in (str(h["index"]), h["hostname"], h["address"]):
                return h
        raise ClusterError("no host '%s' in cluster '%s' (hosts: %s)" % (
            key, self.name, ", ".join(h["hostname"] for h in hosts)))

    # --- up --------------------------------------------------------------------------------
    def up(self, nhosts, link, subnet="10.254.0", mtu=1500, emulator=None, emulator_cost=None,
           via_emulator=False):
        """Builds the cluster. Any failure (or Ctrl-C) removes what was made, then re-raises.
        via_emulator: through the emulator even when the link needs none (calibration)."""
        via = link.needs_emulator or via_emulator
        nsx.preflight()
        if not 1 <= nhosts <= MAX_HOSTS:
            raise ClusterError("--hosts %d: between 1 and %d" % (nhosts, MAX_HOSTS))
        link.validate()
        if self.exists() or glob.glob(nsx.netns_path(self.name + "-*")):
            raise ClusterError("virtual cluster '%s' already exists: scripts/vcluster down%s"
                               % (self.name, "" if self.name == DEFAULT_NAME else
                                  " --name " + self.name))
        if via and not (emulator and os.access(emulator, os.X_OK)):
            raise ClusterError("delay/jitter/reorder need the link emulator; build it: "
                               "cmake --build --preset openmpi --target linkemu")
        os.makedirs(os.path.join(self.dir, "uts"), exist_ok=True)
        self.state = {
            "name": self.name, "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "interface": IFACE, "subnet": subnet + ".0/24", "mtu": mtu,
            "link": link.summary(via_emulator),
            "hosts": [], "emulator": None, "up": False,
        }
        self._save()
        old = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            for i in range(nhosts):
                self._add_host(i, subnet, mtu, tap=via)
            if via:
                self._start_emulator(emulator, link, emulator_cost)
            else:
                self._bridge(link, mtu)
            self._write_launch_files()
            self.state["up"] = True
            self._save()
        except BaseException:
            self.down()
            raise
        finally:
            signal.signal(signal.SIGTERM, old)
        return self.state

    def _add_host(self, i, subnet, mtu, tap):
        ns = host_ns(self.name, i)
        uts = os.path.join(self.dir, "uts", ns)
        host = {"index": i, "hostname": ns, "netns": ns, "uts": uts,
                "address": "%s.%d" % (subnet, i + 1)}
        self.state["hosts"].append(host)
        self._save()  # recorded before it exists: down() removes half-made hosts too
        nsx.add_netns(ns)
        nsx.add_uts(uts, ns)
        if tap:
            # A persistent TAP: the emulator attaches to it and becomes the wire.
            nsx.ip(ns, "tuntap", "add", "dev", IFACE, "mode", "tap")
        else:
            if not nsx.netns_exists(switch_ns(self.name)):
                self._make_switch()
            # Both ends are created inside their namespaces: nothing appears in the root one.
            nsx.run(["ip", "link", "add", IFACE, "netns", ns, "type", "veth", "peer", "name",
                     "p%d" % i, "netns", switch_ns(self.name)])
            nsx.ip(switch_ns(self.name), "link", "set", "p%d" % i, "mtu", str(mtu), "master",
                   "br0", "up")
        nsx.ip(ns, "link", "set", IFACE, "mtu", str(mtu))
        nsx.ip(ns, "addr", "add", host["address"] + "/24", "dev", IFACE)
        nsx.ip(ns, "link", "set", IFACE, "up")

    def _make_switch(self):
        sw = switch_ns(self.name)
        nsx.add_netns(sw)
        nsx.ip(sw, "link", "add", "br0", "type", "bridge", "forward_delay", "0", "stp_state", "0")
        nsx.ip(sw, "link", "set", "br0", "up")

    def _bridge(self, link, mtu):
        """Rate (tbf) and loss (nftables) on each host's egress, on the full-speed bridge."""
        for h in self.state["hosts"]:
            if link.rate_bps:
                # burst: at least one kernel tick (250 Hz) of traffic at the rate, and a frame
                burst = max(link.rate_bps // 8 // 250, 2 * (mtu + 14))
                nsx.in_netns(h["netns"], ["tc", "qdisc", "add", "dev", IFACE, "root", "tbf",
                                          "rate", "%dbit" % link.rate_bps, "burst", str(burst),
                                          "latency", "20ms"])
            if link.loss_pct:
                nsx.in_netns(h["netns"], ["nft", "-f", "-"], input_text=_loss_rules(link.loss_pct))

    def _start_emulator(self, binary, link, cost):
        ready = os.path.join(self.dir, "linkemu.ready")
        pidfile = os.path.join(self.dir, "linkemu.pid")
        cmd = [binary, "--delay-us", "%g" % link.delay_us, "--jitter-us", "%g" % link.jitter_us,
               "--reorder-pct", "%g" % link.reorder_pct, "--loss-pct", "%g" % link.loss_pct,
               "--rate", "%dbit" % link.rate_bps if link.rate_bps else "0",
               "--pidfile", pidfile, "--ready-file", ready,
               "--stats", os.path.join(self.dir, "linkemu-stats.json")]
        if link.whole_superframes:
            cmd.append("--gso")
        for h in self.state["hosts"]:
            cmd += ["--port", "%s:%s" % (nsx.netns_path(h["netns"]), IFACE)]
        log = open(os.path.join(self.dir, "linkemu.log"), "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        self.state["emulator"] = {"pid": p.pid, "command": cmd,
                                  "cost": calibrate.cost_of_mode(cost, link.whole_superframes)}
        self._save()
        deadline = time.time() + 10
        while not os.path.exists(ready):
            if p.poll() is not None or time.time() > deadline:
                with open(log.name) as f:
                    tail = f.read().strip().splitlines()[-1:] or ["no output"]
                raise ClusterError("link emulator did not start: %s" % tail[0])
            time.sleep(0.02)

    def _write_launch_files(self):
        launchers.write_files(self.dir, self.state["hosts"])

    # --- down, status, link, exec -----------------------------------------------------------
    def down(self):
        """Removes everything this cluster made: processes inside its namespaces, the
        emulator, the namespaces (their devices go with them), UTS mounts, the state folder.
        Works on a half-made cluster too."""
        state = self.state
        if state is None and self.exists():
            try:
                state = self.load()
            except (OSError, ValueError):
                state = None
        emu = (state or {}).get("emulator") or {}
        if emu.get("pid") and _is_emulator(emu["pid"]):
            nsx.stop_pids([emu["pid"]])
        for path in sorted(glob.glob(nsx.netns_path(self.name + "-*"))):
            nsx.delete_netns(os.path.basename(path))
        for uts in glob.glob(os.path.join(self.dir, "uts", "*")):
            nsx.remove_uts(uts)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.state = None

    def status(self):
        st = self.load()
        out = dict(st)
        out["hosts"] = [dict(h, processes=len(nsx.pids_in(h["netns"])),
                             link_up=not self._link_is_down(h)) for h in st["hosts"]]
        emu = st.get("emulator")
        if emu:
            out["emulator"] = dict(emu, running=_is_emulator(emu["pid"]))
        return out

    def set_link(self, key, up):
        """`link HOST down` cuts the host off the network the way a pulled cable does: its
        interface stays configured, and every frame in or out is dropped (nftables in the
        host's namespace), on the bridge and on the emulator alike. `up` restores it."""
        h = self.host(key)
        if up:
            nsx.in_netns(h["netns"], ["nft", "delete", "table", "inet", "cbvc_link"], check=False)
        elif not self._link_is_down(h):
            nsx.in_netns(h["netns"], ["nft", "-f", "-"], input_text=_link_down_rules())
        return h

    def kill_host(self, key):
        """`kill HOST` loses a host the way a machine that loses power is lost: its link is
        cut first (so not even a FIN or RST leaves it), then every process in it is
        SIGKILLed at once (the ranks, the launcher's proxies' children). The processes
        whose parent lives outside the host are the launcher's remote-shell sessions (the
        agent enters the host from host 0): on a real cluster their client end is on the
        launching host and sees a lost host no sooner than the launcher does, so they are
        frozen (SIGSTOP) instead, not reaped under the launcher's eyes. The namespace stays,
        cut off, until `down`. Returns the host and the PIDs stopped or killed."""
        h = self.set_link(key, False)
        pids = nsx.pids_in(h["netns"])
        sessions = [p for p in pids if _parent_outside(p)]
        for pid in sessions:
            _signal(pid, signal.SIGSTOP)
        for pid in pids:
            if pid not in sessions:
                _signal(pid, signal.SIGKILL)
        return h, pids

    def _link_is_down(self, h):
        out = nsx.in_netns(h["netns"], ["nft", "list", "tables"], check=False, capture=True)
        return "cbvc_link" in (out or "")

    def exec_argv(self, key, cmd):
        h = self.host(key)
        return nsx.enter(h["netns"], h["uts"], cmd)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt("signal %d" % signum)


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _parent_outside(pid):
    """Whether pid's parent is in another network namespace (or gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        return os.readlink("/proc/%d/ns/net" % ppid) != os.readlink("/proc/%d/ns/net" % pid)
    except (OSError, ValueError, IndexError):
        return False


def _is_emulator(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"linkemu" in f.read().split(b"\0")[0]
    except OSError:
        return False


def _loss_rules(pct):
    # Per mille of a per-cent would lose precision below 0.1%: draw from 0..999999.
    threshold = int(round(pct * 10000))
    return ("table inet cbvc_loss {\n chain out {\n  type filter hook output priority 0;"
            " policy accept;\n  oifname \"%s\" numgen random mod 1000000 < %d drop\n }\n}\n"
            % (IFACE, threshold))


def _link_down_rules():
    return ("table inet cbvc_link {\n"
            " chain in { type filter hook input priority -10; policy accept;"
            " iifname \"%s\" drop; }\n"
            " chain out { type filter hook output priority -10; policy accept;"
            " oifname \"%s\" drop; }\n}\n" % (IFACE, IFACE))


def find_emulator(root):
    """The linkemu binary of any build folder (the emulator has no MPI in it: any does)."""
    for preset in ("openmpi", "mpich", "asan"):
        path = os.path.join(root, "build", preset, "scripts", "linkemu", "linkemu")
        if os.access(path, os.X_OK):
            return path
    return None


def load_cost(path):
    """The committed measurement of what the emulator itself adds (scripts/vcluster
    calibrate), or None."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def parse_link_args(args):
    """LinkSpec from `up`'s --delay/--jitter/--reorder/--rate/--loss."""
    link = linkspec.LinkSpec()
    if args.delay:
        link.delay_us = linkspec.parse_us(args.delay, "--delay")
    if args.jitter:
        link.jitter_us = linkspec.parse_us(args.jitter, "--jitter")
    if args.reorder:
        link.reorder_pct = linkspec.parse_pct(args.reorder, "--reorder")
    if args.rate:
        link.rate_bps = linkspec.parse_rate(args.rate)
    if args.loss:
        link.loss_pct = linkspec.parse_pct(args.loss, "--loss")
    return link.validate()
