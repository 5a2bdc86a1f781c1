# SPDX-License-Identifier: MIT
"""Unit tests for Xen boots on the host: Xen's and QEMU's command lines, refusing KVM,
tests.cfg's boot=xen and xen_args=, reading Xen's own console lines (real captures in
tests/tools/fixtures/xen/, see its README.md), judging how dom0 ended, and `run`, `test`
and `matrix` with a fake QEMU that prints those captures.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from unittest import mock

from tests.tools import FAKE_QEMU, FIXTURES, GOOD_LOG, PYTHON, parse_cfg, scratch, sections
from clockbench_lib.base import paths
from clockbench_lib.model import report
from clockbench_lib.boot import qemu, run, xen
from clockbench_lib.testing import boottest, testlist
from clockbench_lib.compare import matrix
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.boot.process import run_process

XEN_FIXTURES = os.path.join(FIXTURES, "xen")
DEFAULT_OPTIONS = "console=com1 com1=115200,8n1 dom0_mem=128M dom0_max_vcpus=2 noreboot"
CRASHED = "Hardware Dom0 crashed: 'noreboot' set - not rebooting."


def fixture(name):
    """The path of a Xen capture."""
    return os.path.join(XEN_FIXTURES, name)


def fixture_lines(name):
    """The cleaned lines of a Xen capture."""
    return report.read_log_lines(fixture(name))


def facts_of(*names):
    """XenFacts from the captures `names`, one after the other as on one console."""
    lines = [line for name in names for line in fixture_lines(name)]
    return xen.parse_xen_log(lines)


class XenCommandLine(unittest.TestCase):
    """How the runner starts Xen under QEMU."""

    def test_qemu_command(self):
        spec = qemu.BootSpec(boot="xen", smp=2, memory_mib=512, cmdline="a=1,b=2 verbose=1",
                             xen_args="clocksource=tsc")
        command = qemu.build_qemu_command(spec, "qemu", "/r/build/clockbench-xenpv.elf",
                                          hypervisor="/r/build/xen-4.17-amd64")
        self.assertEqual(command[command.index("-accel"):command.index("-accel") + 2],
                         ["-accel", "tcg"])
        self.assertEqual(command[command.index("-m") + 1], "512")
        self.assertIn("isa-debug-exit,iobase=0xf4,iosize=0x04", command)
        self.assertIn("-no-reboot", command)
        self.assertEqual(command[command.index("-smp") + 2:], [
            "-kernel", "/r/build/xen-4.17-amd64",
            "-append", DEFAULT_OPTIONS + " clocksource=tsc",
            "-initrd", "/r/build/clockbench-xenpv.elf a=1,,b=2 verbose=1"])

    def test_without_guest_or_xen_options(self):
        spec = qemu.BootSpec(boot="xen", smp=1)
        command = qemu.build_qemu_command(spec, "qemu", "x/pv.elf", hypervisor="x/xen")
        self.assertEqual(command[command.index("-smp") + 2:], [
            "-kernel", "x/xen",
            "-append", "console=com1 com1=115200,8n1 dom0_mem=128M dom0_max_vcpus=1 noreboot",
            "-initrd", "x/pv.elf"])

    def test_xen_options_come_last_so_they_win(self):
        self.assertEqual(xen.xen_options(4, "  dom0_max_vcpus=1 clocksource=hpet "),
                         "console=com1 com1=115200,8n1 dom0_mem=128M dom0_max_vcpus=4 "
                         "noreboot dom0_max_vcpus=1 clocksource=hpet")
        self.assertEqual(xen.requested_clocksource("clocksource=pit a=1 clocksource=tsc"),
                         "tsc")
        self.assertIsNone(xen.requested_clocksource(DEFAULT_OPTIONS))

    def test_paths_with_commas_and_spaces(self):
        self.assertEqual(xen.initrd_argument("/a,b/pv.elf", "x=1"), "/a,,b/pv.elf x=1")
        self.assertEqual(xen.kernel_argument("/a,b/xen"), "/a,,b/xen")
        for call in (lambda: xen.initrd_argument("/my tree/pv.elf", ""),
                     lambda: xen.kernel_argument("/my tree/xen")):
            with self.assertRaises(RunnerError) as caught:
                call()
            self.assertIn("contains a space", str(caught.exception))
            self.assertTrue(str(caught.exception).endswith("without spaces."))

    def test_kvm_is_refused(self):
        with self.assertRaises(RunnerError) as caught:
            qemu.validate_spec(qemu.BootSpec(boot="xen", accel="kvm"))
        self.assertEqual(str(caught.exception), xen.KVM_REFUSAL)
        self.assertEqual(str(caught.exception).count(". "), 0)  # one sentence
        with self.assertRaises(RunnerError):
            run.choose_accel("kvm", boot="xen")
        # Xen boots never probe KVM: TCG without a note, whether KVM is usable or not.
        with mock.patch.object(qemu, "kvm_status", side_effect=AssertionError("probed")):
            self.assertEqual(run.choose_accel(None, boot="xen"), run.AccelChoice("tcg"))
            self.assertEqual(run.choose_accel("tcg", boot="xen"), run.AccelChoice("tcg"))
        qemu.validate_spec(qemu.BootSpec(boot="xen", accel="tcg", xen_args="clocksource=tsc"))

    def test_xen_options_need_xen(self):
        with self.assertRaises(RunnerError) as caught:
            qemu.validate_spec(qemu.BootSpec(boot="pvh", xen_args="clocksource=tsc"))
        self.assertIn("apply only to the Xen boot paths", str(caught.exception))

    def test_files_defaults_and_dependencies(self):
        spec = qemu.BootSpec(boot="xen")
        self.assertEqual(spec.image, "build/clockbench-xenpv.elf")
        self.assertEqual(spec.hypervisor, "build/xen-4.17-amd64")
        self.assertEqual(spec.build_targets,
                         ("build/clockbench-xenpv.elf", "build/xen-4.17-amd64"))
        self.assertEqual(spec.describe(), "tcg pc xen -cpu max")
        self.assertEqual(qemu.default_timeout_s("tcg", "xen"), 120)
        self.assertEqual(qemu.default_memory_mib("xen"), 512)
        self.assertEqual(qemu.default_memory_mib("pvh"), 64)
        self.assertEqual(qemu.required_programs(spec, "q", build=True),
                         ["q", "make", "/boot/xen-4.17-amd64.gz"])
        self.assertEqual(qemu.required_programs(spec, "q", build=False), ["q"])
        self.assertEqual(qemu.missing_dependency_message(xen.XEN_GZ),
                         "/boot/xen-4.17-amd64.gz is missing: install the Debian package "
                         "xen-hypervisor-4.17-amd64 (`make deps` installs all of "
                         "clockbench's dependencies).")


def parse(text):
    """Parse tests.cfg text given with any common indentation."""
    return parse_cfg(textwrap.dedent(text), "t.cfg")


class DomuBoots(unittest.TestCase):
    """The domU boots: Xen with the project's Linux dom0, which runs the image as a domU."""

    def command(self, boot, smp=1, cmdline=""):
        spec = qemu.BootSpec(boot=boot, smp=smp, cmdline=cmdline, timeout_s=180,
                             memory_mib=qemu.default_memory_mib(boot))
        return spec, qemu.build_qemu_command(spec, "qemu", "/r/build/dom0/initrd.img",
                                             hypervisor="/r/build/xen-4.17-amd64")

    def test_command_line(self):
        spec, command = self.command("xen-pv-domu", cmdline="verbose=1 fault=pf")
        self.assertEqual(command[command.index("-smp") + 1], "2")  # dom0's vCPU too
        self.assertEqual(command[command.index("-m") + 1], "1024")
        self.assertEqual(command[command.index("-append") + 1],
                         "console=com1 com1=115200,8n1 dom0_mem=512M dom0_max_vcpus=1 "
                         "smap=0 cpuid=no-xsave noreboot")
        self.assertEqual(command[command.index("-initrd") + 1],
                         "/r/build/dom0/vmlinux console=hvc0 loglevel=1 clockbench.type=pv "
                         "clockbench.vcpus=1 clockbench.memory=128 clockbench.timeout=150 "
                         "clockbench.options=verbose%3D1%20fault%3Dpf,"
                         "/r/build/dom0/initrd.img")
        self.assertEqual(spec.build_targets, ("build/dom0/initrd.img",
                                              "build/clockbench-xenpv.elf",
                                              "build/xen-4.17-amd64", "build/dom0/vmlinux"))
        self.assertEqual(spec.console_choice, "uart")
        # A PVH or HVM domU hides RDTSCP through xl's cpuid=, named as a workaround.
        spec, command = self.command("xen-hvm-domu", smp=3)
        self.assertEqual(command[command.index("-smp") + 1], "3")
        self.assertIn("clockbench.type=hvm clockbench.vcpus=3 ", command[-1])
        self.assertIn(" clockbench.cpuid=host%2Crdtscp%3D0,", command[-1])
        self.assertEqual(len(xen.workaround_lines("xen-hvm-domu")), 3)
        self.assertEqual(qemu.default_timeout_s("tcg", "xen-hvm-domu"), 360)
        with self.assertRaises(RunnerError) as caught:
            qemu.validate_spec(qemu.BootSpec(boot="xen-pvh-domu", machine="q35"))
        self.assertIn("runs on the pc machine only", str(caught.exception))

    def test_contend_gives_dom0_a_vcpu_a_physical_cpu(self):
        spec = qemu.BootSpec(boot="xen-pv-domu", smp=2, contend=True,
                             memory_mib=qemu.default_memory_mib("xen-pv-domu"))
        self.assertIn(" dom0_max_vcpus=1 ", spec.xen_command_line)
        self.assertTrue(spec.xen_command_line.endswith(" noreboot dom0_max_vcpus=2"),
                        "each a busy neighbour of the domU's vCPU on its physical CPU")
        self.assertTrue(qemu.BootSpec(boot="xen-pv-domu", smp=3, contend=True,
                                      xen_args="dom0_max_vcpus=1")
                        .xen_command_line.endswith(" dom0_max_vcpus=3 dom0_max_vcpus=1"),
                        "xen_args= has the last word")
        self.assertTrue(qemu.BootSpec(boot="xen-pv-domu", smp=2).xen_command_line
                        .endswith(" noreboot"))

    def test_verdicts(self):
        said = ["(dom0) clockbench-domu: pvh domU clockbench-pvh: 1 vCPU(s)",
                "(dom0) clockbench-domu: FAIL: the domain crashed before a verdict "
                "(xl list: state c)."]
        self.assertEqual(xen.judge_domu(3, "pass", said[:1]), ("pass", None))
        self.assertEqual(xen.judge_domu(5, None, said),
                         ("fail", "FAIL: the domain crashed before a verdict "
                                  "(xl list: state c)."))
        self.assertEqual(xen.judge_domu(3, None, said[:1])[0], "error")
        self.assertIn("but the domU's console shows 'clockbench: FAIL'",
                      xen.judge_domu(3, "fail", [])[1])
        verdict, reason = xen.judge_domu(None, None, said)
        self.assertEqual(verdict, "error")
        self.assertTrue(reason.endswith("dom0's runner last said: FAIL: the domain crashed "
                                        "before a verdict (xl list: state c)."))
        self.assertEqual(xen.percent_encode("a=1 b,c%"), "a%3D1%20b%2Cc%25")


