# SPDX-License-Identifier: MIT
"""The Linux boots (tools/clockbench_lib/boot/linux.py, docs/dom0.md): their QEMU and kernel
command lines, how they are judged, the report checks of clockbench-user's document on
real captures (tests/tools/fixtures/linux/), the KVM ring-0 probe, tests.cfg's lines for
them, and `clockbench run --boot linux` against a fake QEMU.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import copy
import json
import os
import shutil
import subprocess
import unittest
import urllib.parse
from dataclasses import replace
from types import SimpleNamespace
from unittest import mock

from tests.tools import FAKE_QEMU, FIXTURES, GOOD_LOG, PYTHON, parse_cfg, scratch
from clockbench_lib.base import outcome
from clockbench_lib.model import osreport, report
from clockbench_lib.boot import kvmprobe, linux, qemu, xen
from clockbench_lib.testing import boottest, reportchecks
from clockbench_lib.base.outcome import RunnerError

LINUX_LOG = os.path.join(FIXTURES, "linux", "linux-pc.log")
DOM0_LOG = os.path.join(FIXTURES, "linux", "xen-linux-dom0.log")
DOMU_LOG = os.path.join(FIXTURES, "linux", "xen-linux-pv-domu.log")
STOP_LOG = os.path.join(FIXTURES, "linux", "linux-stop-tcg.log")


def fixture_document(path):
    """clockbench-user's document in the console log at `path`, validated."""
    return osreport.load_os_report(report.read_log_lines(path), path)


