#!/usr/bin/env python3
"""Prints what each failed test wrote, from one CTest log run with --output-on-failure.

  ctest_failures.py CTEST_LOG [LINES]

scripts/test shows a preset's log filtered to a few dozen lines, and the lines of a failed
test that say why (a regression gate's table and verdict, a script's own error) often
fall outside them: stop 33's CI failed on regress_gate and printed nothing of its output.
This prints, per failed or timed-out test, its name and the last LINES (default 40) lines
of its output. CTest writes a failed test's output right after its result line, up to the
next test's "Start" or result line."""

import re
import sys

# The head of a result line only: a test that failed its PASS_REGULAR_EXPRESSION has the
# regex printed in it, newline and all ("Regex=[PASS: ...\n]"), so its " N sec" ends the
# next line.
RESULT = re.compile(r"^\s*\d+/\d+ Test +#\d+: (\S+) \.*\s*(.*?)(?:\s+[\d.]+ sec)?\s*$")
START = re.compile(r"^\s*Start +\d+: ")
FAILED = re.compile(r"Failed|Timeout|Exception|Not Run(?! \(Disabled\))")
TAIL = re.compile(r"^(The following tests|Label Time Summary|Total Test time|"
                  r"\d+% tests passed|Errors while running CTest)")


def failures(lines):
    """[(test name, result text, [output lines])] of every test whose result is not a
    pass or a skip, in log order."""
    out, cur = [], None
    for line in lines:
        m = RESULT.match(line)
        if m or START.match(line) or TAIL.match(line):
            cur = None
        if m and FAILED.search(m.group(2)) and "Skipped" not in m.group(2):
            cur = (m.group(1), m.group(2).strip("* "), [])
            out.append(cur)
            continue
        if cur is not None:
            cur[2].append(line.rstrip("\n"))
    return out


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: ctest_failures.py CTEST_LOG [LINES]", file=sys.stderr)
        return 2
    keep = max(1, int(argv[2])) if len(argv) == 3 else 40
    with open(argv[1], errors="replace") as f:
        found = failures(f)
    for name, result, output in found:
        shown = [l for l in output if l.strip()][-keep:]
        print("--- %s (%s): its last %d line(s) of output" % (name, result, len(shown)))
        for l in shown:
            print("    " + l)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
