"""The report's *network* ablation: the paper's MPI-vs-UCX-vs-TCP comparison, and each
coroutine backend against its raw library, measured across hosts (scripts/reproduce
--vcluster N --link SPEC: network namespaces, transports forced onto the network) instead
of over shared memory. The tables are the ablation's own (ablation.transport_rows,
progress_rows) over an across-host study's rows; a study run on one host shows the newest
committed across-host study (results/vcluster*/)."""

import glob
import json
import os

from . import ablation
from .sizes import BANDS

# The paper's headline pair (MPI4Dask against UCX-Py's polling engine), and against TCP.
PAPER_PAIRS = ((("mpi", "cooperative"), ("ucx", "polling")),
               (("mpi", "cooperative"), ("tcp", "epoll")))


def link_label(vc):
    """'emulator, delay 50us; the emulator itself adds 5.72 us one way at zero delay'."""
    link = vc.get("link") or {}
    text = "%s, %s" % (link.get("mode", "?"), link.get("description", "?"))
    cost = vc.get("emulator_cost")
    if cost:
        text += ("; the emulator itself adds %.2f us one way at zero delay (`%s`)"
                 % (cost["added_latency_us_one_way"], cost["command"]))
    return text


def paper_lines(rows):
    """How much faster mpi:cooperative is than ucx:polling and tcp:epoll at 1 B-4 KiB,
    per MPI, from the run that measured them interleaved (ablation.speedup)."""
    out = []
    for mpi in ablation.mpis(rows):
        cells = []
        for a, b in PAPER_PAIRS:
            res = ablation.speedup(rows, a, b, "pingpong", BANDS[0], mpi)
            cells.append("%s:%s vs %s:%s %s" % (a + b + (ablation._cell(res),)))
        out.append("- %s, latency %s: %s" % (mpi, BANDS[0], "; ".join(cells)))
    return out


def latest_study(results_root):
    """(folder, manifest) of the newest committed across-host study, or None."""
    found = []
    for path in glob.glob(os.path.join(results_root, "vcluster*", "manifest.json")):
        try:
            with open(path) as f:
                m = json.load(f)
        except (OSError, ValueError):
            continue
        if m.get("vcluster") and os.path.exists(os.path.join(os.path.dirname(path), "all.csv")):
            found.append((m.get("started_utc", ""), os.path.dirname(path), m))
    return max(found)[1:] if found else None
