# SPDX-License-Identifier: MIT
"""clockbench-user's JSON document (schema clockbench-os/1, docs/os-report.schema.json):
found in a console log, framed as the image frames its report, or read from a file.

    clockbench-os-json begin
    json| {"schema": "clockbench-os/1",
    json|  ...}
    clockbench-os-json end
    clockbench-user: PASS
"""

import re

from . import report
from ..base.outcome import RunnerError

OS_SCHEMA = "clockbench-os/1"
OS_FRAMING = report.Framing("clockbench-os-json begin", "clockbench-os-json end", "json| ",
                            OS_SCHEMA, "docs/os-report.schema.json")
# The program's last line, and its exit status for each verdict (user/main.c).
FINAL_LINE = re.compile(r"^\s*clockbench-user: (PASS|FAIL|SKIP|ERROR)\s*$")
EXIT_STATUS = {"PASS": 0, "FAIL": 1, "SKIP": 77, "ERROR": 2}


def has_os_report(lines):
    """True when the console shows the start of a clockbench-user document."""
    return report.has_report(lines, OS_FRAMING)


def load_os_report(lines, source):
    """The last clockbench-user document in console `lines`, parsed and validated."""
    return report.load_report(lines, source, framing=OS_FRAMING)


def validate_os_document(document, source):
    """RunnerError with one sentence unless `document` is a valid clockbench-os/1 one."""
    report.validate_document(document, source, framing=OS_FRAMING)


def load_os_report_file(path):
    """A clockbench-os/1 document from `path`: a JSON file, or a console log holding one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            text = source.read()
    except OSError as error:
        raise RunnerError(f"cannot read {path}: {error.strerror}.") from None
    if text.lstrip().startswith("{"):
        document = report.load_json_text(text, path)
        validate_os_document(document, path)
        return document
    return load_os_report(report.read_log_lines(path), path)


def verdict_of(lines):
    """The verdict of the program's last `clockbench-user: VERDICT` line, or None."""
    for line in reversed(lines):
        match = FINAL_LINE.match(line)
        if match:
            return match.group(1)
    return None