class CommandLines(unittest.TestCase):
    """What QEMU, Xen and Linux are given."""

    def test_plain_guest(self):
        spec = qemu.BootSpec(boot="linux", smp=2, memory_mib=512, cmdline="--budget-ms 600")
        command = qemu.build_qemu_command(spec, "qemu", "/r/build/dom0/initrd.img")
        self.assertEqual(command, [
            "qemu", "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-machine", "pc", "-accel", "tcg", "-cpu", "max", "-m", "512", "-smp", "2",
            "-kernel", "/r/build/dom0/vmlinuz", "-initrd", "/r/build/dom0/initrd.img",
            "-append", "console=ttyS0 loglevel=1 panic=-1 tsc=reliable "
                       "clockbench.user=--switch%20--console%20--budget-ms%20600"])
        self.assertEqual(spec.build_targets, ("build/dom0/initrd.img", "build/dom0/vmlinuz"))

    def test_linux_args_go_to_the_plain_guest_only(self):
        self.assertEqual(linux.kernel_command_line("", "kvm", 2, "clocksource=tsc  quiet"),
                         "console=ttyS0 loglevel=1 panic=-1 clocksource=tsc quiet "
                         "clockbench.user=--switch%20--console")
        linux.check_linux_args("linux", "clocksource=tsc")
        linux.check_linux_args("xen-linux-dom0", "")
        with self.assertRaisesRegex(RunnerError, r"^Linux kernel options \(--linux-args, "
                                                 r"linux_args=\) apply only to --boot linux, "
                                                 r"not to the xen-linux-dom0 boot\.$"):
            linux.check_linux_args("xen-linux-dom0", "clocksource=tsc")
        with self.assertRaisesRegex(RunnerError, "clockbench.user=x: the clockbench.\\* "
                                                 "words are the runner's"):
            linux.check_linux_args("linux", "quiet clockbench.user=x")

    def test_one_cpu_needs_no_workaround(self):
        self.assertEqual(linux.kernel_command_line("", "tcg", 1),
                         "console=ttyS0 loglevel=1 panic=-1 "
                         "clockbench.user=--switch%20--console")
        self.assertEqual(linux.workaround_lines("tcg", 1), [])
        self.assertEqual(linux.workaround_lines("kvm", 4), [])
        (line,) = linux.workaround_lines("tcg", 2)
        self.assertTrue(line.startswith("working around: Linux option tsc=reliable: with "
                                        "more than one CPU, Linux 6.1 drops the tsc "
                                        "clocksource"), line)

    def test_user_options(self):
        self.assertEqual(linux.user_options(""), "--switch --console")
        self.assertEqual(linux.user_options("--budget-ms 50 --switch"),
                         "--console --budget-ms 50 --switch")
        encoded = linux.user_parameter("--json /tmp/a b,c=d%")
        self.assertEqual(urllib.parse.unquote(encoded.partition("=")[2]),
                         "--switch --console --json /tmp/a b,c=d%")
        self.assertNotRegex(encoded.partition("=")[2], r"[ ,=]")

    def test_linux_dom0(self):
        spec = qemu.BootSpec(boot="xen-linux-dom0", smp=2, memory_mib=512,
                             cmdline="--budget-ms 600")
        command = qemu.build_qemu_command(spec, "qemu", "/r/build/dom0/initrd.img",
                                          hypervisor="/r/build/xen-4.17-amd64")
        self.assertEqual(command[command.index("-smp") + 1], "2")  # dom0 gets every CPU
        self.assertEqual(command[command.index("-kernel"):], [
            "-kernel", "/r/build/xen-4.17-amd64",
            "-append", "console=com1 com1=115200,8n1 dom0_mem=384M dom0_max_vcpus=2 smap=0 "
                       "noreboot",
            "-initrd", "/r/build/dom0/vmlinux console=hvc0 loglevel=1 tsc=reliable "
                       "clockbench.user=--switch%20--console%20--budget-ms%20600,"
                       "/r/build/dom0/initrd.img"])
        self.assertEqual(spec.build_targets, ("build/dom0/initrd.img", "build/dom0/vmlinux",
                                              xen.XEN_BINARY))
        self.assertEqual(spec.workaround_lines[0].split(":")[:2],
                         ["working around", " Xen option smap=0"])
        self.assertIn("tsc=reliable", spec.workaround_lines[1])
        self.assertEqual(len(spec.workaround_lines), 2)
        one = replace(spec, smp=1)
        self.assertNotIn("tsc=reliable", qemu.build_qemu_command(one, "q", "i", hypervisor="x")
                         [-1])

    def test_linux_pv_domu(self):
        spec = qemu.BootSpec(boot="xen-linux-pv-domu", smp=2, memory_mib=1024,
                             cmdline="--budget-ms 600", timeout_s=180)
        command = qemu.build_qemu_command(spec, "qemu", "/r/build/dom0/initrd.img",
                                          hypervisor="/r/build/xen-4.17-amd64")
        self.assertEqual(command[command.index("-kernel"):], [
            "-kernel", "/r/build/xen-4.17-amd64",
            "-append", "console=com1 com1=115200,8n1 dom0_mem=512M dom0_max_vcpus=1 smap=0 "
                       "cpuid=no-xsave noreboot",
            "-initrd", "/r/build/dom0/vmlinux console=hvc0 loglevel=1 "
                       "clockbench.type=linux-pv clockbench.vcpus=2 "
                       f"clockbench.memory={linux.LINUX_DOMU_MEMORY_MIB} "
                       "clockbench.timeout=150 "
                       "clockbench.options=--switch%20--console%20--budget-ms%20600 "
                       "clockbench.kernel=tsc%3Dreliable,/r/build/dom0/initrd.img"])
        self.assertEqual((spec.qemu_smp, spec.runs_domu, spec.runs_user, spec.environment),
                         (2, True, True, "xen-pv-domu"))
        self.assertEqual(spec.build_targets, ("build/dom0/initrd.img", "build/dom0/vmlinux",
                                              xen.XEN_BINARY))
        self.assertEqual([line.split(":")[1].strip() for line in spec.workaround_lines],
                         ["Xen option smap=0", "Xen option cpuid=no-xsave",
                          "Linux option tsc=reliable"])
        one = replace(spec, smp=1)
        self.assertNotIn("clockbench.kernel=", qemu.build_qemu_command(
            one, "q", "i", hypervisor="x")[-1])
        self.assertEqual(qemu.default_timeout_s("tcg", "xen-linux-pv-domu"), 180)
        self.assertEqual(qemu.default_memory_mib("xen-linux-pv-domu"), 1024)
        self.assertEqual(qemu.boot_machines("xen-linux-pv-domu"), ("pc",))

    def test_defaults_and_limits(self):
        self.assertEqual(qemu.default_memory_mib("linux"), 512)
        self.assertEqual(qemu.default_memory_mib("xen-linux-dom0"), 512)
        self.assertEqual(qemu.default_timeout_s("tcg", "linux"), 120)
        self.assertEqual(qemu.default_timeout_s("tcg", "xen-linux-dom0"), 120)
        self.assertEqual(qemu.boot_machines("linux"), ("pc",))
        self.assertEqual(qemu.boot_machines("xen-linux-dom0"), ("pc",))
        self.assertEqual(qemu.min_memory_mib(qemu.BootSpec(boot="linux"), "/nowhere")[0], 288)
        self.assertEqual(qemu.min_memory_mib(qemu.BootSpec(boot="xen-linux-dom0"),
                                             "/nowhere")[0], 432)
        spec = qemu.BootSpec(boot="linux")
        self.assertEqual((spec.console_choice, spec.describe()),
                         ("uart", "tcg pc linux -cpu max"))
        for bad, message in (({"machine": "q35"}, "runs on the pc machine only"),
                             ({"console": "virtio"}, "Linux's console is COM1"),
                             ({"firmware": "qboot"}, "qboot starts only")):
            with self.assertRaisesRegex(RunnerError, message):
                qemu.validate_spec(replace(spec, **bad))
        with self.assertRaisesRegex(RunnerError, "TCG only"):
            qemu.validate_spec(qemu.BootSpec(boot="xen-linux-dom0", accel="kvm"))

    def test_environment_names(self):
        """As the matrix names environments, so that compare can match them: the Linux
        dom0 is a PV dom0 like the xen boot's image."""
        cases = {("linux", "tcg", "pc"): "tcg-pc", ("linux", "kvm", "pc"): "kvm-pc",
                 ("multiboot1", "tcg", "q35"): "tcg-q35", ("xen", "tcg", "pc"): "xen-pv-dom0",
                 ("xen-linux-dom0", "tcg", "pc"): "xen-pv-dom0",
                 ("xen-pvh-dom0", "tcg", "q35"): "xen-pvh-dom0",
                 ("xen-pv-domu", "tcg", "pc"): "xen-pv-domu",
                 ("xen-linux-pv-domu", "tcg", "pc"): "xen-pv-domu"}
        for (boot, accel, machine), name in cases.items():
            spec = qemu.BootSpec(boot=boot, accel=accel, machine=machine)
            self.assertEqual(spec.environment, name, boot)

    def test_domu_boots_unchanged(self):
        """A domU boot still gets two CPUs at least and the domU's parameters."""
        spec = qemu.BootSpec(boot="xen-pv-domu", smp=1, memory_mib=1024)
        self.assertEqual((spec.qemu_smp, spec.runs_domu, spec.runs_user), (2, True, False))
        self.assertIn("clockbench.type=pv", qemu.build_qemu_command(
            spec, "q", "i", hypervisor="x")[-1])


