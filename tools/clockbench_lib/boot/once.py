# SPDX-License-Identifier: MIT
"""One boot from image to verdict, shared by `clockbench run` and `clockbench test`."""

import datetime
import os
import re
import shlex
import subprocess
import sys
import uuid
from dataclasses import dataclass, field

from ..base import hoststate, paths
from ..model import osreport, report
from . import contend, lifecycle, linux, qemu, runinfo, xen
from ..model.console import HALT_LINE, parse_report, quote
from ..base.outcome import RunnerError, Terminated, judge, status_verdict
from .process import run_process


@dataclass
class BootOutcome:
    """The verdict of one boot and everything known about it."""

    spec: qemu.BootSpec
    verdict: str
    reason: str
    qemu_status: int
    seconds: float
    lines: list
    report: dict
    command: list
    xen_facts: xen.XenFacts = None  # what Xen's own lines said (xen boot path only)
    cpu_choice: str = None          # why this -cpu model, when the runner chose it
    event_notes: tuple = ()         # what the runner saw of each event (--event)
    host_state: dict = None         # the host over the run (hoststate.host_state())
    contend: dict = None            # what --contend arranged (Contender.to_json())

    started: datetime.datetime = None  # when the runner began this boot (UTC)
    ended: datetime.datetime = None    # when it was judged
    # What tells this run's record from every other, copies included (compare counts a
    # run once however often it is given).
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def runner_json(self):
        """Where and how the host booted this run: the "runner" member of its record."""
        ended = self.ended or runinfo.utc_now()
        started = self.started or ended - datetime.timedelta(seconds=self.seconds)
        return {
            "accel": self.spec.accel,
            "machine": self.spec.machine,
            "boot": self.spec.boot,
            "cpu": self.spec.cpu_option,
            "cpu_choice": self.cpu_choice,
            "smp": self.spec.smp,
            "memory_mib": self.spec.memory_mib,
            "qemu_command": self.command,
            "seconds": round(self.seconds, 3),
            "environment": self.spec.environment,
            "host": runinfo.host_facts(),
            "qemu_version": runinfo.qemu_version(self.command[0] if self.command
                                                 else qemu.qemu_program()),
            "xen_version": runinfo.xen_version() if self.spec.xen_boot else None,
            "revision": runinfo.clockbench_revision(),
            "argv": runinfo.argv(),
            "started_utc": runinfo.iso_utc(started),
            "ended_utc": runinfo.iso_utc(ended),
            **({"events": list(self.event_notes)} if self.event_notes else {}),
            **({"host_state": self.host_state} if self.host_state else {}),
            **({"contend": self.contend} if self.contend else {}),
        }

    def record(self, document=None, reason=None):
        """The run's record (schema clockbench/2): the guest's validated report `document`
        when there is one, else what the runner knows (the console's environment line and
        KTAP counts under "console"), with the runner's verdict, reason (`reason` in place
        of the outcome's, which a clean verdict lacks), its run id, QEMU's status, Xen's
        facts and the "runner" member."""
        record = dict(document) if document else {"schema": report.SCHEMA}
        if not document:
            record["console"] = {"env": self.report["env"], "checks": self.report["checks"]}
        reason = reason or self.reason or (None if document else "the run gave no report")
        record.update(run_id=self.run_id, verdict=self.verdict, reason=reason,
                      qemu_status=self.qemu_status,
                      xen=self.xen_facts.to_json() if self.xen_facts else None,
                      runner=self.runner_json())
        return record


def build_images(root, images):
    """Run `make -s` for `images` (paths relative to `root`); RunnerError if it fails.
    Nothing to do for an installed runner (no Makefile under `root`).

    make's own output goes to stderr so that stdout keeps only the runner's report.
    """
    if paths.installed(root):
        return  # an installed runner: its images were built before they were installed
    images = list(dict.fromkeys(images))
    try:
        result = subprocess.run(["make", "-C", root, "-s", *images], stdin=subprocess.DEVNULL,
                                stdout=sys.stderr, check=False)
    except OSError as error:
        raise RunnerError(f"cannot run make: {os.strerror(error.errno)}.") from None
    if result.returncode != 0:
        raise RunnerError(f"building {' '.join(images)} failed (make exited with status "
                          f"{result.returncode}); see make's messages above.")


def check_image(root, image, built):
    """RunnerError unless the image (or the hypervisor) exists under `root`; returns its
    absolute path."""
    path = os.path.join(root, image)
    if not os.path.isfile(path) and paths.installed(root):
        raise RunnerError(f"{image} is not installed in {root}: `make install` installs "
                          f"what was built before it (e.g. `make dom0` for the domU boots).")
    if not os.path.isfile(path):
        hint = "" if built else f"; run `make {image}` or drop --no-build"
        raise RunnerError(f"{image} does not exist{hint}.")
    return path


