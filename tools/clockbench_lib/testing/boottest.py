# SPDX-License-Identifier: MIT
"""`clockbench test`: the boot tests of tests/tests.cfg chosen, prepared, run side by side
and judged, with TAP lines as they end (testreport) and a JUnit file."""

import contextlib
import datetime
import os
import re
import shlex
import threading
from dataclasses import replace

from ..base import paths
from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from ..model import console, osreport, report
from ..model.record import write_json
from ..boot import bootgate, guestopts, kvmprobe, qemu
from ..boot.once import boot_once, build_images, check_image
from ..boot.process import stop_all
from ..boot.runner import checks_guest_options, command_announcer, kvm_cpu_choice, say
from . import beside, testreport
from .reportchecks import run_report_checks
from .testlist import TESTS_CFG, load_tests_cfg, select_boot_tests
from .testreport import TestResult

TESTS_DIR = os.path.join(paths.BUILD_DIR, "tests")


def _first_matching_line(pattern, lines):
    """The first line `pattern` finds something in, or None."""
    regex = re.compile(pattern)
    return next((line for line in lines if regex.search(line)), None)


def evaluate_boot_test(test, verdict, reason, lines, log_name="the log"):
    """Judge a boot against its tests.cfg line: returns (state, reason or None), the
    reason being judge_boot_test()'s problems in one sentence."""
    state, problems = judge_boot_test(test, verdict, reason, lines, log_name)
    return state, "; ".join(problems) if problems else None


def judge_boot_test(test, verdict, reason, lines, log_name="the log", record=None):
    """Judge a boot against its tests.cfg line: returns (state, the problems in words).

    A guest SKIP that the line did not expect makes the test a skip; otherwise the
    verdict must equal expect=, every match= / no nomatch= regex must be found, and the
    guest's JSON report must pass every report= check (`log_name` names the log), and
    every check= must find the guest's check with its result; with `record` (the
    outcome's BootOutcome.record), json= sees the run's record, runner member and all.  A
    verdict that comes with a reason (Xen saying dom0 crashed) gives
    it when it is wrong.
    """
    if verdict in ("error", "hang"):
        return "not ok", [reason]
    if verdict == "skip" and test.expect != "skip":
        return "skip", ["the guest reported SKIP; last lines: "
                        + console.quote(" | ".join(testreport.console_tail(lines, 3)))]
    problems = []
    if verdict != test.expect:
        problems.append(f"expected {test.expect.upper()}, the guest reported {verdict.upper()}"
                        + (f": {reason}" if reason else ""))
    text = "\n".join(lines)
    for pattern in test.match:
        if not re.search(pattern, text, re.MULTILINE):
            problems.append(f"no line matches /{pattern}/")
    for pattern in test.nomatch:
        if re.search(pattern, text, re.MULTILINE):
            found = _first_matching_line(pattern, lines) or "(across lines)"
            problems.append(f"/{pattern}/ must not match but matched: "
                            f"{console.quote(found.strip())}")
    problems += run_report_checks(test.report, lines, log_name, test.json,
                                  test.spec.runs_user, record, test.checks)
    return ("not ok" if problems else "ok"), problems


def boot_log_name(test, boot):
    """The log of boot number `boot` (from 1) of `test`, under TESTS_DIR."""
    return f"{test.name}.log" if boot == 1 else f"{test.name}-{boot}.log"


def boot_record(spec, outcome, log_shown):
    """What `run --json` would have written for this boot, said quietly: the run's record
    (with the guest's report when it printed a valid one), or for a Linux boot
    clockbench-user's document with the runner member; None when the runner read no
    console at all (the boot never started)."""
    if outcome.report is None:
        return None
    if spec.runs_user:
        if (outcome.verdict in ("pass", "fail", "skip") and outcome.command is not None
                and osreport.has_os_report(outcome.lines)):
            with contextlib.suppress(RunnerError):
                document = osreport.load_os_report(outcome.lines, log_shown)
                return dict(document, runner=outcome.runner_json())
        return outcome.record(reason=outcome.reason or "no clockbench-user document")
    if outcome.verdict in ("pass", "fail", "skip") and report.has_report(outcome.lines):
        try:
            document = report.load_report(outcome.lines, log_shown)
        except RunnerError as error:
            return outcome.record(reason=str(error))
        return outcome.record(dict(document, schema=report.SCHEMA))
    return outcome.record(reason=outcome.reason)