class Judging(unittest.TestCase):
    """clockbench-user's last line against QEMU's exit status (linux.judge)."""

    def test_agreement(self):
        for status, verdict in ((3, "pass"), (5, "fail"), (7, "skip")):
            self.assertEqual(linux.judge(status, verdict), (verdict, None))
        self.assertEqual(linux.judge(9, "error"), ("error", linux.USER.error_reason))

    def test_disagreement_names_the_program(self):
        verdict, reason = linux.judge(3, "fail")
        self.assertEqual(verdict, "error")
        self.assertIn("but the console said 'clockbench-user: FAIL'", reason)
        self.assertIn("has no 'clockbench-user: PASS' line", linux.judge(3, None)[1])
        verdict, reason = linux.judge(0, "pass")
        self.assertEqual(verdict, "error")
        self.assertIn("although the console said 'clockbench-user: PASS'", reason)

    def test_image_reporter_is_the_default(self):
        self.assertIn("'clockbench: FAIL'", outcome.judge(3, "fail")[1])

    def test_linux_pv_domu(self):
        """dom0's runner ends QEMU with the domU's verdict, which clockbench-user's last
        line must say."""
        said = ["(dom0) clockbench-domu: the domain crashed before a verdict; the "
                "console's last line: 'BUG: kernel NULL pointer dereference'."]
        self.assertEqual(xen.judge_domu(3, "pass", [], linux.USER), ("pass", None))
        self.assertEqual(xen.judge_domu(9, "error", [], linux.USER),
                         ("error", linux.USER.error_reason))
        self.assertEqual(xen.judge_domu(5, None, said, linux.USER), ("fail", said[0][24:]))
        verdict, reason = xen.judge_domu(3, None, [], linux.USER)
        self.assertEqual(verdict, "error")
        self.assertIn("but the domU's console shows no verdict", reason)
        self.assertIn("shows 'clockbench-user: FAIL'", xen.judge_domu(7, "fail", [],
                                                                     linux.USER)[1])

    def test_xen_ends(self):
        halted = xen.XenEnd("halted", "Hardware Dom0 halted: halting machine")
        verdict, reason = linux.judge(None, "fail", halted)
        self.assertEqual(verdict, "fail")
        self.assertIn("after 'clockbench-user: FAIL': /init could not end QEMU", reason)
        crashed = xen.XenEnd("crashed", "Hardware Dom0 crashed: 'noreboot' set")
        self.assertEqual(linux.judge(None, "pass", crashed)[0], "error")
        self.assertIn("before a verdict", linux.judge(None, None, halted)[1])
        # QEMU's status wins when it carries a verdict.
        self.assertEqual(linux.judge(3, "pass", halted), ("pass", None))


