# SPDX-License-Identifier: MIT
"""Unit tests for the host runner tools/clockbench (its pure logic, plus a fake QEMU).

Run: /usr/bin/python3 -m unittest discover -s tests/tools
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from dataclasses import replace
from unittest import mock

from tests.tools import FAKE_QEMU, PYTHON, ROOT, parse_cfg, scratch, sections
from clockbench_lib.base import outcome
from clockbench_lib.model import console
from clockbench_lib.boot import cpumodel, once, process, qemu, run, xen
from clockbench_lib.testing import boottest, testlist, testreport
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.boot.process import LineSink, run_process

# What a boot test of the check profile (the default) adds to its args=.
CHECK_OPTIONS = " ".join(testlist.PROFILE_OPTIONS["check"])


def parse(text):
    """Parse tests.cfg text given with any common indentation."""
    return testlist.parse_tests_cfg(textwrap.dedent(text), "t.cfg")


class TestsCfgParsing(unittest.TestCase):
    """tests/tests.cfg: the format, the defaults, and errors that name the line."""

    def test_good_file(self):
        tests = parse("""\
            # a comment line
            [unit cmdline]
            source = tests/unit/test_cmdline.c lib/a.c
            source = lib/b.c

            [boot mb1-pc]
            boot = multiboot1
            machine=pc
            args = foo=1 bar=2
            expect = pass
            match = boot protocol +multiboot1
            match = command line +"foo=1 bar=2"  # not a comment: the value as written
            check = hpet: advances = pass
            check = ticks = skip ~ "^tick_rates"
            [boot uefi]
              boot = iso-uefi
            machine = q35
            smp = 2
            memory = 128
            timeout = 9.5
            groups = iso,uefi
            nomatch = #PF
            nomatch = a#b
            """)
        self.assertEqual([type(t).__name__ for t in tests], ["UnitTest", "BootTest", "BootTest"])
        unit, mb1, uefi = tests
        self.assertEqual(unit.keys, {"source": ["tests/unit/test_cmdline.c", "lib/a.c",
                                                "lib/b.c"]})
        self.assertEqual(mb1.spec, qemu.BootSpec(boot="multiboot1", machine="pc", accel="tcg",
                                                 smp=1, memory_mib=64,
                                                 cmdline="foo=1 bar=2 " + CHECK_OPTIONS,
                                                 timeout_s=60))
        self.assertEqual(mb1.match, ["boot protocol +multiboot1",
                                     'command line +"foo=1 bar=2"  # not a comment: the value '
                                     'as written'])
        self.assertEqual([(c.name, c.results, c.info) for c in mb1.checks],
                         [("hpet: advances", ("pass",), None),
                          ("ticks", ("skip",), "^tick_rates")])
        self.assertEqual((mb1.expect, mb1.timeout_s, mb1.groups, mb1.line_no), ("pass", 60, (), 6))
        self.assertEqual(uefi.spec.smp, 2)
        self.assertEqual(uefi.spec.memory_mib, 128)
        self.assertEqual(uefi.timeout_s, 9.5)
        self.assertEqual(uefi.groups, ("iso", "uefi"))
        self.assertEqual(uefi.nomatch, ["#PF", "a#b"])

    def test_kvm_default_timeout_is_longer(self):
        kernel, iso = parse("[boot k]\naccel = kvm\n[boot i]\naccel = kvm\nboot = iso-uefi\n")
        self.assertEqual((kernel.spec.accel, kernel.timeout_s), ("kvm", 120))
        self.assertEqual(iso.timeout_s, 300)

    def test_machine_options_and_cpu_keys(self):
        (test,) = parse("[boot h]\nmachine = q35\nmachine_opts = hpet=off\n"
                        "cpu = host,-kvmclock\naccel = kvm\n")
        self.assertEqual((test.spec.machine, test.spec.machine_opts, test.spec.cpu),
                         ("q35", "hpet=off", "host,-kvmclock"))

    def test_strip_comment_respects_quotes_and_words(self):
        """The one-line style of the files beside tests.cfg (matrix environments)."""
        self.assertEqual(testlist.strip_comment("a b # c"), "a b ")
        self.assertEqual(testlist.strip_comment("# all"), "")
        self.assertEqual(testlist.strip_comment("m='#x' n=\"#y\" o=a#b"), "m='#x' n=\"#y\" o=a#b")
        self.assertEqual(testlist.strip_comment(r"m=\#x # c"), r"m=\#x ")

    def assert_cfg_error(self, text, *fragments):
        """Parsing `text` must fail with a message holding each fragment."""
        with self.assertRaises(RunnerError) as caught:
            parse(text)
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))
        self.assertEqual(caught.exception.status, outcome.EXIT_ERROR)

    def test_bad_lines(self):
        """Each error names the line it is about: the key's own, or the section's."""
        bad = self.assert_cfg_error
        bad("\n[boot x]\ncolour = red\n", "t.cfg:3:", "unknown key 'colour'")
        bad("[bench x]\n", "t.cfg:1:", "unknown kind 'bench'")
        bad("[boot]\n", "t.cfg:1:", "is not a section line")
        bad("[boot x y]\n", "is not a section line")
        bad("boot x\n", "t.cfg:1:", "comes before the first test")
        bad("[boot x/y]\n", "not a valid test name")
        bad("[boot x]\nboot = floppy\n", "t.cfg:2:", "boot=floppy is not one of")
        bad("[boot x]\nmachine = isapc\n", "machine=isapc")
        bad("[boot x]\naccel = hvf\n", "accel=hvf")
        bad("[boot x]\nexpect = maybe\n", "expect=maybe")
        bad("[boot x]\nsmp = 0\n", "smp=0 is not a number")
        bad("[boot x]\nmemory = lots\n", "memory=lots")
        bad("[boot x]\ntimeout = -1\n", "timeout=-1")
        bad("[boot x]\n\nmatch = (unclosed\n", "t.cfg:3:", "not a valid regular expression")
        bad("[boot x]\nloose\n", "t.cfg:2:", "'loose' is not of the form key = value")
        bad("[boot x]\n= 1\n", "is not of the form key = value")
        bad("[boot x]\nboot = pvh\nboot = pvh\n", "t.cfg:3:", "boot= is given 2 times")
        bad("[boot x]\ngroups = a,b!\n", "'b!' is not a valid group name")
        bad("[boot x]\n[unit x]\nsource = a.c\n", "t.cfg:2:", "already used on line 1")
        bad("[unit u]\n", "t.cfg:1:", "names no source = FILE")
        bad("[unit u]\nsource = a.c\nmatch = x\n", "t.cfg:3:", "unknown key 'match' of a unit")
        bad("[boot x]\ncheck = hpet: advances\n", "t.cfg:2:", "expected NAME = RESULT")
        bad("[boot x]\ncheck = hpet: advances = ok\n", "'ok' is not a check result")
        bad("[boot x]\ncheck = a = pass ~ \"(\"\n", "is not a valid regular expression")
        bad("[boot x]\ncheck = a = pass ~ \"\\q\"\n", "is not a JSON string")

    def test_iso_options_with_single_quote_are_refused(self):
        self.assert_cfg_error("[boot x]\nboot = iso-bios\nargs = a='b'\n", "t.cfg:1:",
                              "single quote")
        (test,) = parse("[boot x]\nboot = pvh\nargs = a='b'\n")  # only GRUB needs the quoting
        self.assertEqual(test.spec.cmdline, "a='b' " + CHECK_OPTIONS)

    def test_selection(self):
        tests = parse("""\
            [unit u]
            source = x.c
            [boot a]
            groups = quick
            [boot b]
            groups = quick,iso
            [boot c]
            """)
        names = [t.name for t in testlist.select_boot_tests(tests)]
        self.assertEqual(names, ["a", "b", "c"])
        names = [t.name for t in testlist.select_boot_tests(tests, group="iso")]
        self.assertEqual(names, ["b"])
        names = [t.name for t in testlist.select_boot_tests(tests, ["c", "a"])]
        self.assertEqual(names, ["a", "c"])
        with self.assertRaises(RunnerError):
            testlist.select_boot_tests(tests, ["u"])

    def test_repository_tests_cfg(self):
        """The real list parses and covers every boot path on both machines."""
        tests = testlist.load_tests_cfg(os.path.join(ROOT, testlist.TESTS_CFG))
        boots = [t for t in tests if isinstance(t, testlist.BootTest)]
        # The image's boots show the command line arrived; clockbench-user's, that its
        # options did (its document's budget_ms), under TCG, where they run here.
        covered = {(t.spec.machine, t.spec.boot) for t in boots
                   if t.expect == "pass" and
                   any(e.text.startswith('env.cmdline ~ "^verbose=1') for e in t.json)
                   or t.spec.runs_user and t.spec.accel == "tcg" and "valid" in t.report and
                   any(e.text.startswith("budget_ms == ") for e in t.json)}
        self.assertEqual(covered, {(m, b) for b in qemu.BOOTS for m in qemu.boot_machines(b)})
        self.assertTrue(any(t.spec.accel == "kvm" for t in boots))
        # The negative tests the foundation requires are there (others may join them).
        self.assertLessEqual({"bogus=1", "verbose=7", "fault=ud", "fault=pf", "fault=stack"},
                             {word for t in boots if t.expect == "fail"
                              for word in t.spec.cmdline.split()})
        # Under Xen too a fault in dom0 must fail the run.
        self.assertIn("fault=pf", {t.spec.cmdline.split()[0] for t in boots
                                   if t.expect == "fail" and t.spec.boot == "xen"})


class Verdicts(unittest.TestCase):
    """QEMU exit status → verdict, and agreement with the console's final line."""

    def test_status_mapping(self):
        self.assertEqual(outcome.status_verdict(3), "pass")
        self.assertEqual(outcome.status_verdict(5), "fail")
        self.assertEqual(outcome.status_verdict(7), "skip")
        self.assertEqual(outcome.status_verdict(9), "error")
        for status in (None, 0, 1, 2, 11, 255, -9):
            self.assertIsNone(outcome.status_verdict(status), status)

    def test_exit_codes(self):
        self.assertEqual(outcome.VERDICT_EXIT, {"pass": 0, "fail": 1, "skip": 77,
                                                "error": 2, "hang": 3})

    def test_judge(self):
        self.assertEqual(outcome.judge(3, "pass"), ("pass", None))
        self.assertEqual(outcome.judge(5, "fail"), ("fail", None))
        self.assertEqual(outcome.judge(7, "skip"), ("skip", None))
        verdict, reason = outcome.judge(3, "fail")
        self.assertEqual(verdict, "error")
        self.assertIn("mismatch", reason)
        verdict, reason = outcome.judge(5, None)
        self.assertEqual(verdict, "error")
        self.assertIn("no 'clockbench: FAIL' line", reason)
        verdict, reason = outcome.judge(0, "pass")
        self.assertEqual(verdict, "error")
        self.assertIn("reset or powered off", reason)
        self.assertIn("clockbench: PASS", reason)
        self.assertIn("QEMU itself failed", outcome.judge(1, None)[1])
        # A guest ERROR (its own foundation broken) is the runner's error, said so.
        self.assertEqual(outcome.judge(9, "error"), ("error", outcome.GUEST_ERROR_REASON))
        self.assertIn("mismatch", outcome.judge(9, "fail")[1])
        self.assertIn("signal 9", outcome.judge(-9, None)[1])

    def test_judge_announced_end(self):
        """A guest that said how it ends after its verdict: a power-off or reset (status 0)
        or a halt (QEMU stopped by the runner, status None) carries the console's verdict."""
        for status in (0, None):
            self.assertEqual(outcome.judge(status, "pass", "ACPI power-off (exit=acpi)"),
                             ("pass", None))
            self.assertEqual(outcome.judge(status, "fail", "reset (exit=reset)"),
                             ("fail", None))
        # Without a verdict line, or with QEMU failing, the announcement proves nothing.
        self.assertEqual(outcome.judge(0, None, "reset (exit=reset)")[0], "error")
        self.assertEqual(outcome.judge(1, "pass", "reset (exit=reset)")[0], "error")
        self.assertEqual(outcome.judge(-6, "pass", "reset (exit=reset)")[0], "error")
        # isa-debug-exit's status still wins, and must agree.
        self.assertEqual(outcome.judge(5, "pass", "reset (exit=reset)")[0], "error")


