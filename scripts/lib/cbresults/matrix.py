"""The study matrix: which benchmark invocations a profile runs, built from what the
binaries say they support. Every microbenchmark invocation lists a backend family's
progress policies together with the family's raw baseline, so the coroutine/raw ratio is
taken interleaved (the VM's latency modes move absolute numbers 3-4x, not ratios).

Everything here is built from what the binaries say about themselves (`--list-backends`,
`--list-options`, as JSON): an option the matrix needs and a binary lacks raises
MissingOption, which `reproduce` turns into a hard error before anything runs."""

import os

from .launch import mpirun_prefix, option_names


class MissingOption(RuntimeError):
    """The matrix asks a binary for an option (or layout) it does not offer."""

# Per profile: size sweeps and iteration counts (CLI of microbench/harness/bench_options.cpp).
# Application sizes by their semantic names (each binary's --list-options "sizes" map);
# groupby's groups (distinct keys over the whole table) are set explicitly, as many as rows
# per worker, so the suite and the Dask baseline (same profiles) run the same workload
# whatever a binary's default.
PROFILES = {
    "tiny": {  # scripts/regress: seconds per invocation
        "pingpong": ["-b", "1", "-e", "4K", "-f", "16", "--iters", "1000", "--warmup", "100",
                     "--reps", "10"],
        "bandwidth": None,
        "workers": [2],
        "app_runs": 3,
        "transpose_sum": {"n": 2048, "chunk": 512},
        "merge": {"rows_per_chunk": 100000},
        "groupby": {"rows_per_chunk": 100000, "groups": 100000},
        "sort": {"rows_per_chunk": 100000},
        # 512 / 256: 8 block products, under a second of mpirun per family (1024 / 256
        # took 3-4 s, and the gate runs it per family and repetition)
        "matmul": {"n": 512, "chunk": 256},
    },
    "quick": {
        "pingpong": ["-b", "1", "-e", "1M", "-f", "2", "--iters", "1000", "--iters-large",
                     "200", "--warmup", "100", "--warmup-large", "20", "--reps", "5"],
        "bandwidth": ["-b", "1M", "-e", "16M", "-f", "4", "--iters", "5", "--iters-large", "5",
                      "--warmup", "1", "--warmup-large", "1", "--reps", "5", "--window", "64"],
        # 3 workers oversubscribe a 2-core machine (with the scheduler's rank, 4 ranks on
        # 2 CPUs): intended, the scaling figures mark those points.
        "workers": [1, 2, 3],
        "app_runs": 3,
        "transpose_sum": {"n": 8192, "chunk": 2048},
        "merge": {"rows_per_chunk": 1000000},
        "groupby": {"rows_per_chunk": 1000000, "groups": 1000000},
        "sort": {"rows_per_chunk": 1000000},
        "matmul": {"n": 2048, "chunk": 512},  # 64 partial products: seconds per sweep
        "rounds": {"rounds": 10, "runs": 1, "warmup": 2, "workers": [1, 2], "compare": 5,
                   "compare_bandwidth_reps": 2},
    },
    "full": {  # the paper's sizes where a 24 GiB machine allows
        "pingpong": ["-b", "1", "-e", "1M", "-f", "2", "--iters", "10000", "--iters-large",
                     "1000", "--reps", "10"],
        "bandwidth": ["-b", "1M", "-e", "128M", "-f", "2", "--iters", "20", "--iters-large",
                      "20", "--warmup", "2", "--warmup-large", "2", "--reps", "5",
                      "--window", "64"],
        "workers": [1, 2, 4, 6],
        "app_runs": 5,
        "transpose_sum": {"n": 16384, "chunk": 4096},
        "merge": {"rows_per_chunk": 4000000},
        "groupby": {"rows_per_chunk": 4000000, "groups": 4000000},
        "sort": {"rows_per_chunk": 4000000},
        "matmul": {"n": 8192, "chunk": 2048},
        "rounds": {"rounds": 10, "runs": 1, "warmup": 3, "workers": None, "compare": 5,
                   "compare_bandwidth_reps": 2},
    },
}

