# SPDX-License-Identifier: MIT
"""The runner's version (`clockbench --version`): the project's, its revision, and the
schema versions of the documents it reads and writes.

The version has one home, the VERSION file at the repository root, which the Makefile
reads too.  The revision is `git describe --always --dirty` when the root is a git
checkout; else what a REVISION file beside VERSION says (an installed copy's: `make
install` writes it); else the one the last build wrote into the image's version header;
else "no revision".  The schema versions come from the schemas in docs/ themselves.
"""

import json
import os
import re
import subprocess

from . import guestopts, osreport, paths, report
from .boot import RUN_SUMMARY_SCHEMA

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


def schema_version(schema_file, fallback, root=None):
    """The "schema" constant a schema in docs/ requires (e.g. "clockbench/1"); `fallback`,
    the runner's own name for it, when the file cannot be read."""
    try:
        with open(os.path.join(root or paths.ROOT, schema_file), encoding="utf-8") as text:
            return json.load(text)["properties"]["schema"]["const"]
    except (OSError, ValueError, KeyError, TypeError):
        return fallback


def version_text(root=None):
    """What `--version` prints: the version and revision, then one line per schema."""
    # Here, not at the top: most commands never print this (cli.LAZY_COMMANDS).
    from . import matrix  # pylint: disable=import-outside-toplevel
    root = root or paths.ROOT
    schemas = (
        (schema_version(report.SCHEMA_FILE, report.SCHEMA, root),
         f"the image's report ({report.SCHEMA_FILE})"),
        (schema_version(osreport.OS_FRAMING.schema_file, osreport.OS_SCHEMA, root),
         f"clockbench-user's document ({osreport.OS_FRAMING.schema_file})"),
        (RUN_SUMMARY_SCHEMA, "the runner's summary (run --json when there is no report)"),
        (matrix.MANIFEST_SCHEMA, f"the matrix manifest ({matrix.MANIFEST})"),
        (guestopts.OPTIONS_SCHEMA, f"the image's option table ({guestopts.OPTIONS_FILE})"),
    )
    width = max(len(name) for name, _ in schemas)
    return "\n".join([f"clockbench {project_version(root)} ({revision(root)})", "schemas:"]
                     + [f"  {name:<{width}}  {what}" for name, what in schemas])
