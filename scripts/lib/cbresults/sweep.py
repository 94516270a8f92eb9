"""The link sweep's answer (issue 28 items 2-3): how much faster MPI4Dask's design is than
UCX-Py's polling and blocking modes and Dask's TCP, link by link, per size band, with
confidence intervals; the ablation rows that account for each number; and the
applications' paired rounds. Reads a folder written by scripts/network-sweep.

How each number is taken:
- Ping-pong: every entry of one invocation alternates with the others repetition by
  repetition (pingpong --reps), and --samples keeps every round trip. A repetition's value
  is the median of its round trips; a band's ratio in repetition r is the geometric mean
  over the band's sizes of B_r / A_r; the figure is the median over repetitions with a
  percentile bootstrap interval (stats.median_ci). Where A and B ran in two invocations
  (the budget and block rules run one family per process), repetition r of one is paired
  with repetition r of the other: back to back, not interleaved, which the interval
  carries.
- Added per message: median over the band's sizes of entry - its raw baseline in the same
  repetition, median over repetitions, bootstrap interval.
- Applications: each round runs every backend once (seeded order); a backend's ratio in a
  round is its wall time over the round's fastest; median over rounds with an interval."""

import csv
import glob
import json
import math
import os
import statistics
from collections import defaultdict

from cbcluster import linkspec

from . import samples, stats
from .sizes import BANDS, band, fmt_size

# The paper's designs as the sweep runs them: (group, backend, progress, idle rule).
MPI4DASK = ("paper", "mpi", "cooperative", "spin")
DESIGNS = (
    ("UCX-Py polling", ("paper", "ucx", "polling", "spin")),
    ("UCX-Py blocking", ("ucx", "ucx", "event", "block")),
    ("Dask TCP", ("tcp", "tcp", "epoll", "block")),
)
RAW = {"mpi": ("paper", "raw-mpi", "blocking", ""), "ucx": ("paper", "raw-ucx", "polling", ""),
       "tcp": ("paper", "raw-tcp", "blocking", "")}
# What each design's number is made of (the ablation rows): the entry against its raw
# library in the same invocation, under the paper's rule and under this suite's default.
ADDED = (
    ("mpi:cooperative@spin (MPI4Dask)", ("paper", "mpi", "cooperative", "spin"), "mpi"),
    ("mpi:cooperative@budget", ("mpi", "mpi", "cooperative", "budget"), "mpi"),
    ("ucx:polling@spin (UCX-Py polling)", ("paper", "ucx", "polling", "spin"), "ucx"),
    ("ucx:polling@budget", ("ucx", "ucx", "polling", "budget"), "ucx"),
    ("ucx:event@block (UCX-Py blocking)", ("ucx", "ucx", "event", "block"), "ucx"),
    ("tcp:epoll@block (Dask TCP)", ("tcp", "tcp", "epoll", "block"), "tcp"),
    ("tcp:epoll@budget", ("tcp", "tcp", "epoll", "budget"), "tcp"),
)
MPI4DASK_APP = "mpi:cooperative@spin"   # MPI4Dask as an application backend
APP_LABELS = {MPI4DASK_APP: "MPI4Dask", "ucx:polling@spin": "UCX-Py polling",
              "ucx:event@block": "UCX-Py blocking", "tcp:epoll@block": "Dask TCP"}
# The link the claims table's "across hosts" column reads (the middle of the sweep; one
# link keeps the report within 40 KB)
ACROSS_AT = "delay=50us"
TARGET_APP_RATIO = 1.5   # issue 28 item 4: every backend within 1.5x of the fastest


def link_delay_us(spec):
    """One-way delay of a link spec ('bridge' -> 0)."""
    return linkspec.parse(spec).delay_us


def link_text(spec):
    """'bridge', '50 us', '50 us, 10gbit'."""
    link = linkspec.parse(spec)
    if link == linkspec.LinkSpec():
        return "bridge"
    return "%g us%s" % (link.delay_us, ", " + linkspec.format_rate(link.rate_bps)
                        if link.rate_bps else "")


