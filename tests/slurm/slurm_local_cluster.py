#!/usr/bin/python3
"""CTest slurm_local_cluster: a real Slurm on this machine, end to end, on one node and
across four.

  One node: up (scripts/slurm/local_cluster) -> srun_smoke's ping-pong -> down.
  Four nodes: a virtual cluster of 4 hosts (scripts/vcluster, --vcluster-name) -> up
  --vcluster, one slurmd per host -> srun path (scripts/slurm/srun_smoke --nodes 4:
  validated ping-pong of every backend on 2 nodes, transpose_sum per backend on 4) ->
  sbatch --wait of scripts/slurm/smoke.sbatch on 4 nodes (the same through srun inside a
  batch allocation) -> sbatch --wait of scripts/slurm/commbench.sbatch on 4 nodes, one
  task each, with a tiny tcp-only profile (reproduce under the allocation: ping-pong one
  rank per node, the applications on all four, no build) -> down, vcluster down; then no
  process of the cluster and no namespace may be left.

Every step must leave CSVs with rows and no wrong bytes, each on as many distinct hosts as
it spread over (the sidecars' `hosts`). Exit 77 (CTest: skipped) only when local_cluster
or vcluster says this machine cannot run them (not root, packages missing). The driver
makes itself the subreaper of what it starts, so the daemons it stops are reaped here, and
it keeps its own deadline (--budget) so that it cleans up before CTest's TIMEOUT would
kill it."""

import argparse
import ctypes
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLURM = os.path.join(ROOT, "scripts", "slurm")
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

from cbcluster import cluster as vcl, namespaces as nsx  # noqa: E402
from cbresults import launch  # noqa: E402

SKIP = 77


class Failed(Exception):
    pass


class Interrupted(Exception):
    pass


def make_subreaper():
    PR_SET_CHILD_SUBREAPER = 36
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def load_script(path):
    """A Python script without .py (scripts/slurm/srun_smoke) as a module."""
    loader = importlib.machinery.SourceFileLoader(os.path.basename(path), path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name,
                                                                             loader))
    loader.exec_module(module)
    return module


def session_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[4])
    except (OSError, IndexError, ValueError):
        return None