SAMPLE_CONSOLE = (
    "\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001\r\n"
    "clockbench 0.1.0\r\n"
    "# environment\r\n"
    "  boot protocol    \x1b[1mmultiboot2\x1b[0m\r\n"
    '  command line     "verbose=1 foo=bar"\r\n'
    "cpu GenuineIntel family 6 model 85 stepping 7 (Intel(R) Xeon)\r\n"
    '    hypervisor       TCG ("TCGTCGTCGTCG") max leaf 0x40000001\r\n'
    "  memory           30 MiB usable RAM in 4 regions\r\n"
    "  cpus (firmware)  2 (ACPI MADT)\r\n"
    "KTAP version 1\r\n"
    "1..4\r\n"
    "ok 1 some check # 12 ns\r\n"
    "not ok 2 other check\r\n"
    "ok 3 third check # SKIP reason\r\n"
    "    ok 1 a subtest\r\n"
    "not ok 4 the heap works # ERROR it does not\r\n"
    "# 1 passed, 1 failed, 1 skipped, 1 errors\r\n"
    "clockbench: FAIL\r\n"
)


def sample_lines():
    """SAMPLE_CONSOLE cut into cleaned lines in small chunks, as the reader thread does."""
    splitter = console.LineSplitter()
    data = SAMPLE_CONSOLE.encode()
    lines = []
    for start in range(0, len(data), 7):
        lines += splitter.feed(data[start:start + 7])
    return lines


