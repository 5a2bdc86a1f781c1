# SPDX-License-Identifier: MIT
"""The guest options the runner knows (guestopts): its table is the image's own, and it
refuses what the image's parser refuses, with a suggestion.

build/host/guest-options, built from lib/options.c, writes build/guest-options.json
(`make tool-tests` makes both), prints what the image's help=1 prints, and parses a
command line with the image's own parser: these tests hold the runner's table and its
check to all three.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from tests.tools import ROOT, scratch, sections
from clockbench_lib.base import paths
from clockbench_lib.boot import guestopts
from clockbench_lib.testing import testlist
from clockbench_lib.base.outcome import RunnerError

PROGRAM = os.path.join(ROOT, paths.BUILD_DIR, "host", "guest-options")
# Command lines the image's parser and the runner's check must judge alike.
CMDLINES = (
    "", "  \t ", "verbose=1", "exit=halt fault=pf verbose=1 help=0 port_io=trap",
    "sample=100", "exits=halt", "exit=hal", "exit=halted", "exit=", "verbose=7", "verbose",
    "=1", "verbose=1 verbose=0", "budget_ms=100", "budget_ms=99", "budget_ms=600000",
    "budget_ms=600001", "budget_ms=", "budget_ms=1e3", "budget_ms=-5", "budget_ms=0100",
    "budget_ms=99999999999999999999", "budget_ms=\u00b2", "samples=0", "samples=1000000",
    "samples=1000001", "hold_ap=255", "hold_ap=256", "tick_rates=", "tick_rates=1000,50",
    "tick_rates=1000000", "tick_rates=1000001", "tick_rates=0", "tick_rates=1,",
    "tick_rates=,1", "tick_rates=1,,2", "tick_rates=100,x", "tick_rates=1,2,3,4,5,6,7,8",
    "tick_rates=1,2,3,4,5,6,7,8,9", "tick_ms=9", "tick_ms=10 rate_ms=10 warp_ms=1",
    "drift_ms=600000", "acpi_dump=1\nverbose=1", "VERBOSE=1", "verbose=1=1",
    "budget_ms=" + "0" * 5000 + "100", "budget_ms=" + "9" * 5000, "tick_rates=0001,1" + "0" * 6,
)


def require_program():
    """AssertionError unless build/host/guest-options is built."""
    if not os.access(PROGRAM, os.X_OK):
        raise AssertionError(f"{PROGRAM} is missing: `make tool-tests` builds it first")


def run_program(*args):
    """Run build/host/guest-options; returns the CompletedProcess."""
    require_program()
    return subprocess.run([PROGRAM, *args], capture_output=True, text=True, timeout=30,
                          check=False)


class TheImagesTable(unittest.TestCase):
    """build/guest-options.json is what lib/options.c holds, and nothing else."""

    @classmethod
    def setUpClass(cls):
        result = run_program()
        if result.returncode != 0:
            raise AssertionError(f"{PROGRAM} failed: {result.stderr}")
        cls.written = result.stdout
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "options.json")
            with open(path, "w", encoding="utf-8") as out:
                out.write(result.stdout)
            cls.table = guestopts.load_table(path)

    def test_the_build_holds_the_programs_table(self):
        with open(os.path.join(ROOT, guestopts.OPTIONS_FILE), encoding="utf-8") as built:
            self.assertEqual(built.read(), self.written)
        self.assertEqual(guestopts.load_table(), self.table)

    def test_every_option_of_the_images_help(self):
        """Each option help=1 lists (options_describe(), which the image prints), with
        its values, default and help, is the table's, in the same order."""
        result = run_program("--describe")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 2 * len(self.table))
        for (name, option), heading, help_line in zip(self.table.items(), lines[::2],
                                                      lines[1::2]):
            self.assertEqual(heading, f"  {name:<9} {option.values_text()} (default "
                                      f"{option.default})")
            self.assertEqual(help_line, f"{'':12}{option.help}")

    def test_kinds(self):
        self.assertEqual(self.table["exit"].values, ("auto", "isa", "acpi", "reset", "halt"))
        self.assertEqual((self.table["verbose"].kind, self.table["verbose"].default),
                         ("bool", "0"))
        samples = self.table["samples"]
        self.assertEqual((samples.kind, samples.minimum, samples.maximum), ("number", 0, 1000000))
        rates = self.table["tick_rates"]
        self.assertEqual((rates.kind, rates.max_items, rates.default),
                         ("list", 8, "100,1000,10000,100000"))

    def test_schema_name_is_the_headers(self):
        with open(os.path.join(ROOT, "lib", "options.h"), encoding="utf-8") as header:
            found = re.search(r'#define OPTIONS_SCHEMA "([^"]+)"', header.read())
        self.assertEqual(found.group(1), guestopts.OPTIONS_SCHEMA)

    def test_the_check_refuses_what_the_image_refuses(self):
        """The runner's check and the image's parser, run on this host, agree on every
        command line of CMDLINES."""
        for cmdline in CMDLINES:
            with self.subTest(cmdline=cmdline):
                image = run_program("--parse", cmdline)
                self.assertIn(image.returncode, (0, 1), image.stderr)
                problem = guestopts.cmdline_problem(cmdline, self.table)
                self.assertEqual(problem is None, image.returncode == 0,
                                 f"runner: {problem}; image: {image.stderr.strip()}")

    def test_the_repository_tests(self):
        """Every boot line of tests/tests.cfg that runs the image passes the check, but
        for the expect=fail lines that give it a wrong option on purpose."""
        tests = testlist.load_tests_cfg(os.path.join(ROOT, testlist.TESTS_CFG))
        refused = set()
        for test in tests:
            if isinstance(test, testlist.BootTest) and not test.spec.runs_user:
                problem = guestopts.cmdline_problem(test.spec.cmdline, self.table)
                if problem:
                    self.assertEqual(test.expect, "fail", (test.name, problem))
                    refused.update(test.spec.cmdline.split())
        self.assertLessEqual({"bogus=1", "verbose=7"}, refused)


    def test_the_readme_table(self):
        """README.md's table of guest options names the same options, in the same order,
        with the same values or bounds."""
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
            section = readme.read().split("## Guest options", 1)[1].split("\n## ", 1)[0]
        rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", section, re.MULTILINE)
        self.assertEqual([name for name, _ in rows], list(self.table))
        for name, values in rows:
            option = self.table[name]
            with self.subTest(option=name):
                if option.kind in ("choice", "bool"):
                    self.assertEqual(tuple(re.findall(r"`([^`]+)`", values)), option.values)
                else:
                    self.assertIn(f"{option.minimum} to {option.maximum}", values)
                    self.assertRegex(values, rf"\(default `?{re.escape(option.default)}`?\)")


