#!/usr/bin/python3
"""A run fed corrupted bytes must say so.

  check_validation_fails.py CSV -- LAUNCHER... PROGRAM ARGS...

Runs PROGRAM ARGS --csv CSV (ARGS hold a corruption testing aid) and passes only when it
exits 1, prints "validation: FAILED", and every CSV row has validated = 1 and wrong > 0:
each backend and size caught its own corrupted messages, not just one of them. One line
on failure."""

import csv
import subprocess

from checklib import fail, args_and_command  # this folder


def main():
    (path,), cmd = args_and_command(
        "check_validation_fails.py CSV -- LAUNCHER... PROGRAM ARGS...", 1)
    run = subprocess.run(cmd + ["--csv", path], capture_output=True, text=True, timeout=110)
    out = run.stdout + run.stderr
    if run.returncode != 1:
        fail("exit %d, expected 1 (a failed validation): %s" % (run.returncode, out[-600:]))
    if "validation: FAILED" not in out:
        fail("no 'validation: FAILED' line: " + out[-600:])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("no CSV rows in " + path)
    for r in rows:
        label = "%s:%s at %s B" % (r["backend"], r["progress"], r["size_bytes"])
        if r.get("validated") != "1":
            fail(label + ": validated is %r, expected 1" % r.get("validated"))
        if not r.get("wrong") or float(r["wrong"]) <= 0:
            fail(label + ": wrong is %r, expected > 0 (the corruption went unseen)" % r.get("wrong"))
    print("validation failed as it must: %d rows, each with wrong > 0" % len(rows))


if __name__ == "__main__":
    main()
