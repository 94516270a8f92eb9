#!/usr/bin/python3
"""Checks what our binaries say about themselves and about their runs, the way the
results pipeline reads it (scripts parse these answers; a drift must fail here first).

  check_program_info.py version BINARY
  check_program_info.py backends BINARY [--raw]
  check_program_info.py options BINARY [--probe]   (--probe: no --inject-delay expected)
  check_program_info.py raw-policies BINARY -- LAUNCHER...
  check_program_info.py sidecar BINARY OUTDIR -- LAUNCHER...
  check_program_info.py probe BINARY
  check_program_info.py memcpy-probe BINARY
  check_program_info.py wake-probe BINARY

Each prints what it checked and exits non-zero with one line naming the first problem."""

import json
import os
import re
import subprocess
import sys

COROUTINE = {"tcp", "ucx", "mpi"}
RAW = {"raw-tcp", "raw-ucx", "raw-mpi"}
# The names metadata.cpp must never record: the pipeline's rule (cbresults/machine.py),
# which harness/secret_env.cpp implements in C++.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "lib"))
from cbresults.machine import is_secret  # noqa: E402

from checklib import fail  # noqa: E402 (this folder)


def run(cmd, timeout=60):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def parse_json(out, what):
    try:
        return json.loads(out)
    except ValueError as e:
        fail("%s: stdout is not JSON (%s): %r" % (what, e, out[:200]))


def answer(binary, flag):
    """The JSON a plain (launcher-less) invocation prints; stdout must hold only it."""
    rc, out, err = run([binary, flag])
    if rc != 0:
        fail("%s %s exited %d: %s" % (binary, flag, rc, err.strip()))
    return parse_json(out, "%s %s" % (binary, flag))


def check_version(binary):
    rc, out, err = run([binary, "--version"])
    name = os.path.basename(binary)
    if rc != 0:
        fail("--version exited %d: %s" % (rc, err.strip()))
    if not re.fullmatch(r"%s commbench \S+ \(git \S+, (openmpi|mpich)\)\n" % re.escape(name), out):
        fail("--version printed %r" % out)
    print("ok:", out.strip())


def check_backends(binary, raw):
    j = answer(binary, "--list-backends")
    for key in ("program", "version", "git_commit", "mpi_flavor", "backends"):
        if key not in j:
            fail("--list-backends has no '%s'" % key)
    if j["program"] != os.path.basename(binary):
        fail("program is %r" % j["program"])
    by_name = {b["name"]: b for b in j["backends"]}
    want = COROUTINE | (RAW if raw else set())
    if set(by_name) != want:
        fail("backends %s, expected %s" % (sorted(by_name), sorted(want)))
    for b in j["backends"]:
        names = [p["name"] for p in b["policies"]]
        if not names or b["default_policy"] not in names:
            fail("%s: default_policy %r not in its policies %s" % (b["name"], b["default_policy"],
                                                                  names))
        if any(not p.get("description") for p in b["policies"]):
            fail("%s: a policy without a description" % b["name"])
        kind = "raw" if b["name"] in RAW else "coroutine"
        if b["kind"] != kind:
            fail("%s: kind %r, expected %r" % (b["name"], b["kind"], kind))
        expected_raw = "raw-" + b["name"] if raw and kind == "coroutine" else None
        if b["raw_baseline"] != expected_raw:
            fail("%s: raw_baseline %r, expected %r" % (b["name"], b["raw_baseline"], expected_raw))
        for o in b["options"]:
            if set(o) != {"key", "values", "default", "description"}:
                fail("%s: option keys %s" % (b["name"], sorted(o)))
            if o["values"] and o["default"] not in o["values"]:
                fail("%s: option %s default %r not in %s" % (b["name"], o["key"], o["default"],
                                                            o["values"]))
    mpi_keys = {o["key"] for o in by_name["mpi"]["options"]}
    if not {"wire", "chunk", "pair_comms"} <= mpi_keys:
        fail("mpi options %s lack wire, chunk or pair_comms" % sorted(mpi_keys))
    print("ok: backends %s" % ", ".join("%s (%s)" % (b["name"], b["default_policy"])
                                        for b in j["backends"]))


def check_options(binary, probe=False):
    """probe: a probe (scale_probe), not a gated benchmark: it has no --inject-delay."""
    j = answer(binary, "--list-options")
    names = set()
    for o in j["options"]:
        base = {"name", "aliases", "default", "takes_value", "description", "type"}
        if set(o) != base and set(o) != base | {"range", "integer"}:
            fail("option keys %s" % sorted(o))
        if not isinstance(o["takes_value"], bool):
            fail("%s: takes_value is not a boolean" % o["name"])
        if "range" in o and (set(o["range"]) != {"min", "max"} or
                             not isinstance(o["range"]["min"], (int, float))):
            fail("%s: range %r is not {min: number, max: number or null}" % (o["name"], o["range"]))
        names.add(o["name"])
        names.update(o["aliases"])
    for flag in ("--help", "--version", "--list-backends", "--list-options", "--backend") + (
            () if probe else ("--inject-delay",)):
        if flag not in names:
            fail("%s is not listed" % flag)
    if not j["sizes"] and not probe:
        fail("no sizes")
    for semantic, option in j["sizes"].items():
        if option not in names:
            fail("size %s names %s, which is not among the options" % (semantic, option))
    if not isinstance(j["layouts"], list):
        fail("layouts is not a list")
    print("ok: %d options, sizes %s, layouts %s" % (len(j["options"]), j["sizes"], j["layouts"]))


