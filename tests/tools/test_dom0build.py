# SPDX-License-Identifier: MIT
"""Unit tests for the dom0 builder (tools/dom0-build, clockbench_lib/dom0/dom0build.py and
elffile.py): the two config files and their refusals, apt's answers and the sentences they
lead to (with a fake apt), finding files and libraries in a staging tree through symbolic
links, a library closure of a real host program, kernel modules ordered by their
.modinfo dependencies (one xz-compressed), and an initramfs written from a synthetic
staging tree and read back.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import lzma
import os
import shutil
import stat
import struct
import tempfile
import unittest

from tests.tools import ROOT
from clockbench_lib.dom0 import cpio, dom0build, elffile
from clockbench_lib.dom0.dom0build import Dom0BuildError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

HOST_PROGRAM = "/usr/bin/dash"  # a dynamic program every Debian host has


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(text, bytes) else "w") as out:
        out.write(text)
    os.chmod(path, mode)


def module_bytes(name, depends=""):
    """A minimal ELF64 relocatable file with a .modinfo section, as a kernel module has."""
    modinfo = f"license=GPL\0depends={depends}\0name={name}\0".encode()
    names = b"\0.modinfo\0.shstrtab\0"
    body = modinfo + names
    shoff = 64 + len(body)
    shoff += -shoff % 8
    header = struct.pack("<4sBBBB8xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 1, 62, 1, 0, 0,
                         shoff, 0, 64, 0, 0, 64, 3, 2)
    sections = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, 64, len(modinfo), 0, 0, 1, 0),
                struct.pack("<IIQQQQIIQQ", 10, 3, 0, 0, 64 + len(modinfo), len(names), 0, 0,
                            1, 0)]
    data = header + body
    return data + b"\0" * (shoff - len(data)) + b"".join(sections)


class Scratch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


class ConfigTest(Scratch):
    def test_the_repository_files_read(self):
        pins = dom0build.read_pins(os.path.join(ROOT, dom0build.PACKAGES_CFG))
        contents = dom0build.read_contents(os.path.join(ROOT, dom0build.CONTENTS_CFG))
        kernel = next(pin for pin in pins if pin.follows == "linux-image-amd64")
        self.assertEqual(f"linux-image-{dom0build.kernel_release(contents.kernel)}",
                         kernel.name)
        self.assertIn("xen-evtchn", contents.modules)
        self.assertIn(("dom0/init", "/init", 0o755), contents.locals)
        self.assertEqual(contents.built, [("vmlinuz", "/clockbench/vmlinuz", 0o644),
                                          ("domu-initrd.img", "/clockbench/domu-initrd.img",
                                           0o644)])
        domu = dom0build.read_contents(os.path.join(ROOT, dom0build.DOMU_CONTENTS_CFG),
                                       need_kernel=False)
        self.assertEqual((domu.kernel, domu.modules, domu.programs), (None, [],
                                                                      ["/bin/busybox"]))
        self.assertIn(("dom0/domu-init", "/init", 0o755), domu.locals)

    def test_pins(self):
        write(self.path("p.cfg"), "# c\n\na 1.0 follows=meta\nb 1:2-3  # why\n")
        pins = dom0build.read_pins(self.path("p.cfg"))
        self.assertEqual([(p.name, p.version, p.follows, p.line) for p in pins],
                         [("a", "1.0", "meta", 3), ("b", "1:2-3", None, 4)])
        for text, words in (("a\n", "expected 'PACKAGE VERSION"), ("a 1 x=y\n", "expected"),
                            ("a 1\na 2\n", "pinned twice"), ("# none\n", "pins no package")):
            with self.subTest(text=text):
                write(self.path("p.cfg"), text)
                with self.assertRaises(Dom0BuildError) as caught:
                    dom0build.read_pins(self.path("p.cfg"))
                self.assertIn(words, str(caught.exception))

    def test_contents_refusals(self):
        cases = {"kernel /boot/vmlinuz-1\nbogus x\n": "not one of the line kinds",
                 "kernel /boot/vmlinuz-1\nlink /a\n": "not one of the line kinds",
                 "kernel /boot/vmlinuz-1\nprogram bin/x\n": "not an absolute path",
                 "kernel /boot/vmlinuz-1\nlocal a /b 755\n": "octal mode",
                 "kernel /boot/vmlinuz-1\nnode /dev/x p 1 2\n": "node PATH c|b",
                 "kernel /a\nkernel /b\n": "a second kernel line",
                 "module x\n": "names no kernel",
                 "kernel /boot/vmlinuz-1\nbuilt initrd.img /x 0644\n": "a built line names",
                 "kernel /boot/vmlinuz-1\nbuilt vmlinuz /x 644\n": "'built SOURCE /PATH"}
        for text, words in cases.items():
            with self.subTest(text=text):
                write(self.path("c.cfg"), text)
                with self.assertRaises(Dom0BuildError) as caught:
                    dom0build.read_contents(self.path("c.cfg"))
                self.assertIn(words, str(caught.exception))
        with self.assertRaises(Dom0BuildError):
            dom0build.kernel_release("/boot/bzImage")
        for text in ("kernel /boot/vmlinuz-1\n", "module x\n", "built vmlinuz /v 0644\n"):
            with self.subTest(domu=text):
                write(self.path("c.cfg"), text)
                with self.assertRaisesRegex(Dom0BuildError, "its kernel and what it builds "
                                                            "are dom0's"):
                    dom0build.read_contents(self.path("c.cfg"), need_kernel=False)


POLICY = """\
libc6:
  Installed: 2.36-9+deb12u14
  Candidate: 2.36-9+deb12u15
  Version table:
     2.36-9+deb12u15 500
