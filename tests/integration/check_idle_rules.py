#!/usr/bin/python3
"""Each --backend entry's @idle rule runs as its own series and is the rule its loop ran.

  check_idle_rules.py OUTDIR -- LAUNCHER... PINGPONG

Runs PINGPONG --backend B@spin,B@block,B,raw-tcp (B = tcp:epoll: every rule applies to a
loop that can block) over a few sizes, then checks: every size has one row per entry, the
CSV's `idle` cell is the entry's rule (empty for the entry without one and for the raw
baseline); the sidecar lists the entries with their rules, and its per-entry loop record
shows the rule applied: the spin entry never blocked or napped, the block entry blocked
(it sleeps between every message), the raw baseline's loop did nothing; and an unknown
rule is refused with one line naming the valid ones. One line on failure."""

import csv
import json
import os
import subprocess

from checklib import fail, args_and_command, run_ok  # this folder


def main():
    (out,), cmd = args_and_command("check_idle_rules.py OUTDIR -- LAUNCHER... PINGPONG", 1)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "idle.csv")
    side_path = path[:-4] + ".json"  # the sidecar: idle.json beside idle.csv
    for p in (path, side_path):
        if os.path.exists(p):
            os.remove(p)
    entries = ["tcp:epoll@spin", "tcp:epoll@block", "tcp:epoll", "raw-tcp"]
    run_ok(cmd + ["--backend", ",".join(entries), "-m", "1:64", "-i", "400", "-x", "20",
                  "--reps", "2", "--csv", path])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    want = {"tcp:epoll@spin": "spin", "tcp:epoll@block": "block", "tcp:epoll": "",
            "raw-tcp:blocking": ""}
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    if len(sizes) < 2:
        fail("expected several sizes, got %s" % sizes)
    for size in sizes:
        got = sorted("%s:%s%s" % (r["backend"], r["progress"], "@" + r["idle"] if r["idle"] else "")
                     for r in rows if int(r["size_bytes"]) == size)
        if got != sorted(want):
            fail("rows at %d B: %s, expected %s" % (size, got, sorted(want)))
    with open(side_path) as f:
        side = json.load(f)
    settings = side.get("settings", side)
    per = {e["entry"]: e for e in settings.get("idle_per_entry", [])}
    if sorted(per) != sorted(want):
        fail("sidecar idle_per_entry lists %s, expected %s" % (sorted(per), sorted(want)))
    spin, block, raw = per["tcp:epoll@spin"], per["tcp:epoll@block"], per["raw-tcp:blocking"]
    if spin["blocks"] or spin["naps"]:
        fail("the spin entry's loop slept: %s" % spin)
    if block["blocks"] < 100:
        fail("the block entry's loop blocked %d times over %d+ messages" % (
            block["blocks"], 400 * len(sizes)))
    if raw["blocks"] or raw["naps"] or raw["slept_ns"]:
        fail("the raw baseline's entry shows loop activity: %s" % raw)
    bad = subprocess.run(cmd + ["--backend", "tcp@nap"], capture_output=True, text=True,
                         timeout=60)
    lines = [l for l in (bad.stderr + bad.stdout).splitlines() if "idle rule" in l]
    if bad.returncode == 0 or not lines or "valid: spin, budget, block" not in lines[0]:
        fail("tcp@nap: exit %d, %r" % (bad.returncode, (bad.stderr or bad.stdout)[-300:]))
    print("ok: %d sizes x %d entries; spin blocked 0 times, block %d times" % (
        len(sizes), len(want), block["blocks"]))


if __name__ == "__main__":
    main()