# Paired rounds (issue 26 item 2; "rounds" above). The claims compare backends of one
# application; a ratio of two separate invocations moves with the machine between them (at
# one worker, where nothing moves, backends differed by 1.09-1.54x in vm-2026-11-26). So
# the backends a claim compares run in rounds: every backend once per round, one invocation
# each, back to back in a shuffled order (seeded: the plan is reproducible), and the report
# takes each ratio inside a round (cbresults/paired.py). Per profile:
#   rounds   how many (the claims profile: >= 10)
#   runs     timed runs per invocation (1: more rounds for the same time, each a sample)
#   warmup   untimed runs first (appbench's default, 5, is for long single invocations; the
#            first run opens the connections, the next ones settle the allocator)
#   workers  the worker counts in rounds (None: all): 1 is the null experiment (nothing
#            moves between workers), 2 the smallest with communication; the rest of the
#            sweep runs once, for the figures
#   compare  invocations of the cross-family micro-benchmark run (>= 5 for a micro claim's
#            interval), one per round from the first; compare_bandwidth_reps: repetitions
#            of its bandwidth invocations (5 invocations x 2 instead of 1 x 5)
# tiny (the regression gate's) has no rounds.
ROUND_SEED = 20261126

# The paper compares MPI4Dask (cooperative progress) with UCX-Py in polling mode; where a
# family has these policies the cross-family comparison run uses them.
PAPER_POLICY = {"mpi": "cooperative", "ucx": "polling", "tcp": "epoll"}
# The paper's other UCX-Py mode (blocking): the idle-rule ablation runs it under @block.
PAPER_BLOCKING_POLICY = {"ucx": "event"}
# The idle rule each paper role ran under (issue 28): MPI4Dask's coroutines test their own
# request and `await sleep(0)`, so the loop never sleeps while one is pending (spin);
# UCX-Py's polling mode progresses the worker every loop turn and never sleeps (spin);
# Dask's TCP is asyncio's readiness loop (block).
PAPER_IDLE = {"mpi": "spin", "ucx": "spin", "tcp": "block"}
# The roles of the micro-benchmark claims (MPI4Dask against UCX-Py polling): the compare
# run carries them under their paper rule besides its plain entries. tcp is in no micro
# claim, and beside an MPI entry its @block would be a nap (see idle_rule_groups).
MICRO_CLAIM_FAMILIES = ("mpi", "ucx")


def families(backends):
    """{'tcp': {'policies': [...], 'default': 'epoll', 'raw': 'raw-tcp' or None,
    'coroutine': True, 'options': {key: {...}}}} from launch.list_backends()."""
    fam = {}
    names = {b["name"] for b in backends}
    for b in backends:
        name = b["name"]
        raw = b.get("kind") == "raw"
        base = name[4:] if raw and name.startswith("raw-") else name
        f = fam.setdefault(base, {"policies": [], "default": None, "raw": None,
                                  "raw_variants": [], "coroutine": False, "options": {}})
        if raw:
            f["raw"] = name
            # Its variants (blocking, busy-poll...): every one runs, and the ratios are
            # taken against the fastest (select.overhead_ratios).
            f["raw_variants"] = [p["name"] for p in b.get("policies", [])]
            continue
        f["coroutine"] = True
        f["policies"] = [p["name"] for p in b.get("policies", [])]
        f["default"] = b.get("default_policy")
        f["options"] = {o["key"]: o for o in b.get("options", [])}
        f["idle_rules"] = list(b.get("idle_rules") or [])
        if b.get("raw_baseline") in names:
            f["raw"] = b["raw_baseline"]
    return fam


def raw_backend_list(fam):
    """The family's raw baseline as --backend entries: its name alone when it has one
    variant (the commands stay as they were), else every `name:variant`."""
    if not fam["raw"]:
        return []
    variants = fam.get("raw_variants") or []
    return ["%s:%s" % (fam["raw"], v) for v in variants] if len(variants) > 1 else [fam["raw"]]


def family_backend_list(name, fam):
    items = []
    if fam["coroutine"]:
        items += ["%s:%s" % (name, p) for p in fam["policies"]] or [name]
    return items + raw_backend_list(fam)


def paper_policy(name, fam):
    """The policy that plays the paper's side (PAPER_POLICY), else the family's default."""
    pol = PAPER_POLICY.get(name)
    if pol in fam["policies"]:
        return pol
    return fam["default"] or (fam["policies"][0] if fam["policies"] else None)


def closest_policies(name, fam):
    """The paper's policy and, where the family has it, cooperative progress too: the
    transport ablation compares mpi, ucx and tcp under the closest policies, and the
    paper's UCX-Py polling is not the closest one to MPI4Dask's cooperative design."""
    pols = [paper_policy(name, fam)]
    if "cooperative" in fam["policies"] and "cooperative" not in pols:
        pols.append("cooperative")
    return [p for p in pols if p]