class DomuEvents(unittest.TestCase):
    def test_dom0s_sentence_of_a_failed_event_is_found(self):
        lines = ["(dom0) clockbench-domu: event 1 (pause:1s): 3201.6 ms on the host; xl "
                 "pause took 0.2 ms, xl unpause 0.2 ms.",
                 "(dom0) clockbench-domu: event 2 (migrate) failed: xl migrate failed: xc: "
                 "error: Failed to enable logdirty.",
                 "event 3 (save) failed: not dom0's line",
                 "(dom0) clockbench-domu: ERROR"]
        self.assertEqual(xen.domu_event_failures(lines),
                         ["event 2 (migrate) failed: xl migrate failed: xc: error: Failed "
                          "to enable logdirty."])


class TestsCfgXen(unittest.TestCase):
    """boot=xen and xen_args= in tests.cfg."""

    def test_xen_lines(self):
        plain, crash = parse("""\
            boot a boot=xen
            boot b boot=xen smp=2 xen_args="clocksource=tsc dom0_max_vcpus=1" args="fault=pf" \
expect=fail memory=256 timeout=30
            """)
        self.assertEqual(plain.spec, qemu.BootSpec(
            boot="xen", memory_mib=512, timeout_s=120,
            cmdline=" ".join(testlist.PROFILE_OPTIONS["check"])))
        self.assertEqual(plain.timeout_s, 120)
        self.assertEqual(crash.spec, qemu.BootSpec(boot="xen", smp=2, memory_mib=256,
                                                   cmdline="fault=pf " + " ".join(
                                                       testlist.PROFILE_OPTIONS["check"]),
                                                   xen_args="clocksource=tsc dom0_max_vcpus=1",
                                                   timeout_s=30))
        self.assertEqual((crash.expect, crash.timeout_s), ("fail", 30))

    def test_bad_xen_lines(self):
        for line, fragment in (("boot x boot=xen accel=kvm", "Xen boots run under TCG only"),
                               ("boot x xen_args=clocksource=tsc",
                                "apply only to the Xen boot paths"),
                               ("boot x boot=xen xen_args=a xen_args=b",
                                "xen_args= is given 2 times")):
            with self.subTest(line):
                with self.assertRaises(RunnerError) as caught:
                    parse(line + "\n")
                # The section's line, or the line of the key given twice.
                self.assertRegex(str(caught.exception), r"^t\.cfg:[14]: ")
                self.assertIn(fragment, str(caught.exception))

    def test_listing_shows_xen_options(self):
        tests = parse("boot a boot=xen xen_args='clocksource=tsc dom0_max_vcpus=1'\n"
                      "boot bb boot=xen\n")
        self.assertEqual(boottest.format_test_listing(tests), [
            "a   xen        pc  tcg profile=check expect=pass groups=- "
            "xen_args='clocksource=tsc dom0_max_vcpus=1'",
            "bb  xen        pc  tcg profile=check expect=pass groups=-"])

    def test_help_documents_the_keys(self):
        self.assertIn("boot=multiboot1|pvh|iso-bios|iso-uefi|xen", testlist.FORMAT_HELP)
        self.assertIn('xen_args="Xen options"', testlist.FORMAT_HELP)
        self.assertIn("120 xen", testlist.FORMAT_HELP)
        self.assertIn("xen_pv_facts", testlist.FORMAT_HELP)


