"""Stability (issue 26 item 4): each claim's number and verdict across quick reproductions
of one commit run back to back on one machine (results/stability-<date>/run-<i>/, made by
scripts/studies/stability/run.sh), with each run's load and latency probe.

`summarize(folder)` evaluates every run's claims exactly as the report does
(claims.evaluate_all) and returns a JSON-able dict that summarize.py writes to
claims.json; the report reads that file (`latest`, `cells`) for the column "across runs"
beside each claim, and `tables` prints the per-run detail.

A run's raw CSVs and sidecars are committed as run-<i>/csv.tar.xz (180 KB instead of 5 MB);
`run_data` unpacks them to a temporary folder when csv/ is not there; `each_run` walks the
runs (scripts/studies/layer/targets.py reads the same runs through it)."""

import glob
import json
import os
import re
import statistics
import tarfile
import tempfile
from collections import Counter

from . import claims, modes, schema

RUN_DIR = re.compile(r"run-(\d+)$")
SUMMARY = "claims.json"
SHORT = {claims.REPRODUCED: "reproduced", claims.NOT_REPRODUCED: "not reproduced",
         claims.OPPOSITE: "opposite", claims.NO_DIFFERENCE: "no difference",
         claims.NOT_TESTABLE: "not testable"}


def run_folders(folder):
    """[(index, path)] of the study's run-<i> folders, by index."""
    out = []
    for p in glob.glob(os.path.join(folder, "run-*")):
        m = RUN_DIR.search(p)
        if m and os.path.isdir(p):
            out.append((int(m.group(1)), p))
    return sorted(out)


def run_data(path):
    """(rows, sidecars) of one run folder: its csv/, or else csv.tar.xz."""
    if glob.glob(os.path.join(path, "csv", "*.csv")) or \
            not os.path.exists(os.path.join(path, "csv.tar.xz")):
        return schema.load_folder(path)[:2]
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "csv"))
        with tarfile.open(os.path.join(path, "csv.tar.xz")) as t:
            # only plain files, by their base name: nothing lands outside tmp/csv
            for member in t.getmembers():
                if member.isfile():
                    dst = os.path.join(tmp, "csv", os.path.basename(member.name))
                    with open(dst, "wb") as out:
                        out.write(t.extractfile(member).read())
        rows, sidecars, _manifest = schema.load_folder(tmp)
        for s in sidecars:  # the paths name the committed archive, not the temporary copy
            s["_path"] = os.path.join(path, "csv", os.path.basename(s["_path"]))
        return rows, sidecars


def each_run(folder):
    """(index, path, rows, sidecars) of every run of the study that left CSVs (a run
    stopped before its first CSV has nothing to say)."""
    for i, path in run_folders(folder):
        try:
            rows, sidecars = run_data(path)
        except FileNotFoundError:
            continue
        yield i, path, rows, sidecars


def claim_value(res):
    """(value, 95 % CI, judged): the claim's median and interval, or where no verdict could
    use them (every point oversubscribed) the first measured point left out, judged=False;
    (None, None, False) when nothing was measured."""
    if res["median"] is not None:
        return res["median"], res["ci"], res["verdict"] != claims.NOT_TESTABLE
    for left in res["left_out"]:
        if left.get("median"):
            return left["median"], left.get("ci"), False
    return None, None, False


def machine_of(sidecars):
    """One run's machine state from its sidecars: loads, quiet count, probe values."""
    states = [s.get("run_state") or {} for s in sidecars]
    states = [st for st in states if st]
    before = [st["load_avg_1min_before"] for st in states
              if isinstance(st.get("load_avg_1min_before"), (int, float))]
    during = [st["load_avg_1min_max_during"] for st in states
              if isinstance(st.get("load_avg_1min_max_during"), (int, float))]
    probes = [v for _s, v in modes.probe_values(sidecars) if v is not None]
    dates = sorted(s["date_utc"] for s in sidecars if s.get("date_utc"))
    commits = sorted({s["git_commit"] for s in sidecars if s.get("git_commit")})
    return {"invocations": len(sidecars),
            "quiet": sum(1 for st in states if st.get("quiet")),
            "load_before_median": statistics.median(before) if before else None,
            "load_during_max": max(during) if during else None,
            "probe_ns": probes, "first_utc": dates[0] if dates else None,
            "last_utc": dates[-1] if dates else None, "commits": commits}


