"""What a committed results folder says about where its numbers came from: the source
commits its JSON records name (sidecars' `git_commit`, `-dirty` when tracked sources outside
results/ differed from the commit: cmake/git_commit.cmake, schema.external_metadata) and
the dates they carry, against what its README's "Provenance" section states (issue 26 item
8: every folder names its commits and a date; a study run from a dirty tree says so and
what was dirty, or that this is unknown; records without a commit or date say unknown).

  python3 scripts/lib/cbresults/provenance.py results/<folder> ...   # the facts, per folder
"""

import json
import os
import re
import sys
from collections import defaultdict

DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
README = "README.md"
SECTION = "## Provenance"


def records(folder):
    """{commit: {"n", "first", "last", "dirs"}} and every date, from the folder's JSON."""
    commits = defaultdict(lambda: {"n": 0, "dates": [], "dirs": set(), "mpis": set(),
                                   "programs": set()})
    dates = []
    for root, _dirs, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            try:
                with open(os.path.join(root, f)) as fh:
                    s = json.load(fh)
            except (OSError, ValueError):
                continue
            if not isinstance(s, dict):
                continue
            c = s.get("git_commit") or s.get("commit")
            d = s.get("date_utc") or s.get("started_utc")
            if d:
                dates.append(d)
            if c:
                e = commits[c]
                e["n"] += 1
                e["dirs"].add(os.path.relpath(root, folder))
                if s.get("mpi_flavor"):
                    e["mpis"].add(s["mpi_flavor"])
                if s.get("program"):
                    e["programs"].add(s["program"])
                if d:
                    e["dates"].append(d)
    return {c: {"n": e["n"], "first": min(e["dates"]) if e["dates"] else None,
                "last": max(e["dates"]) if e["dates"] else None, "dirs": sorted(e["dirs"]),
                "mpis": sorted(e["mpis"]), "programs": sorted(e["programs"])}
            for c, e in commits.items()}, sorted(dates)


def section(folder):
    """The README's Provenance section (text up to the next heading), or None."""
    try:
        with open(os.path.join(folder, README)) as f:
            text = f.read()
    except OSError:
        return None
    if SECTION not in text:
        return None
    body = text.split(SECTION, 1)[1]
    m = re.search(r"^#{1,2} ", body, re.M)
    return body[:m.start()] if m else body


def problems(folder):
    """What the folder's Provenance section leaves out: [str]; [] when it says it all."""
    sec = section(folder)
    if sec is None:
        return ["%s has no '%s' section" % (os.path.join(folder, README), SECTION)]
    out = []
    commits, dates = records(folder)
    for c in sorted(commits):
        if c not in sec:
            out.append("commit %s (%d records) is not named" % (c, commits[c]["n"]))
        # a dirty build gets its own bullet, "- `<commit>` ...: <what was dirty, or unknown>"
        if c.endswith("-dirty") and not re.search(
                r"^- `%s`[^\n]*: \S+(\s+\S+){4,}" % re.escape(c), sec, re.M):
            out.append("%s: no bullet '- `%s` ...: ' saying what was dirty (or that it is "
                       "unknown)" % (c, c))
    if not DATE.search(sec):
        out.append("no date (YYYY-MM-DD)")
    if not commits and "unknown" not in sec:
        out.append("the records name no commit: the section must say the commit is unknown")
    if not dates and "unknown" not in sec and not commits:
        out.append("the records carry no date: the section must say so")
    return out


def main(argv):
    for folder in argv:
        commits, dates = records(folder)
        print("%s: %s" % (folder, "%s .. %s" % (dates[0], dates[-1]) if dates else "no dates"))
        for c, e in sorted(commits.items(), key=lambda kv: kv[1]["first"] or ""):
            print("  %-14s %4d records  %s .. %s  %s" % (c, e["n"], e["first"], e["last"],
                                                        ", ".join(e["dirs"])))
        for p in problems(folder):
            print("  PROBLEM: " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