class Check(unittest.TestCase):
    """The sentences of the check, with their suggestions."""

    @classmethod
    def setUpClass(cls):
        cls.table = guestopts.load_table()
        if cls.table is None:
            raise AssertionError(f"{guestopts.OPTIONS_FILE} is missing: `make tool-tests` "
                                 f"writes it first")

    def problem(self, cmdline):
        return guestopts.cmdline_problem(cmdline, self.table)

    def test_sentences(self):
        self.assertEqual(self.problem("sample=100"),
                         "unknown guest option 'sample' (did you mean 'samples'?)")
        self.assertEqual(self.problem("verbose=1 exit=hal"),
                         "guest option exit: 'hal' is not valid (expected auto, isa, acpi, "
                         "reset or halt) (did you mean 'halt'?)")
        self.assertEqual(self.problem("verbose"),
                         "guest option 'verbose' is not of the form key=value (did you mean "
                         "'verbose=1'?)")
        self.assertEqual(self.problem("budget_ms=99"),
                         "guest option budget_ms: '99' is not valid (expected a whole number "
                         "from 100 to 600000)")
        self.assertEqual(self.problem("tick_rates=1,"),
                         "guest option tick_rates: '1,' is not valid (expected up to 8 whole "
                         "numbers from 1 to 1000000, separated by commas, or nothing)")
        self.assertEqual(self.problem("help=1 help=0"), "guest option 'help' is given twice")
        self.assertTrue(self.problem("zzz=1").startswith(
            "unknown guest option 'zzz' (known: exit, fault, port_io, "))
        self.assertIsNone(self.problem("exit=halt samples=1000000 tick_rates="))

    def test_check_cmdline(self):
        with self.assertRaises(RunnerError) as caught:
            guestopts.check_cmdline("sample=100", self.table)
        self.assertEqual(caught.exception.status, 2)
        self.assertEqual(str(caught.exception),
                         "unknown guest option 'sample' (did you mean 'samples'?); "
                         "`tools/clockbench run --help` lists the guest options.")
        guestopts.check_cmdline("sample=100", None)  # no table: nothing is checked

    def test_help_lines(self):
        lines = guestopts.help_lines(self.table)
        self.assertIn("  samples     0 to 1000000 (default 0)", lines)
        self.assertIn("  exit        auto, isa, acpi, reset or halt (default auto)", lines)
        self.assertTrue(all(len(line) <= 90 for line in lines))
        self.assertIn("make guest-options", guestopts.help_lines(None)[0])


