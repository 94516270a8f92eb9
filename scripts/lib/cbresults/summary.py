"""The report's first page after the answer table: three to five sentences of conclusions
written from the evaluated claims (never hard-coded numbers), and the appendix table of
paired application comparisons (every worker count, the null experiment included)."""

from . import claims as C
from . import paired, stats
from .matrix import APPS

MICRO_IDS = ("5a", "5b", "5c")


def _by_id(evaluated):
    return {claim[4]["id"]: per for claim, per in evaluated}


def _vals(per, mpis, key="median"):
    return " / ".join(C.fx(per[m][key]) for m in mpis)


def _range(vals):
    vals = [v for v in vals if v]
    if not vals:
        return None
    lo, hi = min(vals), max(vals)
    return C.fx(lo) if abs(hi - lo) < 0.005 else "%.2f-%.2fx" % (lo, hi)


def conclusions(evaluated, mpis, mode=None):
    """Three to five sentences from the data: the verdict count, the micro-benchmarks with
    their largest factor, the applications (or why they are not testable here, with the
    ratios seen outside the verdict beside the null experiment), and what limits the data."""
    names = " / ".join(C.MPI_NAMES.get(m, m) for m in mpis)
    n = C.counts(evaluated, mpis)
    total = sum(n.values())
    out = ["Of %d claim verdicts (%d claims x %d MPI%s, rows that repeat another row's number "
           "counted once), %s." % (
               total, len(evaluated), len(mpis), "s" if len(mpis) > 1 else "",
               ", ".join("%d %s" % (k, v) for v, k in n.items() if k) or "none")]
    by = _by_id(evaluated)
    micro = [by[i] for i in MICRO_IDS if i in by]
    if micro and any(per[m]["median"] for per in micro for m in mpis):
        bits = ["%s %s (paper %s)" % (per[mpis[0]]["claim"][1].split(",")[0], _vals(per, mpis),
                                      per[mpis[0]]["claim"][2]) for per in micro
                if any(per[m]["median"] for m in mpis)]
        ns = sorted({per[m]["n"] for per in micro for m in mpis if per[m]["median"]})
        sentence = ("Micro-benchmarks, mpi:cooperative over ucx:polling (%s): %s, from %s "
                    "interleaved invocation%s per MPI" % (
                        names, "; ".join(bits), "-".join(str(x) for x in (ns[0], ns[-1]))
                        if len(ns) > 1 else ns[0], "" if ns == [1] else "s"))
        acc = micro[0][mpis[0]].get("account")
        if acc and acc["factors"]:
            k, v = max(acc["factors"], key=lambda kv: abs(C.math.log(kv[1])))
            sentence += ("; at small messages the largest factor of the ablation is %s (%s)" % (
                k, " / ".join(C.fx(dict((micro[0][m].get("account") or {}).get(
                    "factors", [])).get(k)) for m in mpis)))
        out.append(sentence + ".")
    apps = [(claim, per) for claim, per in evaluated if claim[4]["kind"] == "app"
            and not claim[4].get("untestable") and not any(per[m]["same_as"] for m in mpis)]
    judged = [(c, per) for c, per in apps if any(per[m]["verdict"] != C.NOT_TESTABLE
                                                 for m in mpis)]
    if apps and not judged:
        left = [l for _c, per in apps for m in mpis for l in per[m]["left_out"]
                if l.get("median") and _c[4]["metric"] == "wall_s"]
        smallest = min((l["workers"] for l in left), default=None)
        seen = _range([l["median"] for l in left if l["workers"] == smallest])
        nulls = _range([v for _c, per in apps for m in mpis if per[m]["null"]
                        for v in per[m]["null"]["spread"] or ()])
        why = next((per[m]["why"] for _c, per in apps for m in mpis if per[m]["why"]), "")
        s = "No application claim is testable here: %s" % why.split(";")[0]
        if seen:
            s += ("; outside the verdict, execution-time ratios at %d workers span %s, while "
                  "the 1-worker null experiment, where nothing moves between workers, spans "
                  "%s" % (smallest, seen, nulls or "–"))
        out.append(s + ".")
    elif judged:
        verdicts = sorted({per[m]["verdict"] for _c, per in judged for m in mpis})
        meds = _range([per[m]["median"] for _c, per in judged for m in mpis])
        papers = sorted({c[3] for c, _per in judged})
        nulls = _range([v for _c, per in judged for m in mpis if per[m]["null"]
                        for v in per[m]["null"]["spread"] or ()])
        out.append("Application claims judged at points without oversubscription: medians "
                   "%s against the paper's %s, verdicts %s; the 1-worker null experiment "
                   "spans %s." % (meds, "%gx" % papers[0] if len(papers) == 1 else
                                  "%g-%gx" % (papers[0], papers[-1]), ", ".join(verdicts),
                                  nulls or "–"))
    caveats = []
    if any(per[m]["old_comm"] for _c, per in apps for m in mpis):
        caveats.append("this folder's comm_s is the old summed transfer time, which counts "
                       "overlapping transfers more than once")
    if mode and mode.get("modes") == 1:
        caveats.append("the latency probe shows one machine mode over %d runs (median %.0f "
                       "ns)" % (mode["n"], mode["clusters"][0]["median_ns"]))
    elif mode and mode.get("modes") == 2:
        caveats.append("the latency probe shows two machine modes (%s): compare only "
                       "figures from one interleaved run" % mode["why"])
    if caveats:
        out.append("Caveats: %s." % "; ".join(caveats))
    return " ".join(out[:5])


