# SPDX-License-Identifier: MIT
"""docs/compare.md's compare examples run as written: every `tools/clockbench compare`
line of a sh block of its Comparing section exits 0, every `$ tools/clockbench compare`
console example prints the lines shown and exits with the status shown, and every other
line quoted from compare's output is what compare prints (those of the altered copies
on the copies tests/tools/altered.py makes).

Run: /usr/bin/python3 -m unittest tests.tools.test_compare_docs -v
"""

import os
import re
import shlex
import shutil
import tempfile
import unittest

from tests.tools import ROOT, altered, run_cli

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False
# Whole commands: its run time is far beyond what its size says (tests/tools/run).
RUNS_LONG = True

DOC = os.path.join(ROOT, "docs", "compare.md")
# Where the section of examples that run on the fixtures starts, and where it ends.
START, END = "## Comparing\n", "### Tick costs\n"


def blocks(text):
    """(language, [lines]) of each fenced block of `text`."""
    found = re.findall(r"^```(\w*)\n(.*?)^```\n", text, flags=re.M | re.S)
    return [(language, body.splitlines()) for language, body in found]


def commands(lines):
    """The commands among a sh block's lines, continuation lines joined, comments cut."""
    joined, out = "", []
    for line in lines:
        joined += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            out.append(joined.split(" #")[0].strip())
            joined = ""
    return [command for command in out if command.startswith("tools/clockbench compare")]


def run(command):
    """Run a documented command from the top of the tree: (status, output lines)."""
    program, *words = shlex.split(command)
    assert program == "tools/clockbench", command
    result = run_cli(*words)
    return result.returncode, result.stdout.splitlines() + result.stderr.splitlines()


class DocExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(DOC, encoding="utf-8") as source:
            text = source.read()
        cls.section = text[text.index(START):text.index(END)]
        cls.blocks = blocks(cls.section)
        cls.outputs = []

    def test_sh_examples_run(self):
        found = [command for language, lines in self.blocks if language == "sh"
                 for command in commands(lines)]
        self.assertGreaterEqual(len(found), 8)
        for command in found:
            with self.subTest(command=command):
                status, lines = run(command)
                self.assertEqual(status, 0, "\n".join(lines[-5:]))
                self.assertFalse(any("Traceback" in line for line in lines))

    def test_console_examples_print_what_is_shown(self):
        shown = [lines for language, lines in self.blocks
                 if not language and lines and lines[0].startswith("$ tools/clockbench")]
        self.assertGreaterEqual(len(shown), 2)
        for lines in shown:
            with self.subTest(command=lines[0]):
                status, output = run(lines[0][2:])
                expected = [line for line in lines[1:] if line != "..."]
                if "$ echo $?" in expected:
                    at = expected.index("$ echo $?")
                    self.assertEqual(status, int(expected[at + 1]))
                    expected = expected[:at]
                else:
                    self.assertEqual(status, 0)
                for line in expected:
                    self.assertIn(line, output)

    def test_quoted_output_is_what_compare_prints(self):
        """The lines quoted without a prompt: from the fixtures' runs, or from the
        altered copies where they name one (a copy of amd at /tmp/copy, amd with another
        CPU)."""
        scratch = tempfile.mkdtemp(prefix="clockbench-docs-")
        self.addCleanup(shutil.rmtree, scratch)
        copy = altered.byte_copy(altered.AMD, os.path.join(scratch, "copy"))
        intel = altered.other_cpu_copy(altered.AMD, os.path.join(scratch, "intel"))
        fixtures = "tests/tools/fixtures/matrix"
        said = []
        for command in (f"tools/clockbench compare --wide {fixtures}/amd",
                        f"tools/clockbench compare --wide {fixtures}/sample {fixtures}/amd",
                        f"tools/clockbench compare --wide {fixtures}/amd {fixtures}/amd",
                        f"tools/clockbench compare --wide {fixtures}/amd {copy}",
                        f"tools/clockbench compare --wide --include-failed {fixtures}/amd "
                        f"{intel}",
                        f"tools/clockbench compare --wide --before {fixtures}/sample "
                        f"--after {fixtures}/amd --include-failed"):
            said += run(command)[1]
        said = [line.replace("clockbench compare: ", "").replace(copy, "/tmp/copy")
                for line in said]
        quoted = [line for language, lines in self.blocks if not language and lines
                  and not lines[0].startswith("$") for line in lines]
        self.assertGreaterEqual(len(quoted), 8)
        for line in quoted:
            with self.subTest(line=line):
                self.assertIn(line, said)


if __name__ == "__main__":
    unittest.main()
