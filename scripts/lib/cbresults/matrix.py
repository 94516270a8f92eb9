"""The study matrix: which benchmark invocations a profile runs, built from what the
binaries say they support. Every microbenchmark invocation lists a backend family's
progress policies together with the family's raw baseline, so the coroutine/raw ratio is
taken interleaved (the VM's latency modes move absolute numbers 3-4x, not ratios)."""

import os
import re

from .launch import mpirun_prefix

# Per profile: size sweeps and iteration counts (CLI of microbench/harness/bench_options.cpp).
PROFILES = {
    "tiny": {  # scripts/regress: seconds per invocation
        "pingpong": ["-b", "1", "-e", "4K", "-f", "16", "--iters", "1000", "--warmup", "100",
                     "--reps", "10"],
        "bandwidth": None,
        "workers": [2],
        "app_runs": 3,
        "transpose_sum": {"n": 2048, "chunk": 512},
        "merge": {"rows": 100000},
    },
    "quick": {
        "pingpong": ["-b", "1", "-e", "1M", "-f", "2", "--iters", "1000", "--iters-large",
                     "200", "--warmup", "100", "--warmup-large", "20", "--reps", "5"],
        "bandwidth": ["-b", "1M", "-e", "16M", "-f", "4", "--iters", "5", "--iters-large", "5",
                      "--warmup", "1", "--warmup-large", "1", "--reps", "5", "--window", "64"],
        "workers": [1, 2],
        "app_runs": 3,
        "transpose_sum": {"n": 8192, "chunk": 2048},
        "merge": {"rows": 1000000},
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
        "merge": {"rows": 4000000},
    },
}

# The paper compares MPI4Dask (cooperative progress) with UCX-Py in polling mode; where a
# family has these policies the cross-family comparison run uses them.
PAPER_POLICY = {"mpi": "cooperative", "ucx": "polling", "tcp": "epoll"}


def families(backends):
    """{'tcp': {'policies': [...], 'raw': 'raw-tcp' or None}} from discover_backends()."""
    fam = {}
    for name, policies in backends.items():
        base = name[4:] if name.startswith("raw-") else name
        f = fam.setdefault(base, {"policies": [], "raw": None, "coroutine": False})
        if name.startswith("raw-"):
            f["raw"] = name
        else:
            f["coroutine"] = True
            f["policies"] = [p for p in policies if p]
    return fam


def family_backend_list(name, fam):
    items = []
    if fam["coroutine"]:
        items += ["%s:%s" % (name, p) for p in fam["policies"]] or [name]
    if fam["raw"]:
        items.append(fam["raw"])
    return items


def compare_backend_list(fams):
    """One policy per coroutine family (the paper's, else the default) and every raw
    baseline: the interleaved run behind the cross-backend speedup table."""
    items = []
    for name in sorted(fams):
        f = fams[name]
        if f["coroutine"]:
            pol = PAPER_POLICY.get(name)
            if pol not in f["policies"]:
                pol = f["policies"][0] if f["policies"] else None
            items.append("%s:%s" % (name, pol) if pol else name)
    for name in sorted(fams):
        if fams[name]["raw"]:
            items.append(fams[name]["raw"])
    return items


class Run:
    def __init__(self, label, cmd, csv, flavor, weight, kind, env_extra=None, timeout=600,
                 python=False):
        self.label, self.cmd, self.csv, self.flavor = label, cmd, csv, flavor
        self.weight, self.kind, self.env_extra, self.timeout = weight, kind, env_extra or {}, timeout
        self.python = python


def micro_runs(flavor, build, fams, profile, csvdir, hostfile=None, interface=None,
               per_node=None):
    runs = []
    prof = PROFILES[profile]
    groups = [(name, family_backend_list(name, fams[name])) for name in sorted(fams)]
    coroutine_families = [n for n in fams if fams[n]["coroutine"]]
    if len(coroutine_families) > 1:
        groups.append(("compare", compare_backend_list(fams)))
    for bench in ("pingpong", "bandwidth"):
        args = prof[bench]
        if args is None:
            continue
        binary = os.path.join(build, "microbench", bench)
        nsizes = _count_sizes(args)
        for group, backends in groups:
            csv = os.path.join(csvdir, "%s-%s-%s.csv" % (bench, group, flavor))
            cmd = mpirun_prefix(flavor, 2, hostfile, per_node) + [binary, "--backend",
                                                                  ",".join(backends)] + args
            cmd += ["--csv", csv, "--timeout", "900"]
            if interface:
                cmd += ["--interface", interface]
            # rough seconds, only for the ETA
            scale = 10.0 if profile == "full" else 1.0
            weight = len(backends) * nsizes * scale * (0.1 if bench == "pingpong" else 2.0)
            runs.append(Run("%s %s [%s] (%s)" % (bench, group, ",".join(backends), flavor),
                            cmd, csv, flavor, weight, bench, timeout=960))
    return runs


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

