#!/usr/bin/python3
"""How much of mpi:cooperative's cost over raw-mpi is MPI's request API (issue 29 item 2).

raw-mpi's default variant is blocking MPI_Send/MPI_Recv, which progress inside the library
and need no request. Any event loop must post MPI_Isend/MPI_Irecv and test the requests;
raw-mpi:test does exactly that with no loop around it. One invocation per round and MPI
build runs mpi:cooperative, raw-mpi:blocking and raw-mpi:test interleaved (--reps), so
the three differences per size come from one machine state:
  api   = raw-mpi:test - raw-mpi:blocking   (what the request API costs the library)
  layer = mpi:cooperative - raw-mpi:test    (what the coroutine layer adds to that)
each the median over the band's sizes of the one-way p50; then the median over rounds
with its range.

  scripts/studies/layer/request_floor.py OUT [--rounds 9] [--flavors openmpi,mpich]
Writes OUT/<flavor>-<round>.csv (+ sidecars), floor.json and floor.md; prints floor.md."""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from cbresults import launch, schema  # noqa: E402

SERIES = ("mpi:cooperative", "raw-mpi:blocking", "raw-mpi:test")
BANDS = (("1-64 B", 1, 64), ("128 B-4 KiB", 128, 4096))
OPTS = ["-b", "1", "-e", "4K", "-f", "2", "--iters", "2000", "--warmup", "200", "--reps", "5"]


def series_of(row):
    return "%s:%s" % (row["backend"], row["progress"])


def band_medians(rows):
    """{band: {series: median p50 in ns over the band's sizes}} of one invocation."""
    out = {}
    for name, lo, hi in BANDS:
        per = {}
        for s in SERIES:
            vals = [r["latency_us_p50"] * 1e3 for r in rows
                    if series_of(r) == s and lo <= int(r["size_bytes"]) <= hi
                    and r["latency_us_p50"]]
            if vals:
                per[s] = statistics.median(vals)
        if len(per) == len(SERIES):
            out[name] = per
    return out


def differences(per):
    return {"api": per["raw-mpi:test"] - per["raw-mpi:blocking"],
            "layer": per["mpi:cooperative"] - per["raw-mpi:test"],
            "total": per["mpi:cooperative"] - per["raw-mpi:blocking"]}


def spread(vals):
    return "%.0f [%.0f-%.0f]" % (statistics.median(vals), min(vals), max(vals))


def table(rounds_by_flavor):
    lines = ["# mpi:cooperative against MPI's request API",
             "",
             "One-way p50, ns: the median over the band's sizes per invocation, then the median "
             "over rounds [min-max]. api = raw-mpi:test - raw-mpi:blocking; layer = "
             "mpi:cooperative - raw-mpi:test; total = mpi:cooperative - raw-mpi:blocking.",
             "",
             "| MPI build | band | rounds | " + " | ".join(SERIES) + " | api | layer | total |",
             "|---|---|---|---|---|---|---|---|---|"]
    for flavor, rounds in rounds_by_flavor.items():
        for name, _lo, _hi in BANDS:
            per = [r[name] for r in rounds if name in r]
            if not per:
                continue
            diffs = [differences(p) for p in per]
            lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                flavor, name, len(per), *(spread([p[s] for p in per]) for s in SERIES),
                *(spread([d[k] for d in diffs]) for k in ("api", "layer", "total"))))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="folder for the CSVs, floor.json and floor.md")
    ap.add_argument("--rounds", type=int, default=9, help="invocations per MPI build (default 9)")
    ap.add_argument("--flavors", default="openmpi,mpich", help="MPI builds (default both)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    flavors = [f for f in args.flavors.split(",") if f]
    rounds = {f: [] for f in flavors}
    for rnd in range(1, args.rounds + 1):
        for flavor in flavors:  # the builds alternate, so a drift of the machine hits both
            exe = os.path.join(ROOT, "build", flavor, "microbench", "pingpong")
            if not os.access(exe, os.X_OK):
                raise SystemExit("request_floor: no %s (cmake --build --preset %s)" % (exe, flavor))
            csv = os.path.join(args.out, "%s-%d.csv" % (flavor, rnd))
            cmd = launch.mpirun_prefix(flavor, 2) + [exe, "--backend", ",".join(SERIES)] + OPTS + [
                "--csv", csv, "--timeout", "120"]
            print("request_floor: round %d %s" % (rnd, flavor), flush=True)
            rc, text = launch.run(cmd, env=launch.mpi_env(flavor), timeout=600)
            if rc != 0 or not os.path.exists(csv):
                raise SystemExit("request_floor: %s failed (exit %d): %s" % (
                    " ".join(cmd), rc, " | ".join(text.strip().splitlines()[-3:])))
            rounds[flavor].append(band_medians(schema.read_csv(csv)))
    md = table(rounds)
    with open(os.path.join(args.out, "floor.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "floor.json"), "w") as f:
        json.dump({"command": " ".join(["scripts/studies/layer/request_floor.py"] +
                                       list(sys.argv[1:] if argv is None else argv)),
                   "pingpong_options": OPTS, "series": SERIES, "rounds": rounds}, f, indent=1)
    print(md, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
