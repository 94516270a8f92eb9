#!/usr/bin/python3
"""A fourth backend joins everything from its registry entry alone (issue 27 item 8).

  check_fourth_backend.py OUT_DIR -- LAUNCHER... PINGPONG_WITH_FOURTH_BACKEND

The binary is pingpong with the test-only "fault" backend registered
(register_fourth_backend.cpp). Checked, in order: --list-backends lists it as a coroutine
backend with its policy; two ranks run it beside tcp with every byte validated; the study
matrix (scripts/lib/cbresults/matrix.py), given only the binary's JSON answers, plans its
family run; scripts/plot draws its family figure from the CSV. No script names it."""

import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

from checklib import args_and_command, fail, run_ok  # noqa: E402
from cbresults import matrix  # noqa: E402

NAME = "fault"


def main():
    (out,), cmd = args_and_command("check_fourth_backend.py OUT_DIR -- LAUNCHER... BINARY", 1)
    os.makedirs(out, exist_ok=True)
    binary = cmd[-1]

    listing = json.loads(run_ok([binary, "--list-backends"]).stdout)
    entry = {b["name"]: b for b in listing["backends"]}.get(NAME)
    if not entry or entry.get("kind") != "coroutine" or not entry.get("policies"):
        fail("--list-backends does not list '%s' as a coroutine backend with policies: %s"
             % (NAME, sorted(b["name"] for b in listing["backends"])))

    path = os.path.join(out, "pingpong.csv")
    run_ok(cmd + ["--backend", NAME + ",tcp", "-b", "8", "-e", "4K", "--iters", "200",
                  "--warmup", "10", "--reps", "2", "--validate", "--csv", path])
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["backend"] == NAME]
    if not rows or any(r["validated"] != "1" or r["wrong"] != "0" for r in rows):
        fail("no validated %s rows in %s: %s" % (NAME, path, rows[:2]))

    options = json.loads(run_ok([binary, "--list-options"]).stdout)
    fams = matrix.families(listing["backends"])
    runs = matrix.micro_runs(listing.get("mpi_flavor") or "openmpi", os.path.dirname(binary),
                             fams, "tiny", out, {"pingpong": options, "bandwidth": options})
    planned = [" ".join(r.cmd) for r in runs]
    if not any(NAME + ":" in c for c in planned):
        fail("the study matrix plans no run of '%s': %s" % (NAME, planned))

    figs = os.path.join(out, "figures")
    run_ok([sys.executable, os.path.join(ROOT, "scripts", "plot"), "--out", figs, path])
    with open(os.path.join(figs, "index.json")) as f:
        drawn = [e["file"] for e in json.load(f)]
    if not any("_" + NAME in name for name in drawn):
        fail("scripts/plot drew no '%s' family figure: %s" % (NAME, drawn))
    print("%s: listed (%s), %d validated rows, planned in %d run(s), figures %s"
          % (NAME, ", ".join(p["name"] for p in entry["policies"]), len(rows),
             sum(NAME + ":" in c for c in planned), [d for d in drawn if "_" + NAME in d]))


if __name__ == "__main__":
    main()