def hang_reason(timeout_s, last_line):
    """The message for a boot that reached no verdict in time."""
    return (f"hang: no verdict after {timeout_s:g} s; last line seen: "
            f"{quote(last_line) if last_line else '(none)'}")


def interrupted_reason(signal_name, seconds, last_line):
    """The message for a boot whose runner was stopped by a signal."""
    return (f"interrupted by {signal_name} after {seconds:.1f} s, before the run ended; "
            f"last line seen: {quote(last_line) if last_line else '(none)'}")


def interrupted_outcome(spec, command, stop):
    """The BootOutcome (an error) of a boot stopped by outcome.Terminated `stop`, from
    what its process_result holds."""
    result = stop.process_result
    return BootOutcome(spec=spec, verdict="error",
                       reason=interrupted_reason(stop.signal_name, result.seconds,
                                                 result.last_line),
                       qemu_status=None, seconds=result.seconds, lines=result.lines,
                       report=parse_report(result.console_lines), command=command,
                       started=stop.started, ended=runinfo.utc_now())


def end_lines(spec):
    """The console lines after which the machine never comes back, so that QEMU is stopped:
    the guest's own when it halts after its verdict, and Xen's when dom0 has ended."""
    if spec.boot == "linux":  # /init ends QEMU, or powers off
        return None
    if not spec.xen_boot:
        return HALT_LINE
    if spec.dom0_kernel:  # a domU's halt is dom0's runner's to see
        return xen.END_LINE
    return re.compile(f"(?:{HALT_LINE.pattern})|(?:{xen.END_LINE.pattern})")


def command_lines(spec, command):
    """What -v prints before a boot: the QEMU command, shell-quoted so that it can be
    pasted, and for a boot under Xen Xen's command line; each under a heading."""
    lines = ["QEMU command:", "  " + shlex.join(command)]
    if spec.xen_command_line is not None:
        lines += ["Xen's command line:", "  " + spec.xen_command_line]
    return lines


def console_problem(spec, loss, received_bytes):
    """Why the console lost output, in a sentence, or None: the guest said it gave up on
    bytes (model.console.parse_console_loss()), or, on QEMU's own guests' consoles, the
    runner received fewer bytes before the guest's account line than the guest says it
    wrote (firmware lines and COM1's "\r" only ever add bytes).  Under Xen and Linux the
    console carries others' output, so only the guest's own word counts there."""
    if not loss:
        return None
    if loss["lost_bytes"]:
        return f"the guest's console may have lost output: {quote(loss['said'], 400)}"
    if (not spec.xen_boot and not spec.runs_user and received_bytes is not None
            and received_bytes < loss["written_bytes"]):
        return (f"the console lost output on the way: the guest wrote "
                f"{loss['written_bytes']} bytes before its account line, the runner "
                f"received {received_bytes}")
    return None


def event_driver(spec, command, work_dir, events):
    """The lifecycle.EventDriver of a boot with `events` (checked against `spec`), with
    its scratch drive for savevm made; None without events."""
    if not events:
        return None
    lifecycle.check_boot(spec, events)
    if lifecycle.dom0_drives(spec.boot):
        return None  # dom0's clockbench-domu carries them out
    name = f"events-{os.getpid()}"
    if any(e.kind == "savevm" for e in events):
        disk = os.path.join(work_dir, f"{name}.qcow2")
        lifecycle.make_scratch_disk(disk)
        command = command + lifecycle.drive_arguments(disk)
    return lifecycle.EventDriver(events, command, work_dir, name)


