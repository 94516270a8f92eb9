"""The run layer's arrows point one way (microbench/CMakeLists.txt): harness/ below
drivers/ below session/, and the applications on the harness alone. A file that includes a
header of a layer above its own is reported with its line, so a new arrow back up fails
here instead of being found by reading (issue 27 item 4)."""

import os
import re
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# folder (from the repository root) -> include prefixes its files must not use.
FORBIDDEN = {
    "microbench/harness": ("drivers/", "session/"),
    "microbench/drivers": ("session/",),
    "appbench": ("drivers/", "session/"),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def arrows_up(root, forbidden=FORBIDDEN):
    """["path:line includes X"] for every include of a header above the file's layer."""
    found = []
    for folder, prefixes in forbidden.items():
        for dirpath, _dirs, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp", ".cu", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1).startswith(prefixes):
                            found.append("%s:%d includes %s" % (
                                os.path.relpath(path, root), number, m.group(1)))
    return found


class IncludeLayersTest(unittest.TestCase):
    def test_no_file_includes_a_layer_above_its_own(self):
        self.assertEqual(arrows_up(ROOT), [])

    def test_every_layer_folder_exists(self):
        # A renamed folder would make the check above pass by finding nothing.
        for folder in FORBIDDEN:
            self.assertTrue(os.path.isdir(os.path.join(ROOT, folder)), folder)
        self.assertTrue(os.path.isdir(os.path.join(ROOT, "microbench", "session")))

    def test_an_arrow_back_up_is_reported_with_its_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "microbench", "harness"))
            with open(os.path.join(tmp, "microbench", "harness", "x.cpp"), "w") as f:
                f.write('#include "harness/ok.hpp"\n#include "drivers/driver.hpp"\n')
            self.assertEqual(arrows_up(tmp, {"microbench/harness": ("drivers/",)}),
                             ["microbench/harness/x.cpp:2 includes drivers/driver.hpp"])


if __name__ == "__main__":
    unittest.main()