class XenLog(unittest.TestCase):
    """What parse_xen_log() reads from Xen 4.17's own lines, captured under QEMU 7.2."""

    def test_default_boot(self):
        facts = facts_of("boot-hpet.log")
        self.assertEqual((facts.version, facts.build),
                         ("4.17.7", "Debian 4.17.7+13-g2445b30a44-0+deb12u1"))
        self.assertEqual(facts.command_line, DEFAULT_OPTIONS)
        self.assertEqual((facts.platform_timer, facts.platform_timer_mhz), ("HPET", 100.0))
        self.assertEqual(facts.tsc_lines, ["Detected 2300.001 MHz processor.",
                                           "TSC only partially writable"])
        self.assertEqual(facts.warnings, [])
        self.assertIsNone(facts.end)
        self.assertIsNone(facts.clocksource)
        self.assertIsNone(facts.clocksource_note())

    def test_clocksource_tsc_without_a_reliable_tsc_keeps_hpet(self):
        facts = facts_of("boot-tsc.log")
        self.assertEqual((facts.clocksource, facts.platform_timer), ("tsc", "HPET"))
        self.assertEqual(facts.clocksource_note(),
                         "clocksource=tsc was asked for, but Xen kept HPET")
        self.assertEqual(facts.summary_lines(), [
            f"Xen 4.17.7 (Debian 4.17.7+13-g2445b30a44-0+deb12u1), options: "
            f"{DEFAULT_OPTIONS} clocksource=tsc",
            "Xen's platform timer: 100.000 MHz HPET (clocksource=tsc was asked for, but Xen "
            "kept HPET)",
            "Xen's TSC lines: Detected 2300.000 MHz processor. | TSC only partially writable"])

    def test_other_platform_timers_and_warnings(self):
        pit = facts_of("boot-pit.log")
        self.assertEqual((pit.platform_timer, pit.platform_timer_mhz, pit.clocksource),
                         ("PIT", 1.193, "pit"))
        self.assertIsNone(pit.clocksource_note())
        bogus = facts_of("boot-bogus.log")
        self.assertEqual(bogus.clocksource, "bogus")  # the last clocksource= wins, in Xen too
        self.assertEqual(bogus.warnings, ["WARNING: Unrecognised clocksource 'bogus'."])
        self.assertEqual(bogus.platform_timer, "HPET")
        self.assertEqual(bogus.clocksource_note(),
                         "clocksource=bogus is not a platform timer Xen knows")
        self.assertIn("Xen: WARNING: Unrecognised clocksource 'bogus'.", bogus.summary_lines())

    def test_a_later_switch_to_the_tsc_wins(self):
        """With a reliable TSC, clocksource=tsc switches once every CPU is up (time.c)."""
        lines = fixture_lines("boot-tsc.log") + [
            "(XEN) [    3.141592] Switched to Platform timer 2300.000MHz TSC"]
        facts = xen.parse_xen_log(lines)
        self.assertEqual((facts.platform_timer, facts.platform_timer_mhz), ("TSC", 2300.0))
        self.assertIsNone(facts.clocksource_note())

    def test_guest_lines_are_not_xen_lines(self):
        facts = xen.parse_xen_log(["Platform timer is 1.000MHz FAKE", "clockbench: PASS",
                                   "  (XEN) Platform timer is 2.000MHz FAKE",
                                   "Hardware Dom0 crashed: 'noreboot' set - not rebooting."])
        self.assertIsNone(facts.platform_timer)
        self.assertIsNone(facts.end)
        self.assertIsNone(facts.version)
        self.assertIn("Xen's platform timer: not in the log (Xen stopped before choosing one)",
                      facts.summary_lines())
        self.assertIsNone(xen.END_LINE.match(f"{CRASHED}"))

    def test_end_lines(self):
        self.assertEqual(fixture_lines("dom0-crashed.log")[-1], f"(XEN) {CRASHED}")
        for name in ("dom0-crashed.log", "dom0-halted.log", "panic.log"):
            with self.subTest(name):
                matching = [line for line in fixture_lines(name) if xen.END_LINE.match(line)]
                self.assertEqual(matching, fixture_lines(name)[-1:])
        for line in ("(XEN) Hardware Dom0 shutdown: rebooting machine",  # QEMU exits itself
                     "(XEN) Platform timer is 100.000MHz HPET"):
            self.assertIsNone(xen.END_LINE.match(line), line)
        self.assertTrue(xen.END_LINE.match("(XEN) Hardware Dom0 shutdown (unknown reason 9): "
                                           "'noreboot' set - not rebooting."))
        self.assertTrue(xen.END_LINE.match("(XEN) [2026-11-30 06:00:00] Hardware Dom0 halted: "
                                           "halting machine"))

    def test_how_dom0_ended(self):
        crashed = facts_of("boot-hpet.log", "dom0-crashed.log").end
        self.assertEqual((crashed.kind, crashed.line), ("crashed", CRASHED))
        halted = facts_of("boot-hpet.log", "dom0-halted.log").end
        self.assertEqual((halted.kind, halted.line),
                         ("halted", "Hardware Dom0 halted: halting machine"))
        panic = facts_of("panic.log")
        self.assertEqual((panic.end.kind, panic.end.detail),
                         ("panic", "Could not construct domain 0"))
        self.assertEqual(panic.end.describe(), "Xen panicked: Could not construct domain 0")
        self.assertEqual(panic.platform_timer, "HPET")  # chosen before dom0 was built
        self.assertEqual(panic.to_json()["end"], {
            "kind": "panic", "line": "Manual reset required ('noreboot' specified)",
            "detail": "Could not construct domain 0"})

    def test_judging_the_end(self):
        crashed = facts_of("dom0-crashed.log").end
        halted = facts_of("dom0-halted.log").end
        panic = facts_of("panic.log").end
        crash_words = f"dom0 crashed (Xen: {CRASHED})"
        halt_words = "dom0 powered off (Xen: Hardware Dom0 halted: halting machine)"
        fallback = ": the guest could not end QEMU through isa-debug-exit"
        cases = [
            (crashed, None, "fail", f"{crash_words}, before the guest printed a verdict"),
            (crashed, "pass", "fail",
             f"{crash_words}, although the console said 'clockbench: PASS'"),
            (crashed, "fail", "fail", f"{crash_words} after 'clockbench: FAIL'{fallback}"),
            (halted, "pass", "pass", f"{halt_words} after 'clockbench: PASS'{fallback}"),
            (halted, "skip", "skip", f"{halt_words} after 'clockbench: SKIP'{fallback}"),
            (halted, "fail", "error",
             f"verdict mismatch: {halt_words}, which the guest does after PASS or SKIP, but "
             f"the console said 'clockbench: FAIL'"),
            (halted, None, "error", f"{halt_words} without a verdict"),
            (panic, None, "error", "Xen panicked: Could not construct domain 0 without a "
                                   "verdict"),
        ]
        for end, said, verdict, reason in cases:
            with self.subTest(f"{end.kind} {said}"):
                self.assertEqual(xen.judge_end(end, said), (verdict, reason))

    def test_judging_an_announced_end(self):
        """exit=halt, acpi or reset: the guest said how it ends, so dom0's power-off (or
        its crash after FAIL) carries the console's verdict; a crash after PASS and a
        panic still do not."""
        crashed = facts_of("dom0-crashed.log").end
        halted = facts_of("dom0-halted.log").end
        panic = facts_of("panic.log").end
        said = "shutdown of the domain (exit=acpi)"
        self.assertEqual(xen.judge_end(halted, "pass", said), ("pass", None))
        self.assertEqual(xen.judge_end(halted, "fail", said), ("fail", None))
        self.assertEqual(xen.judge_end(crashed, "fail", said), ("fail", None))
        self.assertEqual(xen.judge_end(crashed, "pass", said)[0], "fail")
        self.assertEqual(xen.judge_end(panic, "pass", said)[0], "error")
        self.assertEqual(xen.judge_end(halted, None, said)[0], "error")

    def test_json(self):
        facts = xen.parse_xen_log(fixture_lines("boot-tsc.log"), "given options")
        self.assertEqual(facts.to_json(), {
            "options": "given options", "version": "4.17.7",
            "build": "Debian 4.17.7+13-g2445b30a44-0+deb12u1",
            "command_line": DEFAULT_OPTIONS + " clocksource=tsc", "clocksource": "tsc",
            "platform_timer": "HPET", "platform_timer_mhz": 100.0,
            "tsc_lines": ["Detected 2300.000 MHz processor.", "TSC only partially writable"],
            "warnings": [], "end": None})

    def test_installed_version(self):
        self.assertIsNone(xen.installed_version("clockbench-no-such-package"))
        done = subprocess.CompletedProcess([], 0, stdout="install ok installed|4.17.7+13-1",
                                           stderr="")
        with mock.patch.object(subprocess, "run", return_value=done):
            self.assertEqual(xen.installed_version(), "4.17.7+13-1")
        gone = subprocess.CompletedProcess([], 0, stdout="deinstall ok config-files|4.17.7",
                                           stderr="")
        with mock.patch.object(subprocess, "run", return_value=gone):
            self.assertIsNone(xen.installed_version())


