# SPDX-License-Identifier: MIT
"""Tests of the host runner tools/clockbench.

Importing this package (every test module is in it) puts this tree's tools/ first on
sys.path, so that the tests import the clockbench_lib beside them, and names once what
the tests share.
"""

import os
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