def keep_record(log_name, record):
    """Write a boot's record (the run's record, or clockbench-user's document for a Linux
    boot) beside its log, NAME.json, so that what the suite measured can be read again
    (`clockbench compare`, `clockbench verdict`) without booting again; a boot without one
    leaves no file, and none of an earlier suite's."""
    path = paths.work_path(TESTS_DIR, os.path.splitext(log_name)[0] + ".json")
    if record is None:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
        return
    write_json(path, record)


def names_differ(first, other, boot):
    """A sentence saying where boot number `boot`'s KTAP check names part from the first
    boot's, or None when they are the same."""
    for index, (one, two) in enumerate(zip(first, other)):
        if one != two:
            return (f"check {index + 1} is named '{two}' in boot {boot} but '{one}' in "
                    f"boot 1: a name must not carry a figure")
    if len(first) != len(other):
        return f"boot {boot} made {len(other)} checks, boot 1 {len(first)}"
    return None


def run_boot_test(test, before=None):
    """Run one boot test (its image already built) test.repeat times; returns a TestResult:
    the first boot that does not pass the line, or the first whose check names differ."""
    seconds, first_names = 0.0, None
    for boot in range(1, test.repeat + 1):
        log_name = boot_log_name(test, boot)
        try:
            outcome = boot_once(test.spec, paths.ROOT, test.timeout_s,
                                paths.work_path(TESTS_DIR, "work", test.name),
                                paths.work_path(TESTS_DIR, log_name), before=before,
                                events=test.events)
        except RunnerError as error:
            return TestResult(state="not ok", reason=str(error), problems=(str(error),),
                              broken=True)
        seconds += outcome.seconds
        log_shown = os.path.join(TESTS_DIR, log_name)
        keep_record(log_name, boot_record(test.spec, outcome, log_shown))
        state, problems = judge_boot_test(test, outcome.verdict, outcome.reason,
                                          outcome.lines, log_shown, outcome.record)
        names = console.parse_check_names(outcome.lines)
        if state == "ok" and first_names is not None:
            differ = names_differ(first_names, names, boot)
            state, problems = ("not ok", [differ]) if differ else (state, problems)
        if state != "ok" or boot == test.repeat:
            if state != "ok" and test.repeat > 1:
                problems = [f"boot {boot} of {test.repeat}: {problem}" for problem in problems]
            broken = outcome.verdict in ("error", "hang")
            return TestResult(state=state, reason="; ".join(problems) or None,
                              seconds=seconds, problems=tuple(problems),
                              verdict=outcome.verdict, expect=test.expect,
                              guest_failures=testreport.guest_failures(outcome.lines),
                              tail=testreport.console_tail(outcome.lines) if broken else (),
                              broken=broken, log=log_shown)
        if first_names is None:
            first_names = names
    raise AssertionError("repeat is at least 1")


def test_assertions(test):
    """What a boot test asserts, one `key=value` a line, in its line's order of kinds."""
    return ([f"match={pattern}" for pattern in test.match]
            + [f"nomatch={pattern}" for pattern in test.nomatch]
            + [f"report={name}" for name in test.report]
            + [f"json={expectation.text}" for expectation in test.json]
            + [f"check={expectation.text}" for expectation in test.checks])


def format_test_listing(tests):
    """For --list, per test: a line with its name, boot path, machine, accel, profile,
    expect, groups and the Xen options when there are any; then what it asserts, one
    assertion a line."""
    width = max((len(test.name) for test in tests), default=0)
    lines = []
    for test in tests:
        lines.append(f"{test.name:<{width}}  {test.spec.boot:<10} {test.spec.machine:<3} "
                     f"{test.spec.accel} profile={test.profile or '-'} expect={test.expect} "
                     f"groups={','.join(test.groups) or '-'}"
                     + (f" xen_args={shlex.quote(test.spec.xen_args)}"
                        if test.spec.xen_args else ""))
        lines += [f"    {assertion}" for assertion in test_assertions(test)]
    return lines


