# SPDX-License-Identifier: MIT
"""How `clockbench test` reports: TAP version 13 on stdout, and a JUnit XML file.

    TAP version 13
    1..3
    ok 1 mb1-pc # 0.9 s
    not ok 2 bad # no line matches /boot protocol +pvh/
    #   verdict: PASS (expected PASS)
    #   log: build/tests/bad.log
    ok 3 hv-kvm # SKIP /dev/kvm: No such file or directory
    # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0

A test that does not pass shows why: each failed expectation (the verdict, a match= or
json= or report= check), the guest's own `not ok` KTAP lines, and for a boot that ended
in an error or a hang its last console lines.  The totals line is kselftest's; a test
that is not ok because the boot broke (an error or a hang, or the runner could not boot
it) counts as an error, one whose boot ran but did not show what its line expects as a
failure.  xfail and xpass are always 0: an expect=fail test that fails as expected passes.
"""

import datetime
import os
import re
import socket
from dataclasses import dataclass

from ..base.outcome import RunnerError
from ..model import console

TAP_VERSION = "TAP version 13"
GUEST_FAILURES_SHOWN = 10
TAIL_LINES = 10
TAIL_LINE_CHARS = 200
JUNIT_CLASSNAME = "clockbench.boot"
_JSON_LINE = re.compile(r"^\s*json\| ")


@dataclass
class TestResult:
    """How one boot test ended: state is "ok", "not ok" or "skip"."""

    state: str
    reason: str = None
    seconds: float = 0.0
    tail: tuple = ()            # the console's last lines, for a boot that broke
    problems: tuple = ()        # each expectation that failed, in words
    verdict: str = None         # the boot's verdict: pass, fail, skip, error or hang
    expect: str = None          # what the test's line expects of it
    guest_failures: tuple = ()  # the guest's own `not ok` KTAP lines
    broken: bool = False        # not ok because the boot broke (an error), not a check
    log: str = None             # where the boot's console is, as shown


# The guest's `not ok` KTAP lines among the console lines (console.py reads them; `run -q`
# repeats them too).
guest_failures = console.guest_failures


def console_tail(lines, count=TAIL_LINES):
    """The last `count` console lines that are not JSON, each cut to TAIL_LINE_CHARS."""
    kept = [line for line in lines if line.strip() and not _JSON_LINE.match(line)]
    return tuple(line[:TAIL_LINE_CHARS] for line in kept[-count:])


def diagnostics(result):
    """The lines that say why a test that is not ok is not ok, without the `#`."""
    lines = []
    if len(result.problems) > 1:
        lines += [f"failed: {problem}" for problem in result.problems]
    if result.verdict:
        lines.append(f"verdict: {result.verdict.upper()}"
                     + (f" (expected {result.expect.upper()})" if result.expect else ""))
    shown = result.guest_failures[:GUEST_FAILURES_SHOWN]
    lines += [f"guest: {line}" for line in shown]
    if len(result.guest_failures) > len(shown):
        lines.append(f"guest: ... and {len(result.guest_failures) - len(shown)} more "
                     f"`not ok` lines")
    if result.tail:
        lines.append("last lines of the console:")
        lines += [f"  {line}" for line in result.tail]
    if result.log:
        lines.append(f"log: {result.log}")
    return lines


def _one_line(text):
    """`text` with line breaks made spaces: a TAP description is one line."""
    return " ".join(text.split()) if text else ""


def result_lines(number, name, result):
    """The TAP lines of one test: its `ok`/`not ok` line, the reason after `#`, and for a
    test that is not ok the diagnostics, each line starting with `#`."""
    if result.state == "skip":
        return [f"ok {number} {name} # SKIP {_one_line(result.reason)}"]
    if result.state == "ok":
        return [f"ok {number} {name} # {result.seconds:.1f} s"]
    reason = _one_line(result.reason or "failed")
    if len(result.problems) > 1:
        reason = (f"{_one_line(result.problems[0])} (and {len(result.problems) - 1} more "
                  f"problem{'s' * (len(result.problems) > 2)})")
    return [f"not ok {number} {name} # {reason}"] + [f"#   {line}"
                                                     for line in diagnostics(result)]


def counts(results):
    """{pass, fail, xfail, xpass, skip, error}: how many tests ended each way."""
    states = [("error" if r.broken else "fail") if r.state == "not ok"
              else "pass" if r.state == "ok" else "skip" for r in results]
    return {key: states.count(key) for key in ("pass", "fail", "xfail", "xpass", "skip",
                                              "error")}


def totals_line(results):
    """The closing line, kselftest's: `# Totals: pass:N fail:N xfail:0 xpass:0 skip:N
    error:N`."""
    return "# Totals: " + " ".join(f"{key}:{value}" for key, value in counts(results).items())


def junit_document(names, results, seconds, started):
    """The JUnit XML tree of a run: one <testsuite> of one <testcase> per test, with a
    <failure>, <error> or <skipped> saying why, as CI systems read them."""
    import xml.etree.ElementTree as ET  # pylint: disable=import-outside-toplevel  (--junit only)
    total = counts(results)
    suites = ET.Element("testsuites", name="clockbench", tests=str(len(results)),
                        failures=str(total["fail"]), errors=str(total["error"]),
                        skipped=str(total["skip"]), time=f"{seconds:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="clockbench boot tests",
                          tests=str(len(results)), failures=str(total["fail"]),
                          errors=str(total["error"]), skipped=str(total["skip"]),
                          time=f"{seconds:.3f}",
                          timestamp=started.strftime("%Y-%m-%dT%H:%M:%S"),
                          hostname=socket.gethostname())
    for name, result in zip(names, results):
        case = ET.SubElement(suite, "testcase", classname=JUNIT_CLASSNAME, name=name,
                             time=f"{result.seconds:.3f}")
        if result.state == "skip":
            ET.SubElement(case, "skipped", message=_one_line(result.reason))
        elif result.state == "not ok":
            problems = result.problems or (result.reason,)
            why = ET.SubElement(case, "error" if result.broken else "failure",
                                message=_one_line(problems[0] or "failed"),
                                type=result.verdict or "error")
            why.text = "\n".join([f"failed: {problem}" for problem in problems]
                                 + [line for line in diagnostics(result)
                                    if not line.startswith("failed: ")]) + "\n"
        if result.log:
            ET.SubElement(case, "system-out").text = f"log: {result.log}\n"
    ET.indent(suites)
    return ET.ElementTree(suites)


def check_junit_path(path):
    """Make the folder of the JUnit file `path` if need be, and RunnerError unless the
    file can be written there: said before the first boot, not after the last."""
    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = folder
        while blocking and not os.path.exists(blocking):
            blocking = os.path.dirname(blocking)
        raise RunnerError(f"cannot write {path}: {blocking or folder} is not a "
                          f"folder.") from None
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
    if os.path.isdir(path) or not os.access(folder, os.W_OK) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise RunnerError(f"cannot write {path}: "
                          f"{'it is a folder' if os.path.isdir(path) else 'permission denied'}.")


def write_junit(path, names, results, seconds, started=None):
    """Write the JUnit XML file of a run to `path`, making its folder if need be;
    RunnerError when it cannot be."""
    started = started or datetime.datetime.now(datetime.timezone.utc)
    check_junit_path(path)
    try:
        junit_document(names, results, seconds, started).write(path, encoding="utf-8",
                                                                xml_declaration=True)
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
