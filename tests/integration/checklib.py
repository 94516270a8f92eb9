"""What the check_*.py scripts here share: how they fail (one line, exit 1: CTest shows
it) and their calling convention, `ARGS... -- COMMAND...` (CMake passes the launcher and
the binary after the `--`). Imported from the script's own folder."""

import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def args_and_command(usage, count):
    """(the `count` arguments before `--`, the command after it) of sys.argv; fails with
    `usage` unless both are there."""
    argv = sys.argv[1:]
    if len(argv) < count + 2 or argv[count] != "--":
        fail("usage: " + usage)
    return argv[:count], argv[count + 1:]


def run_ok(cmd, timeout=150):
    """Runs `cmd` capturing its output; fails with its exit status and the tail of what it
    printed unless it exits 0. The CompletedProcess otherwise."""
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        fail("exit %d: %s" % (run.returncode, (run.stderr.strip() or run.stdout.strip())[-400:]))
    return run