class ReadBack(unittest.TestCase):
    """kernel_readback on the capture of a TCG boot across a 3 s stop (linux-stop-tcg),
    and on copies made wrong; the older captures have no kernel_clocksource."""

    @classmethod
    def setUpClass(cls):
        report.require_jsonschema()
        cls.stop = fixture_document(STOP_LOG)

    def test_the_capture_holds(self):
        read = self.stop["kernel_clocksource"]
        self.assertEqual(reportchecks.check_kernel_readback(self.stop), [])
        self.assertEqual([s["when"] for s in read["snapshots"]],
                         ["boot", "after stop 1", "end"])
        self.assertEqual(read["snapshots"][1]["event"], {"seq": 1, "kind": "stop"})
        self.assertIn("clocksource: Switched to clocksource tsc",
                      [line["line"] for line in read["log"]])
        self.assertEqual(read["unstable"], [])

    def test_the_run_says_what_linux_decided(self):
        self.assertEqual(linux.readback_lines(self.stop["kernel_clocksource"]), [
            "Linux's clocksource at boot: tsc of tsc hpet acpi_pm",
            "Linux's clocksource after stop 1: tsc of tsc hpet acpi_pm",
            "Linux's clocksource at the end: tsc of tsc hpet acpi_pm",
            "Linux marked unstable: none"])
        self.assertEqual(linux.readback_lines(None), [])

    def test_older_documents_have_none(self):
        self.assertEqual(reportchecks.check_kernel_readback(fixture_document(LINUX_LOG)), [
            "the document has no kernel_clocksource: clockbench-user did not read back "
            "what Linux decided"])

    def test_what_is_wrong_is_said(self):
        document = copy.deepcopy(self.stop)
        read = document["kernel_clocksource"]
        read["read"], read["reason"] = False, "the kernel's log (/dev/kmsg) could not be opened"
        self.assertEqual(reportchecks.check_kernel_readback(document), [
            "Linux's clocksource decisions were not read back: the kernel's log (/dev/kmsg) "
            "could not be opened"])
        document = copy.deepcopy(self.stop)
        read = document["kernel_clocksource"]
        read["log_complete"] = False
        read["snapshots"][2]["current"] = "hpet"
        read["snapshots"][1]["uptime_s"] = 99.0
        problems = reportchecks.check_kernel_readback(document)
        self.assertIn("the kernel's log had wrapped", problems[0])
        self.assertIn("are not in time order", problems[1])
        self.assertIn("at 'end' Linux's clocksource was hpet, expected tsc", problems[2])
        document = copy.deepcopy(self.stop)
        del document["kernel_clocksource"]["snapshots"][1]
        self.assertEqual(reportchecks.check_kernel_readback(document), [
            "the host answered events [1], but the snapshots follow events []"])
        document["kernel_clocksource"]["snapshots"] = document["kernel_clocksource"][
            "snapshots"][:1]
        self.assertEqual(reportchecks.check_kernel_readback(document), [
            "the snapshots are ['boot'], expected 'boot' first and 'end' last",
            "the host answered events [1], but the snapshots follow events []"])