def check_raw_policies(binary, launcher):
    """Every raw baseline accepts name:<the policy it lists> (the CSV's progress name)."""
    j = answer(binary, "--list-backends")
    specs = ["%s:%s" % (b["name"], b["default_policy"]) for b in j["backends"]
             if b["kind"] == "raw"]
    cmd = launcher + [binary, "--backend", ",".join(specs), "-b", "1", "-e", "1", "--iters",
                      "10", "--warmup", "1", "--reps", "1"]
    rc, out, err = run(cmd, timeout=100)
    if rc != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), rc, (err or out).strip()[-400:]))
    print("ok: accepted", ",".join(specs))


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_sidecar(binary, outdir, launcher):
    os.makedirs(outdir, exist_ok=True)
    csv = os.path.join(outdir, "sidecar.csv")
    sidecar = os.path.join(outdir, "sidecar.json")
    for stale in (csv, sidecar):  # an earlier run's must not pass for this one's
        if os.path.exists(stale):
            os.remove(stale)
    cmd = launcher + [binary, "-b", "1", "-e", "1", "--iters", "10", "--warmup", "1", "--reps",
                      "1", "--backend", "tcp,ucx,raw-ucx", "--csv", csv]
    rc, out, err = run(cmd, timeout=100)
    if rc != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), rc, (err or out).strip()[-400:]))
    if not os.path.exists(sidecar):
        fail("no sidecar %s" % sidecar)
    with open(sidecar) as f:
        meta = parse_json(f.read(), sidecar)
    for key in ("run_id", "date_utc", "program", "command_line", "git_commit", "mpi_flavor",
                "ranks", "hosts", "cpu_model", "cpus_online", "versions", "environment",
                "settings", "machine", "interface", "library_steering", "transports"):
        if key not in meta:
            fail("sidecar has no '%s'" % key)
    m = meta["machine"]
    for key in ("load_avg_1min_start", "load_avg_5min_start", "load_avg_1min_end",
                "load_avg_5min_end"):
        if not is_number(m.get(key)):
            fail("machine.%s is %r, not a number" % (key, m.get(key)))
    for key in ("cpus_online", "ranks_on_node"):
        if not isinstance(m.get(key), int) or isinstance(m.get(key), bool):
            fail("machine.%s is %r, not an integer" % (key, m.get(key)))
    if m["ranks_on_node"] != 2:
        fail("machine.ranks_on_node is %r with 2 ranks on this host" % m["ranks_on_node"])
    if m.get("oversubscribed") is not (m["ranks_on_node"] > m["cpus_online"]):
        fail("machine.oversubscribed is %r" % m.get("oversubscribed"))
    s = meta["settings"]
    if not (isinstance(meta["ranks"], int) and not isinstance(meta["ranks"], bool)
            and is_number(meta["cpus_online"])):
        fail("ranks or cpus_online is not a number")
    iters, sizes, validate = s.get("iters"), s.get("sizes_bytes"), s.get("validate")
    if not (isinstance(iters, int) and not isinstance(iters, bool) and sizes == [1]
            and isinstance(validate, bool)):
        fail("settings are not typed: iters %r, sizes_bytes %r, validate %r" % (
            iters, sizes, validate))
    leaked = [k for k in meta["environment"] if is_secret(k)]
    if leaked:
        fail("secret variables recorded: %s" % leaked)
    # The test sets both: the filter must drop the one and keep the other.
    if os.environ.get("COMMBENCH_TEST_VISIBLE") and "COMMBENCH_TEST_VISIBLE" not in meta[
            "environment"]:
        fail("COMMBENCH_TEST_VISIBLE is missing: the filter drops too much")
    check_network(meta)
    print("ok: machine %s; %d environment variables, none secret" % (
        json.dumps(m), len(meta["environment"])))


