# SPDX-License-Identifier: MIT
"""Tests of the host runner tools/clockbench.

Importing this package (every test module is in it) puts this tree's tools/ first on
sys.path, so that the tests import the clockbench_lib beside them, and names once what
the tests share.
"""

import os
import shlex
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))

# pylint: disable=wrong-import-position
from clockbench_lib.base.paths import ROOT  # noqa: E402  (needs the path set above)

FIXTURES = os.path.join(HERE, "fixtures")
GOOD_LOG = os.path.join(FIXTURES, "good.log")  # a console log with a valid report, no ticks
FAKE_QEMU = os.path.join(HERE, "fake_qemu.py")
PYTHON = "/usr/bin/python3"
CLOCKBENCH = os.path.join(ROOT, "tools", "clockbench")


def sections(text):
    """tests.cfg text from tests written one a line, `KIND NAME key=value...` split as a
    shell would, for brevity here: each becomes a `[KIND NAME]` section with one
    `key = value` a line (blank and `#` lines are kept, so line numbers shift only by the
    keys)."""
    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            out.append(line)
            continue
        kind, name, *pairs = shlex.split(line, comments=True)
        out.append(f"[{kind} {name}]")
        out += [" = ".join(pair.partition("=")[::2]) for pair in pairs]
    return "\n".join(out) + "\n"


def parse_cfg(text, filename="tests/tests.cfg"):
    """testlist.parse_tests_cfg() of tests written one a line (sections())."""
    from clockbench_lib.testing import testlist  # pylint: disable=import-outside-toplevel
    return testlist.parse_tests_cfg(sections(text), filename)