class DocumentChecks(unittest.TestCase):
    """linux_tcg_facts and linux_xen_dom0_facts on the real captures, and on copies made
    wrong."""

    @classmethod
    def setUpClass(cls):
        report.require_jsonschema()
        cls.linux = fixture_document(LINUX_LOG)
        cls.dom0 = fixture_document(DOM0_LOG)
        cls.domu = fixture_document(DOMU_LOG)

    def test_the_captures_hold(self):
        self.assertEqual(reportchecks.check_linux_tcg_facts(self.linux), [])
        self.assertEqual(reportchecks.check_linux_xen_dom0_facts(self.dom0), [])
        self.assertEqual(reportchecks.check_linux_xen_pv_domu_facts(self.domu), [])
        self.assertEqual([run["clocksource"] for run in self.domu["runs"]], ["xen", "tsc"])

    def test_the_pv_domu_check(self):
        self.assertEqual(reportchecks.check_linux_xen_pv_domu_facts(self.dom0), [
            "the original clocksource is tsc, expected xen (a PV domU's Linux chooses it; "
            "its PV dom0 chooses tsc)"])
        self.assertIn("clocksource xen is not available (available: tsc hpet acpi_pm)",
                      reportchecks.check_linux_xen_pv_domu_facts(self.linux))
        document = copy.deepcopy(self.domu)
        document["clocksources"]["available"] = ["xen"]
        document["runs"] = document["runs"][:1]
        self.assertEqual(reportchecks.check_linux_xen_pv_domu_facts(document), [
            "clocksource tsc is not available (available: xen)",
            "clocksource tsc has no run (available: xen)"])
        self.assertEqual([run["clocksource"] for run in self.linux["runs"]],
                         ["tsc", "hpet", "acpi_pm"])

    def test_each_check_refuses_the_other_environment(self):
        self.assertEqual(reportchecks.check_linux_tcg_facts(self.dom0)[:3], [
            "system.hypervisor is 'xen (PV guest)', expected QEMU TCG's",
            "clocksource hpet is not available (available: tsc xen)",
            "clocksource acpi_pm is not available (available: tsc xen)"])
        self.assertIn("clocksource xen is not available (available: tsc hpet acpi_pm)",
                      reportchecks.check_linux_xen_dom0_facts(self.linux))

    def test_a_read_answered_the_wrong_way(self):
        document = copy.deepcopy(self.linux)
        hpet = next(run for run in document["runs"] if run["clocksource"] == "hpet")
        monotonic = next(read for read in hpet["reads"] if read["path"] == "libc"
                         and read["clock"] == "CLOCK_MONOTONIC")
        monotonic["through"] = "vdso"
        coarse = next(read for read in hpet["reads"] if read["path"] == "libc"
                      and read["clock"] == "CLOCK_MONOTONIC_COARSE")
        coarse["through"] = "syscall"
        self.assertEqual(reportchecks.check_linux_tcg_facts(document), [
            "hpet: clock_gettime(CLOCK_MONOTONIC) through libc was answered by vdso, "
            "expected syscall",
            "hpet: clock_gettime(CLOCK_MONOTONIC_COARSE) through libc was answered by "
            "syscall, expected vdso"])

    def test_switching_and_restoring(self):
        document = copy.deepcopy(self.linux)
        document["clocksources"].update(restored=False, restore_problem="EBUSY")
        document["runs"][2]["problem"] = "the kernel kept hpet"
        self.assertEqual(reportchecks.check_linux_tcg_facts(document), [
            "the original clocksource tsc was not put back: EBUSY",
            "clocksource acpi_pm was not measured: the kernel kept hpet"])
        document["runs"] = document["runs"][:1]
        self.assertIn("clocksource hpet has no run (available: tsc hpet acpi_pm)",
                      reportchecks.check_linux_tcg_facts(document))

    def test_run_report_checks_reads_the_programs_document(self):
        lines = report.read_log_lines(LINUX_LOG)
        self.assertEqual(reportchecks.run_report_checks(["valid", "linux_tcg_facts"], lines,
                                                        "l.log", user=True), [])
        (problem,) = reportchecks.run_report_checks(["valid"], report.read_log_lines(
            GOOD_LOG), "g.log", user=True)
        self.assertEqual(problem, "report=valid: g.log: there is no JSON report (no "
                                  "'clockbench-os-json begin' line): the guest stopped before "
                                  "printing it, or predates clockbench-os/1")

    def test_runs_are_picked_by_clocksource(self):
        lines = report.read_log_lines(DOM0_LOG)
        (test,) = parse_cfg(
            "boot t boot=xen-linux-dom0 json='runs[xen].problem == null' "
            "json='runs[xen].reads[0].through == \"syscall\"' json='budget_ms == 600'\n")
        self.assertEqual(reportchecks.run_report_checks([], lines, "d.log", test.json,
                                                        user=True), [])


