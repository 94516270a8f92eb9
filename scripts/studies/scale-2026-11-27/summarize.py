#!/usr/bin/python3
"""The scale study's table, figure and model, from the raw records of
tests/vcluster/scale_test.py (see commands.sh):

  raw/<flavor>/records.jsonl              one line per job (probe or app): passed, job_s
  raw/<flavor>/probe_<flavor>_<backend>_np<N>.csv   scale_probe: one row per rank
  raw/onehost-openmpi/<variant>-n<N>-r<R>.csv       the pair-communicator ablation on one
                                                    host, 3 runs per size (commands.sh)

writes, beside this script:
  summary.md          ranks x (setup time, RSS, descriptors, endpoints, communicators) per
                      backend and MPI, the apps' pass/fail and job time, and the fit
  cost-per-rank.png   cost per rank against ranks (+ .pdf)
  pair-comms.png      the ablation: the default (one dup + 8 lanes) against the paper's
                      one communicator per pair (+ .pdf)
  model.json          the linear fits per backend (cost = a + b * (ranks - 1)) and what
                      they predict at 1,024 and 8,192 ranks: the numbers README.md quotes

Medians over ranks unless a column says max. Setup *CPU* time is the fitted one: on 2
cores the wall time of a phase grows with the ranks sharing a core, the CPU time a rank
spends does not (the wall columns are kept for the record)."""

import csv
import glob
import json
import os
import statistics
import sys

# The study's data folder: its raw files in, its summary, model and figure out.
HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "results", "scale-2026-11-27")
BACKENDS = ["tcp", "ucx", "mpi", "mpi+create"]
PREDICT = [1024, 8192]
# What each fitted metric is called in the model, and its probe column.
FITS = {
    "fds_per_rank": "fds_after",
    "rss_per_rank_kib": "rss_after_kib",
    "first_all_to_all_cpu_s": "first_all_to_all_cpu_s",
    "setup_listen_cpu_s": "setup_listen_cpu_s",
}


def num(x):
    return float(x) if x not in ("", None) else None


def med(rows, col):
    vals = [num(r[col]) for r in rows if num(r[col]) is not None]
    return statistics.median(vals) if vals else None


def top(rows, col):
    vals = [num(r[col]) for r in rows if num(r[col]) is not None]
    return max(vals) if vals else None


def load(raw):
    probes, jobs = {}, []
    for flavor_dir in sorted(glob.glob(os.path.join(raw, "*"))):
        flavor = os.path.basename(flavor_dir)
        for path in glob.glob(os.path.join(flavor_dir, "probe_*_np*.csv")):
            with open(path) as f:
                rows = list(csv.DictReader(f))
            if rows:
                # A variant (scale_test.py --variant, e.g. mpi+create) is its own series.
                series = os.path.basename(path).split("_")[2]
                probes[(flavor, series, int(rows[0]["ranks"]))] = rows
        rec = os.path.join(flavor_dir, "records.jsonl")
        if os.path.exists(rec):
            with open(rec) as f:
                jobs += [json.loads(line) for line in f if line.strip()]
    return probes, jobs