class ConsoleParsing(unittest.TestCase):
    """Cleaning the serial console and parsing the guest's report."""

    def test_clean_line(self):
        self.assertEqual(console.clean_line("\x1b[0m\x1b[37m\x1b[40mhello\x1b[K\r"), "hello")
        self.assertEqual(console.clean_line("a\x1b]0;title\x07b\x1b(Bc\x1bcd"), "abcd")
        self.assertEqual(console.clean_line("tab\tkept\x00\x08"), "tab\tkept")

    def test_splitter_keeps_partial_line(self):
        splitter = console.LineSplitter()
        self.assertEqual(splitter.feed(b"one\r\ntw"), ["one"])
        self.assertEqual(splitter.feed(b"o\n\xffthree"), ["two"])
        self.assertEqual(splitter.finish(), "\ufffdthree")
        self.assertIsNone(splitter.finish())

    def test_environment(self):
        env = console.parse_environment(sample_lines())
        self.assertEqual(env, {
            "boot": "multiboot2",
            "cmdline": "verbose=1 foo=bar",
            "cpu": "GenuineIntel family 6 model 85 stepping 7 (Intel(R) Xeon)",
            "hypervisor": 'TCG ("TCGTCGTCGTCG") max leaf 0x40000001',
            "memory": "30 MiB usable RAM in 4 regions",
            "cpus": 2,
        })

    def test_environment_only_inside_its_block(self):
        lines = ["memory 640K conventional", "# environment", "  boot protocol pvh",
                 "KTAP version 1", "  cpu  not-env"]
        env = console.parse_environment(lines)
        self.assertEqual(env["boot"], "pvh")
        self.assertIsNone(env["memory"])
        self.assertIsNone(env["cpu"])
        self.assertEqual(console.parse_environment([]), dict.fromkeys(env))

    def test_checks_and_final(self):
        lines = sample_lines()
        both = {"passed": 1, "failed": 1, "skipped": 1, "errors": 1}
        self.assertEqual(console.parse_checks(lines), both)
        self.assertEqual(console.parse_final_verdict(lines), "fail")
        # Hung before the totals line: the lines seen are counted.
        cut = lines[:lines.index("not ok 4 the heap works # ERROR it does not") + 1]
        self.assertEqual(console.parse_checks(cut), both)
        self.assertIsNone(console.parse_final_verdict(cut))
        self.assertEqual(console.parse_checks(cut[:-1]), dict(both, errors=0))
        self.assertIsNone(console.parse_checks(["ok 1 not ktap"]))
        # Older images' totals line has no error count.
        old = ["KTAP version 1", "# 3 passed, 0 failed, 1 skipped"]
        self.assertEqual(console.parse_checks(old),
                         {"passed": 3, "failed": 0, "skipped": 1, "errors": 0})
        self.assertEqual(console.parse_final_verdict(["clockbench: ERROR"]), "error")

    def test_announced_end(self):
        lines = ["clockbench: PASS", "clockbench: ending the run: ACPI power-off (exit=acpi)"]
        self.assertEqual(console.parse_announced_end(lines), "ACPI power-off (exit=acpi)")
        self.assertTrue(console.HALT_LINE.match(
            "clockbench: ending the run: halt (exit=halt); the machine stays on"))
        self.assertFalse(console.HALT_LINE.match(lines[1]))
        # Only after the last verdict line: an older run's line, or none at all, is not it.
        self.assertIsNone(console.parse_announced_end(lines[1:]))
        self.assertIsNone(console.parse_announced_end(lines[::-1]))
        self.assertIsNone(console.parse_announced_end(["clockbench: PASS"]))

    def test_parse_report(self):
        report = console.parse_report(sample_lines())
        self.assertEqual(set(report), {"env", "checks", "final", "end", "console_loss"})
        self.assertEqual(report["final"], "fail")


