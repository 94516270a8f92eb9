#!/usr/bin/python3
"""What a benchmark run listens on, watched from outside with `ss` while it runs.

  check_listeners.py [--interface auto] BINARY -- LAUNCHER...

Runs a ping-pong over every backend (tcp, ucx, mpi and their raw baselines) under
LAUNCHER and samples `ss -ltnpH` (TCP) and `ss -lunpH` (UDP) until it ends, keeping the
sockets of the run's processes (the launcher and everything it started). Fails when a
benchmark rank listens on a wildcard address (0.0.0.0, [::], *), or on anything but the
loopback (by default: every rank is on this host), or, with --interface auto (this host's
first non-loopback IPv4 interface that is up, passed as --interface NAME), on anything but
that interface's address.

The launcher's own sockets are listed, not judged: Open MPI 4.1's mpirun (its oob) and
MPICH 4.0's Hydra bind the wildcard address and offer no setting that changes it. Hydra
also leaks its control socket into every rank; the ranks close their copy at start
(harness/inherited_listeners.hpp), so it must not show up under a benchmark's name.
Exits non-zero with one line naming the first problem."""

import os
import re
import subprocess
import sys
import time

from checklib import fail  # this folder

WILDCARD = re.compile(r"^(0\.0\.0\.0|\[::\]|\*|\[::ffff:0\.0\.0\.0\]):")
USERS = re.compile(r'\("([^"]+)",pid=(\d+),fd=(\d+)\)')
LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|\[::1\]):")


def first_interface():
    """(name, address) of the first non-loopback IPv4 interface that is up, or None."""
    out = subprocess.run(["ip", "-o", "-4", "addr", "show", "up"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[1] != "lo" and f[2] == "inet":
            return f[1], f[3].split("/")[0]
    return None


def children_of(root):
    """Every live descendant of pid `root`, and root itself."""
    parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        parent[int(d)] = int(stat[stat.rindex(")") + 2:].split()[1])
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


def sample(proto_flag, pids):
    """{(process, pid, local address)} of listening sockets owned by `pids`."""
    out = subprocess.run(["ss", proto_flag + "npH"], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 5:
            continue
        local = f[3]
        for name, pid, _fd in USERS.findall(line):
            if int(pid) in pids:
                found.add((name, int(pid), local))
    return found


def main(argv):
    args = argv[1:]
    want = None
    if args[:2] == ["--interface", "auto"]:
        want = first_interface()
        if want is None:
            print("skipped: no non-loopback IPv4 interface is up")
            return
        args = args[2:]
    if "--" not in args:
        fail(__doc__)
    binary, launcher = args[0], args[args.index("--") + 1:]
    bench = os.path.basename(binary)[:15]  # the kernel's comm is 15 characters
    cmd = launcher + [binary, "--backend", "tcp,ucx,mpi,raw-tcp,raw-ucx,raw-mpi", "-b", "8",
                      "-e", "8", "--iters", "20000", "--warmup", "100", "--reps", "2",
                      "--timeout", "90"]
    if want:
        cmd += ["--interface", want[0]]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    tcp, udp = set(), set()
    bench_seen = False
    deadline = time.time() + 100
    while p.poll() is None and time.time() < deadline:
        pids = children_of(p.pid)
        tcp |= sample("-lt", pids)
        udp |= sample("-lu", pids)
        bench_seen = bench_seen or any(name == bench for name, _, _ in tcp)
        time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, 9)
        fail("the run did not end within 100 s: %s" % " ".join(cmd))
    out = p.stdout.read()
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, out.strip()[-600:]))
    if not bench_seen:
        fail("never saw a listening socket of %s (ucx opens some for its whole run): the "
             "sampling missed the run" % bench)
    allowed = LOOPBACK if want is None else re.compile(r"^%s:" % re.escape(want[1]))
    for proto, socks in (("tcp", tcp), ("udp", udp)):
        for name, pid, local in sorted(socks):
            line = "%s %s %s (pid %d)" % (proto, local, name, pid)
            if name != bench:
                print("launcher: " + line + (" [wildcard]" if WILDCARD.match(local) else ""))
                continue
            print("benchmark: " + line)
            if WILDCARD.match(local):
                fail("a benchmark rank listens on all interfaces: " + line)
            if not allowed.match(local):
                fail("a benchmark rank listens beyond %s: %s" % (
                    "the loopback" if want is None else want[0] + " " + want[1], line))
    print("ok: %d tcp and %d udp listening sockets of benchmark ranks, none on a wildcard "
          "address%s" % (sum(1 for s in tcp if s[0] == bench),
                         sum(1 for s in udp if s[0] == bench),
                         "" if want else ", all on the loopback"))


if __name__ == "__main__":
    main(sys.argv)
