#!/usr/bin/python3
"""CPU seconds to compile translation units with -g against -g1, in the same run, back to
back per unit (the CI-budget choice of 2026-11-27: the release presets build with -g1).

  compile_cost.py BUILD_DIR [SOURCE_SUFFIX ...]
  e.g. compile_cost.py build/openmpi microbench/harness/option_listing.cpp appbench/app_session.cpp

Reads BUILD_DIR/compile_commands.json, drops ccache, writes objects to a scratch file, and
prints per unit the CPU seconds (user + sys of the compiler) for each flag and g1/g."""

import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile

DEFAULT = ["microbench/harness/option_listing.cpp", "tests/comm/comm_suite_test.cpp",
           "appbench/app_session.cpp", "backends/ucx/ucx_comm.cpp"]


def cpu_of(argv, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build = sys.argv[1]
    units = sys.argv[2:] or DEFAULT
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    obj = os.path.join(tempfile.mkdtemp(prefix="compile-cost-"), "unit.o")
    print("%-45s %8s %8s %6s" % ("unit", "-g s", "-g1 s", "g1/g"))
    for unit in units:
        entry = next((c for c in commands if c["file"].endswith(unit)), None)
        if entry is None:
            print("compile_cost.py: %s is not in %s" % (unit, build), file=sys.stderr)
            return 2
        argv = [a for a in shlex.split(entry["command"]) if not a.endswith("ccache")]
        i = argv.index("-o")
        del argv[i:i + 2]
        g_flag = [a for a in argv if a in ("-g", "-g1")]
        base = [a for a in argv if a not in ("-g", "-g1")]
        if not g_flag:
            print("compile_cost.py: %s has no -g flag" % unit, file=sys.stderr)
            return 2
        g = cpu_of(base + ["-g", "-o", obj], entry["directory"])
        g1 = cpu_of(base + ["-g1", "-o", obj], entry["directory"])
        print("%-45s %8.1f %8.1f %6.2f" % (unit, g, g1, g1 / g))
    return 0


if __name__ == "__main__":
    sys.exit(main())