class TestsCfgLines(unittest.TestCase):
    """report= and json= of a linux boot name clockbench-user's document."""

    def test_report_names_per_document(self):
        (test,) = parse_cfg("boot t boot=linux report=valid report=linux_tcg_facts\n")
        self.assertEqual(test.report, ["valid", "linux_tcg_facts"])
        with self.assertRaisesRegex(RunnerError, r"t.cfg:3: report=tcg_facts is not a report "
                                                 r"check of clockbench-os/1 documents \(boots "
                                                 r"that run clockbench-user\) \(known: valid, "
                                                 r"linux_tcg_facts, linux_xen_dom0_facts, "
                                                 r"linux_xen_pv_domu_facts, "
                                                 r"kernel_readback\)\."):
            parse_cfg("boot t boot=linux report=tcg_facts\n", "t.cfg")
        with self.assertRaisesRegex(RunnerError, "report=linux_tcg_facts is not a report "
                                                 "check \\(known: valid, tcg_facts"):
            parse_cfg("boot t report=linux_tcg_facts\n", "t.cfg")

    def test_json_paths_against_the_os_schema(self):
        with self.assertRaisesRegex(RunnerError, "json=env.boot == 1: the report has no "
                                                 "member 'env' in docs/os-report.schema.json"):
            parse_cfg("boot t boot=linux json='env.boot == 1'\n", "t.cfg")
        parse_cfg("boot t json='env.boot == 1'\n", "t.cfg")


