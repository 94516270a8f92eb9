#!/usr/bin/python3
"""A run records the choice it was given.

  check_sidecar_setting.py CSV KEY VALUE -- LAUNCHER... PROGRAM ARGS...

Runs PROGRAM ARGS --csv CSV and passes when it exits 0, the CSV has a row per backend and
size, and the sidecar's settings[KEY] is VALUE (compared as text). One line on failure."""

import csv
import json
import os
import subprocess

from checklib import fail, args_and_command  # this folder


def main():
    (path, key, value), cmd = args_and_command(
        "check_sidecar_setting.py CSV KEY VALUE -- LAUNCHER... PROGRAM ARGS...", 3)
    for stale in (path, os.path.splitext(path)[0] + ".json"):
        if os.path.exists(stale):
            os.remove(stale)
    run = subprocess.run(cmd + ["--csv", path], capture_output=True, text=True, timeout=150)
    if run.returncode != 0:
        fail("exit %d: %s" % (run.returncode, (run.stderr or run.stdout)[-400:]))
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or any(not r["backend"] or not r["size_bytes"] for r in rows):
        fail("the CSV has no complete rows")
    with open(os.path.splitext(path)[0] + ".json") as f:
        got = json.load(f).get("settings", {}).get(key)
    if str(got) != value:
        fail("settings.%s is %r, expected %r" % (key, got, value))
    print("ok: %d rows; settings.%s = %s" % (len(rows), key, value))


if __name__ == "__main__":
    main()