# Semantic option -> candidate spellings, matched against the binary's --help, because the
# pipeline must keep working while the application CLI settles.
APP_OPTION_CANDIDATES = {
    "n": ["--n", "--size", "--matrix", "--rows-cols", "-n"],
    "chunk": ["--chunk", "--chunk-size", "--block"],
    "rows": ["--rows", "--rows-per-chunk", "--chunk-rows", "--local-size", "--rows-per-worker"],
    "frac_match": ["--frac-match"],
}


def app_help(flavor, binary):
    """The binary's --help text ('' when it does not run)."""
    from .launch import mpi_env, run
    if not os.path.exists(binary):
        return ""
    rc, out = run([binary, "--help"], env=mpi_env(flavor), timeout=60)
    if "--backend" in out:
        return out
    rc, out = run(mpirun_prefix(flavor, 1) + [binary, "--help"], env=mpi_env(flavor), timeout=60)
    return out if "--backend" in out else ""


def _option(help_text, semantic):
    for cand in APP_OPTION_CANDIDATES[semantic]:
        if re.search(r"(^|[\s,])%s([\s,=]|$)" % re.escape(cand), help_text, re.M):
            return cand
    return None


def ranks_for(layout, workers):
    # appbench's layouts (app_session.cpp): dask = rank 0 scheduler, rank 1 client, workers
    # on ranks >= 2 (dask-mpi's); compact = scheduler and client share rank 0, workers on
    # ranks >= 1.
    return workers + 2 if layout == "dask" else workers + 1


def app_runs(flavor, build, fams, profile, csvdir, workers, layouts, hostfile=None,
             interface=None, notes=None):
    runs = []
    prof = PROFILES[profile]
    for app in ("transpose_sum", "merge"):
        binary = os.path.join(build, "appbench", app)
        help_text = app_help(flavor, binary)
        if not help_text:
            if notes is not None:
                notes.append("%s (%s): not built in %s; skipped" % (app, flavor, build))
            continue
        size_args = []
        for semantic, value in prof[app].items():
            opt = _option(help_text, semantic)
            if opt:
                size_args += [opt, str(value)]
            elif notes is not None:
                notes.append("%s: no option for %s in --help; used its default" % (app, semantic))
        known_layouts = [l for l in layouts if l in help_text] or [None]
        for name in sorted(fams):
            f = fams[name]
            if not f["coroutine"]:
                continue
            pol = PAPER_POLICY.get(name)
            if pol not in f["policies"]:
                pol = f["policies"][0] if f["policies"] else None
            for layout in known_layouts:
                for w in workers:
                    tag = "%s-%s-%s-%s-w%d-%s" % (app, name, pol or "default", layout or "default",
                                                  w, flavor)
                    csv = os.path.join(csvdir, tag + ".csv")
                    np_ = ranks_for(layout or "dask", w)
                    cmd = mpirun_prefix(flavor, np_, hostfile) + [binary, "--backend", name]
                    if pol and "--progress" in help_text:
                        cmd += ["--progress", pol]
                    if layout:
                        cmd += ["--layout", layout]
                    if "--workers" in help_text:
                        cmd += ["--workers", str(w)]
                    cmd += size_args + ["--runs", str(prof["app_runs"]), "--csv", csv]
                    if interface and "--interface" in help_text:
                        cmd += ["--interface", interface]
                    runs.append(Run("%s %s:%s layout=%s workers=%d (%s)" % (
                        app, name, pol, layout, w, flavor), cmd, csv, flavor,
                        weight=(20.0 if profile == "full" else 3.0) * prof["app_runs"] * w,
                        kind=app, timeout=900))
    return runs
