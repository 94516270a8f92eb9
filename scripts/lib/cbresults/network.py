"""The report's *network* ablation: the paper's MPI-vs-UCX-vs-TCP comparison, and each
coroutine backend against its raw library, measured across hosts (scripts/reproduce
--vcluster N --link SPEC: network namespaces, transports forced onto the network) instead
of over shared memory. A study run on one host shows the newest committed across-host
study (results/vcluster*/) here."""

import glob
import json
import os

from . import schema, select, sizes


def link_label(vc):
    link = (vc or {}).get("link") or {}
    if isinstance(link, str):
        return link
    text = "%s, %s" % (link.get("mode", "?"), link.get("description", "?"))
    cost = (vc or {}).get("emulator_cost")
    if cost:
        text += "; the emulator itself adds %s us one way at zero delay" % cost.get(
            "added_latency_us_one_way", "?")
    return text


def _latency(rows, mpi, backend, progress):
    pts = [r for r in rows if r.get("benchmark") == "pingpong" and r.get("mpi") == mpi
           and r.get("backend") == backend and r.get("progress") == progress]
    if not pts:
        return None, None
    small = min(int(r["size_bytes"]) for r in pts)
    vals = [float(r["latency_us_p50"]) for r in pts if int(r["size_bytes"]) == small
            and r.get("latency_us_p50")]
    return (select.median(vals) if vals else None), small


def _bandwidth(rows, mpi, backend, progress):
    pts = [r for r in rows if r.get("benchmark") == "bandwidth" and r.get("mpi") == mpi
           and r.get("backend") == backend and r.get("progress") == progress
           and r.get("bandwidth_MBps")]
    if not pts:
        return None, None
    big = max(int(r["size_bytes"]) for r in pts)
    vals = [float(r["bandwidth_MBps"]) for r in pts if int(r["size_bytes"]) == big]
    return select.median(vals), big


def table(rows):
    """Markdown rows: MPI | backend:policy | latency | vs raw | bandwidth | vs raw."""
    combos = sorted({(r.get("mpi"), r.get("backend"), r.get("progress")) for r in rows
                     if r.get("benchmark") == "pingpong" and r.get("origin", "suite") == "suite"})
    if not combos:
        return []
    lines = ["| MPI | backend:policy | latency, smallest size (us) | vs its raw | "
             "bandwidth, largest size (MB/s) | vs its raw |", "|---|---|---|---|---|---|"]
    for mpi, backend, progress in combos:
        lat, small = _latency(rows, mpi, backend, progress)
        bw, big = _bandwidth(rows, mpi, backend, progress)
        raw = "raw-" + backend if not backend.startswith("raw-") else None
        rl = rb = None
        if raw:
            rprog = next((p for m, b, p in combos if m == mpi and b == raw), None)
            rl = _latency(rows, mpi, raw, rprog)[0] if rprog else None
            rb = _bandwidth(rows, mpi, raw, rprog)[0] if rprog else None
        lines.append("| %s | %s:%s | %s | %s | %s | %s |" % (
            mpi, backend, progress,
            "%.1f (%s B)" % (lat, small) if lat is not None else "–",
            "%.2fx" % (lat / rl) if lat and rl else "–",
            "%.0f (%s)" % (bw, sizes.fmt_size(big))
            if bw is not None else "–",
            "%.2fx" % (bw / rb) if bw and rb else "–"))
    return lines


def paper_lines(rows):
    """The paper's comparison over the link: mpi:cooperative against ucx:polling and
    tcp:epoll, 8 B latency (lower is better) per MPI."""
    out = []
    for mpi in sorted({r.get("mpi") for r in rows if r.get("benchmark") == "pingpong"}):
        m = _latency(rows, mpi, "mpi", "cooperative")[0]
        u = _latency(rows, mpi, "ucx", "polling")[0]
        t = _latency(rows, mpi, "tcp", "epoll")[0]
        if m:
            out.append("- %s: mpi:cooperative %.1f us; ucx:polling %s; tcp:epoll %s" % (
                mpi, m, "%.1f us (MPI %.2fx faster)" % (u, u / m) if u else "–",
                "%.1f us (MPI %.2fx faster)" % (t, t / m) if t else "–"))
    return out


def latest_study(results_root):
    """The newest committed across-host study folder (with its manifest), or None."""
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


def section(rows, manifest, folder, results_root):
    md = ["", "### Network: the same comparison over a link between hosts", ""]
    vc = (manifest or {}).get("vcluster")
    if vc:
        md.append("This study ran across %s virtual hosts (network and UTS namespaces, "
                  "UCX_TLS=tcp, Open MPI's tcp BTL: no shared memory crosses a host); link: "
                  "%s. Every table above is over that link." % (vc.get("hosts"),
                                                              link_label(vc)))
        study_rows, where = rows, None
    else:
        hit = latest_study(results_root)
        if not hit:
            md.append("No across-host study yet: `scripts/reproduce --vcluster 2 --link "
                      "delay=50us` makes one. Every figure above crossed shared memory or "
                      "loopback on one host.")
            return md
        where, m = hit
        study_rows = schema.read_many([os.path.join(where, "all.csv")])
        md.append("Every figure above crossed shared memory or loopback on one host. From "
                  "the across-host study `%s` (%s virtual hosts; link: %s; command `%s`):" % (
                      os.path.relpath(where, folder), m["vcluster"].get("hosts"),
                      link_label(m["vcluster"]), " ".join(m.get("argv", []))))
    md += [""] + paper_lines(study_rows) + [""] + table(study_rows)
    return md
