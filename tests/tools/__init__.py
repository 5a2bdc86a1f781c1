# SPDX-License-Identifier: MIT
"""Tests of the host runner tools/clockbench.

Importing this package (every test module is in it) puts this tree's tools/ first on
sys.path, so that the tests import the clockbench_lib beside them, and names once what
the tests share.
"""

import contextlib
import io
import os
import shlex
import signal
import subprocess
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


def run_cli(*args):
    """`tools/clockbench ARGS` run in this process, as a subprocess.CompletedProcess with
    its exit status and what it printed (stdout, stderr as text).

    The same main() the script calls, without a new interpreter's start-up and imports
    (about a second of CPU each, most of a compare test's time); a test that is about the
    script itself (its path, signals, exit on a broken pipe) runs it as a process."""
    # pylint: disable=import-outside-toplevel
    from clockbench_lib import cli
    from clockbench_lib.base.outcome import STOP_SIGNALS
    out, err = io.StringIO(), io.StringIO()
    # main() takes the stop signals for itself; the test process gets its own back.
    handlers = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            status = cli.main(list(args))
        except SystemExit as leaving:  # argparse's usage errors and --help
            code = leaving.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if isinstance(code, str):
                print(code, file=sys.stderr)
        finally:
            for number, handler in handlers.items():
                signal.signal(number, handler)
    return subprocess.CompletedProcess(["clockbench", *args], status, out.getvalue(),
                                       err.getvalue())