# --- appendix: paired application comparisons --------------------------------------------

PAIRS = ((C.MPI4DASK, C.UCXPY), (C.MPI4DASK, C.DASKTCP), (("ucx", "cooperative"), C.UCXPY),
         (C.MPI4DASK, ("ucx", "cooperative")))


def paired_table(ctx, mpis, metric="wall_s"):
    """Every app, MPI and comparison: per worker count the median ratio over rounds with its
    95 % CI and n; the 1-worker column is the null experiment; a dagger marks points left
    out of verdicts (more ranks than CPUs)."""
    rows = ctx.rows
    ws = sorted({int(r["workers"]) for r in rows if r["benchmark"] in APPS
                 and r["origin"] == "suite" and r.get("workers") is not None})
    if not ws:
        return "*No application runs.*"
    lines = ["| workload | MPI | A vs B | " + " | ".join(
        "%d worker%s%s" % (w, "s" if w > 1 else "", " (null)" if w == 1 else "") for w in ws)
        + " |", "|---|---|---|" + "---|" * len(ws)]
    unpaired = False
    for bench in [a for a in APPS if a in C.ROUND_BACKENDS]:
        for m in mpis:
            for a, b in PAIRS:
                per_w = paired.app_pairs(rows, bench, a, b, metric, m)
                if not per_w:
                    continue
                cells = []
                for w in ws:
                    if w not in per_w:
                        cells.append("–")
                        continue
                    s = stats.median_ci(per_w[w]["ratios"])
                    unpaired |= not per_w[w]["paired"]
                    cell = "%s (%s, n=%d)" % (C.fx(s["median"]), C.fci(s["ci"]), s["n"]) \
                        if s["ci"] else "%s (n=%d)" % (C.fx(s["median"]), s["n"])
                    if ctx.over(per_w[w]["rows"]):
                        cell += " †"
                    cells.append(cell)
                lines.append("| %s | %s | %s:%s / %s:%s | %s |" % (
                    bench, C.MPI_NAMES.get(m, m), a[0], a[1], b[0], b[1], " | ".join(cells)))
    notes = ["The workloads with claims. Execution time, B's over A's (> 1: A faster), "
             "taken within each round and "
             "summarised as the median over rounds with a 95 % bootstrap interval. † = more "
             "ranks than CPUs on the host: shown, left out of every verdict."]
    if unpaired:
        notes.append("n=1 without an interval: a side ran outside the rounds (ucx:cooperative "
                     "does; CSVs from before rounds all do), so that ratio compares the medians "
                     "of separate invocations.")
    return "\n".join(lines) + "\n\n" + " ".join(notes)