def kvm_models(tests, kvm_choice=None):
    """Settle the CPU model of every accel=kvm test: returns (the tests, those without a
    cpu= of their own given the model KVM starts on this host; {name: skip reason} for
    the accel=kvm tests that cannot run, because KVM is unusable or no model starts; a
    note saying which model, or None when no test needed one)."""
    kvm_tests = [test for test in tests if test.spec.accel == "kvm"]
    if not kvm_tests:
        return tests, {}, None
    usable, reason = qemu.kvm_status()
    if not usable:
        return tests, {test.name: reason for test in kvm_tests}, None
    if all(test.spec.cpu for test in kvm_tests):
        return tests, {}, None
    choice = (kvm_choice or kvm_cpu_choice)()
    if choice.model is None:
        return tests, {test.name: choice.reason for test in kvm_tests
                       if not test.spec.cpu}, choice.reason
    settled = [replace(test, spec=replace(test.spec, cpu=choice.model))
               if test.spec.accel == "kvm" and not test.spec.cpu else test for test in tests]
    return settled, {}, choice.reason


def linux_kvm_skips(tests, skips, build, notes=None):
    """{name: skip reason} for the chosen tests that boot Linux under KVM when this host's
    KVM emulates guest ring 0: one probe boot of the image decides (kvmprobe), when any
    such test is among `tests` and not in `skips` already.  What is said of the probe
    is appended to `notes` (printed when None)."""
    chosen = [test for test in tests if test.spec.runs_user and test.spec.accel == "kvm"
              and test.name not in skips]
    if not chosen:
        return {}
    if build:
        build_images(paths.ROOT, [kvmprobe.PROBE_IMAGE])
    check_image(paths.ROOT, kvmprobe.PROBE_IMAGE, built=build)
    ring0 = kvmprobe.probe(paths.ROOT, chosen[0].spec.cpu, work=paths.work_root())
    if ring0.problem:
        note = (f"linux tests under KVM: could not tell whether this KVM emulates guest "
                f"ring 0, so they boot: {ring0.problem}")
        if notes is None:
            print(f"# {note}", flush=True)
        else:
            notes.append(note)
    reason = ring0.linux_skip_reason()
    return {test.name: reason for test in chosen} if reason else {}


def prepare_tests(tests, build):
    """Check dependencies, build every image the tests need once, check the images exist,
    then the tests' guest options (check_test_options())."""
    if any(test.report or test.json or test.checks for test in tests):
        report.require_jsonschema()
    needed = [qemu.qemu_program()]
    for test in tests:
        needed += qemu.required_programs(test.spec, qemu.qemu_program(), build)
    qemu.check_dependencies(needed)
    checked = [test for test in tests if checks_guest_options(test.spec)]
    targets = list(dict.fromkeys(target for test in tests for target in test.spec.build_targets))
    if build and targets:
        build_images(paths.ROOT, targets + ([guestopts.OPTIONS_FILE] if checked else []))
    for target in targets:
        check_image(paths.ROOT, target, built=build)
    for test in tests:
        if test.memory_check:
            try:
                qemu.check_memory(test.spec, paths.ROOT)
            except RunnerError as error:
                raise RunnerError(f"{TESTS_CFG}:{test.line_no}: {test.name}: {error} "
                                  f"(memory_check=off boots it all the same)") from None
    check_test_options(checked)


def check_test_options(tests):
    """Refuse, before any boot, a test whose args= the image's table refuses, unless its
    line says expect=fail (it gives the image a wrong option on purpose, to see the
    image refuse it); say so and go on when the table is missing."""
    table = guestopts.load_table() if tests else None
    if tests and table is None:
        say("test", guestopts.table_note())
    for test in tests if table else ():
        problem = guestopts.cmdline_problem(test.spec.cmdline, table)
        if problem and test.expect != "fail":
            raise RunnerError(f"{TESTS_CFG}:{test.line_no}: {test.name}: {problem} (a test "
                              f"that gives the image a wrong option on purpose says "
                              f"expect=fail).")