xen-utils-4.17:
  Installed: (none)
  Candidate: 4.17.7
linux-image-6.1.0-57-amd64:
  Installed: (none)
  Candidate: (none)
"""


class FakeApt:
    """Answers apt-cache, apt-get download and dpkg-deb as `run` would; a .deb here holds its
    own "Package Version" text.  `offered` is what apt-get can download."""

    def __init__(self, offered=(), policy=POLICY, depends="linux-image-6.1.0-58-amd64"):
        self.offered = set(offered)
        self.policy = policy
        self.depends = depends
        self.calls = []

    def __call__(self, command, cwd=None):
        self.calls.append(command)
        if command[:2] == ["apt-cache", "policy"]:
            return 0, self.policy, ""
        if command[:2] == ["apt-cache", "depends"]:
            return 0, f"{command[2]}\n  Depends: {self.depends}\n", ""
        if command[0] == "dpkg-deb":
            with open(command[-1], encoding="utf-8") as deb:
                return 0, deb.read(), ""
        if command[:2] == ["apt-get", "download"]:
            status = 0
            for wanted in (word for word in command[2:] if "=" in word and
                           not word.startswith("APT::")):
                name, version = wanted.split("=", 1)
                if wanted not in self.offered:
                    status = 100
                    continue
                write(os.path.join(cwd, f"{name}_{version.replace(':', '%3a')}_amd64.deb"),
                      f"{name} {version}\n")
            err = "" if status == 0 else (
                "E: Can't find a source to download version 'x' of 'y'\n")
            return status, "", err
        raise AssertionError(f"unexpected command {command}")


class AptTest(Scratch):
    PINS = [dom0build.Pin("libc6", "2.36-9+deb12u14", line=5),
            dom0build.Pin("xen-utils-4.17", "4.17.7", line=6),
            dom0build.Pin("linux-image-6.1.0-57-amd64", "6.1.192-3", "linux-image-amd64", 7)]

    def test_notes_say_what_moved(self):
        notes = dom0build.apt_notes(self.PINS, FakeApt())
        self.assertEqual(len(notes), 2)
        self.assertIn("pins libc6 2.36-9+deb12u14, but apt's candidate is 2.36-9+deb12u15: "
                      "the pin is used", notes[0])
        self.assertIn("linux-image-amd64 now depends on linux-image-6.1.0-58-amd64, not on "
                      "linux-image-6.1.0-57-amd64", notes[1])
        self.assertEqual(dom0build.apt_notes(self.PINS, lambda c: (127, "", "")), [])
        self.assertEqual(dom0build.parse_depends("m\n  Depends: a\n |Depends: b\n"), ["a", "b"])

    def test_download_once_then_reuse(self):
        apt = FakeApt(offered=[f"{p.name}={p.version}" for p in self.PINS])
        debs = dom0build.download(self.PINS, self.path("debs"), apt)
        self.assertEqual([os.path.basename(d) for d in debs],
                         ["libc6_2.36-9+deb12u14_amd64.deb", "xen-utils-4.17_4.17.7_amd64.deb",
                          "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb"])
        self.assertEqual(sum(call[:2] == ["apt-get", "download"] for call in apt.calls), 1)
        again = FakeApt()
        self.assertEqual(dom0build.download(self.PINS, self.path("debs"), again), debs)
        self.assertFalse(any(call[0] == "apt-get" for call in again.calls))

    def test_a_file_of_another_version_is_not_taken(self):
        write(self.path("debs", "libc6_2.36-9+deb12u14_amd64.deb"), "libc6 2.36-9+deb12u13\n")
        self.assertIsNone(dom0build.find_deb(self.path("debs"), self.PINS[0], FakeApt()))

    def test_a_pin_apt_no_longer_offers(self):
        apt = FakeApt(offered=["libc6=2.36-9+deb12u14", "xen-utils-4.17=4.17.7"])
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.download(self.PINS, self.path("debs"), apt)
        message = str(caught.exception)
        self.assertTrue(message.startswith("cannot download linux-image-6.1.0-57-amd64 "
                                           "6.1.192-3 (apt-get: E: Can't find a source"))
        self.assertIn("change dom0/packages.cfg line 7", message)
        self.assertTrue(message.endswith(")."), message)
        apt = FakeApt(offered=["xen-utils-4.17=4.17.7", "linux-image-6.1.0-57-amd64=6.1.192-3"])
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.download(self.PINS, self.path("debs2"), apt)
        self.assertIn("pin 2.36-9+deb12u15, apt's candidate, in dom0/packages.cfg line 5",
                      str(caught.exception))
        apt = FakeApt(policy="libc6:\n  Candidate: 2.36-9+deb12u14\n")
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.download(self.PINS[:1], self.path("debs3"), apt)
        self.assertIn("although apt offers that version: check the network",
                      str(caught.exception))


class TreeTest(Scratch):
    def test_links_are_followed_inside_the_tree(self):
        write(self.path("lib", "x86_64-linux-gnu", "libz.so.1.2"), "z")
        os.symlink("libz.so.1.2", self.path("lib", "x86_64-linux-gnu", "libz.so.1"))
        os.makedirs(self.path("lib64"))
        os.symlink("/lib/x86_64-linux-gnu/libz.so.1", self.path("lib64", "abs"))
        os.symlink("../lib/x86_64-linux-gnu/../x86_64-linux-gnu/libz.so.1",
                   self.path("lib64", "rel"))
        os.symlink("loop", self.path("lib64", "loop"))
        real = self.path("lib", "x86_64-linux-gnu", "libz.so.1.2")
        for path in ("/lib64/abs", "/lib64/rel", "/lib/x86_64-linux-gnu/libz.so.1"):
            self.assertEqual(dom0build.tree_path(self.tmp, path), real)
        self.assertIsNone(dom0build.tree_path(self.tmp, "/lib64/loop"))
        self.assertIsNone(dom0build.tree_path(self.tmp, "/lib64/none"))
        self.assertEqual(dom0build.find_library(self.tmp, "libz.so.1"),
                         ("/lib/x86_64-linux-gnu/libz.so.1", real))
        self.assertIsNone(dom0build.find_library(self.tmp, "libq.so.1"))

    def stage_host_program(self):
        """A staging tree with HOST_PROGRAM at /bin/sh-like path and its libraries."""
        info = elffile.read_elf(HOST_PROGRAM)
        with open(HOST_PROGRAM, "rb") as source:
            write(self.path("usr", "bin", "dash"), source.read(), 0o755)
        for path in [info.interpreter, "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                     *[f"/lib/x86_64-linux-gnu/{soname}" for soname in info.needed]]:
            with open(os.path.realpath(path), "rb") as source:
                write(self.path(path.lstrip("/")), source.read(), 0o755)
        return info

    def test_closure_of_a_host_program(self):
        info = self.stage_host_program()
        chosen = dom0build.library_closure(self.tmp, ["/usr/bin/dash"])
        self.assertEqual(sorted(chosen), sorted([
            "/usr/bin/dash", info.interpreter, "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            *[f"/lib/x86_64-linux-gnu/{soname}" for soname in info.needed]]))
        os.unlink(self.path("lib", "x86_64-linux-gnu", "libc.so.6"))
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.library_closure(self.tmp, ["/usr/bin/dash"])
        self.assertIn("/usr/bin/dash needs libc.so.6, which no package of dom0/packages.cfg "
                      "provides", str(caught.exception))
        with self.assertRaises(Dom0BuildError):
            dom0build.library_closure(self.tmp, ["/usr/bin/none"])

    def test_modules_after_their_dependencies(self):
        folder = self.path("lib", "modules", "6.1.0-9-amd64", "kernel", "drivers", "xen")
        write(os.path.join(folder, "xen-privcmd.ko"), module_bytes("xen_privcmd"))
        write(os.path.join(folder, "xenfs", "xenfs.ko.xz"),
              lzma.compress(module_bytes("xenfs", "xen-privcmd")))
        write(os.path.join(folder, "a.ko"), module_bytes("a", "b"))
        write(os.path.join(folder, "b.ko"), module_bytes("b", "a"))
        order = dom0build.module_order(self.tmp, "6.1.0-9-amd64", ["xenfs", "xen-privcmd"])
        self.assertEqual([name for name, _ in order], ["xen_privcmd", "xenfs"])
        self.assertEqual(order[1][1], module_bytes("xenfs", "xen-privcmd"))
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.module_order(self.tmp, "6.1.0-9-amd64", ["a"])
        self.assertIn("depends on itself", str(caught.exception))
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.module_order(self.tmp, "6.1.0-9-amd64", ["none"])
        self.assertIn("is not in the kernel package's lib/modules/6.1.0-9-amd64",
                      str(caught.exception))

    def test_initramfs_read_back(self):
        self.stage_host_program()
        write(self.path("boot", "vmlinuz-6.1.0-9-amd64"), "kernel")
        write(self.path("usr", "share", "seabios", "bios-256k.bin"), b"\xea" * 10)
        write(self.path("lib", "modules", "6.1.0-9-amd64", "kernel", "x.ko"),
              module_bytes("x"))
        tree = self.path("tree")
        write(os.path.join(tree, "dom0", "init"), "#!/bin/sh\n")
        contents = dom0build.Contents(
            kernel="/boot/vmlinuz-6.1.0-9-amd64", modules=["x"], programs=["/usr/bin/dash"],
            files=["/usr/share/seabios/bios-256k.bin"], links=[("/bin/sh", "dash")],
            nodes=[("/dev/console", "c", 5, 1)], locals=[("dom0/init", "/init", 0o755)])
        out = self.path("out", "initrd.img")
        result = dom0build.write_initramfs(contents, self.tmp, tree, out)
        with open(out, "rb") as archive:
            entries = {entry.name: entry for entry in cpio.read_newc(archive.read())}
        self.assertEqual(result.entries, len(entries))
        self.assertEqual(entries["init"].data, b"#!/bin/sh\n")
        self.assertEqual(entries["init"].mode, stat.S_IFREG | 0o755)
        self.assertEqual(entries["etc/clockbench/modules"].data,
                         b"/lib/modules/6.1.0-9-amd64/x.ko\n")
        self.assertEqual(entries["lib/modules/6.1.0-9-amd64/x.ko"].data, module_bytes("x"))
        self.assertEqual(entries["usr/share/seabios/bios-256k.bin"].mode, stat.S_IFREG | 0o644)
        self.assertTrue(entries["bin/sh"].is_symlink)
        self.assertIn("lib/x86_64-linux-gnu/libc.so.6", entries)
        self.assertTrue(stat.S_ISCHR(entries["dev/console"].mode))
        self.assertFalse(os.path.exists(out + ".partial"))

    def test_initramfs_without_a_kernel_and_with_built_files(self):
        """The domU's: no module list; dom0's takes what the build wrote beside it."""
        tree = self.path("tree")
        write(os.path.join(tree, "dom0", "domu-init"), "#!/bin/sh\n")
        write(self.path("out", "domu-initrd.img"), b"070701")
        contents = dom0build.Contents(locals=[("dom0/domu-init", "/init", 0o755)],
                                      built=[("domu-initrd.img", "/c/domu-initrd.img", 0o644)])
        out = self.path("out", "initrd.img")
        result = dom0build.write_initramfs(contents, self.tmp, tree, out)
        with open(out, "rb") as archive:
            entries = {entry.name: entry for entry in cpio.read_newc(archive.read())}
        self.assertEqual(entries["c/domu-initrd.img"].data, b"070701")
        self.assertNotIn("etc/clockbench/modules", entries)
        self.assertEqual((result.release, result.modules), (None, []))
        contents.built = [("vmlinuz", "/c/vmlinuz", 0o644)]
        with self.assertRaisesRegex(Dom0BuildError, "cannot read the built file vmlinuz"):
            dom0build.write_initramfs(contents, self.tmp, tree, out)


class ElfTest(Scratch):
    def test_host_program(self):
        info = elffile.read_elf(HOST_PROGRAM)
        self.assertEqual(info.interpreter, "/lib64/ld-linux-x86-64.so.2")
        self.assertIn("libc.so.6", info.needed)
        self.assertIn(".dynamic", info.sections)

    def test_module_sections(self):
        write(self.path("m.ko"), module_bytes("xenfs", "xen-privcmd"))
        info = elffile.read_elf(self.path("m.ko"))
        self.assertEqual((info.interpreter, info.needed), (None, []))
        data = module_bytes("xenfs", "xen-privcmd")
        fields = elffile.modinfo(elffile.section_bytes(data, ".modinfo", "m.ko"))
        self.assertEqual(fields["depends"], ["xen-privcmd"])
        self.assertIsNone(elffile.section_bytes(data, ".text", "m.ko"))

    def test_bad_files(self):
        write(self.path("text"), "#!/bin/sh\n")
        with open(HOST_PROGRAM, "rb") as source:
            write(self.path("short.elf"), source.read(100))
        write(self.path("elf32"), b"\x7fELF\x01\x01" + bytes(64))
        for name, words in (("text", "is not an ELF file"), ("short.elf", "outside the file"),
                            ("elf32", "not a 64-bit little-endian")):
            with self.subTest(name=name), self.assertRaises(elffile.ElfError) as caught:
                elffile.read_elf(self.path(name))
            self.assertIn(words, str(caught.exception))
        self.assertFalse(elffile.is_elf(self.path("text")))


class StagingTest(Scratch):
    def test_unpacked_once(self):
        calls = []

        def run(command, cwd=None):
            calls.append(command)
            os.makedirs(os.path.join(command[3], "usr"), exist_ok=True)
            return 0, "", ""

        debs = [self.path("a_1_amd64.deb"), self.path("b_2_all.deb")]
        self.assertTrue(dom0build.stage(debs, self.path("staging"), run))
        self.assertFalse(dom0build.stage(debs, self.path("staging"), run))
        self.assertEqual(len(calls), 2)
        self.assertTrue(dom0build.stage(debs[:1], self.path("staging"), run))
        with self.assertRaises(Dom0BuildError) as caught:
            dom0build.stage(debs[1:], self.path("staging"),
                            lambda command, cwd=None: (2, "", "dpkg-deb: error: bad\n"))
        self.assertEqual(str(caught.exception), f"dpkg -x could not unpack {debs[1]}: "
                                                f"dpkg-deb: error: bad.")
        # A staging tree left half unpacked carries no stamp, so it is unpacked again.
        self.assertFalse(os.path.exists(self.path("staging", dom0build.STAGING_STAMP)))


if __name__ == "__main__":
    unittest.main()
