"""Provenance of the committed results folders (issue 26 item 8, cbresults/provenance.py):
every folder's README has a Provenance section that names every commit its records name
and a date, says for every '-dirty' build what was dirty (or that it is unknown), and says
"unknown" where the records carry no commit. Fails on the folders as they were: most had no
README, and none said which builds were dirty."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))

from cbresults import provenance  # noqa: E402

RESULTS = os.path.join(ROOT, "results")
# results/reference holds the regression gate's references, which scripts/regress --update
# writes and owns (issue 26 item 7 retakes them); it is no study folder.
NOT_STUDIES = {"reference"}


_TMP = tempfile.TemporaryDirectory()  # every synthetic folder lives here, removed at exit


def folder_with(readme, sidecars):
    d = tempfile.mkdtemp(dir=_TMP.name)
    for i, s in enumerate(sidecars):
        with open(os.path.join(d, "r%d.json" % i), "w") as f:
            json.dump(s, f)
    if readme is not None:
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write(readme)
    return d


class RuleTest(unittest.TestCase):
    SIDE = [{"git_commit": "abc1234", "date_utc": "2026-11-27T02:00:00Z"},
            {"git_commit": "def5678-dirty", "date_utc": "2026-11-27T02:05:00Z"}]

    def test_a_dirty_build_must_say_what_was_dirty(self):
        d = folder_with("# x\n\n## Provenance\n\nRuns 2026-11-27: `abc1234`, `def5678-dirty`.\n",
                        self.SIDE)
        self.assertEqual(provenance.problems(d), [
            "def5678-dirty: no bullet '- `def5678-dirty` ...: ' saying what was dirty (or "
            "that it is unknown)"])
        d = folder_with("# x\n\n## Provenance\n\nRuns 2026-11-27:\n- `abc1234`, clean.\n"
                        "- `def5678-dirty` (1 record): what was dirty is unknown from the "
                        "data.\n", self.SIDE)
        self.assertEqual(provenance.problems(d), [])

    def test_every_commit_and_a_date_are_named(self):
        d = folder_with("# x\n\n## Provenance\n\n- `abc1234`, clean.\n\n## Later\n\n"
                        "`def5678-dirty` on 2026-11-27\n", self.SIDE)  # outside the section
        p = provenance.problems(d)
        self.assertIn("commit def5678-dirty (1 records) is not named", p)
        self.assertIn("no date (YYYY-MM-DD)", p)

    def test_records_without_a_commit_must_say_unknown(self):
        d = folder_with("# x\n\n## Provenance\n\nRan 2026-11-27.\n", [{"fault": "cut"}])
        self.assertIn("the records name no commit: the section must say the commit is unknown",
                      provenance.problems(d))
        d = folder_with("# x\n\n## Provenance\n\nRan 2026-11-27; the commit is unknown.\n",
                        [{"fault": "cut"}])
        self.assertEqual(provenance.problems(d), [])

    def test_no_readme_is_a_problem(self):
        d = folder_with(None, self.SIDE)
        self.assertEqual(provenance.problems(d),
                         ["%s has no '## Provenance' section" % os.path.join(d, "README.md")])


class CommittedFoldersTest(unittest.TestCase):
    def test_every_committed_folder_states_its_provenance(self):
        folders = sorted(f for f in os.listdir(RESULTS)
                         if os.path.isdir(os.path.join(RESULTS, f)) and f not in NOT_STUDIES)
        self.assertIn("vm-2026-11-26", folders)
        bad = {f: provenance.problems(os.path.join(RESULTS, f)) for f in folders}
        self.assertEqual({f: p for f, p in bad.items() if p}, {})

    def test_the_dirty_studies_of_the_issue_are_labelled(self):
        for folder, commit in (("rawceil-2026-11-27", "808e2c9-dirty"),
                               ("rawceil-2026-11-27", "28ddfe8-dirty"),
                               ("thread-fixes-2026-11-27", "25a1be5-dirty"),
                               ("scale-2026-11-27", "a3484b5-dirty")):
            sec = provenance.section(os.path.join(RESULTS, folder))
            self.assertIn("- `%s`" % commit, sec, folder)
        sec = provenance.section(os.path.join(RESULTS, "netfault-2026-11-27"))
        self.assertIn("no commit and no date", sec)


if __name__ == "__main__":
    unittest.main()
