# SPDX-License-Identifier: MIT
"""Patched ACPI tables for the hostile-environment boot tests (docs/hostile.md).

Each patch starts from a real table QEMU gave (tests/fixtures/acpi/pc/), changes what a
broken firmware would, and fixes the checksum, so that the guest's parser accepts the
table and the rest of the image meets what it says.  GRUB's `acpi` command, run from the
guest-options disk of an iso-bios boot, replaces the firmware's table of that signature
with it and puts a new RSDP in a new EBDA, which the multiboot2 ACPI tag then hands on.
"""

import os
import struct

from ..base import paths
from ..base.outcome import RunnerError

FIXTURE_DIR = os.path.join("tests", "fixtures", "acpi", "pc")  # relative to the root
MADT_ENTRIES = 44  # the MADT's first entry (ACPI 6.x, 5.2.12)
MADT_LAPIC = 0
MADT_IOAPIC = 1
MADT_X2APIC = 9
CPU_ENABLED = 1  # bit 0 of a processor entry's flags
# An address in the top 32 MiB, where the guest maps devices uncached, with nothing
# behind it on QEMU's pc machine, so that it reads as zeros: above the local APIC's
# window (0xfee00000-0xfeefffff), below the BIOS, and out of the PCI window below
# 0xfec00000 where SeaBIOS puts BARs (the virtio console's lands at 0xfe000000).
NOTHING_ANSWERS_AT = 0xfef00000


def _entries(table):
    """(offset, type, length) of each MADT entry."""
    offset = MADT_ENTRIES
    while offset + 2 <= len(table):
        kind, length = table[offset], table[offset + 1]
        if length < 2:
            raise RunnerError(f"{FIXTURE_DIR}/APIC.bin: MADT entry at offset {offset} has "
                              f"length {length}.")
        yield offset, kind, length
        offset += length


def _no_enabled_cpu(table):
    """Clear every processor entry's enabled flag (a firmware that lists no CPU)."""
    for offset, kind, _ in _entries(table):
        flags_at = {MADT_LAPIC: offset + 4, MADT_X2APIC: offset + 8}.get(kind)
        if flags_at is not None:
            flags, = struct.unpack_from("<I", table, flags_at)
            struct.pack_into("<I", table, flags_at, flags & ~CPU_ENABLED)


def _ioapic_nowhere(table):
    """Move every IOAPIC to an address where nothing answers."""
    for offset, kind, _ in _entries(table):
        if kind == MADT_IOAPIC:
            struct.pack_into("<I", table, offset + 4, NOTHING_ANSWERS_AT)


def _dead_ioapic_first(table):
    """Give the real IOAPIC the GSIs from 24 and add a second one, where nothing answers,
    for GSIs 0-23: the PIT's and the HPET's GSI 2 is then the dead one's, with one that
    answers beside it."""
    for offset, kind, _ in _entries(table):
        if kind == MADT_IOAPIC:
            real_id = table[offset + 2]
            struct.pack_into("<I", table, offset + 8, 24)
    table += struct.pack("<BBBBII", MADT_IOAPIC, 12, real_id + 1, 0, NOTHING_ANSWERS_AT, 0)


# name: (signature, what it does, how)
PATCHES = {
    "madt-no-cpus": ("APIC", "the MADT with every CPU's enabled flag cleared",
                     _no_enabled_cpu),
    "ioapic-dead": ("APIC", f"the MADT with its IOAPIC at {NOTHING_ANSWERS_AT:#x}, where "
                            f"nothing answers", _ioapic_nowhere),
    "ioapic-dead-first": ("APIC", f"the MADT with a second IOAPIC, at "
                                  f"{NOTHING_ANSWERS_AT:#x} where nothing answers, for "
                                  f"GSIs 0-23, and the real one's from 24",
                          _dead_ioapic_first),
}
# What the fixture the patches start from was captured on: the boot must match it.
MACHINE = "pc"
SMP = 1


def patched_table(name):
    """The table file of patch `name`: (file name on the disk, bytes)."""
    if name not in PATCHES:
        raise RunnerError(f"acpi_patch={name} is not one of {', '.join(PATCHES)}.")
    signature, _, patch = PATCHES[name]
    path = paths.root_path(FIXTURE_DIR, f"{signature}.bin")
    try:
        with open(path, "rb") as fixture:
            table = bytearray(fixture.read())
    except OSError as error:
        raise RunnerError(f"cannot read {path}: {error.strerror}.") from None
    length, = struct.unpack_from("<I", table, 4) if len(table) >= 36 else (0,)
    if table[:4] != signature.encode() or length != len(table):
        raise RunnerError(f"{path} is not a whole {signature} table.")
    patch(table)
    struct.pack_into("<I", table, 4, len(table))
    table[9] = 0
    table[9] = -sum(table) & 0xff
    return f"{signature}.bin", bytes(table)