def fake_environ(**settings):
    """os.environ for the fake QEMU: CLOCKBENCH_QEMU and FAKE_QEMU_* settings."""
    environ = dict(os.environ, CLOCKBENCH_QEMU=FAKE_QEMU, PYTHONDONTWRITEBYTECODE="1")
    environ.update({f"FAKE_QEMU_{key}": value for key, value in settings.items()})
    return environ


class EndLineStopsQemu(unittest.TestCase):
    """run_process() stops a machine that Xen halted instead of waiting for the timeout."""

    def test_stopped_soon_after_the_end_line(self):
        with tempfile.TemporaryDirectory() as directory:
            with mock.patch.dict(os.environ, fake_environ(
                    XEN=fixture("boot-hpet.log"), XEN_END=fixture("dom0-halted.log"))):
                result = run_process([PYTHON, FAKE_QEMU], 60, os.path.join(directory, "l"),
                                     end_line=xen.END_LINE)
        self.assertTrue(result.ended)
        self.assertFalse(result.timed_out)
        self.assertIsNone(result.status)
        self.assertLess(result.seconds, 10)
        self.assertEqual(result.end_line, "(XEN) Hardware Dom0 halted: halting machine")
        self.assertEqual(result.last_line, "(XEN) Hardware Dom0 halted: halting machine")


