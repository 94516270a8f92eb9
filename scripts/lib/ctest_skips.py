#!/usr/bin/env python3
"""Reads one CTest log and reports passed / failed / skipped separately, failing on a
skip that tests/allowed_skips.txt does not allow on this machine.

  ctest_skips.py CTEST_LOG PRESET

CTest counts a skipped test among the passed in its "tests passed" line; this prints
"PRESET: P passed, F failed, S skipped (A allowed)" and each skip with its rule, and exits
1 when a skip has no rule. The machine's facts: a GPU (nvidia-smi lists one, or
/dev/nvidia0 exists; COMMBENCH_REQUIRE_GPU=1 forbids the no-gpu rules), root, and
whether PRESET is a sanitizer build."""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "..", "..", "tests", "allowed_skips.txt")


def have_gpu():
    if os.path.exists("/dev/nvidia0"):
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    run = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return run.returncode == 0 and "GPU" in run.stdout


def conditions(preset):
    gpu = have_gpu()
    held = {"always"}
    if gpu:
        held.add("gpu")
    elif os.environ.get("COMMBENCH_REQUIRE_GPU") != "1":
        held.add("no-gpu")
    if os.geteuid() != 0:
        held.add("not-root")
    if preset in ("asan", "asan-mpich", "tsan"):
        held.add("sanitizer")
    return held


def rules():
    out = []
    with open(RULES) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                cond, regex = line.split(None, 1)
                out.append((cond, re.compile(regex.strip())))
    return out


def parse(log):
    """(total, failed, skipped names) from a CTest log."""
    total = failed = 0
    m = re.search(r"tests passed, (\d+) tests? failed out of (\d+)", log)
    if m:
        failed, total = int(m.group(1)), int(m.group(2))
    skipped = re.findall(r"^\s*\d+ - (\S+) \((?:Skipped|Not Run)\)", log, re.M)
    return total, failed, skipped


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ctest_skips.py CTEST_LOG PRESET")
    with open(sys.argv[1], errors="replace") as f:
        log = f.read()
    preset = sys.argv[2]
    total, failed, skipped = parse(log)
    held = conditions(preset)
    unexpected = []
    lines = []
    for name in skipped:
        rule = next((c for c, rx in rules() if rx.search(name) and c in held), None)
        if rule is None:
            unexpected.append(name)
            lines.append("  skipped, NOT ALLOWED here: %s" % name)
        else:
            lines.append("  skipped (%s): %s" % (rule, name))
    passed = total - failed - len(skipped)
    print("%s: %d passed, %d failed, %d skipped (%d allowed)" %
          (preset, passed, failed, len(skipped), len(skipped) - len(unexpected)))
    for line in lines:
        print(line)
    if unexpected:
        print("%s: %d unexpected skip(s); tests/allowed_skips.txt says which skips are "
              "allowed where" % (preset, len(unexpected)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
