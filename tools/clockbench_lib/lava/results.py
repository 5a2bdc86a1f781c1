# SPDX-License-Identifier: MIT
"""`lava results LOG`: a LAVA job's results checked against its console, and the run's
record rebuilt from the log.

LAVA's exit status says nothing of the test (lava-run exits 0 when cases fail), so this
is the gate: LAVA's "clockbench" cases must be the console's KTAP checks one for one
(same names, same order, the same result, a check in error being LAVA's fail), its
"clockbench-verdict" case the guest's verdict, and each read cost it measured the
median the guest's report gives.  The record is what `run --json` writes of a local
run (schema clockbench/2, docs/report-format.md): the guest's JSON report from the
console lines, and a runner member whose host is the lab's device (its name, and a
machine id made from it, so that `compare` never merges it with a local host).
"""

import datetime
import hashlib
import hmac
import shlex
from dataclasses import dataclass, field

from ..base import hostinfo
from ..base.outcome import GUEST_ERROR_REASON, RunnerError
from ..boot import runinfo
from ..model import console, report
from ..model.console import quote
from . import jobs
from .logs import read_log

EXIT_CLEAN = 0        # every case passed or was skipped, and LAVA agrees with the console
EXIT_CASE_FAILED = 1  # a case failed (the guest failed a check, or its verdict is FAIL/ERROR)
EXIT_BROKEN = 2       # not a LAVA log, cut, LAVA and the console disagree, a broken report
EXIT_LAB_ERROR = 4    # the device never booted the image: the lab's fault, not the test's
EXIT_HELP = f"""\
exit statuses:
  {EXIT_CLEAN}   every case passed or was skipped, and LAVA's cases are the console's
      KTAP checks one for one (the verdict too)
  {EXIT_CASE_FAILED}   a case failed: a KTAP check, or the verdict (FAIL or ERROR)
  {EXIT_BROKEN}   the file is not a LAVA job log, it was cut mid-run (the cases before
      the cut are still checked and listed), LAVA's cases and the console disagree,
      or the guest's report is broken: one sentence says which
  {EXIT_LAB_ERROR}   a lab error: LAVA ended the job before the device booted the image
      (its infrastructure, job or configuration error is quoted)"""
DEFAULT_DEVICE = "lava-device"
LAB_KERNEL = "LAVA device (the host's kernel is not in the job log)"
# The LAVA result of each result a KTAP check can have: LAVA has no error.
LAVA_RESULTS = {"pass": "pass", "fail": "fail", "skip": "skip", "error": "fail"}


@dataclass
class Check:
    """What `lava results` found."""

    source: str
    problems: list = field(default_factory=list)   # sentences: why the results are broken
    failed: list = field(default_factory=list)     # the failed cases, in words
    lab_error: str = None
    summary: str = ""
    record: dict = None

    @property
    def status(self):
        if self.lab_error:
            return EXIT_LAB_ERROR
        if self.problems:
            return EXIT_BROKEN
        return EXIT_CASE_FAILED if self.failed else EXIT_CLEAN


def _ktap_agreement(log, checks, check):
    """Compare LAVA's KTAP cases with the console's checks, one for one."""
    cases = log.cases(jobs.MONITOR_NAMES[1])
    for index, (case, ktap) in enumerate(zip(cases, checks), 1):
        name = str((case.get("extra") or {}).get("test_case_id", case.get("case")))
        want = LAVA_RESULTS[ktap["result"]]
        if name != ktap["name"] or case.get("result") != want:
            check.problems.append(
                f"LAVA's case {index} is \"{quote(name, 80)}\" {case.get('result')}, "
                f"where the console's check {index} is \"{quote(ktap['name'], 80)}\" "
                f"{ktap['result']}")
        elif want == "fail":
            said = " (an error in the guest's words, a fail in LAVA's)" \
                if ktap["result"] == "error" else ""
            info = f" # {ktap['info']}" if ktap["info"] else ""
            check.failed.append(f"{ktap['name']}{info}{said}")
    if log.cut and len(cases) <= len(checks):
        return cases  # the console runs ahead of LAVA's cases, which come after each line
    if len(cases) != len(checks):
        more, fewer = ("LAVA", "the console") if len(cases) > len(checks) \
            else ("the console", "LAVA")
        check.problems.append(f"{more} has {abs(len(cases) - len(checks))} more KTAP "
                              f"case(s) than {fewer} ({len(cases)} against {len(checks)})")
    return cases


