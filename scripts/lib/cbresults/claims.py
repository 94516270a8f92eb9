"""The claims table: one row per claim of the MPI4Dask paper (CCGrid'21) and the SC'22
talk, the paper's value, ours (median and 95 % bootstrap interval over paired samples),
and a verdict that is one of VERDICTS, decided by the rule in `decide` (results/README.md
section 8 says the same in prose).

Roles (matrix.PAPER_POLICY): MPI4Dask is played by mpi:cooperative, UCX-Py (polling) by
ucx:polling, Dask's TCP by tcp:epoll. Idle rules (matrix.PAPER_IDLE): the micro claims take
the roles under the paper's rules (mpi:cooperative@spin, ucx:polling@spin, which the compare
run carries) where a run has them, else the plain series, which ran this suite's default
(budget); the application claims ran the default. Each result says which (`idle`).

Samples. Micro-benchmark claims: one per interleaved invocation of the cross-family run
(the band's geometric mean of the per-size ratio). Application claims: one per round at
each worker count (paired.app_pairs); only points whose runs put no more ranks on a host
than it has CPUs count (every rank counts as busy: under cooperative progress the
scheduler/client rank spins too). Points left out stay in the figures, hollow, and the
table names them. At one worker nothing moves between workers: that point is the null
experiment, the noise floor of the comparison, never a sample of the claim."""

import math

from . import ablation, paired, stats
from .figures import machines_by_run, row_oversubscribed
from .matrix import PAPER_IDLE, PAPER_POLICY
from .sizes import BANDS

REPRODUCED, NOT_REPRODUCED, OPPOSITE, NO_DIFFERENCE, NOT_TESTABLE = VERDICTS = (
    "reproduced", "not reproduced", "opposite", "no measurable difference here",
    "not testable here")

# Reproduced: the interval lies above 1.0 (and off the null's spread) and the median
# reaches the paper's value (its lower end) within this factor.
REPRODUCED_WITHIN = 1.5
# Fewer paired samples (invocations, rounds) than this decide nothing: the verdict is at
# most "no measurable difference here" and says why. The claims profile takes 10 rounds.
MIN_SAMPLES = 5
MAX_WHY = 200            # characters of a verdict's reason
MAX_ACCOUNT_WORDS = 15   # the ablation row that accounts for a claim, in words

MPI4DASK, UCXPY, DASKTCP = ((f, PAPER_POLICY[f]) for f in ("mpi", "ucx", "tcp"))
DEFAULT_IDLE = "budget, the suite's default"


def paper_rule(role):
    """(family, "policy@rule"): a role's series under the paper's idle rule."""
    return role[0], "%s@%s" % (role[1], PAPER_IDLE[role[0]])