def compare_backend_list(fams):
    """Per coroutine family the paper's policy and cooperative, and every raw baseline:
    the interleaved run behind the cross-backend speedup and transport-ablation tables."""
    items = []
    for name in sorted(fams):
        if fams[name]["coroutine"]:
            items += ["%s:%s" % (name, p) for p in closest_policies(name, fams[name])]
    for name in sorted(fams):
        items += raw_backend_list(fams[name])
    return items


def paper_role_entries(fams):
    """The micro claims' roles as the paper ran them, `fam:policy@rule` (PAPER_IDLE), for
    every family in MICRO_CLAIM_FAMILIES whose binary offers that rule; the claims table
    takes these series where a run has them (cbresults/claims.py)."""
    items = []
    for name in MICRO_CLAIM_FAMILIES:
        f = fams.get(name)
        rule = PAPER_IDLE.get(name)
        if f and f["coroutine"] and rule in (f.get("idle_rules") or []):
            items.append("%s:%s@%s" % (name, paper_policy(name, f), rule))
    return items


def idle_rule_groups(fams):
    """The idle-rule ablation (issue 28): per coroutine family, one invocation of its paper
    policy under every @idle rule its binary offers (and ucx:event@block) interleaved with
    the family's raw baseline, so the paper's designs (ucx:polling@spin as UCX-Py's polling
    mode, ucx:event@block as its blocking mode, mpi:cooperative@spin as MPI4Dask,
    tcp:epoll@block as asyncio) are measured as they ran, beside this suite's default
    (budget). One family per process, as each design ran: an MPI entry in the same loop
    keeps a receive posted that MPI cannot arm on, and @block would become a nap.
    [(family, [entries])]; empty when the binary names no rules."""
    groups = []
    for name in sorted(fams):
        f = fams[name]
        if not (f["coroutine"] and f.get("idle_rules")):
            continue
        pol = paper_policy(name, f)
        items = ["%s:%s@%s" % (name, pol, rule) for rule in f["idle_rules"]]
        # UCX-Py's blocking mode: the worker armed and its fd in the loop, asleep at once.
        blocking = PAPER_BLOCKING_POLICY.get(name)
        if blocking in f["policies"] and "block" in f["idle_rules"]:
            items.append("%s:%s@block" % (name, blocking))
        groups.append((name, items + raw_backend_list(f)))
    return groups


def checked(binary, opts, args):
    """`args` unchanged, after checking that the binary offers every option in it."""
    have = option_names(opts)
    for a in args:
        if a.startswith("-") and not a[1:2].isdigit() and a.split("=", 1)[0] not in have:
            raise MissingOption("%s has no option %s (its --list-options); the study matrix "
                                "needs it: rebuild, or update scripts/lib/cbresults/matrix.py"
                                % (os.path.relpath(binary), a))
    return args


class Run:
    """One invocation. `round`: the paired round it belongs to (None: runs once, outside
    rounds); `block`: the runs that are compared with one another inside a round (the same
    application, MPI, layout and workers; or one micro-benchmark), shuffled together."""

    def __init__(self, label, cmd, csv, flavor, weight, kind, env_extra=None, timeout=600,
                 python=False, round=None, block=None):
        self.label, self.cmd, self.csv, self.flavor = label, cmd, csv, flavor
        self.weight, self.kind, self.env_extra, self.timeout = weight, kind, env_extra or {}, timeout
        self.python = python
        self.round, self.block = round, block