def _verdict_agreement(log, verdict, check):
    """Compare LAVA's verdict case with the console's verdict line."""
    cases = log.cases(jobs.MONITOR_NAMES[2])
    if verdict is None and not cases:
        return
    if verdict is None:
        check.problems.append("LAVA has a verdict case, but the console has no verdict line")
        return
    want = jobs.VERDICT_FIXUP[verdict.upper()]
    if len(cases) != 1 or cases[0].get("result") != want:
        got = ", ".join(str(case.get("result")) for case in cases) or "none"
        check.problems.append(f"the console's verdict is {verdict.upper()}, but LAVA's "
                              f"verdict case says {got} (one case {want} was expected)")
    elif want == "fail":
        check.failed.append(f"the verdict: {verdict.upper()}")


def _cost_agreement(log, document, check):
    """Compare LAVA's read-cost measurements with the medians of the guest's report."""
    cases = log.cases(jobs.MONITOR_NAMES[0])
    if document is None:
        return cases
    medians = {clock["name"]: (clock.get("read_ns") or {}).get("p50")
               for clock in document.get("clocks", ()) if clock.get("present")
               and clock.get("measured", True) and clock.get("read_ns")}
    for case in cases:
        name = case.get("case")
        try:
            figure = float(case.get("measurement"))
        except (TypeError, ValueError):
            figure = None
        if case.get("units") != "ns" or name not in medians or figure != medians[name]:
            check.problems.append(
                f"LAVA's read cost of {quote(str(name), 40)} is {case.get('measurement')} "
                f"{case.get('units')}, where the guest's report gives "
                f"{medians.get(name, 'no such clock')} ns")
    missing = sorted(set(medians) - {case.get("case") for case in cases})
    if missing:
        check.problems.append(f"LAVA measured no read cost of {', '.join(missing)}, which "
                              f"the guest's report times")
    return cases


def _host(device):
    """The lab device as a record's host: its name, and a machine id made from it."""
    digest = hmac.new(hostinfo.MACHINE_ID_KEY, f"lava device {device}".encode("utf-8"),
                      hashlib.sha256).hexdigest()[:hostinfo.MACHINE_ID_HEX_DIGITS]
    return {"name": device, "cpu": {"model": None, "vendor": None}, "kernel": LAB_KERNEL,
            "machine_id": digest}


def _option(words, name, default=None):
    """The value of QEMU option `name` (its last) in `words`, or `default`."""
    value = default
    for index, word in enumerate(words[:-1]):
        if word == name:
            value = words[index + 1]
    return value


def _iso_utc(when):
    """LAVA's dt (2026-12-04T15:58:27.512241) as the record's UTC time."""
    return (when.split(".")[0] + "Z") if when else "1970-01-01T00:00:00Z"


def _seconds(times):
    """Seconds from the first of `times` (LAVA's dt) to the last, or 0."""
    try:
        first, last = (datetime.datetime.fromisoformat(when) for when in times)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, round((last - first).total_seconds(), 3))


def runner_member(log, device, env_boot):
    """The record's runner member: how LAVA booted the run, on which device."""
    try:
        words = shlex.split(log.boot_command) if log.boot_command else []
    except ValueError:
        words = log.boot_command.split()
    if words:
        accel = "kvm" if "-enable-kvm" in words or "kvm" in str(_option(words, "-accel")) \
            else "tcg"
        machine = str(_option(words, "-machine", "pc")).split(",")[0]
        if "-kernel" in words:
            boot = "multiboot1" if env_boot in (None, "multiboot1") else env_boot
        else:
            boot = "iso-uefi" if "ovmf" in str(_option(words, "-bios", "")).lower() \
                else "iso-bios"
        smp = int(str(_option(words, "-smp", "1")).split(",")[0] or 1)
        memory = int(str(_option(words, "-m", "128")).rstrip("M") or 128)
        cpu = _option(words, "-cpu", "qemu64")
        environment = f"{accel}-{machine}"
    else:
        accel, machine, boot, cpu, environment = "none", "hardware", env_boot or "?", "", \
            "bare-metal"
        smp, memory = 1, 1
    return {"accel": accel, "machine": machine, "boot": boot, "cpu": cpu,
            "cpu_choice": None, "smp": smp, "memory_mib": memory,
            "qemu_command": words or None, "seconds": _seconds(log.console_times),
            "environment": environment, "host": _host(device),
            "qemu_version": log.qemu_version, "xen_version": None,
            "revision": _image_revision(log.console), "argv": runinfo.argv(),
            "started_utc": _iso_utc(log.times[0] if log.times else None),
            "ended_utc": _iso_utc(log.times[-1] if log.times else None)}


