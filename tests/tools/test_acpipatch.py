# SPDX-License-Identifier: MIT
"""The patched firmware tables of the hostile-environment boot tests (acpipatch.py) and
how an iso-bios boot carries them to GRUB (qemu.py, testlist.py)."""

import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from tests.tools import ROOT, parse_cfg
from clockbench_lib.boot import acpipatch, qemu
from clockbench_lib.base.outcome import RunnerError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

FIXTURE = os.path.join(ROOT, acpipatch.FIXTURE_DIR, "APIC.bin")


def fixture_madt():
    with open(FIXTURE, "rb") as table:
        return table.read()


def entries(table):
    """(offset, type, bytes) of each MADT entry."""
    found, offset = [], 44
    while offset + 2 <= len(table):
        found.append((offset, table[offset], table[offset:offset + table[offset + 1]]))
        offset += table[offset + 1]
    return found


class PatchedTables(unittest.TestCase):
    def assert_valid_madt(self, table):
        self.assertEqual(table[:4], b"APIC")
        self.assertEqual(struct.unpack_from("<I", table, 4)[0], len(table))
        self.assertEqual(sum(table) & 0xff, 0, "the checksum must be fixed")

    def test_no_enabled_cpu(self):
        name, table = acpipatch.patched_table("madt-no-cpus")
        self.assertEqual(name, "APIC.bin")
        self.assert_valid_madt(table)
        original = fixture_madt()
        cpus = [offset for offset, kind, _ in entries(table) if kind == 0]
        self.assertEqual(len(cpus), 1, "the pc fixture lists one CPU")
        for offset in cpus:
            self.assertEqual(original[offset + 4] & 1, 1)
            self.assertEqual(table[offset + 4] & 1, 0)
        # Nothing else changed but the flag and the checksum.
        changed = [i for i in range(len(table)) if table[i] != original[i]]
        self.assertEqual(changed, sorted([9] + [offset + 4 for offset in cpus]))

    def test_ioapic_where_nothing_answers(self):
        _, table = acpipatch.patched_table("ioapic-dead")
        self.assert_valid_madt(table)
        ioapics = [(offset, entry) for offset, kind, entry in entries(table) if kind == 1]
        self.assertEqual(len(ioapics), 1)
        offset, entry = ioapics[0]
        self.assertEqual(struct.unpack_from("<I", entry, 4)[0], 0xfef00000)
        self.assertEqual(struct.unpack_from("<I", entry, 8)[0], 0, "GSI base kept")
        # Nothing else changed but the address and the checksum.
        original = fixture_madt()
        changed = {i for i in range(len(table)) if table[i] != original[i]}
        self.assertIn(9, changed)
        self.assertLessEqual(changed, {9} | set(range(offset + 4, offset + 8)))

    def test_dead_ioapic_beside_a_live_one(self):
        _, table = acpipatch.patched_table("ioapic-dead-first")
        self.assert_valid_madt(table)
        original = fixture_madt()
        self.assertEqual(len(table), len(original) + 12)
        ioapics = [entry for _, kind, entry in entries(table) if kind == 1]
        self.assertEqual([struct.unpack_from("<BII", entry, 2)[0:1]
                          + struct.unpack_from("<II", entry, 4) for entry in ioapics],
                         [(0, 0xfec00000, 24), (1, 0xfef00000, 0)])

    def test_unknown_patch(self):
        with self.assertRaises(RunnerError) as caught:
            acpipatch.patched_table("madt-bogus")
        self.assertEqual(str(caught.exception),
                         "acpi_patch=madt-bogus is not one of madt-no-cpus, ioapic-dead, "
                         "ioapic-dead-first.")


class CarriedToGrub(unittest.TestCase):
    def test_args_file_loads_the_table(self):
        self.assertEqual(qemu.iso_args_file_text("", None, ["APIC.bin"]),
                         "set clockbench_args=''\nacpi $cbdisk/APIC.bin\n")

    def test_disk_even_without_options(self):
        self.assertTrue(qemu.BootSpec(boot="iso-bios", acpi_patch="madt-no-cpus")
                        .needs_args_disk)
        self.assertFalse(qemu.BootSpec(boot="iso-bios").needs_args_disk)

    def test_only_where_grub_loads_it(self):
        qemu.validate_spec(qemu.BootSpec(boot="iso-bios", acpi_patch="ioapic-dead"))
        refusal = ("acpi_patch= needs boot=iso-bios machine=pc smp=1: GRUB loads the "
                   "table, and it is patched from that machine's (tests/fixtures/acpi/pc).")
        for spec in (qemu.BootSpec(boot="multiboot1", acpi_patch="ioapic-dead"),
                     qemu.BootSpec(boot="iso-uefi", acpi_patch="ioapic-dead"),
                     qemu.BootSpec(boot="iso-bios", machine="q35", acpi_patch="ioapic-dead"),
                     qemu.BootSpec(boot="iso-bios", smp=2, acpi_patch="ioapic-dead")):
            with self.subTest(spec=spec), self.assertRaises(RunnerError) as caught:
                qemu.validate_spec(spec)
            self.assertEqual(str(caught.exception), refusal)

    def test_tests_cfg_key(self):
        test, = parse_cfg(
            "boot a boot=iso-bios acpi_patch=madt-no-cpus groups=hostile\n")
        self.assertEqual(test.spec.acpi_patch, "madt-no-cpus")
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot a acpi_patch=nothing\n")
        self.assertEqual(str(caught.exception), "tests/tests.cfg:1: acpi_patch=nothing is "
                         "not one of madt-no-cpus, ioapic-dead, ioapic-dead-first.")

    @unittest.skipUnless(shutil.which("mformat") and shutil.which("mtype"), "needs mtools")
    def test_disk_image(self):
        with tempfile.TemporaryDirectory() as directory:
            spec = qemu.BootSpec(boot="iso-bios", acpi_patch="madt-no-cpus")
            files = qemu.prepare_boot_files(spec, directory)
            shown = subprocess.run(["mtype", "-i", files.args_disk, "::/clockbench-args.cfg"],
                                   capture_output=True, text=True, check=True).stdout
            self.assertEqual(shown, "set clockbench_args=''\nacpi $cbdisk/APIC.bin\n")
            table = subprocess.run(["mtype", "-i", files.args_disk, "::/APIC.bin"],
                                   capture_output=True, check=True).stdout
            self.assertEqual(table, acpipatch.patched_table("madt-no-cpus")[1])


if __name__ == "__main__":
    unittest.main()
