"""What the check_*.py scripts here share: how they fail (one line, exit 1: CTest shows
it) and their calling convention, `ARGS... -- COMMAND...` (CMake passes the launcher and
the binary after the `--`). Imported from the script's own folder."""

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