class ConsoleLoss(unittest.TestCase):
    """The guest's account of its console (lib/consloss.h), and the runner's byte count
    held against it (once.console_problem())."""

    TAKEN = "clockbench: console: all 8 bytes written were taken, none lost"
    LOST = ("clockbench: console: 4096 of 50000 bytes written may be lost (1 drop; the "
            "first: the virtio console did not take a 4096-byte buffer within 20 s)")

    def test_the_line_read(self):
        self.assertEqual(console.parse_console_loss(["x", self.TAKEN, "clockbench: PASS"]),
                         {"written_bytes": 8, "lost_bytes": 0, "said": self.TAKEN})
        self.assertEqual(console.parse_console_loss([self.LOST])["lost_bytes"], 4096)
        self.assertIsNone(console.parse_console_loss(["clockbench: PASS"]))

    def test_what_makes_a_loss(self):
        spec = qemu.BootSpec()
        taken = console.parse_console_loss([self.TAKEN])
        self.assertIsNone(once.console_problem(spec, taken, 8))
        self.assertIsNone(once.console_problem(spec, taken, 9))  # firmware lines, "\r"
        self.assertIsNone(once.console_problem(spec, None, 0))   # an older guest
        self.assertEqual(once.console_problem(spec, taken, 7),
                         "the console lost output on the way: the guest wrote 8 bytes "
                         "before its account line, the runner received 7")
        # Under Xen the console carries others' output: the guest's word alone counts.
        self.assertIsNone(once.console_problem(qemu.BootSpec(boot="xen"), taken, 7))
        self.assertRegex(once.console_problem(spec, console.parse_console_loss([self.LOST]),
                                              60000),
                         r"^the guest's console may have lost output: clockbench: "
                         r"console: 4096 of 50000 bytes")

    def run_printing(self, **options):
        text = "abc\\ndef\\n" + self.TAKEN + "\\nclockbench: PASS\\n"
        with tempfile.TemporaryDirectory() as work:
            return run_process(["/bin/sh", "-c", f"printf '{text}'"], 30,
                               os.path.join(work, "log"), **options)

    def test_the_bytes_before_the_line_are_counted(self):
        result = self.run_printing()
        self.assertEqual(result.console_bytes, 8)
        self.assertEqual(result.console_lines[-1], "clockbench: PASS")

    def test_a_stalled_reader_reads_it_all_once_qemu_ended(self):
        result = self.run_printing(stalled_reader=True)
        self.assertEqual(result.console_bytes, 8)
        self.assertEqual(result.status, 0)
        self.assertEqual(result.console_lines[2], self.TAKEN)

    def test_the_pipe_is_made_large(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "pipe-max-size")
            with open(path, "w", encoding="ascii") as out:
                out.write("1048576\n")
            self.assertEqual(process.pipe_bytes(path), 1048576)
            with open(path, "w", encoding="ascii") as out:
                out.write("junk")
            self.assertIsNone(process.pipe_bytes(path))
        self.assertIsNone(process.pipe_bytes("/nonexistent"))


class KvmCheck(unittest.TestCase):
    """kvm_status() and choose_accel() against fake device paths."""

    def test_missing_device(self):
        usable, reason = qemu.kvm_status("/nonexistent/kvm")
        self.assertFalse(usable)
        self.assertEqual(reason, "/nonexistent/kvm: No such file or directory")

    def test_not_a_kvm_device(self):
        with tempfile.NamedTemporaryFile() as fake:
            usable, reason = qemu.kvm_status(fake.name)
        self.assertFalse(usable)
        self.assertIn("KVM_GET_API_VERSION failed", reason)

    def test_directory(self):
        with tempfile.TemporaryDirectory() as directory:
            usable, reason = qemu.kvm_status(directory)
        self.assertFalse(usable)
        self.assertIn("Is a directory", reason)

    def test_wrong_api_version(self):
        with mock.patch.object(qemu.fcntl, "ioctl", return_value=11), \
                tempfile.NamedTemporaryFile() as fake:
            self.assertEqual(qemu.kvm_status(fake.name),
                             (False, f"{fake.name}: KVM API version is 11, not 12"))

    def test_usable(self):
        with mock.patch.object(qemu.fcntl, "ioctl", return_value=12) as ioctl, \
                tempfile.NamedTemporaryFile() as fake:
            self.assertTrue(qemu.kvm_status(fake.name)[0])
        self.assertEqual(ioctl.call_args.args[1], 0xAE00)

    def test_choose_accel(self):
        self.assertEqual(run.choose_accel(None, kvm_path="/nonexistent/kvm"),
                         run.AccelChoice("tcg", "", "/nonexistent/kvm: No such file or "
                                                    "directory; using TCG"))
        self.assertEqual(run.choose_accel("tcg", kvm_path="/nonexistent/kvm"),
                         run.AccelChoice("tcg"))
        with self.assertRaises(RunnerError) as caught:
            run.choose_accel("kvm", kvm_path="/nonexistent/kvm")
        self.assertIn("--accel kvm cannot be used", str(caught.exception))


