# SPDX-License-Identifier: MIT
"""`clockbench run`: boot one image, stream its console, and exit with the guest's verdict;
with --json, write the run's record (the guest's report and the runner member), or for the
Linux boots clockbench-user's document with the runner member."""

import os
import sys
from dataclasses import dataclass

from ..base import paths
from ..base.outcome import VERDICT_EXIT, RunnerError, Terminated
from ..model import console, osreport, report
from ..model.console import parse_report
from ..model.record import write_json
from . import cpumodel, guestopts, kvmprobe, lifecycle, linux, qemu, xen
from .once import BootOutcome, boot_once, build_images, check_image
from .process import stop_all
from .runner import checks_guest_options, command_announcer, kvm_cpu_choice, say

RUN_DIR = os.path.join(paths.BUILD_DIR, "run")


@dataclass(frozen=True)
class AccelChoice:
    """What a run boots with: the accelerator, the -cpu model ("" for QEMU's default),
    a sentence to print (why TCG, or which model KVM starts here) or None, and why this
    model when the runner chose it (None when the user gave it, or under TCG)."""

    accel: str
    cpu: str = ""
    note: str = None
    cpu_reason: str = None


def choose_accel(requested, boot="multiboot1", cpu="", kvm_path=qemu.KVM_DEVICE,
                 kvm_choice=None):
    """Pick the accelerator and the -cpu model: returns an AccelChoice.

    With no request, KVM when usable and some CPU model starts under it, else TCG with a
    note saying why; an explicit request for KVM that cannot be met is a RunnerError.  A
    `cpu` the user gave is used as it is; otherwise under KVM the model `kvm_choice()`
    found for this host (cpumodel), and "" under TCG (QEMU's default there, max).  Xen
    boots run under TCG only, and asking for KVM with one is a RunnerError too.
    """
    if boot in xen.XEN_BOOTS and requested == "kvm":
        raise RunnerError(xen.KVM_REFUSAL)
    if requested == "tcg" or boot in xen.XEN_BOOTS:
        return AccelChoice("tcg", cpu)
    usable, reason = qemu.kvm_status(kvm_path)
    if not usable:
        if requested == "kvm":
            raise RunnerError(f"{reason}, so --accel kvm cannot be used (try --accel tcg).")
        return AccelChoice("tcg", cpu, f"{reason}; using TCG")
    if cpu:
        return AccelChoice("kvm", cpu)
    choice = (kvm_choice or kvm_cpu_choice)()
    if choice.model == cpumodel.FIRST_MODEL:
        return AccelChoice("kvm", choice.model, None, choice.reason)
    if choice.model:
        return AccelChoice("kvm", choice.model, f"KVM with {choice.reason}", choice.reason)
    if requested == "kvm":
        raise RunnerError(f"{choice.reason}, so --accel kvm cannot be used (try --accel tcg).")
    return AccelChoice("tcg", "", f"{choice.reason}; using TCG")


def echo_console(line, stream):
    """Show one line of QEMU output live: the console on stdout, QEMU's messages on stderr."""
    print(line, file=sys.stderr if stream == "stderr" else sys.stdout, flush=True)


def error_outcome(spec, reason):
    """A BootOutcome for a run that stopped before QEMU started."""
    return BootOutcome(spec=spec, verdict="error", reason=reason, qemu_status=None,
                       seconds=0.0, lines=[], report=parse_report([]), command=None)


def check_guest_options(command, spec):
    """Refuse (RunnerError, exit 2) guest options the image would refuse, before it boots,
    by the image's own table (guestopts); say so and go on when the table is missing."""
    table = guestopts.load_table()
    if table is None:
        say(command, guestopts.table_note())
        return
    guestopts.check_cmdline(spec.cmdline, table)


def prepare_run(args, spec):
    """Check dependencies and build (unless --no-build) the image `spec` needs, then the
    guest options (and the table they are checked against).  `spec` is validated."""
    build = not args.no_build
    checked = checks_guest_options(spec, args.unchecked_options)
    qemu.check_dependencies(qemu.required_programs(spec, qemu.qemu_program(), build))
    if build:
        build_images(paths.ROOT, list(spec.build_targets)
                     + ([guestopts.OPTIONS_FILE] if checked else []))
    if checked:
        check_guest_options("run", spec)
    for target in spec.build_targets:
        check_image(paths.ROOT, target, built=build)
    qemu.check_memory(spec, paths.ROOT)