def check_network(meta):
    """Where the listeners bound and why, what steered the libraries, and which transports
    UCX chose: two ranks on this host, no --interface."""
    i = meta["interface"]
    want = {"requested": "", "address": "127.0.0.1", "how": "single host: loopback"}
    if set(i) != {"requested", "name", "address", "how"} or any(i[k] != v for k, v in
                                                                   want.items()):
        fail("interface is %r, expected %r and a name" % (i, want))
    if meta["settings"].get("listen_host") != i["address"]:
        fail("settings.listen_host %r differs from interface.address" % meta["settings"].get(
            "listen_host"))
    st = meta["library_steering"]
    for key in ("launcher_hosts", "launcher_evidence", "set", "kept", "in_effect",
                "inherited_listeners_closed"):
        if key not in st:
            fail("library_steering has no '%s'" % key)
    if st["launcher_hosts"] != "one":
        fail("library_steering.launcher_hosts is %r under a 2-rank local launcher (%s)" % (
            st["launcher_hosts"], st["launcher_evidence"]))
    effect = st["in_effect"]
    for name, value in st["set"].items():
        if effect.get(name) != value:
            fail("library_steering set %s=%s but in_effect says %r" % (name, value,
                                                                      effect.get(name)))
    if "UCX_NET_DEVICES" not in effect or "OMPI_MCA_btl" not in effect:
        fail("library_steering.in_effect lacks UCX_NET_DEVICES or OMPI_MCA_btl: %s" % effect)
    if effect["UCX_NET_DEVICES"] is None:
        fail("UCX_NET_DEVICES is unset on a single host: UCX would listen on every device")
    if meta["mpi_flavor"] == "openmpi" and effect["OMPI_MCA_btl"] is None:
        fail("OMPI_MCA_btl is unset on a single host: the tcp BTL would listen on 0.0.0.0")
    t = meta["transports"]
    for label in ("ucx:cooperative", "raw-ucx:polling"):
        lanes = t.get(label)
        if not (isinstance(lanes, list) and lanes and all(
                isinstance(x, str) and "/" in x for x in lanes)):
            fail("transports[%r] is %r, expected UCX's lanes (e.g. sysv/memory)" % (label, lanes))
    if any(k.startswith("tcp") for k in t):
        fail("transports lists tcp (%s): only backends whose library names its lanes" % t)
    print("ok: interface %s %s (%s); set %s; transports %s" % (
        i["name"], i["address"], i["how"], st["set"], t))


def check_probe(binary):
    rc, out, err = run([binary], timeout=10)
    if rc != 0:
        fail("exited %d: %s" % (rc, err.strip()))
    j = parse_json(out, binary)
    if j.get("probe") != "thread-pingpong" or j.get("mode") not in ("fast", "slow"):
        fail("unexpected answer %s" % out)
    ns, threshold = j.get("one_way_ns_p50"), j.get("threshold_ns")
    if not (is_number(ns) and ns > 0 and is_number(threshold)):
        fail("one_way_ns_p50 %r, threshold_ns %r" % (ns, threshold))
    if (ns < threshold) != (j["mode"] == "fast"):
        fail("mode %s disagrees with %s ns (threshold %s)" % (j["mode"], ns, threshold))
    print("ok: %s ns one-way, %s mode" % (j["one_way_ns_p50"], j["mode"]))


def check_memcpy_probe(binary):
    rc, out, err = run([binary, "--bytes", "4194304", "--reps", "5"], timeout=10)
    if rc != 0:
        fail("exited %d: %s" % (rc, err.strip()))
    j = parse_json(out, binary)
    if j.get("probe") != "memcpy" or j.get("bytes") != 4194304 or j.get("reps") != 5:
        fail("unexpected answer %s" % out)
    p50, top = j.get("copy_MBps_p50"), j.get("copy_MBps_max")
    if not (is_number(p50) and is_number(top) and 0 < p50 <= top):
        fail("copy_MBps_p50 %r, copy_MBps_max %r" % (p50, top))
    print("ok: %s MB/s one-core memcpy" % p50)


def check_wake_probe(binary):
    rc, out, err = run([binary, "--trips", "200"], timeout=20)
    if rc != 0:
        fail("exited %d: %s" % (rc, err.strip()))
    j = parse_json(out, binary)
    if j.get("probe") != "wake" or j.get("trips") != 200 or not j.get("cpus"):
        fail("unexpected answer %s" % out)
    for where in ("same_cpu", "other_cpu"):
        w = j.get(where)
        if w is None and where == "other_cpu" and len(j["cpus"]) == 1:
            continue
        if not (isinstance(w, dict) and all(is_number(w.get(k)) for k in
                                            ("min_us", "p50_us", "p90_us"))
                and 0 < w["min_us"] <= w["p50_us"] <= w["p90_us"]):
            fail("%s: %r" % (where, w))
    print("ok: %s us one wake-up on one CPU" % j["same_cpu"]["p50_us"])


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    what, binary = argv[1], argv[2]
    rest = argv[3:]
    launcher = rest[rest.index("--") + 1:] if "--" in rest else []
    if what == "version":
        check_version(binary)
    elif what == "backends":
        check_backends(binary, "--raw" in rest)
    elif what == "options":
        check_options(binary, "--probe" in rest)
    elif what == "raw-policies":
        check_raw_policies(binary, launcher)
    elif what == "sidecar":
        if not rest or rest[0] == "--":
            fail("sidecar needs OUTDIR")
        check_sidecar(binary, rest[0], launcher)
    elif what == "probe":
        check_probe(binary)
    elif what == "memcpy-probe":
        check_memcpy_probe(binary)
    elif what == "wake-probe":
        check_wake_probe(binary)
    else:
        fail("unknown check %r" % what)


if __name__ == "__main__":
    main(sys.argv)
