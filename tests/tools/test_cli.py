# SPDX-License-Identifier: MIT
"""The runner's command-line conventions: --version, -v, -q, `run --json -`, and `test`'s
TAP 13 output, kselftest totals, JUnit XML and unknown groups.

The whole tools/clockbench runs in a scratch tree with a fake QEMU (tests/tools/scratch.py,
fake_qemu.py).
"""

import importlib.util
import json
import os
import re
import shlex
import subprocess
import textwrap
import unittest
import xml.etree.ElementTree as ET

from tests.tools import FAKE_QEMU, FIXTURES, GOOD_LOG, PYTHON, ROOT, scratch, sections
from clockbench_lib.model import console, report
from clockbench_lib.boot import qemu
from clockbench_lib.testing import testlist
from clockbench_lib import version

XEN_LOG = os.path.join(FIXTURES, "xen", "boot-hpet.log")


def completions(line):
    """What bash completion offers for `line` (the cursor at its end), as the completion
    script asks the runner: python3-argcomplete answers on file descriptor 8."""
    result = subprocess.run(["bash", "-c", '"$0" 8>&1 9>&2 1>/dev/null 2>&1',
                             os.path.join(ROOT, "tools", "clockbench")],
                            capture_output=True, text=True, timeout=60, check=False,
                            env=dict(os.environ, _ARGCOMPLETE="1", _ARGCOMPLETE_IFS=" ",
                                     COMP_LINE=line, COMP_POINT=str(len(line))))
    return result.stdout.split()


@unittest.skipUnless(importlib.util.find_spec("argcomplete"), "python3-argcomplete is missing")
class Completion(unittest.TestCase):
    """Completion knows the guest options, the environments and the test names."""

    def test_guest_options(self):
        self.assertEqual(completions("clockbench run -- exit=h"), ["exit=halt"])
        self.assertEqual(completions("clockbench matrix -- tick_r"), ["tick_rates="])

    def test_environments(self):
        self.assertEqual(completions("clockbench matrix --env xen-h"),
                         ["xen-hvm-domu", "xen-hpet", "xen-hvm-life"])

    def test_test_names(self):
        names = {test.name for test in testlist.load_tests_cfg(
            os.path.join(ROOT, testlist.TESTS_CFG)) if isinstance(test, testlist.BootTest)}
        offered = completions("clockbench test mb1-")
        self.assertTrue(offered)
        self.assertEqual(set(offered), {name for name in names if name.startswith("mb1-")})


class Version(scratch.ToolCase):
    """--version: the version from VERSION, a revision, and the schemas in docs/."""

    def test_in_this_checkout(self):
        result = subprocess.run([PYTHON, os.path.join(ROOT, "tools", "clockbench"),
                                 "--version"], capture_output=True, text=True, timeout=60,
                                check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as text:
            number = text.read().strip()
        described = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                   capture_output=True, text=True, check=False).stdout.strip()
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], f"clockbench {number} ({described or 'no revision'})")
        self.assertRegex(number, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        with open(os.path.join(ROOT, report.SCHEMA_FILE), encoding="utf-8") as schema:
            image_schema = json.load(schema)["properties"]["schema"]["const"]
        self.assertEqual(image_schema, report.SCHEMA)
        self.assertRegex(result.stdout, rf"\n  {re.escape(image_schema)} +the image's report")
        self.assertRegex(result.stdout, r"\n  clockbench-os/1 +clockbench-user's document")

    def test_every_subcommand(self):
        first = self.clockbench("--version")
        for command in ("run", "test", "parse", "matrix", "compare", "host", "lava"):
            with self.subTest(command=command):
                result = self.clockbench(command, "--version")
                self.assertEqual((result.returncode, result.stdout), (0, first.stdout))

    def test_outside_a_checkout(self):
        """An installed copy: no git, so REVISION, else the last build's header, else
        none; no VERSION is "unknown"."""
        self.assertEqual(self.clockbench("--version").stdout.splitlines()[0],
                         "clockbench unknown (no revision)")
        self.write("VERSION", "9.8.7\n")
        self.write(version.VERSION_HEADER, '#define CLOCKBENCH_VERSION "9.8.7 (abc1234)"\n')
        self.assertEqual(self.clockbench("--version").stdout.splitlines()[0],
                         "clockbench 9.8.7 (abc1234)")
        self.write(version.REVISION_FILE, "v9.8.7-3-gdef5678\n")
        self.assertEqual(self.clockbench("--version").stdout.splitlines()[0],
                         "clockbench 9.8.7 (v9.8.7-3-gdef5678)")
        # Schemas read from docs/ as the scratch tree holds them.
        self.assertIn("  clockbench/2 ", self.clockbench("--version").stdout)
        self.assertIn("  clockbench/1, clockbench-run/0 ", self.clockbench("--version").stdout)

    def test_the_makefile_reads_the_same_file(self):
        result = subprocess.run(["make", "-C", ROOT, "-s", "--no-print-directory",
                                 "--eval", "print-version: ; @echo $(VERSION)",
                                 "print-version"], capture_output=True, text=True,
                                timeout=60, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), version.project_version(ROOT))