def summarize_run(rows, sidecars):
    evaluated, mpis, _ctx = claims.evaluate_all(rows, sidecars)
    out = {}
    for claim, per in evaluated:
        cid = claim[4]["id"]
        out[cid] = {}
        for m in mpis:
            v, ci, judged = claim_value(per[m])
            out[cid][m] = {"median": v, "judged": judged, "ci": list(ci) if ci else None,
                           "n": per[m]["n"], "verdict": per[m]["verdict"]}
    return {"claims": out, "mpis": mpis, "machine": machine_of(sidecars)}


def summarize(folder):
    """The study's claims.json content: every run's claims and machine state."""
    runs = [dict(summarize_run(rows, sidecars), run=i, folder=os.path.basename(path))
            for i, path, rows, sidecars in each_run(folder)]
    if not runs:
        raise FileNotFoundError("no run-<i> folder with CSVs in %s" % folder)
    commits = sorted({c for r in runs for c in r["machine"]["commits"]})
    firsts = sorted(r["machine"]["first_utc"] for r in runs if r["machine"]["first_utc"])
    mpis = []
    for r in runs:
        mpis += [m for m in r["mpis"] if m not in mpis]
    return {"git_commit": commits[0] if len(commits) == 1 else None, "commits": commits,
            "date_utc": firsts[0] if firsts else None, "mpis": mpis, "runs": runs}


