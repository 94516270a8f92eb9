"""The reliability summary of tests/README.md, rendered from the registry (registry.py).
Every number is counted from what the build registered or read from a committed file."""

import re
import statistics

BEGIN = "<!-- test-table:begin (scripts/test-table writes this; do not edit) -->"
END = "<!-- test-table:end -->"

_WORDS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_WORDS.update({w: 10 * (i + 2) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())})
_WORDS.update({"hundred": 100, "thousand": 1000})


def number_in_name(name):
    """The count a test name announces: digits (`cycles_10000`, `Connections3000`) or
    words (`TenThousand` = 10,000, `ThreeThousand` = 3,000). None when it names none."""
    m = re.search(r"(\d[\d_]*)", name)
    if m:
        return int(m.group(1).replace("_", ""))
    words = [w.lower() for w in re.findall(r"[A-Z][a-z]+|[a-z]+", name)]
    value, cur, seen = 0, 0, False
    for w in words:
        if w not in _WORDS:
            if seen:
                break
            continue
        seen, n = True, _WORDS[w]
        if n >= 100:
            cur = max(cur, 1) * n
            if n == 1000:
                value, cur = value + cur, 0
        else:
            cur += n
    return (value + cur) if seen else None


def _fmt(n):
    return f"{n:,}"


def _cases(gtests, pred):
    """Distinct cases matching pred and the parametrized runs of them."""
    hits = [(s, c, p) for (_, s, c, p) in gtests if pred(s, c)]
    return sorted({c for (_, c, _) in hits}), hits


def _list(names, limit=8):
    names = [f"`{n}`" for n in names]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def rows(ctests, gtests, fuzz, sanitizers, timings, fuzz_ci=None):
    """fuzz_ci: (seconds per target, preset) of the CTest fuzz run, or None."""
    out = []

    cases, runs = _cases(gtests, lambda s, c: s.endswith("FaultSuite"))
    params = sorted({p for (_, _, p) in runs if p})
    out.append(("fault kinds, in process (`fault+<scheme>://` wrapper)",
                f"{len(cases)} kinds x {len(params)} backend/policy = {len(runs)} runs",
                _list(cases), "`reliability_faults`"))

    net = [t for t in ctests if re.search(r"netfault|network_fault", t["name"])]
    if net or timings:
        tte = [e["time_to_error_s"] for e in timings if e.get("time_to_error_s") is not None]
        kinds = sorted({e.get("fault", "?") for e in timings})
        measured = (f"time to error: median {statistics.median(tte):.1f} s, max {max(tte):.1f} s "
                    f"over {len(tte)} cases that ended in an error" if tte else "no error case")
        out.append(("network faults on the virtual cluster",
                    f"{len(kinds)} faults ({', '.join(kinds)}), "
                    f"{len({e.get('backend') for e in timings})} backends, {len(timings)} cases",
                    measured, _list([t["name"] for t in net])))

    kills = [t["name"] for t in ctests if t["name"].startswith("kill_")]
    out.append(("process faults (SIGKILL of a peer or worker)", f"{len(kills)} runs", "",
                _list(kills)))

    bad = [t["name"] for t in ctests
           if re.search(r"(^|\.)bad_|one_rank|too_few_ranks", t["name"]) or t["will_fail"]]
    out.append(("bad inputs (one error line, non-zero exit)", f"{len(bad)} cases", "",
                "`bad_*`, `appbench.bad_*` and the like"))

    stray_g, stray_runs = _cases(gtests, lambda s, c: "stray" in (s + c).lower())
    stray_c = [t["name"] for t in ctests if "stray" in t["name"].lower()]
    if stray_g or stray_c:
        out.append(("stray peers (bad token, wrong identity)",
                    f"{len(stray_runs)} in-process runs, {len(stray_c)} launched runs", "",
                    _list(stray_g + stray_c)))

    for what, pattern, unit in (("connections held at once", r"Concurrent.*Connections", "connections"),
                                ("connect/close cycles", r"Cycles", "cycles each")):
        hits = [(b, c, p) for (b, s, c, p) in gtests if re.search(pattern, c)]
        for binary, case in sorted({(b, c) for b, c, _ in hits}):
            backends = sorted({p for b, c, p in hits if (b, c) == (binary, case) and p})
            n = number_in_name(case)
            out.append((f"{what} ({case})", f"{len(backends)} backend/policy",
                        f"{_fmt(n)} {unit}" if n else "", f"`{binary}`: `{case}`"))
    for t in ctests:
        if re.search(r"cycles", t["name"]) and "mpi_backend_test" in " ".join(t["command"]):
            n = number_in_name(t["name"]) or number_in_name(" ".join(t["command"][-1:]))
            out.append((f"connect/close cycles ({t['name']})", "mpi, 2 ranks",
                        f"{_fmt(n)} cycles" if n else "", f"`{t['name']}`"))

    soak = [t["name"] for t in ctests if t["name"].startswith("soak")]
    if soak:
        out.append(("soak (RSS while connecting, closing and sending)", f"{len(soak)} runs in CI",
                    "10-minute profile: `tests/reliability/soak.sh`", _list(soak)))

    secs, preset = fuzz_ci if fuzz_ci else (None, None)
    for target, (n, size) in fuzz.items():
        out.append((f"fuzz target `{target}`", f"corpus: {_fmt(n)} inputs, {_fmt(size)} bytes",
                    f"{secs} s per CI run, ASan+UBSan" if secs else "not fuzzed in CI",
                    f"`fuzz_decoders` ({preset} preset)" if preset else ""))

    for preset, kind, mpi, label, default in sanitizers:
        scope = f"CTest label `{label}`" if label else "every test"
        out.append((f"sanitizer {kind} on {mpi} (preset `{preset}`)", scope,
                    "in `scripts/test` (CI)" if default else f"not in CI: `scripts/test {preset}`",
                    f"`ctest --preset {preset}`"))
    return out


def render(table_rows):
    lines = [BEGIN, "| what | cases | scale / measured | tests |", "|---|---|---|---|"]
    for r in table_rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    lines.append(END)
    return "\n".join(lines)


def splice(readme_text, table):
    """Replaces the generated block of the README (or fails: the markers must exist)."""
    if BEGIN not in readme_text or END not in readme_text:
        raise ValueError("tests/README.md has no test-table markers")
    head, rest = readme_text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + table + tail
