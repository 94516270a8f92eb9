"""Reads what the build registered: CTest's JSON test list, the gtest cases of the
in-process suites (`--gtest_list_tests`, no launcher needed), the fuzz corpora, the
sanitizer presets and the committed network-fault timings. Everything the table says is
read here; nothing is typed by hand."""

import glob
import json
import os
import re
import subprocess

SUITES = ("tests/reliability/reliability_suite", "tests/comm_suite")


def ctest_tests(build_dir):
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        tests.append({"name": t["name"], "command": t.get("command", []),
                      "labels": labels if isinstance(labels, list) else [labels],
                      "timeout": props.get("TIMEOUT"),
                      "will_fail": bool(props.get("WILL_FAIL", False))})
    return tests


def parse_gtest_list(text):
    """`--gtest_list_tests` output -> [(suite, case, param or None)], params from
    `Prefix/Suite.` + `Case/param` lines."""
    cases, suite = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.strip().rstrip(".")
            continue
        name = line.split("#")[0].strip()
        case, _, param = name.partition("/")
        cases.append((suite, case, param or None))
    return cases


def gtest_cases(build_dir, ctests):
    """[(ctest test, suite, case, param)] of the in-process suites: for every CTest test
    that runs a suite binary, the cases its --gtest_filter selects (what CTest actually
    runs, not what the binary holds: a case no filter names runs nowhere and is not
    listed)."""
    cases = []
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for rel in SUITES:
        exe = os.path.join(build_dir, rel)
        if not os.access(exe, os.X_OK):
            continue
        for t in ctests:
            if not any(arg == exe or arg.endswith("/" + rel) for arg in t["command"]):
                continue
            filt = [a for a in t["command"] if a.startswith("--gtest_filter=")]
            out = subprocess.run([exe, "--gtest_list_tests"] + filt[-1:], capture_output=True,
                                 text=True, timeout=60, env=env).stdout
            cases += [(t["name"],) + c for c in parse_gtest_list(out)]
    return cases


def fuzz_targets(src_dir):
    """{target: (inputs, bytes)} for every tests/fuzz/<target>_fuzz.cpp."""
    out = {}
    for path in sorted(glob.glob(os.path.join(src_dir, "tests/fuzz/*_fuzz.cpp"))):
        t = os.path.basename(path)[:-len("_fuzz.cpp")]
        files = [f for f in glob.glob(os.path.join(src_dir, "tests/fuzz/corpus", t, "*"))
                 if os.path.isfile(f)]
        out[t] = (len(files), sum(os.path.getsize(f) for f in files))
    return out


def sanitizer_presets(src_dir):
    """[(preset, sanitizer, test filter label or None, in scripts/test's default set)]."""
    with open(os.path.join(src_dir, "CMakePresets.json")) as f:
        presets = json.load(f)
    with open(os.path.join(src_dir, "scripts/test")) as f:
        m = re.search(r"\|\| presets=\(([^)]*)\)", f.read())
    default = set(m.group(1).split()) if m else set()
    by_name = {p["name"]: p for p in presets["configurePresets"]}

    def cache(p):
        c = {}
        if "inherits" in p:
            c.update(cache(by_name[p["inherits"]]))
        c.update(p.get("cacheVariables", {}))
        return c
    filters = {t["name"]: t.get("filter", {}).get("include", {}).get("label")
               for t in presets.get("testPresets", [])}
    rows = []
    for p in presets["configurePresets"]:
        if p.get("hidden"):
            continue
        c = cache(p)
        kind = ("ASan+UBSan" if c.get("COMMBENCH_SANITIZE") == "ON" else
                "TSan" if c.get("COMMBENCH_TSAN") == "ON" else None)
        if kind:
            rows.append((p["name"], kind, c.get("COMMBENCH_MPI_FLAVOR"),
                         filters.get(p["name"]), p["name"] in default))
    return rows


def network_fault_timings(src_dir):
    """The committed time-to-error measurements of the virtual-cluster fault tests:
    results/netfault*/**/*.json entries with a `time_to_error_s`."""
    found = []
    for path in sorted(glob.glob(os.path.join(src_dir, "results/netfault*/**/*.json"),
                                 recursive=True)):
        with open(path) as f:
            data = json.load(f)
        for entry in data if isinstance(data, list) else data.get("cases", [data]):
            if isinstance(entry, dict) and "time_to_error_s" in entry:
                found.append(entry)
    return found


def fuzz_ci_run(src_dir):
    """(seconds per target, preset) of the fuzz_decoders registration: its CMake command
    `run_fuzzers.sh OUT SECONDS` and the sanitizer it is registered under. The test exists
    only in the asan build, so it is read from the CMake source, not the openmpi registry."""
    for path in glob.glob(os.path.join(src_dir, "tests/**/CMakeLists.txt"), recursive=True):
        with open(path) as f:
            text = f.read()
        m = re.search(r"run_fuzzers\.sh\s+\S+\s+(\d+)", text)
        if m:
            # The if() that guards the registration says which builds have the test.
            guard = text[:m.start()].rsplit("if(", 1)[-1].split(")", 1)[0]
            return int(m.group(1)), "asan" if "COMMBENCH_SANITIZE" in guard else "every"
    return None