class Sweep:
    """One sweep folder: manifest, ping-pong repetitions, bandwidth rows, app rounds."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.links = self.manifest["links"]
        self.mpis = self.manifest["mpi"]
        # lat[(link, mpi, group)][(backend, progress, idle)][size][rep] = p50 us
        self.lat = {}
        self.bw = defaultdict(dict)     # (link, mpi) -> {(backend, progress, idle, size): row}
        self.apps = defaultdict(lambda: defaultdict(dict))  # (link,hosts,mpi,app) -> round -> backend -> row
        for run in self.manifest["runs"]:
            path = os.path.join(folder, run["csv"])
            if run["exit"] != 0 or not os.path.exists(path):
                continue
            key = (run["link"], run["mpi"])
            if run["bench"] == "pingpong":
                self.lat[key + (run["group"],)] = _repetitions(path[:-4] + "-samples.csv")
            elif run["bench"] == "bandwidth":
                for r in _rows(path):
                    self.bw[key][(r["backend"], r["progress"], r["idle"],
                                  int(r["size_bytes"]))] = r
            else:
                rows = _rows(path)
                if rows:
                    self.apps[(run["link"], run["hosts"], run["mpi"], run["bench"])][
                        run["group"]][run["backends"][0]] = rows[0]

    def delays(self):
        """The plain delay links (no rate limit), in delay order: the figure's x axis."""
        return sorted((s for s in self.links if not linkspec.parse(s).rate_bps),
                      key=link_delay_us)

    def series(self, link, mpi, entry):
        group, b, p, i = entry
        return (self.lat.get((link, mpi, group)) or {}).get((b, p, i))

    def speedup(self, link, mpi, a, b, bandname):
        """How much faster entry a is than b (b's latency over a's) over a band:
        {"median", "ci", "n", "paired": "interleaved"|"across invocations", "sizes"}."""
        sa, sb = self.series(link, mpi, a), self.series(link, mpi, b)
        if not sa or not sb:
            return None
        sizes = sorted(s for s in set(sa) & set(sb) if band(s) == bandname)
        if not sizes:
            return None
        reps = sorted(set.intersection(*(set(sa[s]) & set(sb[s]) for s in sizes)))
        per_rep = []
        for r in reps:
            logs = [math.log(sb[s][r] / sa[s][r]) for s in sizes if sa[s][r] > 0 and sb[s][r] > 0]
            if logs:
                per_rep.append(math.exp(sum(logs) / len(logs)))
        res = stats.median_ci(per_rep)
        res["paired"] = "interleaved" if a[0] == b[0] else "across invocations"
        res["sizes"] = (sizes[0], sizes[-1])
        return res

    def added_us(self, link, mpi, entry, fam, bandname):
        """What `entry` adds per message over its raw library in the same invocation, us:
        {"median", "ci", "n"} over repetitions."""
        raw = RAW[fam]
        s = self.series(link, mpi, entry)
        r = self.series(link, mpi, (entry[0],) + raw[1:])
        if not s or not r:
            return None
        sizes = [z for z in sorted(set(s) & set(r)) if band(z) == bandname]
        reps = sorted(set.intersection(*(set(s[z]) & set(r[z]) for z in sizes))) if sizes else []
        per_rep = [statistics.median(s[z][k] - r[z][k] for z in sizes) for k in reps]
        if not per_rep:
            return None
        return {"median": statistics.median(per_rep), "ci": stats.bootstrap_ci(per_rep),
                "n": len(per_rep)}

    def verdict(self, res):
        """faster / slower / tie from a speedup's interval."""
        if not res or res["median"] is None:
            return None
        lo, hi = res["ci"] or (res["median"], res["median"])
        return "faster" if lo > 1 else "slower" if hi < 1 else "tie"

    def crossover(self, mpi, other, bandname):
        """One sentence: where MPI4Dask's design turns from slower (or tied) to faster than
        `other` along the delay links, or that it does not within the swept range."""
        pts = [(link_delay_us(l), self.verdict(self.speedup(l, mpi, MPI4DASK, other, bandname)))
               for l in self.delays()]
        pts = [(d, v) for d, v in pts if v]
        if not pts:
            return "not measured"
        seq = [v for _, v in pts]
        if len(set(seq)) == 1:
            return {"faster": "faster at every delay", "slower": "slower at every delay",
                    "tie": "tie at every delay"}[seq[0]]
        changes = ["%s from %g us" % (v, d) for (d, v), (_, pv) in zip(pts[1:], pts) if v != pv]
        return "%s at %g us, %s" % (seq[0], pts[0][0], ", ".join(changes))

    def app_ratios(self, link, hosts, mpi, app):
        """{backend: {"median", "ci", "n"}} of wall time over the round's fastest."""
        rounds = self.apps.get((link, hosts, mpi, app)) or {}
        per = defaultdict(list)
        for by in rounds.values():
            walls = {b: float(r["wall_s"]) for b, r in by.items() if r.get("wall_s")}
            if len(walls) < 2:
                continue
            best = min(walls.values())
            for b, w in walls.items():
                per[b].append(w / best)
        return {b: stats.median_ci(v) for b, v in per.items()}

    def app_speedups(self, link, hosts, mpi, app, metric="wall_s"):
        """{backend: MPI4Dask's speedup over it in one round (its metric / MPI4Dask's; a
        time metric), median and interval over rounds}."""
        rounds = self.apps.get((link, hosts, mpi, app)) or {}
        per = defaultdict(list)
        for by in rounds.values():
            m = by.get(MPI4DASK_APP)
            if not m or not _num(m.get(metric)):
                continue
            for b, r in by.items():
                if b != MPI4DASK_APP and _num(r.get(metric)):
                    per[b].append(_num(r[metric]) / _num(m[metric]))
        return {b: stats.median_ci(v) for b, v in per.items()}

    def bandwidth_speedup(self, link, mpi, a, b, bandname):
        """MPI4Dask-style bandwidth ratio a/b over a band's sizes (geometric mean of the
        per-size medians of one invocation: no interval)."""
        rows = self.bw.get((link, mpi)) or {}
        logs = []
        for (bk, p, i, size), r in rows.items():
            if (bk, p, i) != a or band(size) != bandname:
                continue
            other = rows.get(b + (size,))
            if other and _num(r.get("bandwidth_MBps")) and _num(other.get("bandwidth_MBps")):
                logs.append(math.log(_num(r["bandwidth_MBps"]) / _num(other["bandwidth_MBps"])))
        return {"median": math.exp(sum(logs) / len(logs)), "ci": None, "n": 1} if logs else None

    def across_hosts(self, at=(ACROSS_AT,), hosts=2):
        """{claim id: cell} for the claims table's column "across hosts": MPI4Dask's
        speedup over the claim's opponent on the given links, per MPI."""
        at = [l for l in at if l in self.links]
        ucx = DESIGNS[0][1]

        def cell(fn):
            parts = []
            for link in at:
                vals = [fn(link, mpi) for mpi in self.mpis]
                if any(v and v.get("median") for v in vals):
                    # one link: the column's title names it
                    parts.append(("%s: " % link_text(link) if len(at) > 1 else "") + " / ".join(
                        "%.2fx" % v["median"] if v and v.get("median") else "–" for v in vals))
            return "; ".join(parts) or "–"

        def app(bench, metric, vs):
            return lambda link, mpi: self.app_speedups(link, hosts, mpi, bench, metric).get(vs)
        return {
            "5a": cell(lambda l, m: self.speedup(l, m, MPI4DASK, ucx, BANDS[0])),
            "5b": cell(lambda l, m: self.speedup(l, m, MPI4DASK, ucx, BANDS[1])),
            "5c": cell(lambda l, m: self.bandwidth_speedup(
                l, m, ("mpi", "cooperative", "spin"), ("ucx", "polling", "spin"), BANDS[2])),
            "7a": cell(app("transpose_sum", "wall_s", "ucx:polling@spin")),
            "7b": cell(app("transpose_sum", "comm_s", "ucx:polling@spin")),
            "8a": cell(app("merge", "wall_s", "ucx:polling@spin")),
            "8b": cell(app("merge", "comm_s", "ucx:polling@spin")),
            "S2": cell(app("merge", "wall_s", "tcp:epoll@block")),
        }

    def emulator_cost(self):
        """The emulator's own cost as the first sidecar over it recorded it
        (environment.COMMBENCH_LINK), or None."""
        for run in self.manifest["runs"]:
            if run["link"] == "bridge":
                continue
            try:
                with open(os.path.join(self.folder, run["csv"])[:-4] + ".json") as f:
                    text = (json.load(f).get("environment") or {}).get("COMMBENCH_LINK")
            except (OSError, ValueError):
                continue
            cost = json.loads(text).get("emulator_cost") if text else None
            if cost:
                return cost
        return None