def proc_tree():
    """{pid: (ppid, exe basename)} of live processes."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] in ("Z", "X"):
                continue
            exe = os.path.basename(os.readlink("/proc/%d/exe" % pid)).split(" ")[0]
        except (OSError, IndexError):
            continue
        tree[pid] = (int(fields[1]), exe)
    return tree


def stop_own_clients(daemon_pids):
    """SIGKILL what this driver started and still runs (srun_smoke, srun, sbatch after an
    interrupt or a time limit): every descendant except the cluster's daemons, its step
    daemons and their tasks, which `local_cluster down` ends the proper way."""
    tree = proc_tree()
    kids = {}
    for pid, (ppid, _) in tree.items():
        kids.setdefault(ppid, []).append(pid)
    spared = set()
    todo = [p for p, (_, exe) in tree.items()
            if p in daemon_pids or exe.startswith("slurmstepd")]
    while todo:
        p = todo.pop()
        if p not in spared:
            spared.add(p)
            todo.extend(kids.get(p, []))
    victims, todo = [], list(kids.get(os.getpid(), []))
    while todo:
        p = todo.pop()
        if p not in spared:
            victims.append(p)
        todo.extend(kids.get(p, []))
    for p in victims:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if victims:
        print("    stopped %d process(es) this test had started: %s" % (
            len(victims), " ".join(map(str, victims))))
        time.sleep(0.2)
        reap()


def leftovers(conf, sessions):
    """Live processes (not this one) in a daemon's session, or whose environment names the
    cluster's slurm.conf (srun, slurmstepd, job tasks)."""
    marker = ("SLURM_CONF=%s" % conf).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        if not nsx.alive(pid):
            continue
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if session_of(pid) in sessions:
            found.append((pid, cmd))
            continue
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append((pid, cmd))
        except OSError:
            pass
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--flavor", required=True)
    ap.add_argument("--dir", required=True, help="the cluster's scratch folder")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--out", required=True, help="CSV output folder (emptied first)")
    ap.add_argument("--vcluster-name", required=True,
                    help="name of the 4-host virtual cluster this test makes and removes")
    ap.add_argument("--budget", type=float, default=240,
                    help="seconds for all steps before cleaning up (default 240)")
    args = ap.parse_args()


    t_start = time.time()
    deadline = t_start + args.budget
    smoke = load_script(os.path.join(SLURM, "srun_smoke"))   # its CSV check
    lc = os.path.join(SLURM, "local_cluster")
    conf = os.path.join(args.dir, "slurm.conf")
    make_subreaper()

    def on_signal(signum, frame):
        raise Interrupted(signal.Signals(signum).name)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    def step(label, cmd, env=None, limit=120):
        left = deadline - time.time()
        if left < 5:
            raise Failed("%s: no time left in the %.0f s budget" % (label, args.budget))
        t0 = time.time()
        rc, out = launch.run(cmd, env=env, timeout=min(limit, left))
        print("[%5.1f s] %s: exit %d in %.1f s" % (t0 - t_start, label, rc, time.time() - t0))
        print("\n".join("    " + line for line in out.rstrip().splitlines()), flush=True)
        return rc, out

    def need_rows(path, at_least=1, hosts=None):
        """At least `at_least` rows, none with wrong bytes, and the ranks on exactly
        `hosts` distinct hosts (the sidecar's `hosts`)."""
        if not os.path.exists(path):
            raise Failed("%s: missing" % path)
        rows, wrong = smoke.csv_rows(path)
        if rows < at_least:
            raise Failed("%s: %d rows, expected at least %d" % (path, rows, at_least))
        if wrong:
            raise Failed("%s: %d rows with wrong bytes" % (path, wrong))
        on = smoke.csv_hosts(path)
        if hosts is not None and len(on) != hosts:
            raise Failed("%s: ran on %s, expected %d distinct hosts" % (
                path, ", ".join(on) or "no recorded host", hosts))
        print("    %s: %d rows on %s" % (os.path.relpath(path, args.out), rows, ", ".join(on)))

    vc = os.path.join(ROOT, "scripts", "vcluster")
    vcn = ["--name", args.vcluster_name]
    # A cluster left by an earlier, killed run of this test goes first.
    if os.path.isdir(args.dir):
        step("stale cluster: down", [lc, "down", "--dir", args.dir])
    if os.path.exists(vcl.state_dir(args.vcluster_name)):
        step("stale virtual cluster: down", [vc] + vcn + ["down"])
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)

    # --- one node: this machine ---
    rc, out = step("local_cluster up (one node)", [
        lc, "up", "--dir", args.dir, "--port", str(args.port), "--cluster-name",
        "cb" + args.flavor])
    if rc == SKIP:
        print(out.strip().splitlines()[-1] if out.strip() else "skipped")
        return SKIP
    status = 0
    daemons = {}
    try:
        if rc != 0:
            raise Failed("local_cluster up failed")
        daemons = read_daemons(args.dir)
        env = dict(os.environ, SLURM_CONF=conf)
        one = os.path.join(args.out, "one-node")
        rc, _ = step("srun ping-pong on one node (srun_smoke)", [
            os.path.join(SLURM, "srun_smoke"), "--build-dir", args.build_dir, "--out", one,
            "--app-backends", ""], env=env)
        if rc != 0:
            raise Failed("srun_smoke exited %d" % rc)
        need_rows(os.path.join(one, "pingpong-%s.csv" % args.flavor), 5, hosts=1)
    except Failed as e:
        print("FAILED: %s" % e, flush=True)
        status = 1
    except Interrupted as e:
        print("interrupted (%s); cleaning up" % e, flush=True)
        return 1 | cleanup(lc, args.dir, conf, daemons, t_start)
    status |= cleanup(lc, args.dir, conf, daemons, t_start)
    if status:
        return status

    # --- four nodes: one slurmd per virtual host ---
    rc, out = step("vcluster up --hosts 4", [vc] + vcn + ["up", "--hosts", "4"])
    if rc == SKIP:
        print(out.strip().splitlines()[-1] if out.strip() else "skipped")
        return SKIP
    daemons = {}
    try:
        if rc != 0:
            raise Failed("vcluster up failed")
        rc, _ = step("local_cluster up --vcluster (4 nodes)", [
            lc, "up", "--dir", args.dir, "--port", str(args.port), "--cluster-name",
            "cb" + args.flavor, "--vcluster", args.vcluster_name])
        if rc != 0:
            raise Failed("local_cluster up --vcluster failed")
        daemons = read_daemons(args.dir)
        slurmds = [t for t in daemons if t.startswith("slurmd-")]
        if len(slurmds) != 4:
            raise Failed("expected 4 slurmd, one per host; cluster.json has %s" % slurmds)
        on_h0 = [lc, "run", "--dir", args.dir, "--"]   # clients run on host 0

        # 1. srun from outside an allocation: every step its own job, spread over nodes
        srun_out = os.path.join(args.out, "srun")
        rc, _ = step("srun path across 4 nodes (srun_smoke --nodes 4)", on_h0 + [
            os.path.join(SLURM, "srun_smoke"), "--build-dir", args.build_dir,
            "--out", srun_out, "--nodes", "4"])
        if rc != 0:
            raise Failed("srun_smoke exited %d" % rc)
        need_rows(os.path.join(srun_out, "pingpong-%s.csv" % args.flavor), 5, hosts=2)
        for b in ("tcp", "mpi", "ucx"):
            need_rows(os.path.join(srun_out, "transpose_sum-%s-%s.csv" % (b, args.flavor)), 2,
                      hosts=4)

        # 2. a batch job whose steps are srun inside its 4-node allocation
        sb_out = os.path.join(args.out, "sbatch-smoke")
        rc, _ = step("sbatch --wait smoke.sbatch (4 nodes)", on_h0 + [
            "env", "COMMBENCH_BUILD_DIR=" + args.build_dir, "COMMBENCH_SMOKE_OUT=" + sb_out,
            "COMMBENCH_SMOKE_ARGS=--app-backends mpi",
            "sbatch", "--wait", "--chdir", ROOT, "--time", "3", "--nodes", "4",
            "--ntasks", "4", "--output", os.path.join(args.out, "sbatch-smoke.out"),
            os.path.join(SLURM, "smoke.sbatch")])
        print_file(os.path.join(args.out, "sbatch-smoke.out"))
        if rc != 0:
            raise Failed("smoke batch job exited %d" % rc)
        need_rows(os.path.join(sb_out, "pingpong-%s.csv" % args.flavor), 5, hosts=2)
        need_rows(os.path.join(sb_out, "transpose_sum-mpi-%s.csv" % args.flavor), 2, hosts=4)

        # 3. the study's own batch file, tiny and tcp only, one task per node: ping-pong
        #    one rank per node, the applications (scheduler, client, 2 workers) on all 4
        cb_out = os.path.join(args.out, "commbench-sbatch")
        rc, _ = step("sbatch --wait commbench.sbatch (--tiny, tcp, 4 nodes)", on_h0 + [
            "env", "COMMBENCH_PROFILE=--tiny", "COMMBENCH_MPI=" + args.flavor,
            "COMMBENCH_BUILD_DIR=" + args.build_dir, "COMMBENCH_WORKERS=2",
            "COMMBENCH_OUT=" + cb_out,
            "COMMBENCH_EXTRA_ARGS=--backends tcp --skip external,dask --wait-quiet 0",
            "sbatch", "--wait", "--chdir", ROOT, "--nodes", "4", "--ntasks-per-node", "1",
            "--time", "5", "--output", os.path.join(args.out, "commbench-sbatch.out"),
            os.path.join(SLURM, "commbench.sbatch")], limit=180)
        print_file(os.path.join(args.out, "commbench-sbatch.out"), tail=12)
        if rc != 0:
            raise Failed("commbench.sbatch job exited %d" % rc)
        need_rows(os.path.join(cb_out, "csv", "pingpong-tcp-%s.csv" % args.flavor), hosts=2)
        need_rows(os.path.join(cb_out, "csv", "transpose_sum-tcp-epoll-dask-w2-%s.csv" %
                               args.flavor), hosts=4)
    except Failed as e:
        print("FAILED: %s" % e, flush=True)
        status = 1
    except Interrupted as e:
        print("interrupted (%s); cleaning up" % e, flush=True)
        status = 1
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        status |= cleanup(lc, args.dir, conf, daemons, t_start)
        rc, _ = launch.run([vc] + vcn + ["down"], timeout=60)
        print("[%5.1f s] vcluster down: exit %d" % (time.time() - t_start, rc))
        left_ns = [n for n in os.listdir(nsx.NETNS_DIR) if n.startswith(
            args.vcluster_name + "-")] if os.path.isdir(nsx.NETNS_DIR) else []
        if rc != 0 or left_ns:
            status = 1
            print("FAILED: vcluster down exited %d; namespaces left: %s" % (
                rc, ", ".join(left_ns) or "none"))
    print("slurm_local_cluster (%s): %s in %.1f s" % (
        args.flavor, "passed" if status == 0 else "FAILED", time.time() - t_start))
    return status


