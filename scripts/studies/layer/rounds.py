"""The loop the layer studies share (request_floor.py, bandwidth_check.py): their command
line (OUT, --rounds, --flavors) and ROUNDS invocations of one benchmark per MPI build, the
builds alternating so that a drift of the machine falls on both. Each invocation writes
OUT/<flavor>-<round>.csv with its sidecar."""
import argparse
import os

from cbresults import launch, schema

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def parse(doc, argv, default_rounds, out_help):
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("out", help=out_help)
    ap.add_argument("--rounds", type=int, default=default_rounds,
                    help="invocations per MPI build (default %d)" % default_rounds)
    ap.add_argument("--flavors", default="openmpi,mpich", help="MPI builds (default both)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    args.flavors = [f for f in args.flavors.split(",") if f]
    os.makedirs(args.out, exist_ok=True)
    return args


def run(args, who, program, backends, opts, timeout):
    """Yields (flavor, rows) of every invocation of build/<flavor>/microbench/<program>."""
    for rnd in range(1, args.rounds + 1):
        for flavor in args.flavors:
            exe = os.path.join(ROOT, "build", flavor, "microbench", program)
            if not os.access(exe, os.X_OK):
                raise SystemExit("%s: no %s (cmake --build --preset %s)" % (who, exe, flavor))
            csv = os.path.join(args.out, "%s-%d.csv" % (flavor, rnd))
            cmd = launch.mpirun_prefix(flavor, 2) + [exe, "--backend", backends] + opts + [
                "--csv", csv, "--timeout", str(timeout)]
            print("%s: round %d %s" % (who, rnd, flavor), flush=True)
            rc, text = launch.run(cmd, env=launch.mpi_env(flavor), timeout=3 * timeout)
            if rc != 0 or not os.path.exists(csv):
                raise SystemExit("%s: %s failed (exit %d): %s" % (
                    who, " ".join(cmd), rc, " | ".join(text.strip().splitlines()[-3:])))
            yield flavor, schema.read_csv(csv)
