#!/usr/bin/python3
"""profile.md of a layer profile folder (profile.py's <flavor>.json files): per MPI build
and policy, instructions per message in the library, in each part of this suite's layer,
and in the test's driver, and the layer's share against the library's.
  scripts/studies/layer/summarize.py results/layer-<date>"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from cbresults.claims import MPI_NAMES  # noqa: E402

PARTS = ("layer: %s backend", "layer: comm (framing, buffers)", "layer: runtime (loop, coroutines)")


def table(data):
    lines = ["| policy | total | library (UCX/MPI, libc) | layer: backend | layer: comm (framing, "
             "buffers) | layer: runtime (loop, coroutines) | layer, all | driver | layer / library |",
             "|---|---|---|---|---|---|---|---|---|"]
    for policy, v in data["policies"].items():
        c = v["categories"]
        fam = policy.split(":")[0]
        lib = sum(x for k, x in c.items() if k.startswith("library") or k == "libc")
        layer = sum(x for k, x in c.items() if k.startswith("layer"))
        parts = [c.get(PARTS[0] % fam, 0.0), c.get(PARTS[1], 0.0), c.get(PARTS[2], 0.0)]
        # tcp's library is the kernel, whose instructions callgrind does not see
        share = "– (kernel)" if fam == "tcp" else "%.2f" % (layer / lib) if lib else "–"
        lines.append("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |" % (
            policy, v["total"], lib, parts[0], parts[1], parts[2], layer, c.get("driver", 0.0),
            share))
    return lines


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    # profile.py's files only (targets.py writes targets.json beside them)
    files = [p for p in sorted(glob.glob(os.path.join(argv[0], "*.json")))
             if os.path.basename(p)[:-5] in MPI_NAMES]
    if not files:
        sys.exit("summarize: no profile JSON in %s" % argv[0])
    md = ["# Instructions per message, by who runs them", "",
          "The in-process 64 B ping-pong of tests/icount under callgrind, main thread, 300 "
          "round trips after warm-up; each function's own instructions summed by owner "
          "(`profile.py` says the rule). Counts, not time.", ""]
    for path in files:
        with open(path) as f:
            data = json.load(f)
        md += ["## %s build" % MPI_NAMES.get(data["mpi_flavor"], data["mpi_flavor"]), ""] + \
            table(data) + [""]
    text = "\n".join(md)
    with open(os.path.join(argv[0], "profile.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
