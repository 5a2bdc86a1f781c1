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

from .base import paths
from .model import manifest, osreport, report
from .boot import guestopts
from .verdict import text as verdict_text
from .base.revision import REVISION_FILE, VERSION_HEADER, project_version, revision

__all__ = ["REVISION_FILE", "VERSION_HEADER", "project_version", "revision", "schema_version",
           "version_text"]


def schema_version(schema_file, fallback, root=None):
    """The "schema" constant a schema in docs/ requires (e.g. "clockbench/2"); `fallback`,
    the runner's own name for it, when the file cannot be read."""
    try:
        with open(os.path.join(root or paths.ROOT, schema_file), encoding="utf-8") as text:
            return json.load(text)["properties"]["schema"]["const"]
    except (OSError, ValueError, KeyError, TypeError):
        return fallback


def version_text(root=None):
    """What `--version` prints: the version and revision, then one line per schema."""
    root = root or paths.ROOT
    schemas = (
        (schema_version(report.SCHEMA_FILE, report.SCHEMA, root),
         f"the image's report and run --json's record of any run ({report.SCHEMA_FILE})"),
        (schema_version(osreport.OS_FRAMING.schema_file, osreport.OS_SCHEMA, root),
         f"clockbench-user's document ({osreport.OS_FRAMING.schema_file})"),
        (", ".join(report.OLD_SCHEMAS), "read by parse and compare, written no more"),
        (manifest.MANIFEST_SCHEMA, f"the matrix manifest ({manifest.MANIFEST})"),
        (schema_version(verdict_text.VERDICT_SCHEMA_FILE, verdict_text.VERDICT_SCHEMA, root),
         f"the verdict's document (verdict --json, {verdict_text.VERDICT_SCHEMA_FILE})"),
        (guestopts.OPTIONS_SCHEMA, f"the image's option table ({guestopts.OPTIONS_FILE})"),
    )
    width = max(len(name) for name, _ in schemas)
    return "\n".join([f"clockbench {project_version(root)} ({revision(root)})", "schemas:"]
                     + [f"  {name:<{width}}  {what}" for name, what in schemas])
