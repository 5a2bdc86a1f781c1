# SPDX-License-Identifier: MIT
"""Every path of this tree that a source comment, a doc or the Makefile names is there
(from the repository's root, or from the naming file's own folder): a move to other
folders leaves no pointer dangling."""

import os
import re
import subprocess
import unittest

from tests.tools import ROOT

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

# A path under one of the tree's folders, not part of a longer path (xen/drivers/...).
FOLDERS = ("boot", "kernel", "drivers", "hypervisor", "lib", "base", "engine", "report",
           "platform", "tools", "tests", "docs", "user", "dom0")
NAMED = re.compile(r"(?<![\w/.-])(?:" + "|".join(FOLDERS)
                   + r")/[A-Za-z0-9_./-]+\.(?:c|h|S|inc|py|md|json|cfg|lds)\b")
# Files that name made-up paths on purpose: the tests of tools/layers and of the test list,
# and the fixtures.
SKIPPED = ("tests/tools/", "tests/fixtures/", "tests/fuzz/corpus")
PLACEHOLDER = re.compile(r"NAME|\*")


def tracked_files():
    """The files git tracks in ROOT, or None outside a checkout (an installed runner)."""
    try:
        listed = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [path for path in listed.splitlines() if not path.startswith(SKIPPED)]


class NamedPaths(unittest.TestCase):
    def test_every_named_path_exists(self):
        files = tracked_files()
        if files is None:
            self.skipTest("not a git checkout")
        dangling = []
        for path in files:
            try:
                with open(os.path.join(ROOT, path), encoding="utf-8") as text:
                    content = text.read()
            except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
                continue
            for line_no, line in enumerate(content.splitlines(), start=1):
                dangling += [f"{path}:{line_no}: {named}" for named in NAMED.findall(line)
                             if not PLACEHOLDER.search(named)
                             and not os.path.exists(os.path.join(ROOT, named))
                             and not os.path.exists(os.path.join(ROOT, os.path.dirname(path),
                                                                 named))]
        self.assertEqual(dangling, [], "paths named but not in the tree")


if __name__ == "__main__":
    unittest.main()