def _num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x > 0 and math.isfinite(x) else None


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _repetitions(path):
    """{(backend, progress, idle): {size: {rep: median one-way us}}} from a samples file."""
    acc = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    if not (os.path.exists(path) or os.path.exists(path + ".gz")):
        return {}
    for backend, progress, idle, size, rep, us in samples.rows(path):
        acc[(backend, progress, idle)][size][rep].append(us)
    return {k: {s: {rep: statistics.median(v) for rep, v in reps.items()}
                for s, reps in by.items()} for k, by in acc.items()}


def fmt_ratio(res, digits=2):
    """'2.31x [1.90-2.75]' or '–'."""
    if not res or res.get("median") is None:
        return "–"
    text = "%.*fx" % (digits, res["median"])
    if res.get("ci"):
        text += " [%.*f-%.*f]" % (digits, res["ci"][0], digits, res["ci"][1])
    return text


def fmt_us(res):
    if not res or res.get("median") is None:
        return "–"
    text = "%.1f" % res["median"]
    if res.get("ci"):
        text += " [%.1f, %.1f]" % res["ci"]
    return text


def link_table(sw, columns, cell):
    """Markdown: one row per link and MPI, a column per name in `columns`; cell(link, mpi,
    column index) gives each value."""
    out = ["| link | MPI | " + " | ".join(columns) + " |", "|" + "---|" * (2 + len(columns))]
    for link in sw.links:
        for mpi in sw.mpis:
            out.append("| %s | %s | %s |" % (link_text(link), mpi, " | ".join(
                cell(link, mpi, i) for i in range(len(columns)))))
    return out


