#!/usr/bin/env python3
"""Instructions per message on the in-process ping-pong, against a stored budget.

Runs icount_pingpong under callgrind (instructions executed by the main thread, not
time: the same binary and inputs give the same count however loaded the machine is),
takes (count at N2 round trips - count at N1) / (2 (N2 - N1)) per backend:policy, and
compares it with budget.json for this MPI flavour. Exit 1, one line per policy over its
budget; 0 when every policy is within it. tests/icount/README.md says when and how to
re-record (--record).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BUDGET = os.path.join(HERE, "budget.json")
LABEL = re.compile(r"^desc: Trigger: Client Request: commbench-icount (\S+) (\d+)$")


def run_group(args, policies, workdir):
    """One valgrind process for `policies`: {policy: {N: instructions}}."""
    out = os.path.join(workdir, "cg.out")
    cmd = [
        "valgrind", "--tool=callgrind", "--separate-threads=yes", "--collect-systime=yes",
        "--callgrind-out-file=" + out, "--dump-line=no",
        args.driver, "--size", str(args.size), "--warmup", str(args.warmup),
        "--counts", ",".join(str(n) for n in args.counts), *policies,
    ]
    if any(p.startswith("mpi:") for p in policies):
        cmd = [args.mpiexec, "-np", "1"] + (["--oversubscribe"] if args.mpi_flavor == "openmpi"
                                            else []) + cmd
    # mpirun.openmpi refuses root unless told (as every mpirun test here: COMMBENCH_LEAKCHECK_ENV).
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    if r.returncode != 0:
        sys.exit("icount: %s exited %d:\n%s" % (" ".join(cmd), r.returncode,
                                                  (r.stdout + r.stderr)[-3000:]))
    counts = {}
    # With --separate-threads each dump is cg.out.<n>-<thread>; thread 01 is the main one,
    # where the loop runs (library helper threads would add counts that depend on time).
    for path in glob.glob(out + ".*-01"):
        label, events, total = None, None, None
        with open(path) as f:
            for line in f:
                m = LABEL.match(line.strip())
                if m:
                    label = (m.group(1), int(m.group(2)))
                elif line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("summary:"):
                    total = dict(zip(events, [int(v) for v in line.split()[1:]]))
        if label and total is not None:
            # A dump leaves out trailing zero events: no sysCount = no system call.
            counts.setdefault(label[0], {})[label[1]] = (total.get("Ir", 0),
                                                          total.get("sysCount", 0))
        os.unlink(path)
    for p in policies:
        if p not in counts or set(counts[p]) != set(args.counts):
            sys.exit("icount: no counts for %s in callgrind's output (%s)" % (p, counts.get(p)))
    return counts


def per_message(c, counts, i):
    """Event i (0: instructions, 1: system calls) per message."""
    n1, n2 = counts[0], counts[-1]
    # A round trip is two messages: a write and a read at each end, both ends counted.
    return (c[n2][i] - c[n1][i]) / (2.0 * (n2 - n1))


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def measure(args, policies):
    groups = [[p for p in policies if not p.startswith("mpi:")],
              [p for p in policies if p.startswith("mpi:")]]
    result = {p: ([], []) for p in policies}
    with tempfile.TemporaryDirectory(prefix="icount-") as tmp:
        for _ in range(args.runs):
            for g in groups:
                if not g:
                    continue
                got = run_group(args, g, tmp)
                for p in g:
                    for i in (0, 1):
                        result[p][i].append(per_message(got[p], args.counts, i))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--driver", required=True, help="the icount_pingpong binary")
    ap.add_argument("--mpiexec", default="mpirun", help="launcher for the mpi policies")
    ap.add_argument("--mpi-flavor", required=True, help="openmpi or mpich: the budget's key")
    ap.add_argument("--budget", default=DEFAULT_BUDGET)
    ap.add_argument("--policies", help="comma-separated; default: the budget's")
    ap.add_argument("--runs", type=int, default=1, help="measure this many times (median)")
    ap.add_argument("--record", action="store_true",
                    help="write the measured figures into the budget instead of checking")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per valgrind run")
    args = ap.parse_args()

    with open(args.budget) as f:
        budget = json.load(f)
    args.size, args.warmup, args.counts = budget["size"], budget["warmup"], budget["counts"]
    flavor = budget["flavors"].setdefault(args.mpi_flavor, {})
    if args.policies:
        policies = args.policies.split(",")
    elif flavor:
        policies = list(flavor)
    else:
        sys.exit("icount: budget.json has no %s entry: name --policies and --record"
                 % args.mpi_flavor)

    measured = measure(args, policies)
    margin, sys_margin = budget["margin"], budget["syscall_margin"]
    failed = []
    for p in policies:
        ir_runs, sys_runs = measured[p]
        ir, sc = median(ir_runs), median(sys_runs)
        spread = "" if len(ir_runs) < 2 else " [%d runs: %s; spread %.3f %%]" % (
            len(ir_runs), " ".join("%.2f" % r for r in ir_runs),
            100.0 * (max(ir_runs) - min(ir_runs)) / ir)
        if args.record:
            flavor[p] = {"instructions": round(ir), "syscalls": round(sc, 2)}
            print("icount: %s: %.2f instructions and %.2f system calls per message recorded%s"
                  % (p, ir, sc, spread))
            continue
        if p not in flavor:
            failed.append("icount: %s: %.2f instructions per message, no budget recorded" % (p, ir))
            continue
        b = flavor[p]
        ir_limit = b["instructions"] * (1 + margin)
        sc_limit = b["syscalls"] + sys_margin
        line = ("icount: %s: %.2f instructions per message, budget %d +%g %% = %.0f (%+.2f %%); "
                "%.2f system calls, budget %g + %g" % (
                    p, ir, b["instructions"], 100 * margin, ir_limit,
                    100.0 * (ir / b["instructions"] - 1), sc, b["syscalls"], sys_margin))
        over = [what for what, bad in (("instructions", ir > ir_limit),
                                       ("system calls", sc > sc_limit)) if bad]
        if over:
            failed.append(line + spread + ": OVER BUDGET (%s)" % ", ".join(over))
        else:
            note = ""
            if ir < b["instructions"] * (1 - margin) or sc < b["syscalls"] - sys_margin:
                note = " (well under: re-record the budget, tests/icount/README.md)"
            print(line + spread + ": ok" + note)
    if args.record:
        with open(args.budget, "w") as f:
            json.dump(budget, f, indent=2)
            f.write("\n")
        return 0
    for line in failed:
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