class BrokenTables(unittest.TestCase):
    """A table that is missing is no table; one that is broken is an error."""

    def setUp(self):
        self.directory = tempfile.mkdtemp()
        self.path = os.path.join(self.directory, "t.json")

    def tearDown(self):
        shutil.rmtree(self.directory)

    def load(self, text):
        with open(self.path, "w", encoding="utf-8") as out:
            out.write(text)
        return guestopts.load_table(self.path)

    def test_missing(self):
        self.assertIsNone(guestopts.load_table(self.path))

    def test_broken(self):
        for text, fragment in (
                ("{", "is not JSON"),
                ('{"schema": "clockbench-options/0", "options": []}', "is not a "
                 "clockbench-options/1 table"),
                ('{"schema": "clockbench-options/1", "options": [{"name": "x"}]}',
                 "is malformed"),
                ('{"schema": "clockbench-options/1", "options": [{"name": "x", "kind": '
                 '"colour", "default": "0", "help": ""}]}', "kind 'colour' is not one of")):
            with self.subTest(text=text):
                with self.assertRaises(RunnerError) as caught:
                    self.load(text)
                self.assertIn(fragment, str(caught.exception))
                self.assertIn("make guest-options", str(caught.exception))


class CommandLine(scratch.ToolCase):
    """`run` and `test` check guest options before any boot (a fake QEMU, a scratch tree)."""

    def test_run_refuses_before_booting(self):
        for args, sentence in (
                (("--", "sample=100"), "unknown guest option 'sample' (did you mean "
                                       "'samples'?)"),
                (("--options", "exit=hal"), "guest option exit: 'hal' is not valid "
                                            "(expected auto, isa, acpi, reset or halt) (did "
                                            "you mean 'halt'?)")):
            with self.subTest(args=args):
                result = self.clockbench("run", "--accel", "tcg", *args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr, f"clockbench run: {sentence}; "
                                                "`tools/clockbench run --help` lists the "
                                                "guest options.\n")
                self.assertFalse(os.path.exists(self.argv), "QEMU was started")

    def test_run_unchecked_and_without_a_table(self):
        result = self.clockbench("run", "--accel", "tcg", "--unchecked-options", "--",
                                 "sample=100")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('command line     "sample=100"', result.stdout)
        # Nothing to check against: the table is not made, and not needed.
        self.assertFalse(os.path.exists(os.path.join(self.root, guestopts.OPTIONS_FILE)))
        result = self.clockbench("run", "--accel", "tcg", "--no-build", "--", "sample=100")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"clockbench run: {guestopts.OPTIONS_FILE} is missing (`make "
                      "guest-options` writes it), so the guest options are not checked "
                      "before the boot", result.stderr)

    def test_run_help_lists_them(self):
        shutil.copy(os.path.join(self.root, scratch.OPTIONS_COPY),
                    os.path.join(self.root, guestopts.OPTIONS_FILE))
        result = self.clockbench("run", "--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("\n  samples     0 to 1000000 (default 0)\n", result.stdout)
        self.assertIn("\n  tick_rates  up to 8 of 1 to 1000000, comma-separated (default "
                      "100,1000,10000,100000)\n", result.stdout)

    def test_test_lines(self):
        """A test line whose args= the table refuses is an error before any boot, unless
        it says expect=fail."""
        cfg = os.path.join(self.root, testlist.TESTS_CFG)
        with open(cfg, "w", encoding="utf-8") as out:
            out.write(textwrap.dedent("""\
                [boot fine]
                args = verbose=1
                [boot typo]
                args = verbose=1 budget=300
                """))
        result = self.clockbench("test")
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertEqual(result.stderr, "clockbench test: tests/tests.cfg:3: typo: unknown "
                                        "guest option 'budget' (did you mean 'budget_ms'?) "
                                        "(a test that gives the image a wrong option on "
                                        "purpose says expect=fail).\n")
        self.assertFalse(os.path.exists(self.argv), "QEMU was started")
        with open(cfg, "w", encoding="utf-8") as out:
            out.write(sections('boot wrong args="bogus=1" expect=fail profile=none\n'))
        result = self.clockbench("test")
        self.assertEqual(result.returncode, 1, result.stdout)  # the fake passes it
        with open(self.argv, encoding="utf-8") as argv:
            self.assertEqual(json.load(argv)[-1], "bogus=1")


if __name__ == "__main__":
    unittest.main()