def micro_runs(flavor, build, fams, profile, csvdir, options, hostfile=None, interface=None,
               per_node=None, rounds=None):
    """Ping-pong and bandwidth per family (every policy + raw), the cross-family run, and
    the ablation runs: MPI4Dask's per-frame wire beside raw-mpi, and bi-directional
    bandwidth of the cross-family set. `options`: {"pingpong": --list-options answer,
    "bandwidth": ...}. With `rounds` (a profile's "rounds" entry) the cross-family run is
    invoked rounds["compare"] times, `<bench>-compare-r<k>-<mpi>.csv`, invocation k in
    round k: the micro claims' samples."""
    runs = []
    prof = PROFILES[profile]
    compare_n = (rounds or {}).get("compare", 1) if rounds else 1
    groups = [(name, family_backend_list(name, fams[name]), []) for name in sorted(fams)]
    ablations = {"pingpong": [], "bandwidth": []}
    if len([n for n in fams if fams[n]["coroutine"]]) > 1:
        # + the micro claims' roles under their paper rules (on one host spin = budget,
        # measured; across hosts they part: results/idle-rules-2026-11-28)
        groups.append(("compare", compare_backend_list(fams) + paper_role_entries(fams), []))
        ablations["bandwidth"].append(("compare-bidirectional", compare_backend_list(fams),
                                       ["--bidirectional"]))
    # The wire ablation: MPI4Dask's three-messages-per-write shape, with raw-mpi in the same
    # run so its overhead compares with the packed wire's from the mpi family run. Latency
    # only: two extra small messages per MiB-sized write show nothing in bandwidth.
    mpi = fams.get("mpi")
    if mpi and mpi["coroutine"] and mpi["raw"] and "per-frame" in (
            mpi["options"].get("wire", {}).get("values") or []):
        ablations["pingpong"].append(("mpi-wire-per-frame", [
            "mpi:cooperative" if "cooperative" in mpi["policies"] else "mpi", mpi["raw"]],
            ["--backend-opt", "wire=per-frame"]))
    for name, items in idle_rule_groups(fams):
        ablations["pingpong"].append(("idle-rules-" + name, items, []))
    for bench in ("pingpong", "bandwidth"):
        args = prof[bench]
        if args is None:
            continue
        binary = os.path.join(build, "microbench", bench)
        nsizes = _count_sizes(args)
        for group, backends, extra in groups + ablations[bench]:
            repeats = [None]
            bench_args = args
            if group == "compare" and compare_n > 1:
                repeats = list(range(1, compare_n + 1))
                reps = rounds.get("compare_%s_reps" % bench)
                if reps:
                    bench_args = _with_option(args, "--reps", str(reps))
            for k in repeats:
                name = group if k is None else "%s-r%d" % (group, k)
                csv = os.path.join(csvdir, "%s-%s-%s.csv" % (bench, name, flavor))
                tail = ["--backend", ",".join(backends)] + bench_args + extra + [
                    "--csv", csv, "--timeout", "900"]
                if interface:
                    tail += ["--interface", interface]
                cmd = mpirun_prefix(flavor, 2, hostfile, per_node, interface=interface) + [
                    binary] + checked(binary, options[bench], tail)
                # rough seconds, only for the ETA
                scale = 10.0 if profile == "full" else 1.0
                weight = len(backends) * nsizes * scale * (0.1 if bench == "pingpong" else 2.0)
                runs.append(Run("%s %s [%s] (%s)" % (bench, name, ",".join(backends), flavor),
                                cmd, csv, flavor, weight, bench, timeout=960, round=k,
                                block=None if k is None else (flavor, bench, group)))
    return runs


def _with_option(args, opt, value):
    """`args` with option `opt` set to `value` (replaced where present, else appended)."""
    out = list(args)
    if opt in out:
        out[out.index(opt) + 1] = value
    else:
        out += [opt, value]
    return out


def _count_sizes(args):
    from .sizes import parse_size
    lo = parse_size(args[args.index("-b") + 1])
    hi = parse_size(args[args.index("-e") + 1])
    f = int(args[args.index("-f") + 1])
    n, s = 0, lo
    while s <= hi:
        n, s = n + 1, s * f
    return max(n, 1)


# --- application benchmarks -------------------------------------------------------------

APPS = ("transpose_sum", "merge", "groupby", "sort", "matmul")
# Strong scaling: the problem is fixed while the workers vary; weak: each worker brings one
# chunk of the size (rows per chunk), so the problem grows with the workers.
SCALING = {"transpose_sum": "strong", "matmul": "strong", "merge": "weak", "groupby": "weak",
           "sort": "weak"}


def size_args(app, profile, opts):
    """The profile's sizes for `app` as that binary spells them: its --list-options
    'sizes' maps each semantic size (n, chunk, rows_per_chunk) to an option."""
    out = []
    for semantic, value in PROFILES[profile][app].items():
        opt = (opts.get("sizes") or {}).get(semantic)
        if not opt or opt not in option_names(opts):
            raise MissingOption("%s has no option for its size '%s' (--list-options sizes: %s); "
                                "the %s profile sets it to %s" % (
                                    app, semantic, opts.get("sizes"), profile, value))
        out += [opt, str(value)]
    return out


def ranks_for(layout, workers):
    # appbench's layouts (app_session.cpp): dask = rank 0 scheduler, rank 1 client, workers
    # on ranks >= 2 (dask-mpi's); compact = scheduler and client share rank 0, workers on
    # ranks >= 1.
    return workers + 2 if layout == "dask" else workers + 1


