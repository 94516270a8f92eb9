"""How far the whole stack is from the machine (issue 29, item 3): for each backend's best
policy, its 8 B one-way latency and 16 MiB bandwidth beside the physical floor measured in
the same study.

The floor comes from the probes every run records in its sidecar's run_state
(`machine.Watch`): `latency_probe`'s one-way time of a two-thread ping-pong on one
shared cache line (no message can cross between two cores faster), and `memcpy_probe`'s
one-core memcpy bandwidth at 16 MiB (every backend's large message ends in at least one
copy by one core). Each is the median over the study's runs, since the VM's latency mode
and its memory bandwidth both drift (memcpy at 16 MiB measured 7-16 GB/s within minutes
here: 2 x 16 MiB is exactly this VM's L3).

"Best policy" is per backend and MPI build the policy with the lowest median latency at
8 B (highest median bandwidth at 16 MiB), over every run of the study; the raw baselines
are rows of their own, so the table reads machine -> library -> our layer."""

from collections import defaultdict

from . import select

LATENCY_SIZE = 8
BANDWIDTH_SIZE = 16 << 20
BACKENDS = ("raw-tcp", "tcp", "raw-ucx", "ucx", "raw-mpi", "mpi")


def floor(sidecars):
    """{"one_way_ns", "latency_runs", "copy_MBps", "memcpy_runs"}: the medians of the
    study's probe values (None where no run recorded that probe)."""
    lat, cpy = [], []
    for s in sidecars:
        st = s.get("run_state") or {}
        p = st.get("latency_probe") or {}
        if isinstance(p.get("one_way_ns_p50"), (int, float)):
            lat.append(p["one_way_ns_p50"])
        m = st.get("memcpy_probe") or {}
        if isinstance(m.get("copy_MBps_p50"), (int, float)) and m.get("bytes") == BANDWIDTH_SIZE:
            cpy.append(m["copy_MBps_p50"])
    return {"one_way_ns": select.median(lat) if lat else None, "latency_runs": len(lat),
            "copy_MBps": select.median(cpy) if cpy else None, "memcpy_runs": len(cpy)}


def _best(rows, benchmark, metric, size):
    """{(backend, mpi): (value, policy)}: per policy the median over the study's rows at
    `size` (host memory, this host, default wire), then the best policy."""
    acc = defaultdict(list)
    for r in rows:
        if (r["origin"] == "suite" and r["benchmark"] == benchmark and r["backend"] in BACKENDS
                and r.get(metric) and r.get("size_bytes") is not None
                and int(r["size_bytes"]) == size and not r.get("wire")
                and r.get("memory_send", "host") in ("host", "")
                and r.get("memory_recv", "host") in ("host", "")):
            acc[(r["backend"], r["mpi"], select.progress_label(r))].append(r[metric])
    higher = metric in select.HIGHER_IS_BETTER
    best = {}
    for (backend, mpi, policy), vals in acc.items():
        v = select.median(vals)
        k = (backend, mpi)
        if k not in best or (v > best[k][0] if higher else v < best[k][0]):
            best[k] = (v, policy)
    return best


def table(rows, sidecars):
    """Markdown lines: the floor, then one row per backend and MPI build; [] when the study
    has neither an 8 B latency nor a 16 MiB bandwidth."""
    lat = _best(rows, "pingpong", "latency_us_p50", LATENCY_SIZE)
    bw = _best(rows, "bandwidth", "bandwidth_MBps", BANDWIDTH_SIZE)
    if not lat and not bw:
        return []
    fl = floor(sidecars)
    ns, mbps = fl["one_way_ns"], fl["copy_MBps"]
    out = ["| backend (MPI build) | best policy at 8 B | one-way 8 B (µs) | x the floor | "
           "best policy at 16 MiB | bandwidth 16 MiB (MB/s) | share of the floor |",
           "|---|---|---|---|---|---|---|",
           "| *the machine: floor* | two-thread ping-pong | *%s* | 1 | one-core memcpy | *%s* | "
           "1 |" % ("%.3f" % (ns / 1000) if ns else "not probed",
                    "{:,.0f}".format(mbps) if mbps else "not probed")]
    order = {b: i for i, b in enumerate(BACKENDS)}
    for backend, mpi in sorted(set(lat) | set(bw), key=lambda k: (k[1], order[k[0]])):
        cells = ["%s (%s)" % (backend, mpi or "no MPI")]
        if (backend, mpi) in lat:
            v, pol = lat[(backend, mpi)]
            cells += [pol or "–", "%.3f" % v, "%.1f" % (v * 1000 / ns) if ns else "–"]
        else:
            cells += ["–", "not measured", "–"]
        if (backend, mpi) in bw:
            v, pol = bw[(backend, mpi)]
            cells += [pol or "–", "{:,.0f}".format(v), "%.2f" % (v / mbps) if mbps else "–"]
        else:
            cells += ["–", "not measured", "–"]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "Floor: medians over the study's runs (%d latency probes, %d memcpy probes at "
            "16 MiB). A share above 1 is possible: the windowed benchmark can keep a receive "
            "buffer in cache, and the VM's memory bandwidth drifts between probes." % (
                fl["latency_runs"], fl["memcpy_runs"])]
    return out