def speedup_table(sw, bandname):
    """Markdown: MPI4Dask's speedup over each design, one row per link and MPI."""
    return link_table(sw, ["over %s" % n for n, _ in DESIGNS], lambda l, m, i: fmt_ratio(
        sw.speedup(l, m, MPI4DASK, DESIGNS[i][1], bandname)))


def added_table(sw, bandname):
    """Markdown: what each entry adds per message over its raw library, us, per link."""
    return link_table(sw, [n for n, _, _ in ADDED], lambda l, m, i: fmt_us(
        sw.added_us(l, m, ADDED[i][1], ADDED[i][2], bandname)))


def transport_table(sw, bandname):
    """Markdown: the raw libraries against each other (interleaved), per link."""
    pairs = (("raw-mpi over raw-ucx", RAW["mpi"], RAW["ucx"]),
             ("raw-mpi over raw-tcp", RAW["mpi"], RAW["tcp"]),
             ("raw-ucx over raw-tcp", RAW["ucx"], RAW["tcp"]))
    return link_table(sw, [n for n, _, _ in pairs], lambda l, m, i: fmt_ratio(
        sw.speedup(l, m, pairs[i][1], pairs[i][2], bandname)))


def bandwidth_table(sw, size):
    """Markdown: MB/s at one message size per entry of the bandwidth invocation."""
    entries = [("MPI4Dask", ("mpi", "cooperative", "spin")),
               ("UCX-Py polling", ("ucx", "polling", "spin")),
               ("tcp:epoll@spin", ("tcp", "epoll", "spin")),
               ("raw-mpi", ("raw-mpi", "blocking", "")), ("raw-ucx", ("raw-ucx", "polling", "")),
               ("raw-tcp", ("raw-tcp", "blocking", ""))]

    def cell(link, mpi, i):
        r = (sw.bw.get((link, mpi)) or {}).get(entries[i][1] + (size,))
        return "%.0f" % float(r["bandwidth_MBps"]) if r and r.get("bandwidth_MBps") else "–"
    return link_table(sw, [n for n, _ in entries], cell)


