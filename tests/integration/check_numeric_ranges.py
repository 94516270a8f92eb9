#!/usr/bin/python3
"""Every number a binary takes is checked where it is parsed.

  check_numeric_ranges.py BINARY

Reads BINARY --list-options (JSON) and checks that every numeric option (CLI11 type UINT,
INT, FLOAT, NUMBER) declares a range, then runs BINARY OPTION VALUE for a value just below
each range (and just above it where it has a top): each must exit 2 before MPI starts,
with exactly one "<program>: error: OPTION: must be ..." line on stderr. This is what
caught `--reps -1` wrapping to 18446744073709551615 and `--runs -1` measuring nothing and
saying PASSED. One line per failure; exit 1 if any."""

import json
import os
import re
import subprocess
import sys

NUMERIC = {"UINT", "INT", "FLOAT", "NUMBER"}


def fmt(v, integer):
    if integer:
        return str(int(v))
    return repr(float(v))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_numeric_ranges.py BINARY")
    exe = sys.argv[1]
    prog = os.path.basename(exe)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    listing = subprocess.run([exe, "--list-options"], capture_output=True, text=True,
                             timeout=60, env=env)
    if listing.returncode != 0:
        sys.exit("FAIL: %s --list-options exit %d" % (prog, listing.returncode))
    options = json.loads(listing.stdout)["options"]
    failures, tried = [], 0
    for o in options:
        if o.get("type") not in NUMERIC:
            continue
        r = o.get("range")
        if not r:
            failures.append("%s %s: numeric (%s) but declares no range" % (prog, o["name"], o["type"]))
            continue
        integer = o.get("integer", False)
        bad = [r["min"] - 1]
        if r.get("max") is not None:
            bad.append(r["max"] + 1 if r["max"] < 2 ** 53 else r["max"] * 2)
        for v in bad:
            value = fmt(v, integer)
            tried += 1
            run = subprocess.run([exe, o["name"], value], capture_output=True, text=True,
                                 timeout=60, env=env)
            errors = [l for l in run.stderr.splitlines() if re.match(r"^[a-z_]+: error", l)]
            want = "%s: error: %s: must be " % (prog, o["name"])
            if run.returncode != 2:
                failures.append("%s %s %s: exit %d, expected 2 (%s)" % (
                    prog, o["name"], value, run.returncode, (run.stderr or run.stdout)[-200:]))
            elif len(errors) != 1 or not errors[0].startswith(want):
                failures.append("%s %s %s: expected one line starting %r, got %r" % (
                    prog, o["name"], value, want, errors))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        sys.exit(1)
    print("%s: %d out-of-range values refused, each with one line naming its option" % (prog, tried))


if __name__ == "__main__":
    main()
