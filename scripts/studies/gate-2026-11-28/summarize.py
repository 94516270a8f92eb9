#!/usr/bin/python3
"""Prints the tables of this folder's README from its raw files and the references:

1. allowed slowdown per gated metric, before (the references of 3f15133) and after
   (results/reference/regress-<mpi>.json): how much slower than its reference median a
   metric may get before the gate fails;
2. the false-alarm runs (false-alarms.jsonl, one line per gate run on an unchanged build);
3. the self-test per family and app (logs/selftest-<mpi>-<what>.log).

Run: python3 scripts/studies/gate-2026-11-28/summarize.py"""

import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.join(ROOT, "results", "gate-2026-11-28")  # the study's data
BEFORE = "3f15133"
MPIS = ("openmpi", "mpich")


def allowed_before(e):
    """Format 1: value = the worst run, band on top of it: the slowdown of the median."""
    med, val, tol = e["median"], e["value"], e["tolerance_rel"]
    if e["direction"] == "lower_is_better":
        return val * (1 + tol) / med
    return med / (val / (1 + tol))


def allowed_after(e):
    return e["allowed_slowdown"] if e.get("gated") else None


def load_before(mpi):
    out = subprocess.run(["git", "-C", ROOT, "show",
                          "%s:results/reference/regress-%s.json" % (BEFORE, mpi)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def load_after(mpi):
    with open(os.path.join(ROOT, "results", "reference", "regress-%s.json" % mpi)) as f:
        return json.load(f)


def fmt(x):
    return "%.2fx" % x if x is not None else "not gated"


def allowed_table():
    print("## Allowed slowdown of each metric's median, before (%s) and after\n" % BEFORE)
    refs = {m: (load_before(m), load_after(m)) for m in MPIS}
    keys = sorted({k for b, a in refs.values() for k in list(b["metrics"]) + list(a["metrics"])})
    print("| metric | " + " | ".join("%s before | %s after" % (m, m) for m in MPIS) + " |")
    print("|---|" + "---|---|" * len(MPIS))
    for k in keys:
        cells = []
        for m in MPIS:
            b, a = refs[m]
            eb, ea = b["metrics"].get(k), a["metrics"].get(k)
            gb = eb and eb.get("direction") in ("lower_is_better", "higher_is_better")
            ga = ea and ea.get("direction") in ("lower_is_better", "higher_is_better")
            cells.append(("**%s**" % fmt(allowed_before(eb)) if allowed_before(eb) > 1.3
                          else fmt(allowed_before(eb))) if gb else "-")
            cells.append(fmt(allowed_after(ea)) if ga else "-")
        if any(c != "-" for c in cells):
            print("| `%s` | %s |" % (k, " | ".join(cells)))
    print()
    for m in MPIS:
        b, a = refs[m]
        gb = [k for k, e in b["metrics"].items()
              if e["direction"] in ("lower_is_better", "higher_is_better")]
        over = [k for k in gb if allowed_before(b["metrics"][k]) > 1.3 + 1e-9]
        ga = [k for k, e in a["metrics"].items()
              if e["direction"] in ("lower_is_better", "higher_is_better")]
        gated = [k for k in ga if a["metrics"][k].get("gated")]
        worst = max((a["metrics"][k]["allowed_slowdown"] for k in gated), default=None)
        print("- %s before: %d of %d gated metrics allow more than 30 %%; after: %d of %d "
              "metrics gated, the widest band %s, %d reported, not gated (reference %s, %s, "
              "load %s before, max %s during, quiet: %s)" % (
                  m, len(over), len(gb), len(gated), len(ga), fmt(worst),
                  len(ga) - len(gated), a["git_commit"], a["created_utc"],
                  a["load_avg_1min_before"], a["load_avg_1min_max_during"], a["quiet"]))
    print()


def false_alarms():
    path = os.path.join(HERE, "false-alarms.jsonl")
    if not os.path.exists(path):
        return
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    print("## False alarms on the unchanged build\n")
    print("| # | mpi | exit | s | load before / max | probe ns | regressed | missing | "
          "not judged (unseen mode) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(recs, 1):
        mach = r["machine"]
        print("| %d | %s | %d | %.0f | %.2f / %.2f | %s | %s | %s | %s |" % (
            i, r["mpi"], r["rc"], r["seconds"], mach["load_avg_1min_before"],
            mach["load_avg_1min_max_during"], "%.0f" % r["probe_ns"] if r["probe_ns"] else "-",
            ", ".join(r["regressed"]) or "-", ", ".join(r["missing"]) or "-",
            ", ".join(r["unseen"]) or "-"))
    print()
    for m in MPIS:
        rs = [r for r in recs if r["mpi"] == m]
        if rs:
            fails = sum(1 for r in rs if r["rc"] != 0)
            print("- %s: %d of %d runs failed (false-alarm rate %.0f %%); %.0f-%.0f s each; "
                  "commit %s, reference %s" % (
                      m, fails, len(rs), 100.0 * fails / len(rs),
                      min(r["seconds"] for r in rs), max(r["seconds"] for r in rs),
                      ", ".join(sorted({r["git_commit"] for r in rs})),
                      ", ".join(sorted({r["reference"]["git_commit"] for r in rs}))))
    print()


def self_tests():
    """From the CTest logs (ctest -V prefixes every line of test N with "N: ")."""
    logs = sorted(glob.glob(os.path.join(HERE, "logs", "ctest-*.log")))
    if not logs:
        return
    print("## Self-test: 30 % of each path's measured time injected\n")
    print("| mpi | test | CTest | s | paths caught | paths with a gated metric not caught "
          "| metrics caught | not gated (reported) | why it failed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in logs:
        mpi = re.match(r"ctest-([\w-]+)\.log", os.path.basename(path)).group(1)
        with open(path) as f:
            text = f.read()
        for num, name, status, secs in re.findall(
                r"Test +#(\d+): (regress_\w+) \.*\**\s*(Passed|Failed|Timeout)\s+([0-9.]+) sec",
                text):
            if not name.startswith("regress_detects"):
                continue
            rows = re.findall(r"^%s:   ((?:family|app) .*)$" % num, text, re.M)
            caught_paths, missed_paths = set(), set()
            caught = noisy = 0
            for r in rows:
                cols = r.split()
                metric, outcome = cols[2], r.split("  ")[-1].strip()
                target = metric.split("/", 1)[1] if metric.startswith(("overhead", "latency")) \
                    else metric
                if outcome == "caught":
                    caught += 1
                    caught_paths.add(target.replace("app/", "").replace("/comm_MBps/", ":"))
                elif outcome.startswith("not gated"):
                    noisy += 1
                elif outcome.startswith("MISS") or outcome.startswith("NOT"):
                    missed_paths.add(target)
            why = re.findall(r"^%s: regress: the gate did not catch[^:]*: (.*)$" % num, text,
                             re.M)
            if status == "Timeout":
                why = ["timed out (240 s)"]
            print("| %s | %s | %s | %s | %d | %d | %d | %d | %s |" % (
                mpi, name.replace("regress_detects_injected_delay_", ""), status, secs,
                len(caught_paths), len(missed_paths), caught, noisy,
                (why[0] if why else "-").replace("|", "/")))
    print()


if __name__ == "__main__":
    os.chdir(ROOT)
    allowed_table()
    self_tests()
    false_alarms()
    sys.exit(0)