class Verbose(scratch.ToolCase):
    """-v prints the QEMU command, ready to paste, before the boot."""

    def announced(self, stderr, heading):
        """The command lines under `heading` in stderr (each the next, indented line)."""
        lines = stderr.splitlines()
        return [lines[index + 1] for index, line in enumerate(lines) if line == heading]

    def test_run(self):
        result = self.clockbench("run", "--accel", "tcg", "-v", "--", "verbose=1 budget_ms=300")
        self.assertEqual(result.returncode, 0, result.stderr)
        (command,) = self.announced(result.stderr, "clockbench run: QEMU command:")
        self.assertTrue(command.startswith("  "))
        self.assertEqual(shlex.split(command), [FAKE_QEMU, *self.qemu_argv()[1:]])
        self.assertEqual(shlex.split(command)[-2:], ["-append", "verbose=1 budget_ms=300"])
        self.assertNotIn("Xen's command line", result.stderr)
        quiet = self.clockbench("run", "--accel", "tcg", "--", "verbose=1")
        self.assertNotIn("QEMU command", quiet.stderr)

    def test_run_under_xen(self):
        for name in ("build/clockbench-xenpv.elf", "build/xen-4.17-amd64"):
            self.write(name, "")
        result = self.clockbench("run", "--boot", "xen", "--no-build", "-v", "--xen-args",
                                 "clocksource=hpet", XEN=XEN_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        (command,) = self.announced(result.stderr, "clockbench run: QEMU command:")
        self.assertEqual(shlex.split(command)[1:], self.qemu_argv()[1:])
        (xen_line,) = self.announced(result.stderr, "clockbench run: Xen's command line:")
        expected = qemu.BootSpec(boot="xen", xen_args="clocksource=hpet").xen_command_line
        self.assertEqual(xen_line, f"  {expected}")
        self.assertTrue(expected.endswith("clocksource=hpet"))

    def test_test(self):
        self.write(testlist.TESTS_CFG, sections('boot one args="verbose=1"\n'))
        result = self.clockbench("test", "-v")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        (command,) = self.announced(result.stderr, "clockbench test: one: QEMU command:")
        self.assertEqual(shlex.split(command)[1:], self.qemu_argv()[1:])
        self.assertNotIn("QEMU command", result.stdout)  # the TAP stream stays TAP

    def test_matrix(self):
        result = self.clockbench("matrix", "-v", "--repeats", "1", "--env", "tcg-pc",
                                 "--out", "out", REPORT=GOOD_LOG)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        (command,) = self.announced(result.stderr, "clockbench matrix: QEMU command:")
        with open(os.path.join(self.root, "out", "manifest.json"), encoding="utf-8") as out:
            manifest = json.load(out)
        self.assertEqual(shlex.split(command),
                         manifest["environments"][0]["runs"][0]["qemu_command"])


class Quiet(scratch.ToolCase):
    """-q: the guest's human lines and the verdict; the log keeps everything."""

    def test_run(self):
        result = self.clockbench("run", "--accel", "tcg", "-q", "--log", "q.log", "--",
                                 "verbose=1", REPORT=GOOD_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        shown = result.stdout.splitlines()
        self.assertIn('  command line     "verbose=1"', shown)
        self.assertIn("clockbench: PASS", shown)
        self.assertRegex(shown[-1], r"^clockbench run: PASS \(tcg pc multiboot1")
        for hidden in (r"^json\| ", r"^clockbench-json (begin|end)$", r"^KTAP version",
                       r"^1\.\.1$", r"^ok 1 ", r"^# 1 passed", r"^\s*$"):
            self.assertFalse([line for line in shown if re.match(hidden, line)], hidden)
        with open(os.path.join(self.root, "q.log"), encoding="utf-8") as log:
            logged = log.read().splitlines()
        for kept in ("KTAP version 1", "ok 1 fake check", "clockbench-json begin"):
            self.assertIn(kept, logged)
        self.assertTrue(any(line.startswith("json| ") for line in logged))

    def test_run_under_xen(self):
        for name in ("build/clockbench-xenpv.elf", "build/xen-4.17-amd64"):
            self.write(name, "")
        result = self.clockbench("run", "--boot", "xen", "--no-build", "-q", XEN=XEN_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("(XEN)", result.stdout)
        self.assertIn("clockbench: PASS", result.stdout)
        # What the runner read in Xen's lines is still said.
        self.assertIn("clockbench run: Xen's platform timer", result.stdout)

    def test_what_a_real_console_keeps(self):
        """On a real console (tests/tools/fixtures/ticks.log): the tables stay, the
        progress, KTAP and JSON lines go."""
        lines = report.read_log_lines(os.path.join(FIXTURES, "ticks.log"))
        shown = [line for line in lines if console.quiet_shows(line)]
        for kept in ("# environment", "# clocks", "# ticks", "# cross-CPU", "clockbench: PASS"):
            self.assertIn(kept, shown)
        self.assertTrue(any(line.startswith("  clock            p50 ns") for line in shown))
        self.assertTrue(any(line.startswith("  lapic             100") for line in shown))
        for line in shown:
            self.assertNotRegex(line, r"^(json\| |# measuring|# probing|KTAP|ok |1\.\.)")
        self.assertLess(len(shown), len(lines) / 2)
        for line in ("(XEN) Platform timer is 100.000MHz HPET", "[    1.234567] Linux version",
                     "# tsc: measuring rdtsc through instruction", "# timing: 1380 ms",
                     "    ok 1 a subtest", "# 40 passed, 0 failed, 2 skipped, 0 errors"):
            self.assertFalse(console.quiet_shows(line), line)


class JsonToStdout(scratch.ToolCase):
    """`run --json -` writes the document to stdout, and the rest to stderr."""

    def test_report(self):
        result = self.clockbench("run", "--accel", "tcg", "--json", "-", REPORT=GOOD_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        document = json.loads(result.stdout)
        self.assertEqual(document["schema"], report.SCHEMA)
        self.assertEqual(document["runner"]["qemu_command"][-2:], ["-append", ""])
        self.assertIn("clockbench: PASS", result.stderr)
        self.assertIn("clockbench run: PASS (tcg pc multiboot1", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.root, "-")))

    def test_summary_of_a_hang_and_of_an_error(self):
        result = self.clockbench("run", "--accel", "tcg", "--timeout", "1", "--json", "-",
                                 HANG="1")
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertEqual(json.loads(result.stdout)["verdict"], "hang")
        result = self.clockbench("run", "--accel", "tcg", "--json", "-", "--", "sample=1")
        self.assertEqual(result.returncode, 2, result.stderr)
        summary = json.loads(result.stdout)
        self.assertEqual((summary["verdict"], summary["reason"]), (
            "error", "unknown guest option 'sample' (did you mean 'samples'?); "
                     "`tools/clockbench run --help` lists the guest options."))


def parse_tap(text):
    """TAP version 13 as a CI system reads it: the plan and each test's (ok, number,
    name, directive); every other line must be a `#` comment.  AssertionError if not."""
    lines = text.splitlines()
    if lines[:1] != ["TAP version 13"]:
        raise AssertionError(f"no TAP version line first: {lines[:1]}")
    plan = re.fullmatch(r"1\.\.(\d+)", lines[1] if len(lines) > 1 else "")
    if not plan:
        raise AssertionError(f"no plan after the version line: {lines[1:2]}")
    tests = []
    for line in lines[2:]:
        found = re.fullmatch(r"(not ok|ok) (\d+) (\S+)(?: # (.*))?", line)
        if found:
            tests.append((found.group(1) == "ok", int(found.group(2)), found.group(3),
                          found.group(4)))
        elif not line.startswith("#"):
            raise AssertionError(f"not TAP: {line!r}")
    if [number for _, number, _, _ in tests] != list(range(1, int(plan.group(1)) + 1)):
        raise AssertionError(f"the tests are not numbered 1..{plan.group(1)}")
    return tests


class TapAndJunit(scratch.ToolCase):
    """`test`'s output read back as CI systems read it."""

    CFG = textwrap.dedent("""\
        boot good   args="verbose=1" match='command line +"verbose=1[ "]' groups=quick
        boot bad    match='boot protocol +pvh' json='env.boot == "pvh"' groups=g
        boot asked  args="help=1"
        boot broken args="exit=acpi"
        """)

    def test_tap_totals_and_junit(self):
        self.write(testlist.TESTS_CFG, sections(self.CFG))
        result = self.clockbench("test", "--jobs", "1", "--junit", "out/results.xml",
                                 REPORT=GOOD_LOG, NO_END_LINE="1")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        tests = parse_tap(result.stdout)
        self.assertEqual([(ok, name) for ok, _, name, _ in tests],
                         [(True, "good"), (False, "bad"), (True, "asked"), (False, "broken")])
        self.assertRegex(tests[0][3], r"^[0-9.]+ s$")
        self.assertEqual(tests[1][3], "no line matches /boot protocol +pvh/ (and 1 more "
                                      "problem)")
        self.assertRegex(tests[2][3], r"^SKIP the guest reported SKIP; ")
        self.assertIn("QEMU exited with status 0 without a verdict", tests[3][3])
        lines = result.stdout.splitlines()
        bad = lines.index("not ok 2 bad # no line matches /boot protocol +pvh/ (and 1 more "
                          "problem)")
        self.assertEqual(lines[bad + 1:bad + 5], [
            "#   failed: no line matches /boot protocol +pvh/",
            "#   failed: json=env.boot == \"pvh\": the report has \"multiboot1\"",
            "#   verdict: PASS (expected PASS)",
            "#   log: build/tests/bad.log"])
        self.assertNotIn("json|", result.stdout)  # the failure is not the JSON tail
        broken = lines.index(next(line for line in lines if line.startswith("not ok 4 ")))
        self.assertEqual(lines[broken + 1:broken + 3], ["#   verdict: ERROR (expected PASS)",
                                                        "#   last lines of the console:"])
        self.assertEqual(lines[-1], "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:1")

        tree = ET.parse(os.path.join(self.root, "out", "results.xml"))
        suite = tree.getroot().find("testsuite")
        self.assertEqual({key: suite.get(key) for key in ("tests", "failures", "errors",
                                                          "skipped")},
                         {"tests": "4", "failures": "1", "errors": "1", "skipped": "1"})
        cases = {case.get("name"): case for case in suite.findall("testcase")}
        self.assertEqual(list(cases), ["good", "bad", "asked", "broken"])
        self.assertEqual([child.tag for child in cases["good"]], ["system-out"])
        failure = cases["bad"].find("failure")
        self.assertEqual(failure.get("message"), "no line matches /boot protocol +pvh/")
        self.assertIn('failed: json=env.boot == "pvh": the report has "multiboot1"', failure.text)
        self.assertIn("verdict: PASS (expected PASS)", failure.text)
        self.assertRegex(cases["asked"].find("skipped").get("message"),
                         r"^the guest reported SKIP")
        self.assertIn("without a verdict", cases["broken"].find("error").get("message"))
        self.assertGreaterEqual(float(cases["good"].get("time")), 0.0)

    def test_unwritable_junit_file(self):
        self.write(testlist.TESTS_CFG, sections('boot good args="verbose=1"\n'))
        result = self.clockbench("test", "--junit", "tests/tests.cfg/r.xml")
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")  # refused before any boot
        self.assertEqual(result.stderr, "clockbench test: cannot write tests/tests.cfg/r.xml: "
                                        "tests/tests.cfg is not a folder.\n")

    def test_unknown_group(self):
        self.write(testlist.TESTS_CFG, sections(self.CFG))
        for args in (("--list",), ()):
            with self.subTest(args=args):
                result = self.clockbench("test", *args, "--group", "nosuch")
                self.assertEqual(result.returncode, 2, result.stdout)
                self.assertEqual(result.stdout, "")
                self.assertEqual(result.stderr, "clockbench test: there is no group 'nosuch' "
                                                "in tests/tests.cfg (groups: g, quick).\n")
        result = self.clockbench("test", "--list", "--group", "quik")
        self.assertIn("no group 'quik' in tests/tests.cfg (did you mean 'quick'?)",
                      result.stderr)
        result = self.clockbench("test", "--list", "good", "--group", "g")
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertEqual(result.stderr, "clockbench test: none of the boot tests named is in "
                                        "group 'g'.\n")
        result = self.clockbench("test", "--list", "--group", "g")
        self.assertEqual((result.returncode, result.stdout.split()[0]), (0, "bad"))


if __name__ == "__main__":
    unittest.main()