COMMON = ["-display", "none", "-monitor", "none",
          "-chardev", "stdio,id=console,mux=on", "-serial", "chardev:console",
          "-device", "virtio-serial-pci", "-device", "virtconsole,chardev=console",
          "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


class QemuCommands(unittest.TestCase):
    """The QEMU argument vector of each boot path."""

    def test_multiboot1_tcg(self):
        spec = qemu.BootSpec(boot="multiboot1", cmdline="verbose=1 x=2")
        self.assertEqual(qemu.build_qemu_command(spec, "qemu", "b/mb1.elf"), [
            "qemu", *COMMON, "-machine", "pc", "-accel", "tcg", "-cpu", "max", "-m", "64",
            "-smp", "1", "-bios", qemu.QBOOT_ROM, "-kernel", "b/mb1.elf", "-append",
            "verbose=1 x=2"])

    def test_pvh_kvm(self):
        spec = qemu.BootSpec(boot="pvh", machine="q35", accel="kvm", smp=4, memory_mib=256)
        self.assertEqual(qemu.build_qemu_command(spec, "qemu", "b/cb.elf"), [
            "qemu", *COMMON, "-machine", "q35", "-accel", "kvm", "-cpu", "host", "-m", "256",
            "-smp", "4", "-bios", qemu.QBOOT_ROM, "-kernel", "b/cb.elf", "-append", ""])

    def test_console(self):
        """A virtio console beside COM1 on stdout unless COM1 alone is asked for; Xen's
        boot path always COM1 alone, and refuses a virtio console."""
        def serial(**kwargs):
            command = qemu.build_qemu_command(qemu.BootSpec(**kwargs), "qemu", "b/x")
            return command[command.index("-serial") + 1]
        self.assertEqual(serial(), "chardev:console")
        self.assertEqual(serial(console="uart"), "stdio")
        self.assertEqual(serial(boot="xen"), "stdio")
        self.assertIn("uart", qemu.BootSpec(console="uart").describe())
        with self.assertRaisesRegex(outcome.RunnerError, "no virtio console"):
            qemu.validate_spec(qemu.BootSpec(boot="xen", console="virtio"))

    def test_firmware(self):
        """qboot starts a -kernel boot under KVM and TCG unless SeaBIOS is asked for; the
        ISO boots keep QEMU's default; qboot cannot start an ISO."""
        def bios(**kwargs):
            command = qemu.build_qemu_command(qemu.BootSpec(**kwargs), "qemu", "b/x")
            return command[command.index("-bios") + 1] if "-bios" in command else None
        self.assertEqual(bios(accel="kvm"), qemu.QBOOT_ROM)
        self.assertIsNone(bios(accel="kvm", firmware="seabios"))
        self.assertEqual(bios(accel="tcg"), qemu.QBOOT_ROM)
        self.assertEqual(bios(accel="tcg", boot="pvh"), qemu.QBOOT_ROM)
        self.assertIsNone(bios(accel="tcg", firmware="seabios"))
        self.assertIsNone(bios(accel="kvm", boot="iso-bios"))
        self.assertIsNone(bios(accel="tcg", boot="iso-bios"))
        self.assertIn("qboot", qemu.BootSpec(accel="kvm").describe())
        self.assertIn("qboot", qemu.BootSpec(accel="tcg").describe())
        with self.assertRaisesRegex(outcome.RunnerError, "qboot starts only the -kernel boots"):
            qemu.validate_spec(qemu.BootSpec(boot="iso-bios", firmware="qboot"))
        with self.assertRaisesRegex(outcome.RunnerError, "firmware 'ovmf' is not one of"):
            qemu.validate_spec(qemu.BootSpec(firmware="ovmf"))

    def test_machine_options_and_cpu_model(self):
        spec = qemu.BootSpec(machine_opts="hpet=off", cpu="host,-kvmclock", accel="kvm")
        command = qemu.build_qemu_command(spec, "qemu", "b/mb1.elf")
        self.assertEqual(command[command.index("-machine") + 1], "pc,hpet=off")
        self.assertEqual(command[command.index("-cpu") + 1], "host,-kvmclock")

    def test_iso_bios_without_options_attaches_no_disk(self):
        spec = qemu.BootSpec(boot="iso-bios")
        files = qemu.boot_file_paths(spec, "w")
        self.assertEqual(files, qemu.BootFiles())
        command = qemu.build_qemu_command(spec, "qemu", "cb.iso", files)
        self.assertEqual(command[command.index("-smp") + 2:], [
            "-cdrom", "cb.iso", "-boot", "d", "-global", "isa-fdc.fdtypeA=none"])
        self.assertNotIn("-drive", command)
        # q35 has no floppy controller to leave empty.
        q35 = qemu.build_qemu_command(replace(spec, machine="q35"), "qemu", "cb.iso", files)
        self.assertEqual(q35[q35.index("-smp") + 2:], ["-cdrom", "cb.iso", "-boot", "d"])

    def test_iso_bios_with_options(self):
        spec = qemu.BootSpec(boot="iso-bios", cmdline="verbose=1")
        files = qemu.boot_file_paths(spec, "w,x")
        command = qemu.build_qemu_command(spec, "qemu", "cb.iso", files)
        self.assertEqual(command[command.index("-smp") + 2:], [
            "-cdrom", "cb.iso", "-boot", "d", "-global", "isa-fdc.fdtypeA=none",
            "-drive", "file=w,,x/args.img,format=raw,if=ide,media=disk"])

    def test_iso_uefi(self):
        spec = qemu.BootSpec(boot="iso-uefi", machine="q35", cmdline="verbose=1")
        files = qemu.boot_file_paths(spec, "w")
        command = qemu.build_qemu_command(spec, "qemu", "cb.iso", files)
        self.assertEqual(command[command.index("-smp") + 2:], [
            "-drive", "if=pflash,format=raw,unit=0,readonly=on,"
                      "file=/usr/share/OVMF/OVMF_CODE_4M.fd",
            "-drive", "if=pflash,format=raw,unit=1,file=w/OVMF_VARS_4M.fd",
            "-cdrom", "cb.iso",
            "-drive", "file=w/args.img,format=raw,if=ide,media=disk"])
        self.assertNotIn("-boot", command)

    def test_images(self):
        self.assertEqual(qemu.BootSpec(boot="multiboot1").image, "build/clockbench-mb1.elf")
        self.assertEqual(qemu.BootSpec(boot="pvh").image, "build/clockbench.elf")
        self.assertEqual(qemu.BootSpec(boot="iso-uefi").image, "build/clockbench.iso")
        self.assertEqual(qemu.BootSpec(boot="xen").image, "build/clockbench-xenpv.elf")
        self.assertIsNone(qemu.BootSpec(boot="pvh").hypervisor)
        self.assertEqual(qemu.BootSpec(boot="pvh").build_targets, ("build/clockbench.elf",))

    def test_required_programs(self):
        spec = qemu.BootSpec(boot="iso-uefi", cmdline="a=1")
        self.assertEqual(qemu.required_programs(spec, "q", build=True),
                         ["q", "make", "mformat", "mcopy", qemu.OVMF_CODE, qemu.OVMF_VARS])
        self.assertEqual(qemu.required_programs(qemu.BootSpec(boot="iso-bios"), "q", False),
                         ["q"])

    def test_missing_dependency_names_package(self):
        with mock.patch.dict(os.environ, {"PATH": "/nonexistent"}):
            with self.assertRaises(RunnerError) as caught:
                qemu.check_dependencies(["mformat"])
        self.assertIn("Debian package mtools", str(caught.exception))
        self.assertIn("make deps", str(caught.exception))
        with self.assertRaises(RunnerError) as caught:
            qemu.check_dependencies(["/nonexistent/OVMF_CODE_4M.fd"])
        self.assertIn("missing", str(caught.exception))
        self.assertIn("Debian package ovmf", qemu.missing_dependency_message(qemu.OVMF_VARS))

    def test_qemu_override(self):
        self.assertEqual(qemu.qemu_program({}), "qemu-system-x86_64")
        self.assertEqual(qemu.qemu_program({"CLOCKBENCH_QEMU": "/x/fake"}), "/x/fake")


class MemoryFloor(unittest.TestCase):
    """The least guest RAM each boot needs, read from the image it loads."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.root, "build"))

    def tearDown(self):
        shutil.rmtree(self.root)

    def path(self, name):
        return os.path.join(self.root, "build", name)

    def test_elf_ram_end(self):
        for wide in (True, False):
            scratch.write_elf(self.path("x.elf"), 0x7c0000, wide=wide)
            self.assertEqual(qemu.elf_ram_end(self.path("x.elf")), 0x7c0000)
        with open(self.path("x.elf"), "wb") as junk:
            junk.write(b"not an ELF file at all")
        with self.assertRaisesRegex(RunnerError, "x.elf is not an ELF file"):
            qemu.elf_ram_end(self.path("x.elf"))
        with open(self.path("x.elf"), "r+b") as elf:
            scratch.write_elf(self.path("x.elf"), 0x7c0000)
            elf.truncate(70)
        with self.assertRaisesRegex(RunnerError, "truncated program header table"):
            qemu.elf_ram_end(self.path("x.elf"))
        with self.assertRaisesRegex(RunnerError, "cannot read the ELF program headers"):
            qemu.elf_ram_end(self.path("missing.elf"))

    def test_minimum_per_boot(self):
        scratch.write_elf(self.path("clockbench-mb1.elf"), 0x7c0000, wide=False)
        scratch.write_elf(self.path("clockbench.elf"), 0x700001)
        expected = {"multiboot1": 8, "pvh": 8, "iso-bios": 8 + qemu.GRUB_EXTRA_MIB,
                    "iso-uefi": qemu.OVMF_MIN_MEMORY_MIB, "xen": xen.XEN_MIN_MEMORY_MIB}
        for boot, need in expected.items():
            spec = qemu.BootSpec(boot=boot, memory_mib=need)
            self.assertEqual(qemu.min_memory_mib(spec, self.root)[0], need, boot)
            qemu.check_memory(spec, self.root)
            with self.assertRaises(RunnerError) as caught:
                qemu.check_memory(qemu.BootSpec(boot=boot, memory_mib=need - 1), self.root)
            self.assertIn(f"{need - 1} MiB of guest RAM is too little for the {boot} boot, "
                          f"which needs at least {need} MiB: ", str(caught.exception))
        _, why = qemu.min_memory_mib(qemu.BootSpec(), self.root)
        self.assertEqual(why, "build/clockbench-mb1.elf fills guest RAM up to 7.75 MiB")


class IsoArgsFile(unittest.TestCase):
    """The file GRUB sources for the guest options."""

    def test_content(self):
        self.assertEqual(qemu.iso_args_file_text("verbose=1 fault=pf"),
                         "set clockbench_args='verbose=1 fault=pf'\n")
        self.assertEqual(qemu.iso_args_file_text('a="$b"'), "set clockbench_args='a=\"$b\"'\n")

    def test_single_quote_refused(self):
        with self.assertRaises(RunnerError) as caught:
            qemu.iso_args_file_text("a='b'")
        self.assertIn("single quote", str(caught.exception))
        with self.assertRaises(RunnerError):
            qemu.validate_spec(qemu.BootSpec(boot="iso-uefi", cmdline="it's"))
        qemu.validate_spec(qemu.BootSpec(boot="multiboot1", cmdline="it's"))

    @unittest.skipUnless(shutil.which("mformat") and shutil.which("mtype"), "needs mtools")
    def test_disk_image(self):
        with tempfile.TemporaryDirectory() as directory:
            spec = qemu.BootSpec(boot="iso-bios", cmdline="verbose=1")
            files = qemu.prepare_boot_files(spec, directory)
            self.assertEqual(os.path.getsize(files.args_disk), 1440 * 1024)
            shown = subprocess.run(["mtype", "-i", files.args_disk, "::/clockbench-args.cfg"],
                                   capture_output=True, text=True, check=True).stdout
            self.assertEqual(shown, "set clockbench_args='verbose=1'\n")
            qemu.prepare_boot_files(spec, directory)  # a second run replaces the disk


def boot_test(line):
    """One BootTest from a test written on one line (tests.tools.sections())."""
    return parse_cfg(line + "\n", "t.cfg")[0]


class TestEvaluation(unittest.TestCase):
    """How `clockbench test` judges a boot against its tests.cfg line."""

    LINES = ["  boot protocol    pvh", '  command line     "verbose=1"', "clockbench: PASS"]

    def test_pass(self):
        test = boot_test("boot t match='boot protocol +pvh' nomatch='#PF'")
        self.assertEqual(boottest.evaluate_boot_test(test, "pass", None, self.LINES), ("ok", None))

    def test_missing_and_forbidden_patterns(self):
        test = boot_test("boot t match='boot protocol +multiboot1' nomatch='command line'")
        state, reason = boottest.evaluate_boot_test(test, "pass", None, self.LINES)
        self.assertEqual(state, "not ok")
        self.assertIn("no line matches /boot protocol +multiboot1/", reason)
        self.assertIn('/command line/ must not match but matched: command line     "verbose=1"',
                      reason)

    def test_wrong_verdict(self):
        test = boot_test("boot t expect=fail")
        self.assertEqual(boottest.evaluate_boot_test(test, "pass", None, self.LINES),
                         ("not ok", "expected FAIL, the guest reported PASS"))
        self.assertEqual(boottest.evaluate_boot_test(test, "fail", None, self.LINES), ("ok", None))

    def test_error_hang_and_skip(self):
        test = boot_test("boot t")
        self.assertEqual(boottest.evaluate_boot_test(test, "hang", "hang: x", []), ("not ok", "hang: x"))
        self.assertEqual(boottest.evaluate_boot_test(test, "error", "bad", []), ("not ok", "bad"))
        self.assertEqual(boottest.evaluate_boot_test(test, "skip", None, ["x"])[0], "skip")
        self.assertEqual(boottest.evaluate_boot_test(boot_test("boot t expect=skip"), "skip", None,
                                                []), ("ok", None))

    def test_kvm_tests_skip_when_kvm_is_unusable(self):
        tests = parse("[boot a]\naccel = kvm\n[boot b]\n")
        with mock.patch.object(qemu, "kvm_status", return_value=(False, "/dev/kvm: nope")):
            self.assertEqual(boottest.kvm_models(tests)[1], {"a": "/dev/kvm: nope"})
        host = cpumodel.Choice("host", [cpumodel.Attempt("host", True)])
        with mock.patch.object(qemu, "kvm_status", return_value=(True, "fine")):
            settled, skips, note = boottest.kvm_models(tests, kvm_choice=lambda: host)
        self.assertEqual((skips, note), ({}, "-cpu host starts under KVM here"))
        self.assertEqual([test.spec.cpu_option for test in settled], ["host", "max"])

    def test_output_lines(self):
        """TAP lines: the reason after `#`; a test that is not ok says why below, each
        failed check on its own line, then the verdict, the guest's own `not ok` lines,
        the console's last lines when the boot broke, and the log."""
        Result = testreport.TestResult
        self.assertEqual(testreport.result_lines(1, "t", Result("ok", seconds=0.42)),
                         ["ok 1 t # 0.4 s"])
        self.assertEqual(testreport.result_lines(2, "t", Result("skip", "no kvm")),
                         ["ok 2 t # SKIP no kvm"])
        failed = Result("not ok", "a; b", problems=("a", "b"), verdict="pass", expect="pass",
                        guest_failures=("not ok 4 the heap works",), log="build/tests/t.log")
        self.assertEqual(testreport.result_lines(3, "t", failed), [
            "not ok 3 t # a (and 1 more problem)", "#   failed: a", "#   failed: b",
            "#   verdict: PASS (expected PASS)", "#   guest: not ok 4 the heap works",
            "#   log: build/tests/t.log"])
        hung = Result("not ok", "hang: x", problems=("hang: x",), verdict="hang",
                      expect="pass", tail=("# measuring hpet",), broken=True)
        self.assertEqual(testreport.result_lines(4, "t", hung), [
            "not ok 4 t # hang: x", "#   verdict: HANG (expected PASS)",
            "#   last lines of the console:", "#     # measuring hpet"])
        results = [Result("ok"), failed, Result("skip"), Result("ok"), hung]
        self.assertEqual(testreport.totals_line(results),
                         "# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:1")

    def test_failure_details_from_the_console(self):
        lines = sample_lines() + [f"json| {index}" for index in range(20)]
        self.assertEqual(testreport.guest_failures(lines),
                         ("not ok 2 other check", "not ok 4 the heap works # ERROR it does not"))
        tail = testreport.console_tail(lines, 3)
        self.assertEqual(tail, ("not ok 4 the heap works # ERROR it does not",
                                "# 1 passed, 1 failed, 1 skipped, 1 errors", "clockbench: FAIL"))


class FakeQemuProcess(unittest.TestCase):
    """run_process() with a fake QEMU: logging, cleaning and the timeout."""

    def setUp(self):
        self.directory = tempfile.mkdtemp()
        self.log = os.path.join(self.directory, "sub", "x.log")

    def tearDown(self):
        shutil.rmtree(self.directory)

    def run_fake(self, timeout_s=30, **environ):
        """Run fake_qemu.py with FAKE_QEMU_* settings."""
        with mock.patch.dict(os.environ, {f"FAKE_QEMU_{k}": v for k, v in environ.items()}):
            return run_process([PYTHON, FAKE_QEMU, "-append", "a=1"], timeout_s, self.log)

    def test_exit_status_and_log(self):
        result = self.run_fake(STATUS="5")
        self.assertEqual(result.status, 5)
        self.assertIn("clockbench: FAIL", result.lines)
        self.assertEqual(result.stderr_lines, ["fake qemu: exiting"])
        with open(self.log, encoding="utf-8") as log:
            logged = log.read()
        self.assertNotIn("\x1b", logged)
        self.assertNotIn("\r", logged)
        self.assertIn('command line     "a=1"\n', logged)

    def test_timeout_kills(self):
        result = self.run_fake(timeout_s=1, HANG="1")
        self.assertTrue(result.timed_out)
        self.assertLess(result.seconds, 10)
        self.assertEqual(result.last_line, "waiting forever")

    def test_stalled_guest_is_stopped_early(self):
        result = self.run_fake(timeout_s=30, STALL="1")
        self.assertTrue(result.stalled)
        self.assertFalse(result.timed_out)
        self.assertIsNone(result.status)
        self.assertLess(result.seconds, 10)
        self.assertEqual(result.stall_line, "KVM internal error. Suberror: 1")
        self.assertIn("emulation failure", result.stderr_lines)
        self.assertEqual(result.last_line, "# 1 passed, 0 failed, 0 skipped, 0 errors")

    def test_missing_program(self):
        with self.assertRaises(RunnerError) as caught:
            run_process(["/nonexistent/qemu"], 5, self.log)
        self.assertIn("cannot start /nonexistent/qemu", str(caught.exception))


class CommandLine(unittest.TestCase):
    """The whole tools/clockbench, copied into a scratch tree with a fake QEMU and Makefile."""

    def setUp(self):
        self.root = scratch.make_tree()

    def tearDown(self):
        shutil.rmtree(self.root)

    def clockbench(self, *args, **environ):
        """Run the copied tools/clockbench; returns the CompletedProcess."""
        env = dict(os.environ, CLOCKBENCH_QEMU=FAKE_QEMU, PYTHONDONTWRITEBYTECODE="1")
        env.update(environ)
        return subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"), *args],
                              env=env, cwd=self.root, capture_output=True, text=True,
                              timeout=60, check=False)

    def test_run_verdicts(self):
        for status, code, word in ((3, 0, "PASS"), (5, 1, "FAIL"), (7, 77, "SKIP"),
                                   (0, 2, "ERROR")):
            result = self.clockbench("run", "--accel", "tcg", FAKE_QEMU_STATUS=str(status))
            self.assertEqual(result.returncode, code, result.stderr)
            self.assertRegex(result.stdout, rf"clockbench run: {word} \(tcg pc multiboot1 -cpu max qboot, "
                                            r"[0-9.]+ s\)\n$")
        self.assertNotIn("Traceback", result.stderr)

    def test_run_every_exit(self):
        """exit=halt, acpi and reset end with the console's verdict, quickly; without the
        guest's line saying so, QEMU's status 0 has no verdict."""
        for method in ("halt", "acpi", "reset"):
            for status, code, word in ((3, 0, "PASS"), (5, 1, "FAIL")):
                result = self.clockbench("run", "--accel", "tcg", "--timeout", "20", "--",
                                         f"exit={method}", FAKE_QEMU_FINAL=f"clockbench: {word}")
                self.assertEqual(result.returncode, code, (method, result.stderr))
                self.assertIn(f"clockbench run: {word} (tcg pc multiboot1", result.stdout)
                self.assertIn("clockbench: ending the run: ", result.stdout)
                self.assertRegex(result.stdout, r", [0-9]\.[0-9] s\)\n$")  # well before 20 s
        result = self.clockbench("run", "--accel", "tcg", "--", "exit=acpi",
                                 FAKE_QEMU_NO_END_LINE="1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("QEMU exited with status 0 without a verdict", result.stderr)

    def test_run_refuses_too_little_memory(self):
        result = self.clockbench("run", "--accel", "tcg", "--memory", "7")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr.splitlines()[-1],
                         "clockbench run: 7 MiB of guest RAM is too little for the multiboot1 "
                         "boot, which needs at least 8 MiB: build/clockbench-mb1.elf fills "
                         "guest RAM up to 7.50 MiB.")
        result = self.clockbench("run", "--accel", "tcg", "--memory", "8")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_run_json_and_hang(self):
        result = self.clockbench("run", "--accel", "tcg", "--timeout", "1", "--json", "r.json",
                                 "--log", "r.log", "--", "verbose=1", FAKE_QEMU_HANG="1")
        self.assertEqual(result.returncode, 3)
        self.assertIn("hang: no verdict after 1 s; last line seen: waiting forever",
                      result.stderr)
        with open(os.path.join(self.root, "r.json"), encoding="utf-8") as document:
            report = json.load(document)
        self.assertEqual(report["schema"], "clockbench/2")
        self.assertEqual(report["verdict"], "hang")
        self.assertIsNone(report["qemu_status"])
        console = report["console"]  # what the console said, the guest's report missing
        self.assertNotIn("env", report)
        self.assertEqual(console["env"]["cmdline"], "verbose=1")
        self.assertEqual(console["env"]["cpus"], 1)
        self.assertIsNone(console["env"]["memory"])
        self.assertEqual(console["checks"], {"passed": 1, "failed": 0, "skipped": 0,
                                             "errors": 0})
        self.assertTrue(report["reason"].startswith("hang: no verdict after 1 s"))
        self.assertEqual(report["runner"]["qemu_command"][-2:], ["-append", "verbose=1"])
        self.assertTrue(os.path.exists(os.path.join(self.root, "r.log")))

    def test_run_stalled(self):
        result = self.clockbench("run", "--accel", "tcg", FAKE_QEMU_STALL="1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("clockbench run: QEMU stopped the guest: KVM internal error. Suberror: 1",
                      result.stderr)

    def test_run_errors_are_one_sentence(self):
        cases = [
            (("--boot", "multiboot1"), {"FAIL_BUILD": "1"},
             "building build/clockbench-mb1.elf failed"),
            (("--no-build", "--boot", "pvh"), {}, "build/clockbench.elf does not exist"),
            (("--boot", "iso-bios", "--", "a='b'"), {}, "single quote"),
            ((), {"CLOCKBENCH_QEMU": "/nonexistent/q"}, "/nonexistent/q is missing"),
        ]
        for args, environ, message in cases:
            result = self.clockbench("run", "--accel", "tcg", *args, **environ)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn(message, result.stderr)
            self.assertNotIn("Traceback", result.stderr)
            ours = [line for line in result.stderr.splitlines() if line.startswith("clockbench")]
            self.assertEqual(len(ours), 1, result.stderr)
            self.assertTrue(ours[0].startswith("clockbench run: "), ours)

    def test_test_subcommand(self):
        with open(os.path.join(self.root, testlist.TESTS_CFG), "w", encoding="utf-8") as cfg:
            cfg.write(sections(textwrap.dedent("""\
                unit  u   source=x.c
                boot  ok1 args="verbose=1" match='command line +"verbose=1[ "]' groups=g
                boot  bad match='boot protocol +pvh'
                boot  iso boot=iso-bios args="verbose=1"
                """)))
        result = self.clockbench("test", "--list", "--group", "g")
        self.assertEqual(result.stdout.split()[0], "ok1")
        result = self.clockbench("test")
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:2], ["TAP version 13", "1..3"])
        self.assertRegex(lines[2], r"^ok 1 ok1 # [0-9.]+ s$")
        self.assertEqual(lines[3:6], ["not ok 2 bad # no line matches /boot protocol +pvh/",
                                      "#   verdict: PASS (expected PASS)",
                                      "#   log: build/tests/bad.log"])
        self.assertEqual(lines[-1], "# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:0 error:0")
        self.assertTrue(os.path.exists(os.path.join(self.root, "build", "tests", "bad.log")))
        result = self.clockbench("test", "ok1", "iso")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines()[-1],
                         "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0")
        result = self.clockbench("test", "nosuch")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no boot test named 'nosuch'", result.stderr)

    def test_test_memory_floor(self):
        """A boot test with less RAM than its boot needs is refused unless it says
        memory_check=off (to see what the image says then)."""
        with open(os.path.join(self.root, testlist.TESTS_CFG), "w", encoding="utf-8") as cfg:
            cfg.write(sections("boot small memory=7\n"))
        result = self.clockbench("test")
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn("clockbench test: tests/tests.cfg:1: small: 7 MiB of guest RAM is too "
                      "little for the multiboot1 boot, which needs at least 8 MiB", result.stderr)
        with open(os.path.join(self.root, testlist.TESTS_CFG), "w", encoding="utf-8") as cfg:
            cfg.write(sections("boot small memory=7 memory_check=off\n"))
        result = self.clockbench("test")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


