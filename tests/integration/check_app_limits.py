#!/usr/bin/python3
"""An app's frame and message limits follow its data, not the 8/16 GiB defaults.

  check_app_limits.py OUTDIR -- LAUNCHER... APP ARGS...

Runs the app with --csv and reads its sidecar: settings.max_frame_bytes must be the
workers' data bound (at least the 64 MiB control floor) plus 64 KiB, far below the
library default, and max_message_bytes 64 KiB above it. One line on failure."""

import json
import os

from checklib import fail, args_and_command, run_ok  # this folder

FLOOR, SLACK = 64 << 20, 64 << 10


def main():
    (outdir,), cmd = args_and_command("check_app_limits.py OUTDIR -- LAUNCHER... APP ARGS...", 1)
    os.makedirs(outdir, exist_ok=True)
    csv = os.path.join(outdir, "limits.csv")
    run_ok(cmd + ["--csv", csv])
    with open(os.path.splitext(csv)[0] + ".json") as f:
        settings = json.load(f)["settings"]
    frame, message = settings.get("max_frame_bytes"), settings.get("max_message_bytes")
    if not isinstance(frame, int) or not isinstance(message, int):
        fail("the sidecar records no max_frame_bytes / max_message_bytes: %r" % settings)
    if frame != FLOOR + SLACK:  # the tiny test data is below the control floor
        fail("max_frame_bytes %d, expected %d (64 MiB floor + 64 KiB)" % (frame, FLOOR + SLACK))
    if message != frame + SLACK:
        fail("max_message_bytes %d, expected %d" % (message, frame + SLACK))
    print("app limits: frame %d B, message %d B" % (frame, message))


if __name__ == "__main__":
    main()