def _image_revision(lines):
    """The image's version and revision from its banner ("0.1.0 (8890f0b)"), or '?'."""
    for line in lines:
        if line.startswith("clockbench ") and "(" in line:
            return line[len("clockbench "):].strip()
    return "?"


def _booted(lines):
    """Whether the console shows the image running (its banner)."""
    return any(line.startswith("clockbench ") and "(" in line for line in lines)


def build_record(log, check, device, verdict, job_id):
    """The run's record (clockbench/2) from the log: the guest's report when the console
    holds one, else what the console says (its environment and KTAP counts)."""
    lines = log.console
    document = None
    if report.has_report(lines):
        try:
            document = report.load_report(lines, log.source)
        except RunnerError as error:
            check.problems.append(str(error).rstrip("."))
    parsed = console.parse_report(lines)
    record = dict(document) if document else {"schema": report.SCHEMA,
                                              "console": {"env": parsed["env"],
                                                          "checks": parsed["checks"]}}
    run_verdict = verdict or "error"
    reason = None
    if log.cut:
        reason = f"the LAVA log was cut: {log.cut}"
    elif verdict is None:
        reason = "the console has no verdict line"
    elif verdict == "error":
        reason = GUEST_ERROR_REASON
    elif document is None:
        reason = "the run gave no report"
    text = "\n".join(lines).encode("utf-8")
    env_boot = (document or {}).get("env", {}).get("boot")
    record.update(run_id="lava-" + hashlib.sha256(text).hexdigest()[:32],
                  verdict=run_verdict, reason=reason, qemu_status=None, xen=None,
                  runner=runner_member(log, device, env_boot),
                  lava={"device": device, "job_id": job_id,
                        "dispatcher_version": log.dispatcher_version,
                        "cut": log.cut})
    try:
        report.validate_document(record, log.source)
    except RunnerError as error:
        check.problems.append(str(error).rstrip("."))
    return record, document


def check_log(path, device=DEFAULT_DEVICE, job_id=None):
    """Read the LAVA log at `path` and check it (see the module's comment)."""
    log = read_log(path)
    check = Check(source=path)
    if not _booted(log.console):
        error = log.lab_error
        if error:
            check.lab_error = (f"{path}: the device never booted clockbench: LAVA ended the "
                               f"job with {error} before the image printed a line. This is "
                               f"a lab error, not a test result.")
            return check
        raise RunnerError(f"{path}: the log ends before the image printed a line "
                          f"({log.cut or 'LAVA said the job passed without it'}), so it "
                          f"holds no test result.")
    checks = console.parse_check_list(log.console)
    verdict = console.parse_final_verdict(log.console)
    record, document = build_record(log, check, device, verdict, job_id)
    ktap_cases = _ktap_agreement(log, checks, check)
    _verdict_agreement(log, verdict, check)
    cost_cases = _cost_agreement(log, document, check)
    if log.cut:
        check.problems.insert(0, f"the log was cut: {log.cut}; the {len(ktap_cases)} "
                                 f"KTAP case(s) before the cut (of the {len(checks)} checks "
                                 f"the console shows) are kept and checked")
    if verdict is None and not log.cut:
        check.problems.append("the console has no verdict line: the run never ended (a "
                              "hang, a reset, or a console that stopped)")
    error = log.lab_error
    if error and not log.cut:
        check.problems.append(f"LAVA ended the job with {error} after the image had "
                              f"booted")
    counts = {result: sum(1 for case in ktap_cases if case.get("result") == result)
              for result in ("pass", "fail", "skip")}
    errors = sum(1 for ktap in checks if ktap["result"] == "error")
    check.summary = (f"{len(ktap_cases)} LAVA cases for {len(checks)} KTAP checks "
                     f"({counts['pass']} pass, {counts['fail']} fail, {counts['skip']} "
                     f"skip; {errors} in error, which LAVA counts as fail); verdict "
                     f"{verdict.upper() if verdict else 'none'}; {len(cost_cases)} read "
                     f"costs measured")
    check.record = record
    return check