class StopAfterTheEnd(unittest.TestCase):
    """After the guest's last line the runner stops QEMU itself: QEMU's "terminating on
    signal 15" then stays in the log and off the terminal (exit=halt's PASS)."""

    def test_the_signal_line_is_not_echoed_after_the_end(self):
        with tempfile.TemporaryDirectory() as scratch:
            log = os.path.join(scratch, "run.log")
            echoed = []
            sink = LineSink(log, lambda line, stream: echoed.append(line),
                            re.compile(r"^clockbench: halted$"))
            sink.add("qemu-system-x86_64: terminating on signal 15 from pid 9", "stderr")
            sink.add("clockbench: halted", "stdout")
            sink.add("qemu-system-x86_64: terminating on signal 15 from pid 9 (python3)",
                     "stderr")
            sink.add("qemu-system-x86_64: another message", "stderr")
            sink.close()
            with open(log, encoding="utf-8") as source:
                logged = source.read().splitlines()
        # Before the end it is news (someone else stopped QEMU); after it, the runner's own.
        self.assertEqual(echoed, ["qemu-system-x86_64: terminating on signal 15 from pid 9",
                                  "clockbench: halted", "qemu-system-x86_64: another message"])
        self.assertEqual(len(logged), 4)


if __name__ == "__main__":
    unittest.main()