def run_json_document(outcome, log_shown):
    """What `run --json` writes: the run's record (clockbench/2), with the guest's JSON
    report in it when the run ended with the guest's verdict and the guest printed one.

    Otherwise (a fault, hang or error before or during the report, an older guest) the
    record holds what the runner knows.  A report that is there but broken makes the run
    an error, with the sentence saying what is wrong as its reason.
    """
    if outcome.verdict in ("pass", "fail", "skip") and report.has_report(outcome.lines):
        try:
            document = report.load_report(outcome.lines, log_shown)
            if document["schema"] != report.SCHEMA:  # an older guest's clockbench/1
                document = dict(document, schema=report.SCHEMA)
            record = outcome.record(document)
            report.validate_document(record, log_shown)
            return record
        except RunnerError as error:
            outcome.verdict, outcome.reason = "error", str(error)
    elif outcome.verdict in ("pass", "fail", "skip"):
        say("run", "the guest printed no JSON report; the --json file records the run "
                   "without it.")
        return outcome.record(reason="the guest printed no JSON report")
    return outcome.record()


def user_document(outcome, log_shown, required):
    """clockbench-user's document (clockbench-os/1) from a Linux boot's console, checked
    against its schema and against the run's verdict, or None.

    When the run ended with the program's verdict, a document that is missing (only when
    `required`, i.e. for --json), broken or that says another verdict makes the run an
    error, with the sentence saying what is wrong as its reason; without `required` a
    broken document is only said.
    """
    if outcome.verdict not in ("pass", "fail", "skip") or outcome.command is None:
        return None
    if not osreport.has_os_report(outcome.lines):
        if required:
            say("run", f"{linux.PROGRAM} printed no JSON document; the --json file records "
                       f"the run without it ({report.SCHEMA}).")
        return None
    try:
        document = osreport.load_os_report(outcome.lines, log_shown)
    except RunnerError as error:
        if not required:
            say("run", f"{linux.PROGRAM}'s document is broken: {error}")
            return None
        outcome.verdict, outcome.reason = "error", str(error)
        return None
    if document["verdict"] != outcome.verdict:
        outcome.verdict, outcome.reason = "error", (
            f"{log_shown}: {linux.PROGRAM}'s document says {document['verdict'].upper()} "
            f"but its last line and QEMU's exit status say {outcome.verdict.upper()}")
        return None
    return document


def linux_kvm_skip(args, cpu):
    """Why a Linux boot under KVM with -cpu `cpu` cannot run usefully on this host, or
    None to boot it: the image's own probe boot says whether this KVM emulates guest
    ring 0 (kvmprobe)."""
    if not args.no_build:
        build_images(paths.ROOT, [kvmprobe.PROBE_IMAGE])
    check_image(paths.ROOT, kvmprobe.PROBE_IMAGE, built=not args.no_build)
    ring0 = kvmprobe.probe(paths.ROOT, cpu, work=paths.work_root())
    if ring0.problem:
        say("run", f"could not tell whether this KVM emulates guest ring 0, so Linux boots "
                   f"all the same: {ring0.problem}")
    return ring0.linux_skip_reason()


def skip_outcome(spec, reason):
    """A BootOutcome for a run that is skipped before QEMU starts."""
    return BootOutcome(spec=spec, verdict="skip", reason=reason, qemu_status=None,
                       seconds=0.0, lines=[], report=parse_report([]), command=None)


def run_echo(human, quiet):
    """The live echo of `run`: the console on `human` (stdout, or stderr when stdout holds
    the JSON document), only what console.quiet_shows() when `quiet`; QEMU's own
    messages on stderr."""
    def echo(line, stream):
        if stream == "stderr":
            print(line, file=sys.stderr, flush=True)
        elif not quiet or console.quiet_shows(line):
            print(line, file=human, flush=True)
    return echo


