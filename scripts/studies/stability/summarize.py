#!/usr/bin/python3
"""Each claim's spread across a stability study's runs (issue 26 item 4): writes
claims.json (every run's claims and machine state; the report's column "across runs"
reads it) and tables.md into the study folder, and prints tables.md.
  scripts/studies/stability/summarize.py results/stability-<date>"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from cbresults import stability  # noqa: E402


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    folder = argv[0]
    try:
        data = stability.write(folder)
    except FileNotFoundError as e:
        sys.exit("summarize: %s" % e)
    text = stability.tables(data)
    with open(os.path.join(folder, "tables.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