def boot_once(spec, root, timeout_s, work_dir, log_path, echo=None, environ=os.environ,
              before=None, events=()):
    """Boot the image for `spec` (built and checked by the caller) once and judge the result.

    Per-boot files go to `work_dir`, the cleaned console to `log_path`; `before(spec,
    command)`, when given, is called with QEMU's argument vector just before it starts.  Under Xen, a run
    that ends without QEMU's verdict status but with Xen saying how dom0 ended (the guest
    shut dom0 down, or it crashed) is judged by xen.judge_end().  A boot that runs
    clockbench-user is judged by the program's last line (linux.judge()); in the Linux PV
    domU, by that line and dom0's runner (xen.judge_domu()).  With `events`
    (lifecycle.EventSpec, the guest options already asking for them) the runner answers
    the guest's event points; an event it could not carry out, or one the guest never
    reached, makes the run an error with the runner's sentence.
    """
    image = os.path.join(root, spec.image)
    hypervisor = os.path.join(root, spec.hypervisor) if spec.hypervisor else None
    files = qemu.prepare_boot_files(spec, work_dir)
    command = qemu.build_qemu_command(spec, qemu.qemu_program(environ), image, files,
                                      hypervisor)
    driver = event_driver(spec, command, work_dir, events)
    if driver:
        command = driver.source_command()
    contender = None
    if spec.contend and not spec.xen_boot:  # a domU's: dom0's runner arranges it
        contender = contend.Contender(work_dir, f"run-{os.getpid()}-{id(spec):x}",
                                      timeout_s + contend.BOUND_MARGIN_S)
        command = command + contender.arguments()
    # Asked now, while QEMU boots, so that even an interrupted run's record has it.
    runinfo.ask_qemu_version(command[0])
    if before:
        before(spec, command)
    started = runinfo.utc_now()
    watch = hoststate.HostWatch()
    try:
        result = run_process(command, timeout_s, log_path, echo, end_line=end_lines(spec),
                             driver=driver, watch=watch, contender=contender,
                             stalled_reader=spec.console_reader == "stalled")
    except Terminated as stop:
        stop.started = started
        if stop.process_result is not None:
            stop.outcome = interrupted_outcome(spec, command, stop)
            stop.outcome.contend = contender.to_json() if contender else None
            stop.outcome.host_state = watch.finish(
                stop.outcome.contend["said"] if contender else None)
        raise
    report = parse_report(result.console_lines)
    facts = (xen.parse_xen_log(result.console_lines, spec.xen_command_line)
             if spec.xen_boot else None)
    if result.timed_out:
        verdict, reason = "hang", hang_reason(timeout_s, result.last_line)
    elif result.stalled:
        verdict, reason = "error", (f"QEMU stopped the guest: {quote(result.stall_line)} "
                                    f"(the log has QEMU's register dump)")
    elif result.stop_reason is None and (
            stopped := qemu.signal_stop_reason(result.stderr_lines)):
        verdict, reason = "error", stopped
        if report["final"]:
            reason += f", although the console said 'clockbench: {report['final'].upper()}'"
    elif spec.runs_user and spec.runs_domu:
        said = osreport.verdict_of(result.console_lines)
        verdict, reason = xen.judge_domu(result.status, said.lower() if said else None,
                                         result.console_lines, linux.USER)
    elif spec.runs_user:
        said = osreport.verdict_of(result.console_lines)
        verdict, reason = linux.judge(result.status, said.lower() if said else None,
                                      facts.end if facts else None)
    elif facts and facts.end and status_verdict(result.status) is None:
        verdict, reason = xen.judge_end(facts.end, report["final"], report["end"])
    elif spec.runs_domu:
        verdict, reason = xen.judge_domu(result.status, report["final"], result.console_lines)
    elif result.ended and not HALT_LINE.match(result.end_line):
        verdict, reason = "error", f"Xen stopped the machine: {quote(result.end_line)}"
    else:
        verdict, reason = judge(result.status, report["final"], report["end"])
        said = qemu.start_error_line(result.stderr_lines)
        if verdict == "error" and said and result.status is not None and (
                result.status == 1 or result.status < 0):
            reason += ": " + said
    contended = (contender.to_json() if contender else
                 xen.domu_contend(result.console_lines, spec.smp) if spec.contend else None)
    if spec.contend and not contended and verdict in ("pass", "skip"):
        verdict, reason = "error", ("--contend was asked, but dom0's runner never said it "
                                    "arranged it")
    lost = console_problem(spec, report["console_loss"], result.console_bytes)
    if lost and verdict in ("pass", "skip"):
        verdict, reason = "error", lost
    elif lost:  # the guest's own failure stands, with the sentence
        reason = f"{reason}; {lost}" if reason else lost
    if spec.events and (failed := xen.domu_event_failures(result.console_lines)):
        # dom0's runner carried out the events: its sentence says why one failed.
        reason = f"{reason}; dom0: {'; '.join(failed)}" if reason else "; ".join(failed)
    if driver and driver.problem and verdict in ("pass", "skip"):
        verdict, reason = "error", driver.problem
    elif driver and driver.problem:  # the guest's own failure stands, with the sentence
        reason = f"{reason}; {driver.problem}" if reason else driver.problem
    return BootOutcome(spec=spec, verdict=verdict, reason=reason, qemu_status=result.status,
                       seconds=result.seconds, lines=result.lines, report=report,
                       command=command, xen_facts=facts, started=started,
                       ended=runinfo.utc_now(),
                       event_notes=tuple(driver.notes) if driver else (),
                       contend=contended,
                       host_state=watch.finish(contended["said"] if contended else None))