def app_table(sw):
    """Markdown: per application link, hosts and MPI, each design's wall time over the
    round's fastest (median [CI] over rounds), and the worst against the 1.5x target."""
    seen = {b for rounds in sw.apps.values() for by in rounds.values() for b in by}
    backends = [b for b in APP_LABELS if b in seen] + sorted(seen - set(APP_LABELS))
    out = ["| app | link | hosts | MPI | " + " | ".join(APP_LABELS.get(b, b) for b in backends) +
           " | worst / 1.5x |", "|" + "---|" * (5 + len(backends))]
    for (link, hosts, mpi, app) in sorted(sw.apps, key=lambda k: (
            k[3], link_delay_us(k[0]), k[1], k[2])):
        ratios = sw.app_ratios(link, hosts, mpi, app)
        if not ratios:
            continue
        worst = max((r["median"] for r in ratios.values() if r["median"]), default=None)
        out.append("| %s | %s | %d | %s | %s | %s |" % (
            app, link_text(link), hosts, mpi,
            " | ".join(fmt_ratio(ratios.get(b)) for b in backends),
            "–" if worst is None else "%.2fx %s" % (
                worst, "holds" if worst <= TARGET_APP_RATIO else "misses")))
    return out


def crossover_lines(sw):
    out = []
    for bandname in BANDS:
        for name, d in DESIGNS:
            cells = ["%s: %s" % (mpi, sw.crossover(mpi, d, bandname)) for mpi in sw.mpis]
            out.append("- %s, MPI4Dask over %s: %s" % (bandname, name, "; ".join(cells)))
    return out


def latest(results_root):
    """The newest committed sweep folder (results/network-sweep-*/ with a manifest), or
    None."""
    found = sorted(p for p in glob.glob(os.path.join(results_root, "network-sweep-*",
                                                     "manifest.json")))
    return os.path.dirname(found[-1]) if found else None


