# SPDX-License-Identifier: MIT
"""Unit tests for clockbench_lib/dom0.py, what the host hands Xen and the Linux dom0: the
QEMU command line of a domU run, dom0's kernel command line (its percent-encoded
values, which dom0/clockbench-domu's percent_decode undoes: tests/tools/
test_domu_script.py), the commas QEMU's -initrd splits at, and tools/dom0-build's
--qemu-command.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import os
import shlex
import subprocess
import unittest
from urllib.parse import quote

from tests.tools import PYTHON, ROOT
from clockbench_lib import dom0, paths

DOM0_BUILD = os.path.join(ROOT, "tools", "dom0-build")


class HostSide(unittest.TestCase):
    """What the host gives dom0: the QEMU command line and the parameters /init reads."""

    def test_qemu_command(self):
        command = dom0.qemu_command("pv", vcpus=2, options="verbose=1 fault=pf")
        self.assertEqual(command[:command.index("-kernel")], [
            "qemu-system-x86_64", "-machine", "pc", "-accel", "tcg", "-cpu", "max", "-m",
            "1024", "-smp", "2", "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"])
        self.assertEqual(command[command.index("-kernel"):], [
            "-kernel", f"{paths.BUILD_DIR}/xen-4.17-amd64",
            "-append", "console=com1 com1=115200,8n1 dom0_mem=512M smap=0 cpuid=no-xsave "
                       "noreboot dom0_max_vcpus=2",
            "-initrd", f"{paths.BUILD_DIR}/dom0/vmlinuz console=hvc0 loglevel=1 "
                       "clockbench.type=pv clockbench.vcpus=2 clockbench.memory=128 "
                       "clockbench.timeout=300 clockbench.options=verbose%3D1%20fault%3Dpf,"
                       f"{paths.BUILD_DIR}/dom0/initrd.img"])

    def test_commas_and_spaces(self):
        self.assertEqual(dom0.initrd_argument("a,b/vmlinuz", "x=1", "i,rd"),
                         "a,,b/vmlinuz x=1,i,,rd")
        with self.assertRaises(ValueError):
            dom0.initrd_argument("a b/vmlinuz", "", "initrd")
        self.assertNotIn(",", dom0.dom0_cmdline("hvm", options="a,b c=d", image="/x,y"))
        with self.assertRaises(ValueError):
            dom0.dom0_cmdline("kvm")

    def test_xen_args_come_last(self):
        self.assertTrue(dom0.xen_options(1, " clocksource=pit ").endswith(
            "dom0_max_vcpus=1 clocksource=pit"))


    def test_encoding(self):
        for text in ("verbose=1 fault=pf", "a,b=%41 '\"\\", "é", ""):
            self.assertEqual(dom0.encode_value(text), quote(text, safe=""))
        self.assertEqual(dom0.encode_value("budget_ms=800 x-y.z~"), "budget_ms%3D800%20x-y.z~")

    def test_dom0_build_prints_the_command(self):
        result = subprocess.run([PYTHON, DOM0_BUILD, "--qemu-command", "hvm", "--vcpus", "2",
                                 "--timeout", "99", "--xen-args", "clocksource=pit", "--",
                                 "budget_ms=800"], capture_output=True, text=True,
                                cwd=ROOT, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(shlex.split(result.stdout), dom0.qemu_command(
            "hvm", vcpus=2, timeout_s=99, options="budget_ms=800", xen_args="clocksource=pit"))


if __name__ == "__main__":
    unittest.main()
