# SPDX-License-Identifier: MIT
"""The ELF kernel unpacked from a bzImage for Xen (tools/clockbench_lib/dom0/bzimage.py),
on bzImages made here: the setup header, the payload where it says, xz and gzip.

Run: /usr/bin/python3 -m unittest tests.tools.test_bzimage -v
"""

import gzip
import lzma
import struct
import unittest

from clockbench_lib.dom0 import bzimage

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

ELF = b"\x7fELF" + bytes(range(256)) * 64


def make_bzimage(payload, setup_sects=1, protocol=0x020F, magic=b"HdrS", offset=16,
                 length=None):
    """A bzImage: `setup_sects` sectors of setup after the boot sector, then `offset`
    bytes of decompressor before `payload`, and 4 bytes of size after it."""
    setup = bytearray((setup_sects + 1) * 512)
    setup[bzimage.SETUP_SECTS_AT] = setup_sects
    setup[bzimage.HEADER_MAGIC_AT:bzimage.HEADER_MAGIC_AT + 4] = magic
    struct.pack_into("<H", setup, bzimage.PROTOCOL_AT, protocol)
    struct.pack_into("<II", setup, bzimage.PAYLOAD_AT, offset,
                     len(payload) if length is None else length)
    return bytes(setup) + b"\x90" * offset + payload + struct.pack("<I", len(ELF))


class KernelElf(unittest.TestCase):

    def test_an_xz_payload_gives_its_elf(self):
        image = make_bzimage(lzma.compress(ELF, format=lzma.FORMAT_XZ,
                                           check=lzma.CHECK_CRC32))
        self.assertEqual(bzimage.kernel_elf(image), ELF)

    def test_a_gzip_payload_gives_its_elf(self):
        self.assertEqual(bzimage.kernel_elf(make_bzimage(gzip.compress(ELF))), ELF)

    def test_zero_setup_sectors_mean_four(self):
        image = make_bzimage(gzip.compress(ELF), setup_sects=4)
        image = image[:bzimage.SETUP_SECTS_AT] + b"\0" + image[bzimage.SETUP_SECTS_AT + 1:]
        self.assertEqual(bzimage.kernel_elf(image), ELF)

    def test_not_a_bzimage(self):
        with self.assertRaisesRegex(bzimage.KernelImageError, "no 'HdrS' setup header"):
            bzimage.kernel_elf(make_bzimage(gzip.compress(ELF), magic=b"MZ\0\0"))

    def test_a_protocol_before_the_payload_fields(self):
        with self.assertRaisesRegex(bzimage.KernelImageError, "2.07 is older than 2.08"):
            bzimage.kernel_elf(make_bzimage(gzip.compress(ELF), protocol=0x0207))

    def test_a_payload_outside_the_file(self):
        with self.assertRaisesRegex(bzimage.KernelImageError, "lies outside the file"):
            bzimage.kernel_elf(make_bzimage(gzip.compress(ELF), length=1 << 20))

    def test_another_compression(self):
        with self.assertRaisesRegex(bzimage.KernelImageError, "neither xz nor gzip"):
            bzimage.kernel_elf(make_bzimage(b"\x02\x21\x4c\x18" + bytes(64)))  # lz4

    def test_a_corrupt_stream(self):
        data = bytearray(lzma.compress(ELF, format=lzma.FORMAT_XZ))
        data[len(data) // 2] ^= 0xFF
        with self.assertRaisesRegex(bzimage.KernelImageError, "does not decompress"):
            bzimage.kernel_elf(make_bzimage(bytes(data)))

    def test_a_cut_stream(self):
        data = lzma.compress(ELF, format=lzma.FORMAT_XZ)
        with self.assertRaisesRegex(bzimage.KernelImageError, "ends before"):
            bzimage.kernel_elf(make_bzimage(data[:len(data) // 2]))

    def test_a_payload_that_is_no_elf(self):
        with self.assertRaisesRegex(bzimage.KernelImageError, "other than an ELF"):
            bzimage.kernel_elf(make_bzimage(gzip.compress(b"not an ELF file")))


if __name__ == "__main__":
    unittest.main()
