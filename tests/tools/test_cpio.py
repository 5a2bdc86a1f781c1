# SPDX-License-Identifier: MIT
"""Unit tests for the newc cpio writer the dom0 initramfs is made with: one entry's bytes
against the format (cpio(5), Linux's buffer-format.rst), a round trip through the reader
(every padding length, folders, links, device nodes, parents first), refusals, the
reader's checks, and GNU cpio's listing of an archive when cpio is installed.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import io
import os
import shutil
import stat
import subprocess
import unittest

from tests.tools import ROOT
from clockbench_lib.dom0 import cpio

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False


def archive(build, mtime=0):
    """The bytes of an archive that `build(writer)` fills."""
    out = io.BytesIO()
    writer = cpio.NewcWriter(out, mtime=mtime)
    build(writer)
    writer.close()
    return out.getvalue()


class FormatTest(unittest.TestCase):
    def test_one_file_byte_for_byte(self):
        data = archive(lambda w: w.file("/a", b"xy", mode=0o640))
        # ino 1, mode 0100640, nlink 1, filesize 2, namesize 2 ("a" and its NUL).
        first = (b"070701" b"00000001" b"000081A0" b"00000000" b"00000000" b"00000001"
                 b"00000000" b"00000002" b"00000000" b"00000000" b"00000000" b"00000000"
                 b"00000002" b"00000000" b"a\0" b"xy\0\0")
        self.assertEqual(data[:len(first)], first)
        self.assertEqual(len(first) % 4, 0)
        # The trailer: every field 0 except nlink 1 and namesize 11; 110 + 11 bytes, so 3
        # bytes of padding.
        trailer = (b"070701" + b"00000000" * 4 + b"00000001" + b"00000000" * 6
                   + b"0000000B" + b"00000000" + b"TRAILER!!!\0" + b"\0" * 3)
        self.assertEqual(data[len(first):], trailer)

    def test_header_fields_are_checked(self):
        with self.assertRaises(cpio.CpioError):
            cpio.header({"filesize": 1 << 32})
        with self.assertRaises(cpio.CpioError):
            cpio.header({"size": 1})


class RoundTripTest(unittest.TestCase):
    def test_every_padding_length_and_kind(self):
        def build(writer):
            writer.directory("/etc", mode=0o700)
            for length in range(6):
                writer.file(f"/etc/f{length}", bytes(range(65, 65 + length)))
            writer.symlink("/bin/sh", "busybox")
            writer.device("/dev/console", "c", 5, 1)
            writer.file("/usr/lib/x86_64-linux-gnu/libz.so.1", b"\x7fELF", mode=0o755)

        entries = cpio.read_newc(archive(build, mtime=1234))
        names = [entry.name for entry in entries]
        self.assertEqual(names, ["etc", "etc/f0", "etc/f1", "etc/f2", "etc/f3", "etc/f4",
                                 "etc/f5", "bin", "bin/sh", "dev", "dev/console", "usr",
                                 "usr/lib", "usr/lib/x86_64-linux-gnu",
                                 "usr/lib/x86_64-linux-gnu/libz.so.1"])
        by_name = {entry.name: entry for entry in entries}
        self.assertEqual(by_name["etc"].mode, stat.S_IFDIR | 0o700)
        self.assertTrue(by_name["usr/lib"].is_dir)
        for length in range(6):
            self.assertEqual(by_name[f"etc/f{length}"].data, bytes(range(65, 65 + length)))
        self.assertTrue(by_name["bin/sh"].is_symlink)
        self.assertEqual(by_name["bin/sh"].data, b"busybox")
        console = by_name["dev/console"]
        self.assertTrue(stat.S_ISCHR(console.mode))
        self.assertEqual((console.fields["rdevmajor"], console.fields["rdevminor"]), (5, 1))
        self.assertEqual(by_name["usr/lib/x86_64-linux-gnu/libz.so.1"].mode,
                         stat.S_IFREG | 0o755)
        self.assertEqual({entry.fields["mtime"] for entry in entries}, {1234})
        self.assertEqual([entry.fields["ino"] for entry in entries],
                         list(range(1, len(entries) + 1)))

    def test_a_file_of_this_tree(self):
        with open(os.path.join(ROOT, "boot", "grub.cfg"), "rb") as source:
            text = source.read()
        entries = cpio.read_newc(archive(lambda w: w.file("/grub.cfg", text)))
        self.assertEqual([(e.name, e.data, e.mode) for e in entries],
                         [("grub.cfg", text, stat.S_IFREG | 0o644)])

    def test_same_input_same_bytes(self):
        def build(writer):
            writer.file("/init", b"#!/bin/sh\n", mode=0o755)
            writer.symlink("/lib64", "lib")
        self.assertEqual(archive(build), archive(build))


class RefusalTest(unittest.TestCase):
    def test_paths_and_repeats(self):
        writer = cpio.NewcWriter(io.BytesIO())
        writer.file("/a/b", b"")
        self.assertTrue(writer.has("/a"))
        for bad in ("/a/b", "a/b"):
            with self.assertRaises(cpio.CpioError):
                writer.file(bad, b"")
        for bad in ("/x/../y", "/x//y", "/x/./y"):
            with self.assertRaises(cpio.CpioError):
                writer.file(bad, b"")
        with self.assertRaises(cpio.CpioError):
            writer.device("/dev/x", "p", 1, 1)


class ReaderChecksTest(unittest.TestCase):
    def good(self):
        return archive(lambda w: w.file("/a", b"xyz"))

    def test_malformed_archives(self):
        good = self.good()
        cases = {
            "bad magic": b"070702" + good[6:],
            "not 8 hex digits": good[:14] + b"0000ZZZZ" + good[22:],
            "without a TRAILER": good[:116 + 4],
            "runs past": good[:110],
            "nonzero padding": good[:115] + b"\1" + good[116:],
        }
        for what, data in cases.items():
            with self.subTest(what), self.assertRaises(cpio.CpioError) as caught:
                cpio.read_newc(data)
            self.assertTrue(str(caught.exception).endswith("."))

    def test_name_without_nul(self):
        data = bytearray(self.good())
        data[111] = ord("!")
        with self.assertRaises(cpio.CpioError):
            cpio.read_newc(bytes(data))


@unittest.skipUnless(shutil.which("cpio"), "needs GNU cpio (not a clockbench dependency)")
class GnuCpioTest(unittest.TestCase):
    def test_gnu_cpio_lists_the_archive(self):
        def build(writer):
            writer.file("/usr/bin/x", b"12345", mode=0o755)
            writer.symlink("/bin", "usr/bin")
        result = subprocess.run(["cpio", "-it", "--quiet"], input=archive(build),
                                capture_output=True, check=True)
        self.assertEqual(result.stdout.decode().split(), ["usr", "usr/bin", "usr/bin/x",
                                                          "bin"])


if __name__ == "__main__":
    unittest.main()
