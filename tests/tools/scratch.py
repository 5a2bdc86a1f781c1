# SPDX-License-Identifier: MIT
"""A scratch copy of tools/clockbench for tests that run the whole command with a fake QEMU.

make_tree() copies the runner and the report schema into a new folder with a Makefile whose
every build/ target is a small ELF file (write_elf), so that what the runner reads from an
image (how much RAM it fills) is there, but for the image's option table, a copy of this
tree's build/guest-options.json (`make tool-tests` writes it); FAIL_BUILD=1 in the
environment makes it fail.
"""

import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from tests.tools import FAKE_QEMU, PYTHON, ROOT
from clockbench_lib.boot.guestopts import OPTIONS_FILE
from clockbench_lib.model.osreport import OS_FRAMING
from clockbench_lib.model.report import SCHEMA_FILE
# Where the fake images' one segment ends: 7.5 MiB, so they need 8 MiB, as the real ones do.
FAKE_IMAGE_END = 0x780000
FAKE_ELF = "fake.elf"
OPTIONS_COPY = "guest-options.json"

MAKEFILE = ("build/%:\n"
            "\ttest -z \"$$FAIL_BUILD\" && mkdir -p $(@D) && cp " + FAKE_ELF + " $@\n"
            + OPTIONS_FILE + ":\n"
            "\ttest -z \"$$FAIL_BUILD\" && mkdir -p $(@D) && cp " + OPTIONS_COPY + " $@\n")


def write_elf(path, end, load=0x100000, wide=True):
    """Write an ELF file (64-bit when `wide`, else 32-bit) with one PT_LOAD segment at
    physical address `load` whose memory size reaches up to `end`."""
    if wide:
        header = struct.pack("<4sBBBB8xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 2, 62, 1,
                             load, 64, 0, 0, 64, 56, 1, 0, 0, 0)
        segment = struct.pack("<IIQQQQQQ", 1, 5, 0, load, load, 0, end - load, 0x1000)
    else:
        header = struct.pack("<4sBBBB8xHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 2, 3, 1,
                             load, 52, 0, 0, 52, 32, 1, 0, 0, 0)
        segment = struct.pack("<IIIIIIII", 1, 0, load, load, 0, end - load, 5, 0x1000)
    with open(path, "wb") as elf:
        elf.write(header + segment)


def make_tree(programs=("clockbench",)):
    """A new scratch folder holding tools/ (the library and `programs`),
    docs/report.schema.json and docs/os-report.schema.json, tests/, build/ and the fake
    Makefile; the caller removes it."""
    root = tempfile.mkdtemp()
    tools = os.path.join(root, "tools")
    shutil.copytree(os.path.join(ROOT, "tools", "clockbench_lib"),
                    os.path.join(tools, "clockbench_lib"))
    for program in programs:
        shutil.copy(os.path.join(ROOT, "tools", program), tools)
    os.makedirs(os.path.join(root, os.path.dirname(SCHEMA_FILE)))
    for schema in (SCHEMA_FILE, OS_FRAMING.schema_file):
        shutil.copy(os.path.join(ROOT, schema), os.path.join(root, schema))
    os.makedirs(os.path.join(root, "tests"))
    os.makedirs(os.path.join(root, "build"))
    write_elf(os.path.join(root, FAKE_ELF), FAKE_IMAGE_END)
    options = os.path.join(ROOT, OPTIONS_FILE)
    if not os.path.isfile(options):
        shutil.rmtree(root)
        raise AssertionError(f"{options} is missing: `make tool-tests` writes it first")
    shutil.copy(options, os.path.join(root, OPTIONS_COPY))
    with open(os.path.join(root, "Makefile"), "w", encoding="utf-8") as makefile:
        makefile.write(MAKEFILE)
    return root


class ToolCase(unittest.TestCase):
    """A scratch tree and a way to run its tools/clockbench."""

    def setUp(self):
        self.root = make_tree()
        self.argv = os.path.join(self.root, "argv.json")

    def tearDown(self):
        shutil.rmtree(self.root)

    def clockbench(self, *args, **settings):
        """Run the copied tools/clockbench with FAKE_QEMU_* `settings`."""
        env = dict(os.environ, CLOCKBENCH_QEMU=FAKE_QEMU, PYTHONDONTWRITEBYTECODE="1",
                   FAKE_QEMU_ARGV=self.argv)
        env.update({f"FAKE_QEMU_{key}": value for key, value in settings.items()})
        return subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"), *args],
                              env=env, cwd=self.root, capture_output=True, text=True,
                              timeout=60, check=False)

    def write(self, name, text):
        """Write `text` to the scratch file `name`."""
        path = os.path.join(self.root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    def qemu_argv(self):
        """The argument vector the fake QEMU was started with."""
        with open(self.argv, encoding="utf-8") as argv:
            return json.load(argv)
