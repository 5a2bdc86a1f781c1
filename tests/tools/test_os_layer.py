# SPDX-License-Identifier: MIT
"""clockbench-user on this host (docs/os-layer.md): `tools/clockbench host` measures every
clock id or says why not, its document is valid against docs/os-report.schema.json, and
--switch puts the original clocksource back, also when the program is stopped.  The
switching runs against a stand-in sysfs folder (--sysfs), so the host's clocksource is
never touched here.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .  (`make tool-tests` builds
build/clockbench-user first.)
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.tools import ROOT
from clockbench_lib.base import paths
from clockbench_lib.model import osreport, report
from clockbench_lib.host import host
from clockbench_lib.base.outcome import RunnerError

PROGRAM = os.path.join(ROOT, paths.BUILD_DIR, "clockbench-user")
CLOCKBENCH = os.path.join(ROOT, "tools", "clockbench")
CLOCK_IDS = ("CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME",
             "CLOCK_TAI", "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE")


def require_program():
    """AssertionError unless build/clockbench-user is there."""
    if not os.access(PROGRAM, os.X_OK):
        raise AssertionError(f"{PROGRAM} is missing: `make tool-tests` builds it first")


def fake_sysfs(folder, current, available):
    """A stand-in for /sys/devices/system/clocksource/clocksource0 in `folder`."""
    for name, text in (("current_clocksource", current),
                       ("available_clocksource", available)):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(text + "\n")


def current_of(folder):
    """What the stand-in's current_clocksource holds."""
    with open(os.path.join(folder, "current_clocksource"), encoding="utf-8") as source:
        return source.read().strip()


class HostRun(unittest.TestCase):
    """`tools/clockbench host` on this machine, without --switch."""

    @classmethod
    def setUpClass(cls):
        require_program()
        cls.scratch = tempfile.TemporaryDirectory()
        cls.json_path = os.path.join(cls.scratch.name, "host.json")
        cls.result = subprocess.run(
            [sys.executable, CLOCKBENCH, "host", "--no-build", "--budget-ms", "300",
             "--json", cls.json_path], capture_output=True, text=True, timeout=120,
            check=False)
        with open(cls.json_path, encoding="utf-8") as document:
            cls.document = json.load(document)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_it_passes_and_says_so(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)
        self.assertRegex(self.result.stdout, r"clockbench host: PASS \(1 clocksource: \S+, ")
        self.assertIn("clockbench-user: PASS", self.result.stdout)

    def test_the_document_is_valid(self):
        osreport.validate_os_document(self.document, "the host's document")
        self.assertEqual(self.document["verdict"], "pass")
        self.assertFalse(self.document["clocksources"]["switch_asked"])

    def test_every_clock_id_is_measured_or_absent_with_a_reason(self):
        (run,) = self.document["runs"]
        for clock_id in CLOCK_IDS:
            for path in ("libc", "syscall"):
                with self.subTest(clock=clock_id, path=path):
                    (read,) = [read for read in run["reads"]
                               if read["clock"] == clock_id and read["path"] == path]
                    if read["present"]:
                        self.assertTrue(read["measured"])
                        self.assertGreater(read["samples"], 0)
                        self.assertIn(read["through"], ("vdso", "syscall"))
                    else:
                        self.assertTrue(read["absent_reason"])
        calls = {read["call"] for read in run["reads"]}
        self.assertEqual(calls, {"clock_gettime", "gettimeofday", "time", "rdtsc", "rdtscp"})

    def test_a_system_call_read_is_never_the_vdso(self):
        for read in self.document["runs"][0]["reads"]:
            if read["path"] == "syscall" and read["present"]:
                self.assertEqual(read["through"], "syscall", read["name"])

    def test_the_monotonic_clock_is_sane(self):
        (read,) = [read for read in self.document["runs"][0]["reads"]
                   if read["clock"] == "CLOCK_MONOTONIC" and read["path"] == "libc"]
        self.assertEqual(read["backward_steps"], 0)
        # Generous: a read costs more than nothing and less than a millisecond.
        self.assertGreater(read["batch_ns_per_read"], 0)
        self.assertLess(read["read_ns"]["p50"], 1e6)
        self.assertGreater(read["resolution_ns"], 0)


