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
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
sys.path.insert(0, HERE)
import rounds  # noqa: E402 (this folder)

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
    args = rounds.parse(__doc__, argv, 9, "folder for the CSVs, floor.json and floor.md")
    per_flavor = {f: [] for f in args.flavors}
    for flavor, rows in rounds.run(args, "request_floor", "pingpong", ",".join(SERIES), OPTS, 120):
        per_flavor[flavor].append(band_medians(rows))
    md = table(per_flavor)
    with open(os.path.join(args.out, "floor.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "floor.json"), "w") as f:
        json.dump({"command": " ".join(["scripts/studies/layer/request_floor.py"] +
                                       list(sys.argv[1:] if argv is None else argv)),
                   "pingpong_options": OPTS, "series": SERIES, "rounds": per_flavor}, f, indent=1)
    print(md, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