def run_boot_tests(tests, skips, jobs, verbose=False, when_shared=None):
    """Run `tests` on `jobs` workers, printing results in list order (TAP lines); returns
    the results.  `verbose` prints each boot's QEMU command before it starts.  A boot that
    measures ticks under TCG runs alone (bootgate.py says why); `when_shared`, if given,
    is called once no such boot is left to run."""
    results = []
    gate = bootgate.BootGate()
    alone = {test.name: bootgate.runs_alone(test) for test in tests}
    alone_left = [sum(alone[test.name] for test in tests if test.name not in skips)]
    alone_lock = threading.Lock()

    def alone_ended():
        with alone_lock:
            alone_left[0] -= 1
            if alone_left[0] == 0 and when_shared:
                when_shared()

    def run_gated(test):
        try:
            with gate.boot(alone=alone[test.name]):
                return run_boot_test(test, command_announcer("test", test.name)
                                     if verbose else None)
        finally:
            if alone[test.name]:
                alone_ended()

    if when_shared and not alone_left[0]:
        when_shared()

    # Imported here: it brings logging, a seventh of the runner's start-up.
    import concurrent.futures  # pylint: disable=import-outside-toplevel
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        # The boots that run alone first, one after another, then the others two at
        # once, those allowed the longest first (the Xen domU boots, 1-2 minutes
        # each under TCG), so that the suite does not end waiting for one of them:
        # one alone among the others would wait for a long boot beside it to end.
        # (The HVM domU, started first while it read its ISO from an IDE CD and
        # wrote COM1, printed nothing in 450 s beside the Xen or KVM boots; since
        # both are virtio it runs in 60-125 s.)
        order = sorted(tests, key=lambda test: (not alone[test.name],
                                                0 if alone[test.name] else -test.timeout_s))
        futures = {test.name: pool.submit(run_gated, test)
                   for test in order if test.name not in skips}
        futures = [futures.get(test.name) for test in tests]
        try:
            for number, (test, future) in enumerate(zip(tests, futures), start=1):
                result = (TestResult(state="skip", reason=skips[test.name]) if future is None
                          else future.result())
                results.append(result)
                print("\n".join(testreport.result_lines(number, test.name, result)),
                      flush=True)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            stop_all()
            raise
    return results


def cmd_test(args):
    """`clockbench test`: run the boot tests of tests.cfg; exit 0 only if none failed."""
    shown = args.config or TESTS_CFG
    tests = load_tests_cfg(args.config or paths.root_path(TESTS_CFG), shown)
    chosen = select_boot_tests(tests, args.names, args.group, shown)
    if not chosen:
        raise RunnerError(f"none of the boot tests named is in group '{args.group}'."
                          if args.group else f"{shown} lists no boot test.")
    if args.list:
        print("\n".join(format_test_listing(chosen)))
        return EXIT_PASS
    started = datetime.datetime.now(datetime.timezone.utc)
    if args.junit:
        testreport.check_junit_path(args.junit)
    chosen, skips, kvm_note = kvm_models(chosen)
    notes = [f"accel=kvm tests: {kvm_note}"] if kvm_note else []
    skips.update(linux_kvm_skips(chosen, skips, not args.no_build, notes))
    prepare_tests([test for test in chosen if test.name not in skips], not args.no_build)
    print("\n".join([testreport.TAP_VERSION, f"1..{len(chosen)}"]
                    + [f"# {note}" for note in notes]), flush=True)
    neighbour = (beside.Beside(args.beside, paths.work_path(TESTS_DIR, "beside.log"))
                 if args.beside else None)
    try:
        results = run_boot_tests(chosen, skips, args.jobs, args.verbose,
                                 neighbour.start if neighbour else None)
    except BaseException:
        if neighbour:
            neighbour.stop()
        raise
    print(testreport.totals_line(results), flush=True)
    beside_failed = False
    if neighbour:
        output, problem = neighbour.finish()
        print(output, end="" if output.endswith("\n") or not output else "\n", flush=True)
        if problem:
            say("test", problem)
            beside_failed = True
    if args.junit:
        seconds = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
        testreport.write_junit(args.junit, [test.name for test in chosen], results, seconds,
                               started)
    return EXIT_FAIL if beside_failed or any(result.state == "not ok" for result in results) \
        else EXIT_PASS