class EventPoints(unittest.TestCase):
    """--events: clockbench-user's event points answered (or not) on its standard input, as
    the runner answers them on ttyS0 (user/events.c), each followed by a snapshot of
    Linux's clocksources (here a stand-in sysfs)."""

    SYNC = "clockbench-host 1 sync ready_ns=10 sent_ns=20"
    DONE = ("clockbench-host 1 done event=stop ready_ns=30 start_ns=40 end_ns=3000000040 "
            "sent_ns=3000000050")

    def setUp(self):
        require_program()
        self.scratch = tempfile.TemporaryDirectory()
        self.addCleanup(self.scratch.cleanup)
        fake_sysfs(self.scratch.name, "tsc", "tsc hpet acpi_pm")

    def run_with(self, host_lines):
        """clockbench-user with one event point, `host_lines` waiting on its input."""
        return subprocess.run([PROGRAM, "--sysfs", self.scratch.name, "--budget-ms", "50",
                               "--console", "--events", "1", "--event-wait-ms", "5000"],
                              input="".join(line + "\n" for line in host_lines),
                              capture_output=True, text=True, timeout=120, check=False)

    def test_an_answered_event_is_followed_by_a_snapshot(self):
        result = self.run_with(["a stray line", self.SYNC, self.DONE])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertLess(lines.index("clockbench-event 1 sync"),
                        lines.index("clockbench-event 1 ready"))
        document = osreport.load_os_report(lines, "the console")
        snapshots = document["kernel_clocksource"]["snapshots"]
        self.assertEqual([s["when"] for s in snapshots], ["boot", "after stop 1", "end"])
        self.assertEqual(snapshots[1]["event"], {"seq": 1, "kind": "stop"})
        self.assertEqual(snapshots[1]["current"], "tsc")
        self.assertTrue([line for line in lines if re.fullmatch(
            r"ok \d+ event 1: the host answered # stop", line)])

    def test_a_host_that_does_not_answer_is_an_error(self):
        for host_lines, says in (
                ([], "the console's input ended while waiting for the host's sync of "
                     "event 1"),
                ([self.SYNC, "clockbench-host 1 abort event=stop"],
                 "the host could not carry out event 1 (abort event=stop)"),
                ([self.SYNC, "clockbench-host 1 done ready_ns=9 sent_ns=1"],
                 "the host's line at event 1 was refused: ")):
            with self.subTest(says=says):
                result = self.run_with(host_lines)
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                lines = result.stdout.splitlines()
                said = [line for line in lines if line.startswith("not ok") and
                        "event 1: the host answered # ERROR " + says in line]
                self.assertTrue(said, [line for line in lines if "not ok" in line])
                document = osreport.load_os_report(lines, "the console")
                self.assertEqual([s["when"] for s in document["kernel_clocksource"][
                    "snapshots"]], ["boot", "end"])


class Switching(unittest.TestCase):
    """--switch over a stand-in sysfs: every clocksource in turn, the original back."""

    def setUp(self):
        require_program()
        self.scratch = tempfile.TemporaryDirectory()
        self.addCleanup(self.scratch.cleanup)
        self.sysfs = self.scratch.name
        fake_sysfs(self.sysfs, "acpi_pm", "tsc hpet acpi_pm")

    def test_every_clocksource_then_the_original(self):
        result = subprocess.run([PROGRAM, "--switch", "--sysfs", self.sysfs, "--budget-ms",
                                 "50", "--console"], capture_output=True, text=True,
                                timeout=120, check=False)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        document = osreport.load_os_report(lines, "the console")
        self.assertEqual([run["clocksource"] for run in document["runs"]],
                         ["tsc", "hpet", "acpi_pm"])
        self.assertTrue(document["clocksources"]["restored"])
        self.assertEqual(osreport.verdict_of(lines), "PASS")
        self.assertTrue([line for line in lines if re.fullmatch(
            r"ok \d+ every available clocksource measured # 3 of 3", line)])
        self.assertTrue([line for line in lines if re.fullmatch(
            r"ok \d+ the original clocksource is back # acpi_pm", line)])
        self.assertEqual(current_of(self.sysfs), "acpi_pm")

    def test_sigterm_puts_the_original_back(self):
        process = subprocess.Popen([PROGRAM, "--switch", "--sysfs", self.sysfs,
                                    "--budget-ms", "2000"], stdout=subprocess.PIPE,
                                   text=True)
        deadline = time.monotonic() + 60
        # Measuring on hpet has begun once the program says so.
        for line in process.stdout:
            if line.startswith("# hpet: measuring"):
                break
            self.assertLess(time.monotonic(), deadline)
        self.assertEqual(current_of(self.sysfs), "hpet")
        process.send_signal(signal.SIGTERM)
        process.stdout.read()
        process.stdout.close()
        self.assertEqual(process.wait(30), -signal.SIGTERM)
        self.assertEqual(current_of(self.sysfs), "acpi_pm")