def app_command(flavor, binary, opts, backend, policy, layout, workers, size, runs, csv,
                hostfile=None, interface=None, extra=()):
    """One application invocation, every option checked against the binary's own list."""
    if layout not in (opts.get("layouts") or []):
        raise MissingOption("%s offers no layout '%s' (--list-options layouts: %s)" % (
            os.path.relpath(binary), layout, opts.get("layouts")))
    tail = ["--backend", backend] + (["--progress", policy] if policy else [])
    tail += ["--layout", layout] + list(size) + ["--runs", str(runs), "--csv", csv]
    if interface:
        tail += ["--interface", interface]
    tail += list(extra)
    return mpirun_prefix(flavor, ranks_for(layout, workers), hostfile,
                         interface=interface) + [binary] + checked(binary, opts, tail)


def round_backends():
    """{app: {(family, policy)}}: the backends each application's claims compare (the
    paper's roles, and ucx:cooperative for the ablation's split), from claims.CLAIMS."""
    from .claims import ROUND_BACKENDS  # claims imports this module
    return ROUND_BACKENDS


def app_runs(flavor, build, fams, profile, csvdir, workers, layouts, options, hostfile=None,
             interface=None, rounds=None):
    """Every application (APPS) per coroutine family under its closest policies (the
    paper's, and cooperative), per layout and worker count. `options`: {app:
    --list-options}; an app missing there (not built) is left out.

    With `rounds` (a profile's "rounds" entry, see ROUND_SEED): the backends an app's
    claims compare (round_backends) run rounds["rounds"] times at rounds["workers"], one
    invocation per round (`...-w<W>-r<NN>-<mpi>.csv`, Run.round = NN, Run.block = what is
    shuffled together); everything else runs once, as without rounds."""
    runs = []
    prof = PROFILES[profile]
    in_rounds = round_backends() if rounds and rounds.get("rounds") else {}
    round_workers = set((rounds or {}).get("workers") or workers)
    for app in APPS:
        if app not in options:
            continue
        binary = os.path.join(build, "appbench", app)
        size = size_args(app, profile, options[app])
        for name in sorted(fams):
            f = fams[name]
            if not f["coroutine"]:
                continue
            for pol in closest_policies(name, f):
                for layout in layouts:
                    for w in workers:
                        if (name, pol) in in_rounds.get(app, ()) and w in round_workers:
                            for k in range(1, rounds["rounds"] + 1):
                                tag = "%s-%s-%s-%s-w%d-r%02d-%s" % (app, name, pol, layout, w,
                                                                     k, flavor)
                                csv = os.path.join(csvdir, tag + ".csv")
                                cmd = app_command(flavor, binary, options[app], name, pol,
                                                  layout, w, size, rounds["runs"], csv,
                                                  hostfile, interface, extra=[
                                                      "--warmup", str(rounds["warmup"])])
                                runs.append(Run("%s %s:%s layout=%s workers=%d round %d (%s)" % (
                                    app, name, pol, layout, w, k, flavor), cmd, csv, flavor,
                                    weight=(20.0 if profile == "full" else 3.0) * (
                                        rounds["runs"] + rounds["warmup"]) / 4.0 * w,
                                    kind=app, timeout=900, round=k,
                                    block=(flavor, app, layout, w)))
                            continue
                        tag = "%s-%s-%s-%s-w%d-%s" % (app, name, pol or "default", layout, w,
                                                      flavor)
                        csv = os.path.join(csvdir, tag + ".csv")
                        cmd = app_command(flavor, binary, options[app], name, pol, layout, w,
                                          size, prof["app_runs"], csv, hostfile, interface)
                        runs.append(Run("%s %s:%s layout=%s workers=%d (%s)" % (
                            app, name, pol, layout, w, flavor), cmd, csv, flavor,
                            weight=(20.0 if profile == "full" else 3.0) * prof["app_runs"] * w,
                            kind=app, timeout=900))
    return runs


def order_runs(runs, seed=ROUND_SEED):
    """The study's order: every run outside rounds first, as given; then round by round,
    in each round the blocks in the order they were planned (micro-benchmark comparisons,
    then applications), the runs of a block in an order shuffled with a generator seeded
    by (seed, round, block): the same plan every time, a different order every round."""
    import random
    single = [r for r in runs if r.round is None]
    ordered = list(single)
    for k in sorted({r.round for r in runs if r.round is not None}):
        blocks = []
        for r in runs:
            if r.round == k:
                for b in blocks:
                    if b[0] == r.block:
                        b[1].append(r)
                        break
                else:
                    blocks.append((r.block, [r]))
        for key, members in blocks:
            rng = random.Random("%s/%d/%s" % (seed, k, "/".join(str(x) for x in key or ())))
            rng.shuffle(members)
            ordered += members
    return ordered