def read_daemons(d):
    with open(os.path.join(d, "cluster.json")) as f:
        daemons = {tag: pid for tag, _, pid in json.load(f)["daemons"]}
    print("    daemons: %s" % ", ".join("%s %d" % kv for kv in sorted(daemons.items())))
    return daemons


def cleanup(lc, d, conf, daemons, t_start):
    """Stops what the test started, `local_cluster down`, then checks that no process of
    the cluster and not its folder is left. 0 when clean, 1 otherwise."""
    status = 0
    stop_own_clients(set(daemons.values()))
    rc, _ = launch.run([lc, "down", "--dir", d], timeout=60)
    print("[%5.1f s] local_cluster down: exit %d" % (time.time() - t_start, rc))
    if rc != 0:
        status = 1
    time.sleep(0.2)
    reap()
    left = [(n, p) for n, p in daemons.items() if nsx.alive(p)]
    left_any = leftovers(conf, set(daemons.values()))
    if left or left_any:
        status = 1
        print("FAILED: left running after down: %s" % "; ".join(
            ["%s pid %d" % lp for lp in left] + ["pid %d: %s" % lp for lp in left_any]))
    else:
        print("    no process of the cluster left (%s)" % ", ".join(sorted(daemons)))
    if os.path.exists(d):
        status = 1
        print("FAILED: %s still exists after down" % d)
    return status


def print_file(path, tail=None):
    try:
        lines = open(path, errors="replace").read().rstrip().splitlines()
    except OSError:
        print("    (%s: none)" % path)
        return
    if tail:
        lines = lines[-tail:]
    print("    --- %s" % os.path.basename(path))
    print("\n".join("    | " + line for line in lines), flush=True)


if __name__ == "__main__":
    sys.exit(main())