class BadInput(unittest.TestCase):
    """One sentence and status 2 for an option the program does not take."""

    def setUp(self):
        require_program()

    def check(self, args, sentence):
        result = subprocess.run([PROGRAM, *args], capture_output=True, text=True,
                                timeout=30, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn(sentence, result.stderr)
        self.assertEqual(result.stdout, "")

    def test_budget_out_of_range(self):
        self.check(["--budget-ms", "5"],
                   "--budget-ms takes a number of ms from 50 to 600000, not '5'.")
        self.check(["--budget-ms", "12x"], "not '12x'.")

    def test_unknown_option_and_argument(self):
        self.check(["--bogus"], "--help lists the options.")
        self.check(["extra"], "'extra' is not an option")

    def test_unwritable_json(self):
        result = subprocess.run([PROGRAM, "--budget-ms", "50", "--json",
                                 "/nonexistent/x.json"], capture_output=True, text=True,
                                timeout=60, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("cannot write /nonexistent/x.json: No such file or directory.",
                      result.stderr)
        self.assertIn("clockbench-user: ERROR", result.stdout)


class HostPureParts(unittest.TestCase):
    """host.py's own decisions."""

    def test_program_command(self):
        self.assertEqual(host.program_command("p", False, None, "j"), ["p", "--json", "j"])
        self.assertEqual(host.program_command("p", True, 300, "j"),
                         ["p", "--json", "j", "--switch", "--budget-ms", "300"])

    def test_budget_is_checked_before_the_program_runs(self):
        result = subprocess.run([sys.executable, CLOCKBENCH, "host", "--no-build",
                                 "--budget-ms", "5"], capture_output=True, text=True,
                                timeout=30, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("argument --budget-ms: takes a number of ms from 50 to 600000, not "
                      "'5'", result.stderr)
        self.assertEqual(host.budget_ms("50"), 50)

    def test_verdict_from_status(self):
        self.assertEqual([host.verdict_from_status(s) for s in (0, 1, 2, 77, 3, -9)],
                         ["pass", "fail", "error", "skip", None, None])

    def test_a_document_of_the_image_is_refused(self):
        with self.assertRaisesRegex(RunnerError, "report schema is 'clockbench/1'; this "
                                                 "tool reads clockbench-os/1"):
            osreport.validate_os_document({"schema": "clockbench/1"}, "x")

    def test_framing_differs_from_the_image(self):
        lines = ["clockbench-json begin", "json| {}", "clockbench-json end"]
        self.assertFalse(osreport.has_os_report(lines))
        self.assertTrue(report.has_report(lines))
        with self.assertRaisesRegex(RunnerError, "no 'clockbench-os-json begin' line"):
            osreport.load_os_report(lines, "x")


class SyntheticDocuments(unittest.TestCase):
    """Every document user/report.c writes for the cases of tests/unit/test_user_report.c
    (a switch, steps back, warps, a refused clocksource, a lost restore, no sysfs, one
    CPU, no seccomp) is valid against docs/os-report.schema.json."""

    PROGRAM = os.path.join(ROOT, paths.BUILD_DIR, "host", "test_user_report")

    def test_each_case_is_valid(self):
        if not os.access(self.PROGRAM, os.X_OK):
            raise AssertionError(f"{self.PROGRAM} is missing: `make tool-tests` builds it")
        with tempfile.TemporaryDirectory() as scratch:
            result = subprocess.run([self.PROGRAM], capture_output=True, text=True,
                                    timeout=60, check=False,
                                    env=dict(os.environ, CLOCKBENCH_OS_JSON_DIR=scratch))
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            cases = sorted(os.listdir(scratch))
            self.assertEqual(cases, ["backward.json", "limited.json", "no-sysfs.json",
                                     "readback.json", "realtime-warp.json", "refused.json",
                                     "switched.json", "unread.json", "warps.json"])
            verdicts = {}
            for case in cases:
                with self.subTest(case=case):
                    document = osreport.load_os_report_file(os.path.join(scratch, case))
                    verdicts[case] = document["verdict"]
            self.assertEqual(verdicts["refused.json"], "fail")
            self.assertEqual(verdicts["switched.json"], "pass")
            self.assertEqual(verdicts["unread.json"], "error")