def fit(xs, ys):
    """Least squares y = a + b x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my - b * mx, b


def model(probes):
    out = {}
    for (flavor, backend, _), _rows in sorted(probes.items()):
        key = "%s/%s" % (flavor, backend)
        if key in out:
            continue
        pts = sorted((n, r) for (f, b, n), r in probes.items() if f == flavor and b == backend)
        if len(pts) < 2:
            continue
        m = {"ranks_measured": [n for n, _ in pts]}
        for name, col in FITS.items():
            xs = [n - 1 for n, rows in pts if med(rows, col) is not None]
            ys = [med(rows, col) for n, rows in pts if med(rows, col) is not None]
            if len(xs) < 2:
                continue
            a, b = fit(xs, ys)
            if b <= 0:
                # No growth measured (noise around a constant, e.g. CPU spent spinning in
                # MPI while oversubscribed): the model carries the largest measured value.
                a, b = max(ys), 0.0
            m[name] = {"a": round(a, 6), "b_per_peer": round(b, 6),
                       "measured": dict(zip(map(str, [x + 1 for x in xs]), ys)),
                       "predicted": {str(n): round(a + b * (n - 1), 3) for n in PREDICT}}
        last = pts[-1][1]
        m["rss_per_connection_kib"] = med(last, "rss_per_connection_kib")
        m["fds_per_connection"] = med(last, "fds_per_connection")
        m["fd_soft_limit_at_start"] = med(last, "fd_soft_limit_at_start")
        m["fd_hard_limit"] = med(last, "fd_hard_limit")
        m["mpi_tag_limit"] = med(last, "mpi_tag_limit")
        m["mpi_comms_per_rank"] = {str(n): med(rows, "mpi_comms") for n, rows in pts}
        m["ucx_endpoints_per_rank"] = {str(n): med(rows, "ucx_endpoints") for n, rows in pts}
        out[key] = m
    return out


def fmt(x, spec="%.0f"):
    return "" if x is None else spec % x


def table(probes, jobs):
    lines = ["| MPI | backend | ranks | hosts | bootstrap s (max) | listen CPU ms | first all-to-all "
             "s (max wall) | first all-to-all CPU ms | RSS per rank MiB | RSS per connection "
             "KiB | descriptors per rank | per connection | UCX endpoints | MPI comms | MPI tags "
             "live |", "|" + "---|" * 15]
    for (flavor, backend, n), rows in sorted(probes.items(), key=lambda k: (k[0][0], BACKENDS.index(k[0][1]) if k[0][1] in BACKENDS else 9, k[0][2])):
        hosts = len({r["host"] for r in rows})
        lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            flavor, backend, n, hosts, fmt(top(rows, "bootstrap_s"), "%.2f"),
            fmt(1e3 * med(rows, "setup_listen_cpu_s"), "%.1f"),
            fmt(top(rows, "first_all_to_all_s"), "%.2f"),
            fmt(1e3 * med(rows, "first_all_to_all_cpu_s"), "%.1f"),
            fmt(med(rows, "rss_after_kib") / 1024, "%.1f"),
            fmt(med(rows, "rss_per_connection_kib"), "%.0f"),
            fmt(med(rows, "fds_after")), fmt(med(rows, "fds_per_connection"), "%.2f"),
            fmt(med(rows, "ucx_endpoints")), fmt(med(rows, "mpi_comms")),
            fmt(med(rows, "mpi_tags_live"))))
    lines += ["", "| MPI | app | backend | ranks | workers | validated | job s |", "|---|---|---|---|---|---|---|"]
    for j in sorted((j for j in jobs if j["kind"] == "app"),
                    key=lambda j: (j["flavor"], j["program"], BACKENDS.index(j["backend"]), j["ranks"])):
        lines.append("| %s | %s | %s | %d | %d | %s | %s |" % (
            j["flavor"], j["program"], j["backend"], j["ranks"], j["ranks"] - 2,
            "yes" if j["passed"] else "**no**: " + j["error"], fmt(j["job_s"], "%.1f")))
    return "\n".join(lines)


def setup_wall(rows):
    """Backend + listener, then the first all-to-all: the slowest rank's wall seconds."""
    return max(num(r["setup_listen_s"]) + num(r["first_all_to_all_s"]) for r in rows)


def setup_cpu(rows):
    return statistics.median(num(r["setup_listen_cpu_s"]) + num(r["first_all_to_all_cpu_s"])
                             for r in rows)


def objects(rows):
    """What the backend holds per rank: UCX endpoints or MPI communicators."""
    return med(rows, "ucx_endpoints") if med(rows, "ucx_endpoints") is not None \
        else med(rows, "mpi_comms")