def write(folder):
    data = summarize(folder)
    with open(os.path.join(folder, SUMMARY), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return data


def latest(results_root):
    """The newest committed stability summary (results/stability-*/claims.json) as
    (folder, data), or (None, None)."""
    found = sorted(glob.glob(os.path.join(results_root, "stability-*", SUMMARY)))
    if not found:
        return None, None
    with open(found[-1]) as f:
        return os.path.dirname(found[-1]), json.load(f)


def spread(data, cid, mpi):
    """{"values", "lo", "hi", "ratio" (hi/lo), "verdicts": {verdict: count}, "runs",
    "judged": runs whose value a verdict used} of one claim under one MPI, or None."""
    vals, verdicts, judged = [], Counter(), 0
    runs = 0
    for r in data["runs"]:
        c = r["claims"].get(cid, {}).get(mpi)
        if not c:
            continue
        runs += 1
        verdicts[c["verdict"]] += 1
        if c["median"] is not None:
            vals.append(c["median"])
            judged += bool(c["judged"])
    if not runs:
        return None
    return {"values": vals, "lo": min(vals) if vals else None, "hi": max(vals) if vals else None,
            "ratio": max(vals) / min(vals) if vals else None, "verdicts": verdicts,
            "runs": runs, "judged": judged}


def verdict_text(sp):
    """'held 5/5' when every run reached the same verdict, else the counts, largest first."""
    counts = sorted(sp["verdicts"].items(), key=lambda kv: (-kv[1], kv[0]))
    if len(counts) == 1:
        return "held %d/%d" % (counts[0][1], sp["runs"])
    return ", ".join("%d %s" % (n, SHORT.get(v, v)) for v, n in counts)


def cell(sp, verdict=None):
    """One MPI's part of the report's column: the range of the runs' medians and how many
    runs reached `verdict` (the report's own), '1.10-1.31x; 4/5'; without a verdict, the
    most common one's count."""
    if sp is None:
        return "–"
    rng = "%.2f-%.2fx" % (sp["lo"], sp["hi"]) if sp["lo"] is not None else "no value"
    held = sp["verdicts"].get(verdict, 0) if verdict else max(sp["verdicts"].values())
    return "%s; %d/%d" % (rng, held, sp["runs"])


def cells(data, mpis, evaluated=None):
    """{claim id: cell} for the report's answer table, per MPI in `mpis`' order; with the
    report's `evaluated` claims (claims.evaluate_all) each count is of runs that reached
    the report's verdict ('as Fig 7b' rows are left to the table)."""
    verdicts = {c[4]["id"]: {m: per[m]["verdict"] for m in mpis if m in per}
                for c, per in (evaluated or ())}
    out = {}
    for claim in claims.CLAIMS:
        cid = claim[4]["id"]
        out[cid] = " / ".join(cell(spread(data, cid, m), verdicts.get(cid, {}).get(m))
                              for m in mpis)
    return out


def _fmt_claim(c):
    if c is None:
        return "–"
    if c["median"] is None:
        return "– (%s)" % SHORT.get(c["verdict"], c["verdict"])
    ci = " [%.2f-%.2f]" % tuple(c["ci"]) if c.get("ci") else ""
    note = "" if c["judged"] else ", not judged"
    return "%.2fx%s%s, %s" % (c["median"], ci, note, SHORT.get(c["verdict"], c["verdict"]))


def tables(data):
    """tables.md of a stability study: the runs' machine state, then per claim and MPI each
    run's median [95 % CI] and verdict, with the spread across runs."""
    runs = data["runs"]
    allprobes = [v for r in runs for v in r["machine"]["probe_ns"]]
    mode = modes.classify(allprobes)
    out = ["## Spread per claim", "",
           "The range of the %d runs' medians, max/min, and the verdicts they reached (rows "
           "that repeat another row's number by construction are left out)." % len(runs), "",
           "| claim | %s |" % " | ".join(claims.MPI_NAMES.get(m, m) for m in data["mpis"]),
           "|---|" + "---|" * len(data["mpis"])]
    for claim in claims.CLAIMS:
        if claim[4].get("same_as"):
            continue
        cid = claim[4]["id"]
        parts = []
        for m in data["mpis"]:
            sp = spread(data, cid, m)
            parts.append("–" if sp is None or sp["lo"] is None else "%.2f-%.2fx (%.2f); %s" % (
                sp["lo"], sp["hi"], sp["ratio"], verdict_text(sp)))
        out.append("| %s %s | %s |" % (claim[0], claim[1], " | ".join(parts)))
    out += ["", "## Runs", "",
           "Latency probe: one-way ns per invocation (median [min-max]); its mode under the "
           "report's rule over all runs' probes together: %s." % mode["why"], "",
           "| run | first-last record (UTC) | invocations | quiet | load before (median) | "
           "load during (max) | probe ns | probes fast / slow |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        m = r["machine"]
        p = sorted(m["probe_ns"])
        labels = [mode["label"](v) for v in p]
        out.append("| %d | %s - %s | %d | %d | %s | %s | %s | %s |" % (
            r["run"], m["first_utc"] or "?", (m["last_utc"] or "?")[11:],
            m["invocations"], m["quiet"],
            "%.2f" % m["load_before_median"] if m["load_before_median"] is not None else "–",
            "%.2f" % m["load_during_max"] if m["load_during_max"] is not None else "–",
            "%.0f [%.0f-%.0f]" % (statistics.median(p), p[0], p[-1]) if p else "–",
            "%d / %d" % (labels.count("fast"), labels.count("slow")) if mode["modes"] == 2
            else "one mode"))
    out += ["", "## Claims across runs", "",
            "Per run: the claim's median over its paired samples [95 % bootstrap CI] and its "
            "verdict, as that run's report states them (*not judged*: measured only at "
            "oversubscribed points). Spread: max/min of the runs' medians.", "",
            "| claim | MPI | %s | range | max/min | verdicts |" % " | ".join(
                "run %d" % r["run"] for r in runs), "|---|---|" + "---|" * (len(runs) + 3)]
    for claim in claims.CLAIMS:
        cid = claim[4]["id"]
        for m in data["mpis"]:
            sp = spread(data, cid, m)
            if sp is None:
                continue
            per = [_fmt_claim(r["claims"].get(cid, {}).get(m)) for r in runs]
            out.append("| %s %s | %s | %s | %s | %s | %s |" % (
                claim[0], claim[1], claims.MPI_NAMES.get(m, m), " | ".join(per),
                "%.2f-%.2fx" % (sp["lo"], sp["hi"]) if sp["lo"] is not None else "–",
                "%.2f" % sp["ratio"] if sp["ratio"] else "–", verdict_text(sp)))
    return "\n".join(out) + "\n"