def figure(sw, path):
    """MPI4Dask's speedup over each design against link delay, one panel per size band,
    with 95% intervals; Open MPI solid, MPICH dashed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401
    delays = sw.delays()
    xs = list(range(len(delays)))
    fig, axes = plt.subplots(1, len(BANDS), figsize=(13, 4.2), sharey=True)
    colors = {"UCX-Py polling": "tab:blue", "UCX-Py blocking": "tab:orange",
              "Dask TCP": "tab:green"}
    styles = {0: "-", 1: "--"}
    offs = {n: (i - 1) * 0.08 for i, (n, _) in enumerate(DESIGNS)}
    for ax, bandname in zip(axes, BANDS):
        for mi, mpi in enumerate(sw.mpis):
            for name, d in DESIGNS:
                ys, lo, hi, xx = [], [], [], []
                for x, link in zip(xs, delays):
                    res = sw.speedup(link, mpi, MPI4DASK, d, bandname)
                    if not res or res["median"] is None:
                        continue
                    ci = res["ci"] or (res["median"], res["median"])
                    xx.append(x + offs[name] + (0.03 if mi else -0.03))
                    ys.append(res["median"])
                    lo.append(res["median"] - ci[0])
                    hi.append(ci[1] - res["median"])
                if ys:
                    ax.errorbar(xx, ys, yerr=[lo, hi], color=colors[name],
                                linestyle=styles.get(mi, ":"), marker="o", markersize=3.5,
                                capsize=2, linewidth=1.3,
                                label="over %s (%s)" % (name, mpi))
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ticks = [0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10]
        ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FixedFormatter(["%g" % t for t in ticks]))
        ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(xs)
        ax.set_xticklabels([("bridge" if link_delay_us(l) == 0 else "%g" % link_delay_us(l))
                            for l in delays])
        ax.set_xlabel("one-way link delay (us)")
        ax.set_title("ping-pong %s" % bandname)
        ax.grid(True, which="both", axis="y", alpha=0.3)
    axes[0].set_ylabel("MPI4Dask's speedup (x, >1 = MPI4Dask faster)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle("MPI4Dask's design (mpi:cooperative@spin) against UCX-Py polling "
                 "(ucx:polling@spin), UCX-Py blocking (ucx:event@block) and Dask TCP "
                 "(tcp:epoll@block)\nping-pong across two virtual hosts; median over "
                 "repetitions, bars: 95% bootstrap CI; Open MPI solid, MPICH dashed",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.12, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def size_label(sizes):
    return "%s-%s" % (fmt_size(sizes[0]), fmt_size(sizes[1]))


FIGURE = "speedup.png"


def section(sw, report_folder, root):
    """The report's Network section from a sweep, compact (the report stays within 40 KB;
    every table is in the sweep's tables.md): its command, the figure, the crossover per
    size band, and one row per link with MPI4Dask's small-message speedup over UCX-Py
    polling, what UCX-Py polling adds over raw-ucx under the paper's rule and under this
    suite's default, and the applications' worst design against the fastest."""
    m = sw.manifest
    rel = os.path.relpath(sw.folder, report_folder)
    cost = sw.emulator_cost()
    md = ["Across hosts: the link sweep `%s` (`%s`, commit %s, %s; README there), 2 "
          "virtual hosts, the paper's designs: MPI4Dask = "
          "`mpi:cooperative@spin`, UCX-Py polling = `ucx:polling@spin`, UCX-Py blocking = "
          "`ucx:event@block`, Dask TCP = `tcp:epoll@block`." % (
              os.path.relpath(sw.folder, root), m.get("command", "?").split(" --")[0],
              m.get("git_commit", "?")[:7], m.get("started_utc", "?")[:10])]
    if cost:
        md[-1] += (" Delayed links cross the user-space emulator (+%.1f us one way)." %
                   cost["added_latency_us_one_way"])
    fig = os.path.join(sw.folder, FIGURE)
    if os.path.exists(fig):
        md += ["", "![MPI4Dask's speedup against link delay](%s)" %
               os.path.normpath(os.path.join(rel, FIGURE))]
    md += ["", "Crossover at 1 B-4 KiB (*faster*, *slower*: the 95 %% CI excludes 1): "
           "%s. From 8 KiB up: the sweep's README (the emulator shares the 2 CPUs with spinning "
           "ranks)." % "; ".join(
               "over %s: %s" % (name, ", ".join("%s %s" % (mpi, sw.crossover(mpi, d, BANDS[0]))
                                                for mpi in sw.mpis)) for name, d in DESIGNS)]
    names = " / ".join(sw.mpis)
    links = sw.delays()   # the rate-limited links: tables.md
    heads = "; ".join(link_text(l) for l in links)
    ucx = DESIGNS[0][1]
    md += ["", "Per link (%s), %s, 1 B-4 KiB unless named (CIs: `tables.md`):" % (
        heads, names), ""]
    md.append("- MPI4Dask over UCX-Py polling: %s." % "; ".join(" / ".join(
        _fmt_med(sw.speedup(l, mpi, MPI4DASK, ucx, BANDS[0]), "%.2f") for mpi in sw.mpis)
        for l in links))
    for rule in ("spin", "budget"):
        md.append("- ucx:polling@%s (%s) over raw-ucx, +us: %s." % (
            rule, "paper's rule" if rule == "spin" else "our default",
            "; ".join(" / ".join(_fmt_med(sw.added_us(
                l, mpi, ("paper" if rule == "spin" else "ucx", "ucx", "polling", rule), "ucx",
                BANDS[0])) for mpi in sw.mpis) for l in links)))
    app_links = [l for l in links if any(k[0] == l for k in sw.apps)]
    if app_links:
        md.append("- Apps, worst design / fastest (2 hosts; %s; target %.1f): "
                  "%s." % ("; ".join(link_text(l) for l in app_links), TARGET_APP_RATIO,
                           "; ".join("%s %s" % (app, "; ".join(" / ".join(
                               _worst(sw, l, mpi, app) for mpi in sw.mpis) for l in app_links))
                               for app in sorted({k[3] for k in sw.apps}))))
    return md


def _worst(sw, link, mpi, app):
    r = sw.app_ratios(link, 2, mpi, app)
    return "%.2f" % max(v["median"] or 0 for v in r.values()) if r else "–"


def _fmt_med(res, fmt="%.1f"):
    return "–" if not res or res.get("median") is None else fmt % res["median"]


def tables(sw):
    """tables.md of a sweep folder: every table, every band."""
    md = ["# Link sweep: %s" % os.path.basename(os.path.abspath(sw.folder)), "",
          "Command: `%s` (commit %s, started %s). Written by "
          "`scripts/studies/network-sweep/summarize.py`." % (
              sw.manifest.get("command"), sw.manifest.get("git_commit"),
              sw.manifest.get("started_utc"))]
    if sw.lat:
        md += ["", "![speedup](%s)" % FIGURE, "", "## Crossover", ""] + crossover_lines(sw)
    for bandname in (BANDS if sw.lat else ()):
        md += ["", "## MPI4Dask's speedup, ping-pong %s" % bandname, ""] + speedup_table(
            sw, bandname)
    for bandname in (BANDS[:2] if sw.lat else ()):
        md += ["", "## Added per message over the raw library, %s (us)" % bandname,
               ""] + added_table(sw, bandname)
    for bandname in (BANDS if sw.lat else ()):
        md += ["", "## Raw transports against each other, %s" % bandname, ""] + \
            transport_table(sw, bandname)
    for size in ((64 << 10, 1 << 20, 64 << 20) if sw.bw else ()):
        md += ["", "## Bandwidth at %s (MB/s, median over repetitions)" % fmt_size(size),
               ""] + bandwidth_table(sw, size)
    md += ["", "## Applications: wall time over the round's fastest", ""] + app_table(sw)
    for metric in ("wall_s", "comm_s"):
        md += ["", "## Applications: MPI4Dask's speedup (%s)" % metric, "",
               "| app | link | hosts | MPI | " + " | ".join(
                   "over %s" % APP_LABELS[b] for b in APP_LABELS if "mpi" not in b) + " |",
               "|" + "---|" * 7]
        for (link, hosts, mpi, app) in sorted(sw.apps, key=lambda k: (
                k[3], link_delay_us(k[0]), k[1], k[2])):
            sp = sw.app_speedups(link, hosts, mpi, app, metric)
            md.append("| %s | %s | %d | %s | %s |" % (app, link_text(link), hosts, mpi, " | ".join(
                fmt_ratio(sp.get(b)) for b in APP_LABELS if "mpi" not in b)))
    return "\n".join(md) + "\n"