def figure(probes, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [(setup_wall, "setup + first all-to-all, slowest rank (s, wall;\n"
                           "grows with the ranks sharing each of 2 cores)", True),
              (setup_cpu, "setup + first all-to-all, CPU per rank (s)", True),
              (lambda r: med(r, "rss_after_kib") / 1024, "RSS per rank after it (MiB)", False),
              (lambda r: med(r, "fds_after"), "open descriptors per rank", False),
              (lambda r: med(r, "rss_per_connection_kib"), "RSS per connection (KiB)", False),
              (objects, "UCX endpoints (ucx) / MPI communicators (mpi)\nper rank", False)]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    colors = {"tcp": "tab:blue", "ucx": "tab:orange", "mpi": "tab:green", "mpi+create": "tab:red"}
    styles = {"openmpi": "-", "mpich": "--"}
    ranks = sorted({k[2] for k in probes})
    for ax, (value, title, logy) in zip(axes.flat, panels):
        for flavor in sorted({k[0] for k in probes}):
            for backend in BACKENDS:
                pts = []
                for (f, b, n), rows in sorted(probes.items(), key=lambda kv: kv[0][2]):
                    v = value(rows) if f == flavor and b == backend else None
                    if v is not None:
                        pts.append((n, v))
                if pts:
                    ax.plot([n for n, _ in pts], [v for _, v in pts], styles.get(flavor, ":"),
                            marker="o", color=colors[backend], label="%s (%s)" % (backend, flavor))
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_xticks(ranks)
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("ranks (round robin on 8 virtual hosts)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle("Connection setup: cost per rank against ranks (scale_probe, every rank "
                 "connected to every other; medians over ranks unless the panel says)",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path + ".png", dpi=100)
    fig.savefig(path + ".pdf")


def ablation(raw):
    """{(variant, n): [(listen wall max over ranks, listen CPU median, comms), per run]}"""
    runs = {}
    for path in glob.glob(os.path.join(raw, "onehost-openmpi", "*-n*-r*.csv")):
        name = os.path.basename(path)
        variant = "create" if name.startswith("mpi_pair_comms_create") else "world"
        with open(path) as f:
            rows = list(csv.DictReader(f))
        if rows:
            runs.setdefault((variant, int(rows[0]["ranks"])), []).append(
                (top(rows, "setup_listen_s"), med(rows, "setup_listen_cpu_s"), med(rows, "mpi_comms")))
    return {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) + (len(v),)
            for k, v in runs.items()}


def ablation_outputs(ab, path):
    lines = ["| construction | ranks | runs | backend setup, slowest rank (ms, wall) | CPU per "
             "rank (ms) | communicators per rank |", "|---|---|---|---|---|---|"]
    for (variant, n), (wall, cpu, comms, k) in sorted(ab.items()):
        lines.append("| %s | %d | %d | %.2f | %.2f | %.0f |" % (variant, n, k, 1e3 * wall, 1e3 * cpu, comms))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for variant, color in (("world", "tab:green"), ("create", "tab:red")):
        pts = sorted((n, v) for (var, n), v in ab.items() if var == variant)
        label = {"world": "default: one dup + 8 lanes (O(1) per rank)",
                 "create": "paper: one communicator per pair (Comm_create)"}[variant]
        for ax, i in zip(axes, (0, 2)):
            ax.plot([n for n, _ in pts], [v[i] * (1e3 if i == 0 else 1) for _, v in pts],
                    marker="o", color=color, label=label)
    axes[0].set_title("mpi backend setup, slowest rank (ms, wall)", fontsize=10)
    axes[0].set_yscale("log")
    axes[1].set_title("communicators per rank", fontsize=10)
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({n for _, n in ab}))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("ranks (one host, Open MPI, median of 3 runs)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path + ".png", dpi=100)
    fig.savefig(path + ".pdf")
    return "\n".join(lines)


def main():
    raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw")
    probes, jobs = load(raw)
    if not probes:
        print("summarize.py: no probe CSVs under %s" % raw, file=sys.stderr)
        return 2
    m = model(probes)
    with open(os.path.join(HERE, "model.json"), "w") as f:
        json.dump(m, f, indent=1, sort_keys=True)
    fits = ["| MPI/backend | metric | a | b per peer | measured | at 1,024 | at 8,192 |",
            "|---|---|---|---|---|---|---|"]
    for key, v in sorted(m.items()):
        for name in FITS:
            if name in v:
                f_ = v[name]
                fits.append("| %s | %s | %.4g | %.4g | %s | %.4g | %.4g |" % (
                    key, name, f_["a"], f_["b_per_peer"],
                    ", ".join("%s: %.4g" % kv for kv in f_["measured"].items()),
                    f_["predicted"]["1024"], f_["predicted"]["8192"]))
    with open(os.path.join(HERE, "summary.md"), "w") as f:
        f.write("# Scale study: the numbers (generated by summarize.py; do not edit)\n\n")
        f.write(table(probes, jobs) + "\n\n## Linear fits, cost = a + b x (ranks - 1)\n\n")
        f.write("\n".join(fits) + "\n")
    figure(probes, os.path.join(HERE, "cost-per-rank"))
    ab = ablation(raw)
    if ab:
        with open(os.path.join(HERE, "summary.md"), "a") as f:
            f.write("\n## The pair-communicator ablation on one host (Open MPI)\n\n")
            f.write(ablation_outputs(ab, os.path.join(HERE, "pair-comms")) + "\n")
    print("wrote summary.md, model.json, cost-per-rank.png/.pdf in %s" % HERE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