def cmd_run(args):
    """`clockbench run`: boot once, stream the console, exit with the verdict."""
    human = sys.stderr if args.json == "-" else sys.stdout  # stdout holds the document
    if args.json:
        report.require_jsonschema()
    events = lifecycle.parse_events(getattr(args, "event", ()))
    chosen = choose_accel(args.accel, boot=args.boot, cpu=args.cpu)
    skip = None
    if args.boot in linux.USER_BOOTS and chosen.accel == "kvm":
        skip = linux_kvm_skip(args, chosen.cpu)
        if skip and args.accel != "kvm":  # KVM was only the default: take TCG
            chosen, skip = AccelChoice("tcg", args.cpu, f"{skip}; using TCG"), None
    spec = qemu.BootSpec(boot=args.boot, machine=args.machine or qemu.default_machine(args.boot),
                         accel=chosen.accel,
                         smp=args.smp,
                         memory_mib=args.memory or qemu.default_memory_mib(args.boot),
                         cmdline=" ".join(([args.options] if args.options else [])
                                          + args.guest_options),
                         machine_opts=args.machine_opts, cpu=chosen.cpu,
                         xen_args=args.xen_args, firmware=args.firmware,
                         linux_args=getattr(args, "linux_args", ""),
                         console=args.console or "",
                         contend=getattr(args, "contend", False),
                         timeout_s=args.timeout or (qemu.default_timeout_s(chosen.accel,
                                                                           args.boot)
                                                    + lifecycle.extra_timeout_s(events)))
    spec = lifecycle.with_events(spec, events)
    qemu.validate_spec(spec)  # a bad option is the one sentence, before any note
    lifecycle.check_boot(spec, events)
    if chosen.note:
        say("run", chosen.note)
    timeout_s = spec.timeout_s
    log_shown = args.log or (paths.work_path(RUN_DIR, "last.log") if paths.installed()
                             else os.path.join(RUN_DIR, "last.log"))
    for line in spec.workaround_lines:
        say("run", line)
    try:
        if skip:
            outcome = skip_outcome(spec, f"{skip} (--accel tcg runs it)")
        else:
            prepare_run(args, spec)
            outcome = boot_once(spec, paths.ROOT, timeout_s, paths.work_path(RUN_DIR),
                                args.log or paths.work_path(RUN_DIR, "last.log"),
                                echo=(run_echo(human, args.quiet)
                                      if args.quiet or human is not sys.stdout
                                      else echo_console),
                                before=command_announcer("run") if args.verbose else None,
                                events=events)
    except RunnerError as error:
        if args.json:
            failed = error_outcome(spec, str(error))
            failed.cpu_choice = chosen.cpu_reason
            write_json(args.json, failed.record())
        raise
    except Terminated as stop:
        if args.json:  # what the boot had seen, if it had started
            stop_all()
            stopped = stop.outcome or error_outcome(
                spec, f"interrupted by {stop.signal_name} before the run ended")
            stopped.cpu_choice = chosen.cpu_reason
            write_json(args.json, stopped.record())
        raise
    outcome.cpu_choice = chosen.cpu_reason
    os_document = (user_document(outcome, log_shown, bool(args.json)) if spec.runs_user
                   else None)
    document = None
    if args.json and os_document:
        # clockbench-user's document, with where and how it ran as a record has it.
        document = dict(os_document, runner=outcome.runner_json())
    elif args.json and spec.runs_user:
        document = outcome.record(reason=outcome.reason or f"{linux.PROGRAM} printed no JSON "
                                                           f"document")
    elif args.json:
        document = run_json_document(outcome, log_shown)
    for note in outcome.event_notes:
        say("run", note)
    if outcome.reason:
        say("run", outcome.reason)
    if outcome.host_state and outcome.host_state["busy"]:  # with what --contend arranged
        print(f"clockbench run: {outcome.host_state['said']}", file=human, flush=True)
    elif outcome.contend:
        print(f"clockbench run: {outcome.contend['said']}", file=human, flush=True)
    for line in outcome.xen_facts.summary_lines() if outcome.xen_facts else ():
        print(f"clockbench run: {line}", file=human, flush=True)
    for line in linux.summary_lines(os_document, spec.environment) if os_document else ():
        print(f"clockbench run: {line}", file=human, flush=True)
    for line in console.guest_failures(outcome.lines) if args.quiet else ():
        print(f"clockbench run: {line}", file=human, flush=True)  # -q hid the KTAP lines
    print(f"clockbench run: {outcome.verdict.upper()} ({spec.describe()}, "
          f"{outcome.seconds:.1f} s)", file=human, flush=True)
    if args.json:
        write_json(args.json, document)
    return VERDICT_EXIT[outcome.verdict]