class KvmProbe(unittest.TestCase):
    """Whether this KVM emulates guest ring 0, read from the image's own report."""

    @staticmethod
    def probe_lines(emulated, cycles):
        """A console with good.log's report, its env saying so of ring 0."""
        document = report.load_report(report.read_log_lines(GOOD_LOG), "good.log")
        document["env"].update(ring0_emulated=emulated, ring0_round_trip_cycles=cycles)
        return ["clockbench-json begin", "json| " + json.dumps(document),
                "clockbench-json end", "clockbench: PASS"]

    def test_emulated(self):
        ring0 = kvmprobe.read_ring0(self.probe_lines(True, 178202), "p.log")
        self.assertEqual((ring0.emulated, ring0.round_trip_cycles), (True, 178202))
        self.assertEqual(ring0.linux_skip_reason(),
                         "a Linux kernel runs in guest ring 0, which this host's KVM emulates "
                         "instruction by instruction (in a probe boot of "
                         "build/clockbench-mb1.elf a request to its ring 0 and back took "
                         "178202 TSC cycles, and the image found ring 0 emulated), so Linux "
                         "does not run usefully under it")

    def test_native_or_unknown(self):
        self.assertIsNone(kvmprobe.read_ring0(self.probe_lines(False, 900), "p")
                          .linux_skip_reason())
        unknown = kvmprobe.read_ring0(report.read_log_lines(GOOD_LOG), "good.log")
        self.assertIsNone(unknown.linux_skip_reason())
        self.assertEqual(unknown.problem, "good.log: the report does not say whether ring 0 "
                                          "is emulated")

    def test_probe_boots_the_image_under_kvm(self):
        booted = []

        def boot(spec, _root, timeout_s, work_dir, log_path):
            booted.append((spec, timeout_s))
            self.assertTrue(work_dir.endswith("build/kvm-ring0"))
            self.assertTrue(log_path.endswith("build/kvm-ring0/probe.log"))
            return SimpleNamespace(lines=["no report"], verdict="hang", reason="hang: 60 s")

        root = scratch.make_tree()
        self.addCleanup(shutil.rmtree, root)
        ring0 = kvmprobe.probe(root, "host,-arch-capabilities", boot)
        ((spec, timeout_s),) = booted
        self.assertEqual((spec.boot, spec.accel, spec.cpu, spec.cmdline, timeout_s),
                         ("multiboot1", "kvm", "host,-arch-capabilities",
                          kvmprobe.PROBE_OPTIONS, kvmprobe.PROBE_TIMEOUT_S))
        self.assertIsNone(ring0.emulated)
        self.assertTrue(ring0.problem.endswith("(hang: hang: 60 s)"), ring0.problem)

    def test_tests_under_kvm_are_skipped_with_the_reason(self):
        tests = parse_cfg("boot a boot=linux accel=kvm cpu=host\n"
                                         "boot b boot=linux\n"
                                         "boot c accel=kvm cpu=host\n")
        emulated = kvmprobe.Ring0(True, 150000)
        with mock.patch.object(kvmprobe, "probe", return_value=emulated) as probe, \
                mock.patch.object(boottest, "check_image"):
            skips = boottest.linux_kvm_skips(tests, {}, build=False)
        probe.assert_called_once()
        self.assertEqual(skips, {"a": emulated.linux_skip_reason()})
        with mock.patch.object(kvmprobe, "probe") as probe:
            self.assertEqual(boottest.linux_kvm_skips(tests, {"a": "no KVM"}, build=False), {})
        probe.assert_not_called()