# source, claim, paper's value as written, its lower end, how ours is measured. `same_as`:
# this row is another row's number by construction (the reason follows); `untestable`:
# no run on one host can test it.
CLAIMS = (
    ("Fig 5a", "small-message latency, 1 B-4 KiB", "5x", 5.0,
     {"id": "5a", "kind": "latency", "band": BANDS[0], "vs": UCXPY}),
    ("Fig 5b", "medium-message latency, 8 KiB-512 KiB", "2-3x", 2.0,
     {"id": "5b", "kind": "latency", "band": BANDS[1], "vs": UCXPY}),
    ("Fig 5c", "bandwidth, >= 1 MiB", "3-4x", 3.0,
     {"id": "5c", "kind": "bandwidth", "band": BANDS[2], "vs": UCXPY}),
    ("Fig 7a", "transpose-sum execution time", "3.47x", 3.47,
     {"id": "7a", "kind": "app", "bench": "transpose_sum", "metric": "wall_s", "vs": UCXPY}),
    ("Fig 7b", "transpose-sum communication time", "6.92x", 6.92,
     {"id": "7b", "kind": "app", "bench": "transpose_sum", "metric": "comm_s", "vs": UCXPY}),
    ("Fig 7c", "transpose-sum throughput (bytes moved / communication time)", "5.17x", 5.17,
     {"id": "7c", "kind": "app", "bench": "transpose_sum", "metric": "throughput_MBps",
      "vs": UCXPY, "same_as": ("7b", "throughput = bytes / comm_s, same bytes")}),
    ("Fig 8a", "merge execution time", "3.11x", 3.11,
     {"id": "8a", "kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY}),
    ("Fig 8b", "merge communication time", "3.22x", 3.22,
     {"id": "8b", "kind": "app", "bench": "merge", "metric": "comm_s", "vs": UCXPY}),
    ("Fig 8c", "merge throughput (joined rows / execution time)", "3.82x", 3.82,
     {"id": "8c", "kind": "app", "bench": "merge", "metric": "rows_per_s", "vs": UCXPY,
      "same_as": ("8a", "rows/s = joined rows / wall_s, same rows")}),
    ("Frontera", "transpose-sum execution time, 32 GPUs (1-32 workers)", "1.71x", 1.71,
     {"id": "F1", "kind": "app", "bench": "transpose_sum", "metric": "wall_s", "vs": UCXPY,
      "untestable": "32 GPUs on 8 nodes"}),
    ("Frontera", "merge execution time, 32 GPUs (1-32 workers)", "2.91x", 2.91,
     {"id": "F2", "kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY,
      "untestable": "32 GPUs on 8 nodes"}),
    ("SC'22", "merge vs UCX", "4.94x", 4.94,
     {"id": "S1", "kind": "app", "bench": "merge", "metric": "wall_s", "vs": UCXPY,
      "same_as": ("8a", "the same comparison, merge wall time")}),
    ("SC'22", "merge vs TCP", "26.85x", 26.85,
     {"id": "S2", "kind": "app", "bench": "merge", "metric": "wall_s", "vs": DASKTCP}),
    ("SC'22", "matrix multiply vs UCX", "4.24x", 4.24,
     {"id": "S3", "kind": "app", "bench": "matmul", "metric": "wall_s", "vs": UCXPY}),
    ("SC'22", "matrix multiply vs TCP", "10.02x", 10.02,
     {"id": "S4", "kind": "app", "bench": "matmul", "metric": "wall_s", "vs": DASKTCP}),
)
BY_ID = {c[4]["id"]: c for c in CLAIMS}
TIME_METRICS = {"wall_s", "comm_s"}
# The apps whose claims need rounds, and the backends each compares (the roles): what
# reproduce runs in paired rounds. ucx:cooperative, the ablation's split, runs once per
# point outside the rounds: a round costs one invocation per backend, and on 2 CPUs the
# rounds already cost more than the rest of the study.
ROUND_BACKENDS = {}
for _c in CLAIMS:
    if _c[4]["kind"] == "app":
        ROUND_BACKENDS.setdefault(_c[4]["bench"], {MPI4DASK}).add(_c[4]["vs"])


def fx(v):
    return "%.2fx" % v if v else "–"


def fci(ci):
    return "%.2f-%.2fx" % ci if ci else "no CI"


def decide(median, ci, n, low, null=None, min_samples=MIN_SAMPLES, unit="samples"):
    """(verdict, reason) from a median ratio (> 1: MPI4Dask's side better), its 95 %
    interval, the number of paired samples, the paper's value (lower end) and the null
    experiment's spread (min, max) where there is one. The rule, in order:
      fewer than min_samples samples or no interval -> no measurable difference (says so);
      interval includes 1.0 -> no measurable difference;
      interval inside the null's spread -> no measurable difference;
      interval below 1.0 -> opposite;
      median >= paper / REPRODUCED_WITHIN -> reproduced; else not reproduced."""
    if median is None:
        return NOT_TESTABLE, "no sample"
    if n < min_samples or not ci:
        if n == 1 and unit.endswith("s"):
            unit = unit[:-1]
        return NO_DIFFERENCE, "%d %s; a verdict needs >= %d" % (n, unit, min_samples)
    lo, hi = ci
    if lo <= 1.0 <= hi:
        return NO_DIFFERENCE, "95 %% CI %s includes 1.0" % fci(ci)
    if null and null[0] <= lo and hi <= null[1]:
        return NO_DIFFERENCE, "95 %% CI %s within the 1-worker null spread %s" % (
            fci(ci), fci(null))
    if hi < 1.0:
        return OPPOSITE, "slower here: 95 %% CI %s lies below 1.0" % fci(ci)
    if median >= low / REPRODUCED_WITHIN:
        return REPRODUCED, "95 %% CI %s; median reaches the paper's %.3gx within %.1fx" % (
            fci(ci), low, REPRODUCED_WITHIN)
    return NOT_REPRODUCED, "faster here (95 %% CI %s) but below the paper's %.3gx / %.1f" % (
        fci(ci), low, REPRODUCED_WITHIN)


class Context:
    """What every claim of one study shares: its rows, which runs were oversubscribed (from
    the sidecars), the host's CPUs, and the results computed so far (for `same_as`)."""

    def __init__(self, rows, sidecars=()):
        self.rows = rows
        self.machines = machines_by_run(list(sidecars))
        cpus = sorted({m["cpus_online"] for m in self.machines.values() if m.get("cpus_online")})
        self.cpus = cpus[0] if cpus else None
        self.results = {}

    def over(self, rs):
        """True when any row ran oversubscribed, False when all are known not to, None when
        no sidecar tells (then ranks > CPUs where the CPUs are known)."""
        flags = set()
        for r in rs:
            f = row_oversubscribed(r, self.machines)
            if f is None and self.cpus and r.get("ranks"):
                f = r["ranks"] > self.cpus
            flags.add(f)
        return True if True in flags else (None if None in flags else False)


def _result(claim, mpi, **kw):
    out = {"claim": claim, "mpi": mpi, "median": None, "ci": None, "n": 0, "unit": "",
           "where": "", "null": None, "left_out": [], "files": [], "same_as": None,
           "account": None, "verdict": NOT_TESTABLE, "why": "", "old_comm": False,
           "judged_null": None, "idle": ""}
    out.update(kw)
    out["why"] = out["why"][:MAX_WHY]
    return out


def evaluate(ctx, claim, mpi):
    """One claim under one MPI: a result dict (see _result) with its verdict."""
    spec = claim[4]
    if spec.get("same_as"):
        other_id, why = spec["same_as"]
        other = ctx.results.get((other_id, mpi)) or evaluate(ctx, BY_ID[other_id], mpi)
        own = _measure(ctx, claim, mpi) if spec["kind"] == "app" else None
        same = other["median"] is None or own is None or own["median"] is None or \
            abs(math.log(own["median"] / other["median"])) < 0.01
        if same:
            res = dict(other, claim=claim, same_as=other_id, account=None)
            # the same number, judged against this row's paper value
            if other["median"] is not None and other["verdict"] in (REPRODUCED, NOT_REPRODUCED):
                res["verdict"], res["why"] = decide(
                    other["median"], other["ci"], other["n"], claim[3], other["judged_null"],
                    unit=other["unit"])
            res["why"] = ("as %s, the same number by construction (%s)" % (
                BY_ID[other_id][0], why))[:MAX_WHY]
            ctx.results[(spec["id"], mpi)] = res
            return res
    res = _measure(ctx, claim, mpi)
    ctx.results[(spec["id"], mpi)] = res
    return res


def _measure(ctx, claim, mpi):
    spec = claim[4]
    if spec["kind"] in ("latency", "bandwidth"):
        return _micro(ctx, claim, mpi)
    return _app(ctx, claim, mpi)


def _micro(ctx, claim, mpi):
    spec = claim[4]
    bench = "pingpong" if spec["kind"] == "latency" else "bandwidth"
    a, b = paper_rule(MPI4DASK), paper_rule(spec["vs"])
    inv = paired.micro_invocations(ctx.rows, a, b, bench, spec["band"], mpi)
    idle = "the paper's, %s:%s and %s:%s" % (a + b)
    if not inv:  # a run without the paper-rule entries (older than them)
        inv = paired.micro_invocations(ctx.rows, MPI4DASK, spec["vs"], bench, spec["band"], mpi)
        idle = DEFAULT_IDLE
    if not inv:
        return _result(claim, mpi, why="no interleaved %s run of mpi:cooperative and %s:%s" % (
            bench, spec["vs"][0], spec["vs"][1]))
    eligible, left = [], []
    for run, v, f in inv:
        rs = [r for r in ctx.rows if r["run_id"] == run]
        (left if ctx.over(rs) else eligible).append((run, v, f))
    files = sorted({f for _r, _v, f in inv if f})
    if not eligible:
        return _result(claim, mpi, files=files, why="every invocation ran oversubscribed",
                       left_out=[{"what": "%d invocations" % len(left)}])
    s = stats.median_ci([v for _r, v, _f in eligible])
    verdict, why = decide(s["median"], s["ci"], s["n"], claim[3], None,
                          unit="interleaved invocations")
    nsizes = len(paired.sizes_in_band(ctx.rows, bench, spec["band"],
                                      {r for r, _v, _f in eligible}))
    return _result(claim, mpi, median=s["median"], ci=s["ci"], n=s["n"], unit="invocations",
                   where="%d sizes" % nsizes, files=files, verdict=verdict, why=why, idle=idle,
                   account=account_micro(ctx.rows, spec, mpi),
                   left_out=[{"what": "%d oversubscribed invocations" % len(left)}] if left else [])


def _app(ctx, claim, mpi):
    spec = claim[4]
    bench, metric, vs = spec["bench"], spec["metric"], spec["vs"]
    per_w = paired.app_pairs(ctx.rows, bench, MPI4DASK, vs, metric, mpi)
    old_comm = metric == "comm_s" and any(
        r["benchmark"] == bench and r.get("comm_s") is not None and r.get("transfer_s") is None
        for r in ctx.rows)
    if not per_w:
        return _result(claim, mpi, why="no %s runs of mpi:cooperative and %s:%s under %s" % (
            bench, vs[0], vs[1], mpi))
    files = sorted({r.get("_file", "") for w in per_w for r in per_w[w]["rows"]} - {""})
    null = _null(ctx, bench, vs, mpi)
    moving = [w for w in per_w if w >= 2]
    over = {w: ctx.over(per_w[w]["rows"]) for w in moving}
    eligible = [w for w in moving if not over[w]]
    left_out = []
    for w in moving:
        if over[w]:
            s = stats.median_ci(per_w[w]["ratios"])
            ranks = max(r["ranks"] for r in per_w[w]["rows"] if r.get("ranks")) \
                if any(r.get("ranks") for r in per_w[w]["rows"]) else None
            left_out.append({"workers": w, "median": s["median"], "ci": s["ci"], "n": s["n"],
                             "what": "%d workers: %s ranks on %s CPUs" % (
                                 w, "%d" % ranks if ranks else "?", ctx.cpus or "?")})
    common = dict(files=files, null=null, left_out=left_out, old_comm=old_comm, unit="rounds",
                  idle=DEFAULT_IDLE)
    if spec.get("untestable"):
        top = max(moving) if moving else None
        s = stats.median_ci(per_w[top]["ratios"]) if top else {"median": None, "ci": None, "n": 0}
        return _result(claim, mpi, verdict=NOT_TESTABLE, median=s["median"], ci=s["ci"],
                       n=s["n"], where="%s workers, our largest" % top if top else "",
                       why="%s; ours: one host, %s CPUs" % (spec["untestable"], ctx.cpus or "?"),
                       **dict(common, left_out=[]))
    if not moving:
        return _result(claim, mpi, why="only 1-worker runs: nothing moves between workers",
                       **common)
    if not eligible:
        w = min(moving)
        return _result(claim, mpi, verdict=NOT_TESTABLE,
                       why="data moves only at oversubscribed points (%s)" % left_out[0]["what"],
                       account=account_app(ctx.rows, spec, mpi, [w], oversubscribed=True),
                       **common)
    rounds_paired = all(per_w[w]["paired"] for w in eligible)
    s = stats.median_ci(paired.pooled(per_w, eligible))
    unit = "rounds" if rounds_paired else "unpaired invocations"
    # the null moves execution time only: at one worker no communication time exists
    judged_null = null["spread"] if null and metric == "wall_s" else None
    verdict, why = decide(s["median"], s["ci"], s["n"], claim[3], judged_null, unit=unit)
    # a pooled verdict must not hide a sign flip between worker counts
    per = {}
    for w in eligible:
        t = stats.median_ci(per_w[w]["ratios"])
        per[w] = decide(t["median"], t["ci"], t["n"], claim[3], judged_null, unit=unit)[0]
    if len(set(per.values())) > 1 and verdict != NO_DIFFERENCE:
        verdict = NO_DIFFERENCE
        why = "mixed across workers: " + ", ".join("%s at %d" % (v, w) for w, v in sorted(per.items()))
    return _result(claim, mpi, median=s["median"], ci=s["ci"], n=s["n"], verdict=verdict,
                   why=why, where="%s workers" % ",".join(str(w) for w in eligible),
                   judged_null=judged_null,
                   account=account_app(ctx.rows, spec, mpi, eligible), **dict(common, unit=unit))


def _null(ctx, bench, vs, mpi):
    """The 1-worker null experiment of a comparison (execution time: nothing moves between
    workers, so any difference is the machine's and the loop's, not the transport's):
    {"median", "ci", "n", "spread": (min, max)} or None."""
    per_w = paired.app_pairs(ctx.rows, bench, MPI4DASK, vs, "wall_s", mpi)
    if 1 not in per_w:
        return None
    ratios = per_w[1]["ratios"]
    s = stats.median_ci(ratios)
    return dict(s, spread=stats.spread(ratios), paired=per_w[1]["paired"])


# --- the ablation row that accounts for a claim ----------------------------------------
# An "account" is {"factors": [(name, value)], "note": str}: the parts the MPI4Dask-over-
# UCX-Py factor splits into (ablation.factors; they multiply to the total), or for the
# claims against Dask's TCP the language layer. Rendered in <= 15 words (account_text).

FACTOR_NAMES = {"progress": "progress", "transport": "transport", "layer": "layers"}


def account_micro(rows, spec, mpi):
    f = ablation.factors(rows, mpi, spec["kind"], bandname=spec["band"])
    return {"factors": [(FACTOR_NAMES[k], f[k]) for k in ("progress", "transport", "layer")
                        if f.get(k)], "note": ""}


def account_app(rows, spec, mpi, workers, oversubscribed=False):
    if not workers:
        return None
    if spec["vs"] == DASKTCP:
        slower = _dask_slower(rows, spec["bench"], mpi)
        return {"factors": [("language layer", slower)] if slower else [],
                "note": "Dask's LocalCluster over our tcp:epoll" if slower else
                "language layer: Dask's own run missing"}

    def factor(a, b):
        per_w = paired.app_pairs(rows, spec["bench"], a, b, spec["metric"], mpi)
        return stats.median_ci(paired.pooled(per_w, [w for w in workers if w in per_w]))["median"]
    parts = [("progress", factor(("ucx", "cooperative"), UCXPY)),
             ("transport", factor(MPI4DASK, ("ucx", "cooperative")))]
    return {"factors": [(k, v) for k, v in parts if v],
            "note": "oversubscribed points" if oversubscribed else ""}


def account_text(accounts):
    """accounts: [account or None] in MPI order -> "transport 0.69x / 0.80x; progress
    1.04x / 1.04x", factors by size (distance from 1.0) at the first MPI, <= 15 words."""
    accs = [a for a in accounts if a]
    if not accs:
        return "–"
    names = []
    for a in accs:
        for k, _v in sorted(a["factors"], key=lambda kv: -abs(math.log(kv[1]))):
            if k not in names:
                names.append(k)
    parts = []
    for k in names:
        vals = [dict(a["factors"]).get(k) if a else None for a in accounts]
        parts.append("%s %s" % (k, " / ".join(fx(v) for v in vals)))
    notes = sorted({a["note"] for a in accs if a["note"]})
    text = "; ".join(parts) + (" (%s)" % "; ".join(notes) if notes else "")
    words = text.split()
    return " ".join(words[:MAX_ACCOUNT_WORDS])


def _dask_slower(rows, bench, mpi):
    for r in ablation.language_rows(rows):
        if r["mpi"] == mpi and r["title"].startswith("Dask LocalCluster") and bench in r["title"]:
            return r["slower"][0]
    return None


# --- tables ------------------------------------------------------------------------------

def evaluate_all(rows, sidecars=()):
    """[(claim, {mpi: result})] for every claim, in CLAIMS order."""
    ctx = Context(rows, sidecars)
    mp = ablation.mpis(rows) or ["openmpi"]
    return [(c, {m: evaluate(ctx, c, m) for m in mp}) for c in CLAIMS], mp, ctx


MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}


def _left_text(l, short=False):
    if not l.get("median"):
        return l["what"]
    if short:
        return "%s at %d workers, n=%d" % (fx(l["median"]), l["workers"], l["n"])
    return "%s: %s (%s, n=%d)" % (l["what"], fx(l["median"]), fci(l["ci"]), l["n"])


def ours_cell(res, short=False):
    """median (95 % CI, n), or what was measured but left out of the verdict."""
    if res["same_as"]:
        return "= %s" % BY_ID[res["same_as"]][0]
    if res["median"] is None:
        left = [l for l in res["left_out"] if l.get("median")]
        return "not judged: %s" % _left_text(left[0], short=True) if left else "–"
    if res["ci"]:
        cell = "%s (%s, n=%d)" % (fx(res["median"]), fci(res["ci"]), res["n"])
    else:
        cell = "%s (n=%d, no CI)" % (fx(res["median"]), res["n"])
    if res["verdict"] == NOT_TESTABLE:
        cell = "not judged: %s at %s" % (cell, res["where"]) if res["where"] else cell
    elif not short and res["where"]:
        cell += ", %s" % res["where"]
    return cell


def verdict_cell(res):
    return ("**%s**: %s" % (res["verdict"], res["why"]))[:MAX_WHY]


def column_heading(title, mpis):
    """An extra column's heading: 'title (Open MPI / MPICH)'."""
    return "%s (%s)" % (title, " / ".join(MPI_NAMES.get(m, m) for m in mpis))


def answer_table(evaluated, mpis, extra=()):
    """The one-page answer: claim, paper, ours (median, 95 % CI) per MPI, verdict per MPI,
    and the ablation row that accounts for it (values per MPI, in the columns' order).
    `extra`: further columns [(heading, {claim id: cell})], e.g. the link sweep's value
    across hosts (sweep.Sweep.across_hosts) or the spread across a stability study's runs
    (stability.cells); a row that repeats another row's number says "as <that row>"."""
    names = [MPI_NAMES.get(m, m) for m in mpis]
    head = ["claim", "paper"] + ["ours, %s" % n for n in names] + [
        "verdict, %s" % n for n in names] + ["accounted for by (%s)" % " / ".join(names)]
    head += [h for h, _cells in extra]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for claim, per in evaluated:
        source, what, paper, _low, spec = claim
        same = [per[m]["same_as"] for m in mpis if per[m]["same_as"]]
        acc = ("as %s" % BY_ID[same[0]][0] if same else
               account_text([per[m]["account"] for m in mpis]))
        verdicts = [verdict_cell(per[m]) for m in mpis]
        # the same verdict for the same reason: said once
        verdicts = [v if i == 0 or v != verdicts[0] else "= %s" % names[0]
                    for i, v in enumerate(verdicts)]
        row = "| %s %s | %s | %s | %s | %s |" % (
            source, what, paper, " | ".join(ours_cell(per[m], short=True) for m in mpis),
            " | ".join(verdicts), acc)
        for _h, cells in extra:
            row += " %s |" % ("as %s" % BY_ID[spec["same_as"][0]][0] if spec.get("same_as")
                              else cells.get(spec["id"], "–"))
        lines.append(row)
    return "\n".join(lines)


ACCOUNT_LEGEND = (
    "*Accounted for by*: the parts the MPI4Dask-over-UCX-Py factor splits into, measured in "
    "the same study and multiplying to the total (appendix *The ablation*): *progress* = "
    "ucx:cooperative over ucx:polling (same transport, the paper's design difference); "
    "*transport* = raw-mpi over raw-ucx for the micro-benchmarks, mpi:cooperative over "
    "ucx:cooperative for the applications; *layers* = what remains (our coroutine layers). "
    "Against TCP: the *language layer*, how much slower Dask's own LocalCluster runs the "
    "workload than our runtime on tcp:epoll. Largest factor first; > 1 favours MPI4Dask's "
    "side.")


def detail_table(evaluated, mpis):
    """Appendix: per claim and MPI, the samples behind the number, the null experiment,
    the points left out of the verdict, and the reason for the verdict."""
    lines = ["| claim | MPI | ours: median (95 % CI, n) | judged at; idle rule | null: 1 "
             "worker, wall time, median (min-max, n) | left out of the verdict | verdict |",
             "|---|---|---|---|---|---|---|"]
    for claim, per in evaluated:
        for k, m in enumerate(mpis):
            r = per[m]
            null = r["null"]
            if not null:
                nulls = "–"
            elif null["n"] > 1:
                nulls = "%s (%s, n=%d)" % (fx(null["median"]), fci(null["spread"]), null["n"])
            else:
                nulls = "%s (n=1%s)" % (fx(null["median"]), "" if null.get("paired") else
                                        ", unpaired")
            left = "; ".join(l["what"] for l in r["left_out"]) or "–"
            # the claim's name once per claim (its other MPIs' rows follow it)
            lines.append("| %s | %s | %s | %s | %s | %s | %s%s |" % (
                "%s %s" % (claim[0], claim[1]) if k == 0 else "″", MPI_NAMES.get(m, m),
                ours_cell(r, short=True),
                "%s; idle %s" % (r["where"], r["idle"]) if r["median"] is not None
                and not r["same_as"] and r["verdict"] != NOT_TESTABLE else "–", nulls,
                left if not r["same_as"] else "as %s" % BY_ID[r["same_as"]][0], r["verdict"],
                " (comm_s: the old summed metric)" if r["old_comm"] else ""))
    return "\n".join(lines)


def counts(evaluated, mpis):
    """{verdict: number of (claim, MPI) cells}; rows equal by construction count once."""
    out = {v: 0 for v in VERDICTS}
    for _claim, per in evaluated:
        for m in mpis:
            if not per[m]["same_as"]:
                out[per[m]["verdict"]] += 1
    return out
