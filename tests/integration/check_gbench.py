#!/usr/bin/python3
"""A Google Benchmark binary runs every benchmark it lists, briefly, and measures something.

  check_gbench.py BINARY OUTDIR [--allow-error SUBSTRING]...

Runs BINARY --benchmark_list_tests, then every benchmark for --benchmark_min_time=0.01
with JSON output (inproc_bench, kernels_bench: these binaries have no other test, and a
benchmark that throws, skips itself or is filtered away would otherwise go unnoticed).
Passes when the run exits 0 and every listed benchmark has a result with at least one
iteration and a positive real time. A benchmark that reports an error fails it, unless its
message contains an --allow-error SUBSTRING (io_uring refused by the kernel: named in the
output, not hidden). Exits non-zero with one line naming the first problem."""

import json
import os
import subprocess
import sys

from checklib import fail, run_ok  # this folder


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail("usage: check_gbench.py BINARY OUTDIR [--allow-error SUBSTRING]...")
    binary, outdir, rest = args[0], args[1], args[2:]
    allowed = []
    while rest:
        if rest[0] != "--allow-error" or len(rest) < 2:
            fail("usage: check_gbench.py BINARY OUTDIR [--allow-error SUBSTRING]...")
        allowed.append(rest[1])
        rest = rest[2:]
    listed = subprocess.run([binary, "--benchmark_list_tests"], capture_output=True, text=True,
                            timeout=60)
    if listed.returncode != 0:
        fail("--benchmark_list_tests exit %d: %s" % (listed.returncode, listed.stderr[-300:]))
    names = [n for n in listed.stdout.split() if n]
    if not names:
        fail("%s lists no benchmark" % os.path.basename(binary))
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(binary) + ".json")
    run_ok([binary, "--benchmark_min_time=0.01", "--benchmark_out=" + out,
            "--benchmark_out_format=json"], timeout=240)
    results = {b["name"]: b for b in json.load(open(out)).get("benchmarks", [])}
    skipped = []
    for n in names:
        b = results.get(n)
        if b is None:
            fail("%s was listed but has no result" % n)
        if b.get("error_occurred"):
            msg = b.get("error_message", "")
            if any(a in msg for a in allowed):
                skipped.append("%s (%s)" % (n, msg))
                continue
            fail("%s reported an error: %s" % (n, msg))
        if not b.get("iterations", 0) >= 1 or not b.get("real_time", 0) > 0:
            fail("%s measured nothing: %d iterations, real time %r" % (
                n, b.get("iterations", 0), b.get("real_time")))
    print("ok: %d of %d benchmarks measured%s" % (
        len(names) - len(skipped), len(names),
        "; skipped with an allowed error: " + ", ".join(skipped) if skipped else ""))


if __name__ == "__main__":
    main()