class RunWithFakeQemu(unittest.TestCase):
    """`clockbench run --boot linux` end to end, QEMU replaced by tests/tools/fake_qemu.py
    replaying the captured document."""

    def setUp(self):
        self.root = scratch.make_tree()
        self.addCleanup(shutil.rmtree, self.root)

    def clockbench(self, *args, **environ):
        env = dict(os.environ, CLOCKBENCH_QEMU=FAKE_QEMU, PYTHONDONTWRITEBYTECODE="1",
                   FAKE_QEMU_OS_REPORT=LINUX_LOG, FAKE_QEMU_ARGV="argv.json")
        env.update(environ)
        return subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"), *args],
                              env=env, cwd=self.root, capture_output=True, text=True,
                              timeout=60, check=False)

    def test_pass_and_the_document(self):
        result = self.clockbench("run", "--boot", "linux", "--accel", "tcg", "--smp", "2",
                                 "--json", "os.json", "--options", "--budget-ms 600")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertIn("clockbench run: working around: Linux option tsc=reliable: ",
                      result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[-5:], [
            "clockbench run: clockbench-user in environment tcg-pc: clocksources tsc hpet "
            "acpi_pm, each switched to, tsc put back",
            *[line for line in lines if line.startswith("clockbench run: tsc: ")],
            *[line for line in lines if line.startswith("clockbench run: hpet: ")],
            *[line for line in lines if line.startswith("clockbench run: acpi_pm: ")],
            "clockbench run: PASS (tcg pc linux -cpu max, " + lines[-1].split(", ")[-1]])
        self.assertRegex(lines[-3], r"^clockbench run: hpet: clock_gettime\(CLOCK_MONOTONIC\) "
                                    r"through libc answered by syscall, p50 [0-9.]+ ns \(the "
                                    r"system call [0-9.]+ ns\)$")
        with open(os.path.join(self.root, "os.json"), encoding="utf-8") as written:
            document = json.load(written)
        osreport.validate_os_document(document, "os.json")
        runner = document.pop("runner")
        self.assertEqual(document, fixture_document(LINUX_LOG))
        self.assertEqual((runner["environment"], runner["boot"], runner["accel"],
                          runner["smp"]), ("tcg-pc", "linux", "tcg", 2))
        self.assertEqual(runner["qemu_command"][0], FAKE_QEMU)
        self.assertEqual(runner["argv"][-4:], ["--json", "os.json", "--options",
                                               "--budget-ms 600"])
        # The runner member is the record's, checked by the report schema's definition.
        broken = dict(document, runner=dict(runner, smp=0))
        with self.assertRaisesRegex(RunnerError, r"runner\.smp"):
            osreport.validate_os_document(broken, "os.json")
        with open(os.path.join(self.root, "argv.json"), encoding="utf-8") as argv:
            append = json.load(argv)[-1]
        self.assertTrue(append.endswith(
            "clockbench.user=--switch%20--console%20--budget-ms%20600"), append)

    def test_a_status_the_line_contradicts(self):
        result = self.clockbench("run", "--boot", "linux", "--accel", "tcg", "--json",
                                 "os.json", FAKE_QEMU_STATUS="5",
                                 FAKE_QEMU_FINAL="clockbench-user: PASS")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("clockbench run: verdict mismatch: QEMU's exit status 5 means FAIL but "
                      "the console said 'clockbench-user: PASS'", result.stderr)
        with open(os.path.join(self.root, "os.json"), encoding="utf-8") as written:
            summary = json.load(written)
        self.assertEqual((summary["schema"], summary["verdict"]), (report.SCHEMA, "error"))
        self.assertFalse(report.has_guest_report(summary))
        self.assertEqual(summary["runner"]["environment"], "tcg-pc")

    def test_a_document_of_another_verdict(self):
        result = self.clockbench("run", "--boot", "linux", "--accel", "tcg", "--json",
                                 "os.json", FAKE_QEMU_STATUS="5",
                                 FAKE_QEMU_FINAL="clockbench-user: FAIL")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("clockbench-user's document says PASS but its last line and QEMU's "
                      "exit status say FAIL", result.stderr)


if __name__ == "__main__":
    unittest.main()
