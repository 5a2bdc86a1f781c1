# SPDX-License-Identifier: MIT
"""`clockbench host`: clockbench-user on this machine itself (docs/os-layer.md), so that
what the host's own clock reads cost sits beside what its guests see.

The program's tables stream to stdout as it prints them; its JSON document is
validated against docs/os-report.schema.json and, with --json, written to a file.
SIGINT and SIGTERM reach the program, which puts the original clocksource back before
it ends (--switch).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from ..base import paths
from ..model import osreport
from ..boot.once import build_images, check_image
from ..base.outcome import EXIT_ERROR, INTERRUPTED_EXITS, VERDICT_EXIT, RunnerError, Terminated

PROGRAM = f"{paths.BUILD_DIR}/clockbench-user"
# clockbench-user's --budget-ms range (user/main.c).
MIN_BUDGET_MS = 50
MAX_BUDGET_MS = 600000
# How long the program may take to end once asked to (it restores the clocksource).
STOP_WAIT_S = 10


def say(message):
    """One sentence from `clockbench host` on stderr."""
    print(f"clockbench host: {message}", file=sys.stderr, flush=True)


def program_command(program, switch, budget_ms, json_path):
    """The command line of clockbench-user for `host`."""
    command = [program, "--json", json_path]
    if switch:
        command.append("--switch")
    if budget_ms is not None:
        command += ["--budget-ms", str(budget_ms)]
    return command


def _stop(process):
    """Ask the program to end (it restores the clocksource), then make it."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_program(command):
    """Run clockbench-user, its output streamed to ours; returns its exit status."""
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as error:
        raise RunnerError(f"cannot run {command[0]}: {error.strerror}.") from None
    try:
        return process.wait()
    except (KeyboardInterrupt, Terminated):
        _stop(process)
        raise


def verdict_from_status(status):
    """The program's verdict from its exit status (user/main.c), or None for another."""
    for verdict, code in osreport.EXIT_STATUS.items():
        if code == status:
            return verdict.lower()
    return None


def cmd_host(args):
    """`clockbench host`: measure this machine's clock reads through Linux."""
    if not args.no_build:
        build_images(paths.ROOT, [PROGRAM])
    program = check_image(paths.ROOT, PROGRAM, built=not args.no_build)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="clockbench-host-") as scratch:
        json_path = os.path.join(scratch, "os.json")
        status = run_program(program_command(program, args.switch, args.budget_ms,
                                             json_path))
        verdict = verdict_from_status(status)
        if verdict is None:
            raise RunnerError(f"clockbench-user ended with status {status}, which is no "
                              f"verdict (a crash, or a signal: "
                              f"{-status if status < 0 else 'none'}).")
        if not os.path.isfile(json_path):
            raise RunnerError(f"clockbench-user ended with {verdict.upper()} before writing "
                              f"its JSON document; its sentence above says why.")
        document = osreport.load_os_report_file(json_path)
    if document["verdict"] != verdict:
        raise RunnerError(f"clockbench-user's document says {document['verdict']} but its "
                          f"exit status says {verdict}.")
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=2)
                out.write("\n")
        except OSError as error:
            raise RunnerError(f"cannot write {args.json}: {error.strerror}.") from None
    runs = document["runs"]
    print(f"clockbench host: {verdict.upper()} ({len(runs)} clocksource"
          f"{'s' * (len(runs) != 1)}: {' '.join(run['clocksource'] for run in runs)}, "
          f"{time.monotonic() - started:.1f} s)", flush=True)
    return VERDICT_EXIT.get(verdict, EXIT_ERROR)


def budget_ms(text):
    """argparse type: clockbench-user's --budget-ms, a whole number of ms in its range."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not MIN_BUDGET_MS <= value <= MAX_BUDGET_MS:
        raise argparse.ArgumentTypeError(f"takes a number of ms from {MIN_BUDGET_MS} to "
                                         f"{MAX_BUDGET_MS}, not '{text}'")
    return value


def add_host_parser(subparsers):
    """The `host` subcommand's options."""
    parser = subparsers.add_parser(
        "host", help="measure this machine's own clock reads through Linux",
        description="Run clockbench-user on this machine: each clock id of clock_gettime(),\n"
                    "gettimeofday() and time() through the vDSO and through the system\n"
                    "call, and rdtsc, on the current clocksource (every available one with\n"
                    "--switch, as root).  docs/os-layer.md explains every column.",
        epilog="exit statuses:\n  0   pass\n  1   a check failed (a monotonic clock stepped "
               "back or warped)\n  2   error: the program or its document is broken, or "
               "the clocksource\n      could not be put back\n  77  skip: nothing could "
               f"be checked\n{INTERRUPTED_EXITS}; the program is stopped too",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--switch", action="store_true",
                        help="as root: every available clocksource in turn, the current one "
                             "restored at the end (also on Ctrl-C)")
    parser.add_argument("--budget-ms", type=budget_ms, metavar="MS",
                        help="measuring time per clocksource (default: the program's, "
                             "2000)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the validated clockbench-os/1 document to FILE")
    parser.add_argument("--no-build", action="store_true",
                        help=f"do not run make for {PROGRAM}")
    parser.set_defaults(handler=cmd_host)
