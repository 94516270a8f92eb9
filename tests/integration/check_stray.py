#!/usr/bin/python3
"""Only the job's own peers get in: a ping-pong measured while a stray keeps knocking.

  check_stray.py PINGPONG OUTDIR -- LAUNCHER...

Runs PINGPONG under LAUNCHER with three ranks and --test-stray: ranks 0 and 1 measure
tcp and raw-tcp with every byte validated while rank 2 connects to rank 1's listener over
and over (harness/stray_peer.hpp: a wrong job token, the right token with another rank's
identity, a version-1 hello without a token, silence) from before the run connects until
it has torn down. The job token is fixed through $COMMBENCH_TEST_JOB_TOKEN so it can be
looked for. Passes when the run exits 0 with validation PASSED, the sidecar's
rejected_peers_by_reason counts each kind of stray refused at least once (and sums to
rejected_peers), and the token (hex,
either case, or its raw bytes) appears nowhere: not in the CSV, the sidecar, stdout or
stderr. Exits non-zero with one line naming the first problem."""

import json
import os
import subprocess

from checklib import fail, args_and_command  # this folder

TOKEN = "5eb1f00dc0ffee0ddba11ad5ca1ab1e5"
# The stray's kinds (harness/stray_peer.hpp) as the listener counts them (comm/peer_auth.hpp):
# another job's token, this job's token as "rank 7", a version-1 hello, silence.
KINDS = ("wrong_token", "wrong_identity", "bad_hello", "silent")


def main():
    (binary, outdir), launcher = args_and_command(
        "check_stray.py PINGPONG OUTDIR -- LAUNCHER...", 2)
    # LAUNCHER comes with its rank count (mpirun -n 2 ...): this check needs a third rank.
    launcher = [("3" if i > 0 and launcher[i - 1] in ("-n", "-np") else a)
                for i, a in enumerate(launcher)]
    os.makedirs(outdir, exist_ok=True)
    csv = os.path.join(outdir, "stray.csv")
    sidecar = os.path.join(outdir, "stray.json")
    for p in (csv, sidecar):
        if os.path.exists(p):
            os.remove(p)
    env = dict(os.environ, COMMBENCH_TEST_JOB_TOKEN=TOKEN)
    cmd = launcher + [binary, "--backend", "tcp,raw-tcp", "--validate", "--test-stray",
                      "-b", "1", "-e", "64K", "-f", "16", "--iters", "1000",
                      "--iters-large", "200", "--reps", "2", "--csv", csv]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
    if run.returncode != 0:
        fail("exit %d: %s" % (run.returncode, (run.stderr.strip() or run.stdout.strip())[-400:]))
    if "# validation: PASSED" not in run.stdout:
        fail("validation did not pass: " + run.stdout[-400:])
    meta = json.load(open(sidecar))
    rejected = meta.get("rejected_peers")
    by = meta.get("rejected_peers_by_reason")
    if not isinstance(by, dict) or not all(isinstance(by.get(k), int) for k in KINDS):
        fail("sidecar rejected_peers_by_reason is %r, expected a count per kind %s" % (
            by, ", ".join(KINDS)))
    short = [k for k in KINDS if by[k] < 1]
    if short:
        fail("no stray refused as %s (rejected_peers_by_reason %r): each kind knocks" % (
            ", ".join(short), by))
    if rejected != sum(by.values()):
        fail("rejected_peers %r is not the sum of rejected_peers_by_reason %r" % (rejected, by))
    raw = bytes.fromhex(TOKEN)
    texts = {"stdout": run.stdout.encode(), "stderr": run.stderr.encode(),
             "csv": open(csv, "rb").read(), "sidecar": open(sidecar, "rb").read()}
    for name, data in texts.items():
        low = data.lower()
        if TOKEN.encode() in low or raw in data:
            fail("the job token appears in the run's " + name)
    print("ok: %d strays refused (%s), validation passed, token in no output" % (
        rejected, ", ".join("%s %d" % (k, by[k]) for k in KINDS)))


if __name__ == "__main__":
    main()
