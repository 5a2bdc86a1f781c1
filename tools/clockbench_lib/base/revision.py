# SPDX-License-Identifier: MIT
"""Which copy of clockbench this is: the project's version and its revision (version.py's
doc says where each comes from).  Apart from version.py so that a run's record (runinfo)
can name its revision without importing everything --version lists."""

import os
import re
import subprocess

from . import paths

VERSION_FILE = "VERSION"    # relative to the repository root
REVISION_FILE = "REVISION"  # written by `make install` where there is no git checkout
VERSION_HEADER = os.path.join(paths.BUILD_DIR, "include", "clockbench", "version.h")
_HEADER_REVISION = re.compile(r'#define CLOCKBENCH_VERSION "[^"(]*\(([^)]+)\)"')
_GIT_TIMEOUT_S = 10


def _first_line(path):
    """The first line of the file at `path`, stripped, or None."""
    try:
        with open(path, encoding="utf-8") as text:
            return text.readline().strip() or None
    except OSError:
        return None


def project_version(root=None):
    """The version in VERSION, or "unknown" when it cannot be read."""
    return _first_line(os.path.join(root or paths.ROOT, VERSION_FILE)) or "unknown"


def git_revision(root):
    """`git describe --always --dirty` of `root` when `root` is the top of a git checkout
    (not merely inside another one), else None."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=_GIT_TIMEOUT_S,
                             check=False)
        if top.returncode != 0 or (os.path.realpath(top.stdout.strip())
                                   != os.path.realpath(root)):
            return None
        described = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"],
                                   capture_output=True, text=True, timeout=_GIT_TIMEOUT_S,
                                   check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (described.stdout.strip() or None) if described.returncode == 0 else None


def header_revision(root):
    """The revision the last build wrote into build/include/clockbench/version.h, or None."""
    try:
        with open(os.path.join(root, VERSION_HEADER), encoding="utf-8") as header:
            found = _HEADER_REVISION.search(header.read())
    except OSError:
        return None
    return found.group(1) if found else None


def revision(root=None):
    """Where this copy of the runner comes from: see the module's doc."""
    root = root or paths.ROOT
    return (git_revision(root) or _first_line(os.path.join(root, REVISION_FILE))
            or header_revision(root) or "no revision")