class WithFakeQemu(unittest.TestCase):
    """tools/clockbench run, test and matrix for Xen boots in a scratch tree."""

    def setUp(self):
        self.root = scratch.make_tree()

    def tearDown(self):
        shutil.rmtree(self.root)

    def touch(self, *paths):
        """Create empty files under the scratch tree."""
        for path in paths:
            with open(os.path.join(self.root, path), "w", encoding="utf-8"):
                pass

    def clockbench(self, *args, **settings):
        """Run the copied tools/clockbench with FAKE_QEMU_* `settings`."""
        return subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"), *args],
                              env=fake_environ(**settings), cwd=self.root,
                              capture_output=True, text=True, timeout=120, check=False)

    def written(self, name):
        """The JSON file `name` in the scratch tree."""
        with open(os.path.join(self.root, name), encoding="utf-8") as document:
            return json.load(document)

    def test_run_prints_what_xen_chose(self):
        self.touch("build/clockbench-xenpv.elf", "build/xen-4.17-amd64")
        argv = os.path.join(self.root, "argv.json")
        result = self.clockbench("run", "--boot", "xen", "--no-build", "--smp", "2",
                                 "--xen-args", "clocksource=tsc", "--", "a=1,b=2", "verbose=1",
                                 XEN=fixture("boot-tsc.log"), ARGV=argv)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertIn('  command line     "a=1,b=2 verbose=1"', lines)  # as dom0 gets it
        self.assertEqual(lines[-4:-1], [
            f"clockbench run: Xen 4.17.7 (Debian 4.17.7+13-g2445b30a44-0+deb12u1), options: "
            f"{DEFAULT_OPTIONS} clocksource=tsc",
            "clockbench run: Xen's platform timer: 100.000 MHz HPET (clocksource=tsc was "
            "asked for, but Xen kept HPET)",
            "clockbench run: Xen's TSC lines: Detected 2300.000 MHz processor. | TSC only "
            "partially writable"])
        self.assertRegex(lines[-1], r"^clockbench run: PASS \(tcg pc xen -cpu max, [0-9.]+ s\)$")
        with open(argv, encoding="utf-8") as source:
            command = json.load(source)
        self.assertEqual(command[command.index("-m") + 1], "512")
        self.assertEqual(command[command.index("-kernel"):], [
            "-kernel", os.path.join(self.root, "build", "xen-4.17-amd64"),
            "-append", DEFAULT_OPTIONS + " clocksource=tsc",
            "-initrd", os.path.join(self.root, "build", "clockbench-xenpv.elf") +
            " a=1,,b=2 verbose=1"])

    def test_dom0_crash_is_a_failure_without_waiting(self):
        self.touch("build/clockbench-xenpv.elf", "build/xen-4.17-amd64")
        result = self.clockbench("run", "--boot", "xen", "--no-build", "--json", "r.json",
                                 XEN=fixture("boot-hpet.log"),
                                 XEN_END=fixture("dom0-crashed.log"), FINAL="")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"clockbench run: dom0 crashed (Xen: {CRASHED}), before the guest "
                      f"printed a verdict\n", result.stderr)
        self.assertRegex(result.stdout, r"clockbench run: FAIL \(tcg pc xen -cpu max, [0-9.]+ s\)\n$")
        summary = self.written("r.json")
        self.assertEqual((summary["verdict"], summary["qemu_status"]), ("fail", None))
        self.assertLess(summary["runner"]["seconds"], 10)  # not Xen's 5 s, not the timeout
        self.assertEqual(summary["console"]["env"]["boot"], "xen-pv")
        self.assertNotIn("env", summary)  # the guest's members: it printed no report
        self.assertEqual(summary["runner"]["xen_version"], xen.installed_version())
        self.assertEqual(summary["xen"]["platform_timer"], "HPET")
        self.assertEqual(summary["xen"]["end"]["kind"], "crashed")
        self.assertEqual(summary["xen"]["options"],
                         "console=com1 com1=115200,8n1 dom0_mem=128M dom0_max_vcpus=1 noreboot")

    def test_dom0_powered_off_after_its_verdict(self):
        self.touch("build/clockbench-xenpv.elf", "build/xen-4.17-amd64")
        result = self.clockbench("run", "--boot", "xen", "--no-build",
                                 XEN=fixture("boot-hpet.log"), XEN_END=fixture("dom0-halted.log"),
                                 STATUS="0", FINAL="clockbench: PASS")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("the guest could not end QEMU through isa-debug-exit", result.stderr)

    def test_errors_are_one_sentence(self):
        cases = [
            (("--boot", "xen", "--accel", "kvm"), {}, xen.KVM_REFUSAL),
            (("--boot", "xen", "--no-build"), {},
             "build/clockbench-xenpv.elf does not exist; run `make "
             "build/clockbench-xenpv.elf` or drop --no-build."),
            (("--boot", "pvh", "--xen-args", "clocksource=tsc"), {},
             "apply only to the Xen boot paths"),
        ]
        for args, settings, message in cases:
            with self.subTest(args):
                result = self.clockbench("run", *args, **settings)
                self.assertEqual(result.returncode, 2)
                self.assertIn(message, result.stderr)
                self.assertNotIn("Traceback", result.stderr)
                ours = [line for line in result.stderr.splitlines()
                        if line.startswith("clockbench")]
                self.assertEqual(len(ours), 1, result.stderr)
        self.touch("build/clockbench-xenpv.elf")
        result = self.clockbench("run", "--boot", "xen", "--no-build")
        self.assertIn("clockbench run: build/xen-4.17-amd64 does not exist; run `make "
                      "build/xen-4.17-amd64` or drop --no-build.", result.stderr)

    @unittest.skipUnless(os.path.exists(xen.XEN_GZ), f"needs {xen.XEN_GZ}")
    def test_run_builds_xen_and_its_dom0(self):
        result = self.clockbench("run", "--boot", "xen", XEN=fixture("boot-hpet.log"))
        self.assertEqual(result.returncode, 0, result.stderr)
        for target in qemu.BootSpec(boot="xen").build_targets:
            self.assertTrue(os.path.exists(os.path.join(self.root, target)), target)

    def test_boot_test_expecting_a_failure(self):
        self.touch("build/clockbench-xenpv.elf", "build/xen-4.17-amd64")
        with open(os.path.join(self.root, testlist.TESTS_CFG), "w", encoding="utf-8") as cfg:
            cfg.write(sections("boot xen-fault boot=xen args=\"fault=pf\" expect=fail "
                      "match='Hardware Dom0 crashed'\n"
                      "boot xen-pass  boot=xen\n"))
        result = self.clockbench("test", "--no-build", "--jobs", "1",
                                 XEN=fixture("boot-hpet.log"),
                                 XEN_END=fixture("dom0-crashed.log"), FINAL="")
        lines = result.stdout.splitlines()
        self.assertRegex(lines[2], r"^ok 1 xen-fault # [0-9.]+ s$")
        self.assertEqual(lines[3], f"not ok 2 xen-pass # expected PASS, the guest reported "
                                   f"FAIL: dom0 crashed (Xen: {CRASHED}), before the guest "
                                   f"printed a verdict")
        self.assertEqual(result.returncode, 1)

    def matrix_args(self, out, *names):
        """The parsed arguments of `clockbench matrix --no-build --repeats 1 --env ...`."""
        return argparse.Namespace(repeats=1, out=os.path.join(self.root, out),
                                  env=list(names), no_build=True, env_file=None, cpu="",
                                  smp=None, xen_args="", guest_options=[])

    def test_matrix_runs_xen_environments(self):
        self.touch("build/clockbench-xenpv.elf", "build/xen-4.17-amd64")
        settings = fake_environ(XEN=fixture("boot-tsc.log"), REPORT=GOOD_LOG)
        with mock.patch.dict(os.environ, settings), \
                mock.patch.object(paths, "ROOT", self.root), \
                mock.patch.object(matrix, "skip_reason",
                                  lambda env, **_: None if env.boot == "xen" else "not here"), \
                mock.patch.object(xen, "installed_version", return_value="4.17.7+13-1"), \
                mock.patch("builtins.print"):
            status = matrix.cmd_matrix(self.matrix_args("mx", "tcg-pc", "xen-tsc"))
        self.assertEqual(status, 0)
        with open(os.path.join(self.root, "mx", matrix.MANIFEST), encoding="utf-8") as source:
            manifest = json.load(source)
        self.assertEqual(manifest["xen_version"], "4.17.7+13-1")
        tcg, on_xen = manifest["environments"]
        self.assertEqual((tcg["skipped"], tcg["reason"], tcg["xen_options"]),
                         (True, "not here", None))
        self.assertEqual((on_xen["boot"], on_xen["skipped"], on_xen["xen_options"]),
                         ("xen", False, DEFAULT_OPTIONS + " clocksource=tsc"))
        (run,) = on_xen["runs"]
        self.assertEqual((run["verdict"], run["json"]), ("pass", "xen-tsc/run-1.json"))
        self.assertEqual(run["xen"]["platform_timer"], "HPET")
        self.assertEqual(run["xen"]["clocksource"], "tsc")
        self.assertEqual(run["qemu_command"][run["qemu_command"].index("-m") + 1], "512")
        self.assertEqual(matrix.xen_note(run["xen"]), "; Xen's platform timer: 100.000 MHz "
                                                      "HPET, asked for clocksource=tsc")

    def test_matrix_skips_xen_without_its_files(self):
        environments = [env for env in matrix.ENVIRONMENTS if env.boot == "xen"]
        self.assertEqual([(env.name, env.spec().boot, env.spec().accel, env.spec().smp,
                           env.xen_args) for env in environments],
                         [("xen-pv-dom0", "xen", "tcg", 2, ""),
                          ("xen-hpet", "xen", "tcg", 2, "clocksource=hpet"),
                          ("xen-tsc", "xen", "tcg", 2, "clocksource=tsc")])
        hpet = environments[1]
        self.assertEqual(matrix.skip_reason(hpet, xen_gz="/nonexistent/xen.gz"),
                         qemu.missing_dependency_message("/nonexistent/xen.gz"))
        self.touch("xen.gz")
        self.assertIsNone(matrix.skip_reason(hpet, xen_gz=os.path.join(self.root, "xen.gz")))
        # --no-build: a missing PV image or Xen binary skips, naming it.
        reasons = {env.name: None for env in environments}
        matrix.prepare_environments(environments, reasons, self.root, build=False)
        self.assertEqual(reasons["xen-hpet"], "build/clockbench-xenpv.elf does not exist; "
                                              "run `make build/clockbench-xenpv.elf` or drop "
                                              "--no-build")
        self.touch("build/clockbench-xenpv.elf")
        reasons = {env.name: None for env in environments}
        matrix.prepare_environments(environments, reasons, self.root, build=False)
        self.assertTrue(reasons["xen-tsc"].startswith("build/xen-4.17-amd64 does not exist"))
        # A build that fails skips the Xen environments; QEMU's own still run.
        chosen = [matrix.ENVIRONMENTS[0], *environments]
        reasons = {env.name: None for env in chosen}
        with mock.patch.object(matrix, "build_images",
                               side_effect=[None, RunnerError("building failed.")]), \
                mock.patch.object(matrix, "check_image"):
            matrix.prepare_environments(chosen, reasons, self.root, build=True)
        self.assertEqual(reasons, {"tcg-pc": None, "xen-pv-dom0": "building failed.",
                                   "xen-hpet": "building failed.",
                                   "xen-tsc": "building failed."})


if __name__ == "__main__":
    unittest.main()
