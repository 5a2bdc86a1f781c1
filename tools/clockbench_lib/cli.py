# SPDX-License-Identifier: MIT
"""The command line: argument parsing, then one call per command.

Every command's body lives in the package of its job: `run` boot/run.py, `test`
testing/boottest.py, `parse` model/parse.py, `matrix` compare/matrix.py, `compare`
compare/command.py, `verdict` compare/verdicts.py, `host` host/host.py, `lava` lava/command.py.  This module builds
their options (from the constants of the modules they describe), installs the signal
handlers, and turns a RunnerError, an interruption or a closed pipe into one sentence and
an exit status.
"""

import argparse
import os
import signal
import sys

from . import completion, version
from .base.outcome import (EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PASS, EXIT_TABLE,
                           INTERRUPTED_EXITS, STOP_SIGNALS, RunnerError, Terminated)
from .model import osreport, report
from .model.parse import cmd_parse
from .boot import cpumodel, guestopts, linux, qemu, runinfo, xen
from .boot.process import stop_all
from .boot.run import RUN_DIR, cmd_run
from .boot.runner import command_announcer, say
from .testing.boottest import TESTS_DIR, cmd_test
from .testing.testlist import FORMAT_HELP, TESTS_CFG
from .host import host
from .lava import command as lava

EXIT_BROKEN_PIPE = 141

NOTES = f"""\
logs:
  Logs hold QEMU's output (the serial console and QEMU's own messages, in the order
  they arrive) with ANSI escape sequences and control characters removed. The same
  cleaned lines are shown on the terminal and searched by tests.cfg's match=/nomatch=.

environment:
  {qemu.QEMU_ENV_OVERRIDE}=PROGRAM
      run PROGRAM instead of {qemu.QEMU_PROGRAM}, with the same arguments (for testing
      the runner with a fake QEMU, e.g. tests/tools/fake_qemu.py).

{EXIT_TABLE}"""


# ---------------------------------------------------------------------------- parser

def positive_int(text):
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of at least 1")
    return value


def positive_float(text):
    """argparse type: a number greater than 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number greater than 0")
    return value


def guest_options_help():
    """The `guest options` section of `run --help`, from the image's own table."""
    try:
        lines = guestopts.help_lines(guestopts.load_table())
    except RunnerError as error:
        lines = [f"  ({error})"]
    return "\n".join(
        [f"guest options (key=value after --; the image's table, {guestopts.OPTIONS_FILE},",
         "from lib/options.c; checked before the boot; the linux boots take",
         f"{linux.PROGRAM}'s options instead):"] + lines)


def add_run_parser(subparsers):
    """The `run` subcommand's options."""
    parser = subparsers.add_parser(
        "run", help="build and boot one image, streaming its serial console",
        description="Build (unless --no-build) and boot one clockbench image under QEMU,\n"
                    "stream its serial console, and exit with the guest's verdict.",
        epilog=f"{guest_options_help()}\n\n{NOTES}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the QEMU command (and Xen's command line) before the "
                             "boot, on stderr, quoted so that it can be pasted into a shell")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="show only the guest's tables, its sentences and the verdict: "
                             "no JSON, KTAP, (XEN) or Linux kernel lines, no progress lines "
                             "(the log still holds the whole console); the guest's failed "
                             "checks are repeated before the verdict")
    parser.add_argument("--accel", choices=qemu.ACCELS,
                        help="accelerator (default: kvm when /dev/kvm is usable, else tcg; "
                             "always tcg for the Xen boots; a linux boot under kvm is "
                             "skipped, saying why, where a probe boot of the image finds "
                             "that KVM emulates guest ring 0)")
    parser.add_argument("--machine", choices=qemu.MACHINES, default=None,
                        help="QEMU machine (default: pc; q35 for xen-pvh-dom0, which "
                             "needs an IOMMU; pc only for the domU and Linux boots)")
    parser.add_argument("--boot", choices=qemu.BOOTS, default="multiboot1",
                        help="boot path (default: multiboot1); under Xen 4.17 and TCG "
                             "(docs/xen.md): xen boots "
                             f"{qemu.BOOT_IMAGES['xen']} as a PV dom0 ({xen.XEN_BINARY}, "
                             f"from {xen.XEN_GZ}), xen-pvh-dom0 boots "
                             f"{qemu.BOOT_IMAGES['xen-pvh-dom0']} (GRUB, Xen and "
                             f"{qemu.BOOT_IMAGES['pvh']} as a PVH dom0) under OVMF, "
                             "xen-pv-domu, xen-pvh-domu and xen-hvm-domu boot the "
                             f"project's Linux dom0 ({xen.DOM0_KERNEL}, make dom0, "
                             "docs/dom0.md), which runs the image as that domU with --smp "
                             "vCPUs; linux boots the same Linux kernel and initramfs under "
                             "QEMU and xen-linux-dom0 as Xen's PV dom0, and both run "
                             f"{linux.PROGRAM} --switch --console with the guest options "
                             "(docs/os-layer.md); xen-linux-pv-domu has that dom0 boot the "
                             "same kernel as a PV domU with --smp vCPUs and its own small "
                             f"initramfs, which runs {linux.PROGRAM} so")
    parser.add_argument("--xen-args", default="", metavar="OPTS",
                        help="Xen boots: appended to Xen's command line, after "
                             f"'{xen.xen_options('N')}' (N: --smp; xen-pvh-dom0 adds "
                             f"dom0=pvh, the domU boots "
                             f"'{' '.join(xen.LINUX_DOM0_OPTIONS)}', xen-linux-dom0 "
                             f"'{' '.join(xen.LINUX_DOM0_ALONE_OPTIONS)}'), so they "
                             "override it; e.g. clocksource=tsc")
    parser.add_argument("--linux-args", default="", metavar="OPTS",
                        help="--boot linux: appended to Linux's kernel command line, after "
                             f"'{' '.join(linux.KERNEL_OPTIONS)}' (and tsc=reliable under "
                             "TCG with --smp above 1), e.g. clocksource=tsc")
    parser.add_argument("--machine-opts", default="", metavar="OPTS",
                        help="appended to QEMU's -machine, e.g. hpet=off or acpi=off")
    parser.add_argument("--firmware", choices=qemu.FIRMWARES, default="",
                        help="what starts a -kernel boot (multiboot1, pvh): qboot, QEMU's "
                             "minimal firmware (the default: it reaches the kernel in tens "
                             "of ms, where SeaBIOS's real mode takes seconds under this "
                             "project's nested kvm and hundreds of ms under a loaded tcg), "
                             "or seabios; ISO boots always use SeaBIOS or OVMF")
    parser.add_argument("--console", choices=qemu.CONSOLES, default="",
                        help="the guest's console: virtio, a virtio console beside COM1 "
                             "on the same output (the default; a buffer per notification "
                             "instead of a trapped port access per byte), or uart, COM1 "
                             "alone (always for the Xen and Linux boots)")
    parser.add_argument("--event", action="append", default=[], metavar="EVENT",
                        help="an event in the VM's life, repeatable, run in order at the "
                             "guest's event points (docs/lifecycle.md): stop[:TIME] (QMP "
                             "stop, then cont after TIME, e.g. 3s or 500ms; default 1s), "
                             "savevm[:TIME] (savevm, the VM running on for TIME, default 0, "
                             "then loadvm of that snapshot, on a scratch qcow2 under build/), "
                             "migrate (live migration to a second QEMU on a unix socket, "
                             "the run going on there); the -kernel boots and --boot linux "
                             "(clockbench-user answers them) under TCG or KVM, on COM1 "
                             "(--console uart, the default with --event); and for "
                             "the xen-pv-domu, xen-pvh-domu and xen-hvm-domu boots "
                             "pause[:TIME] (dom0's xl pause, then xl unpause after TIME; "
                             "default 1s), save[:TIME] (xl save, TIME, default 0, xl "
                             "restore) and migrate (xl migrate to the same host), the domU "
                             f"then getting {xen.DOMU_SAVE_MEMORY_MIB} MiB")
    parser.add_argument("--contend", action="store_true",
                        help="a busy neighbour on every vCPU's host CPU: QEMU starts "
                             "stopped, each vCPU thread is pinned to a host CPU of its own "
                             "(round and round when there are more vCPUs) and a busy loop "
                             "pinned beside it, then the guest runs; the loops stop when "
                             "the run ends (and by themselves after the timeout). The "
                             "record's runner.contend and the output say what was "
                             "arranged. For a Xen domU, dom0 pins the domU's vCPUs to one "
                             "physical CPU and runs a busy loop there, its own vCPUs pinned "
                             "beside them (docs/dom0.md). Not for Xen's dom0 boots or the "
                             "Linux boots, not with --event")
    parser.add_argument("--cpu", default="", metavar="MODEL",
                        help="QEMU -cpu model, used as given (default under kvm: the first "
                             "model this host's KVM starts: host, else host without each "
                             "feature whose MSR QEMU says KVM refused; found once per host "
                             f"and kept in {cpumodel.CACHE_DIR}/; no model starting means "
                             "TCG, saying why; max under tcg)")
    parser.add_argument("--smp", type=positive_int, default=1, metavar="N",
                        help="vCPUs (default: 1)")
    parser.add_argument("--memory", type=positive_int, metavar="MiB",
                        help=f"guest RAM in MiB (default: {qemu.DEFAULT_MEMORY_MIB}; "
                             f"{xen.XEN_MEMORY_MIB} for xen and xen-pvh-dom0, shared by Xen "
                             f"and dom0, and xen-linux-dom0; {xen.DOMU_QEMU_MEMORY_MIB} "
                             f"for the domU boots; {linux.LINUX_MEMORY_MIB} for linux); "
                             "less than the boot needs is refused, naming the minimum: "
                             "what the image fills (read from its ELF headers), "
                             f"{qemu.GRUB_EXTRA_MIB} MiB more for GRUB, at least "
                             f"{qemu.OVMF_MIN_MEMORY_MIB} for iso-uefi, "
                             f"{xen.XEN_MIN_MEMORY_MIB} for xen, "
                             f"{xen.PVH_DOM0_MIN_MEMORY_MIB} for xen-pvh-dom0, "
                             f"{xen.DOMU_MIN_MEMORY_MIB} for the domU boots, "
                             f"{xen.LINUX_DOM0_ALONE_MIN_MEMORY_MIB} for xen-linux-dom0, "
                             f"{linux.LINUX_MIN_MEMORY_MIB} for linux (the initramfs is "
                             "unpacked into it)")
    parser.add_argument("--timeout", type=positive_float, metavar="S",
                        help=f"seconds before QEMU is killed (default: {qemu.TCG_TIMEOUT_S} tcg, "
                             f"{qemu.KVM_TIMEOUT_S} kvm, {qemu.KVM_ISO_TIMEOUT_S} kvm ISO, "
                             f"{xen.XEN_TIMEOUT_S} xen, xen-pvh-dom0 and xen-linux-dom0, "
                             f"{linux.LINUX_TIMEOUT_S} linux, "
                             f"{xen.DOMU_TIMEOUT_S['pv']} xen-pv-domu and xen-pvh-domu, "
                             f"{xen.DOMU_TIMEOUT_S['hvm']} xen-hvm-domu)")
    parser.add_argument("--log", metavar="FILE",
                        help=f"where to save the console (default: {RUN_DIR}/last.log under "
                             f"the checkout, whatever the current folder; for an installed "
                             f"runner $XDG_CACHE_HOME/clockbench/{RUN_DIR}/last.log, "
                             f"~/.cache/clockbench/{RUN_DIR}/last.log without it)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the run's record ('-': to standard output, the "
                             "console and the runner's lines then going to stderr; schema "
                             f"{report.SCHEMA}, see docs/report-format.md, checked against "
                             f"{report.SCHEMA_FILE}): the guest's JSON report when the run "
                             "ended with a verdict and the guest printed one, and always "
                             "the verdict, the reason and 'runner' (host name, CPU and "
                             "kernel, QEMU and Xen versions, accelerator, -cpu model, "
                             "machine, boot path, the QEMU command, clockbench's revision, "
                             "this command line, start and end time). A run without a "
                             "report (a fault, hang or error before it, a run interrupted "
                             "by a signal) is the same document without the guest's "
                             "members. A report that is there "
                             "but broken ends the run as an error (exit 2). For --boot xen "
                             "the record also holds what Xen's own lines said (version, "
"options, platform timer, TSC lines, how dom0 ended). For "
                             f"linux, xen-linux-dom0 and xen-linux-pv-domu: "
                             f"{linux.PROGRAM}'s document "
                             f"(schema {osreport.OS_SCHEMA}, checked against "
                             f"{osreport.OS_FRAMING.schema_file}) in its place")
    parser.add_argument("--no-build", action="store_true", help="don't run make first")
    parser.add_argument("--options", metavar="TEXT",
                        help="guest options as one argument, before those after --; e.g. "
                             f"--options '--budget-ms 600' for {linux.PROGRAM} (write "
                             "--options=--switch for one that starts with '-' and has no "
                             "space)")
    parser.add_argument("--unchecked-options", action="store_true",
                        help="boot with the guest options as given, without checking them "
                             "against the image's table first (to see what the image "
                             "itself says of a wrong one)")
    parser.add_argument("guest_options", nargs="*", metavar="-- guest options",
                        help="options passed to the guest, e.g. -- verbose=1 (for the "
                             f"linux boots {linux.PROGRAM}'s, after "
                             f"{' '.join(linux.ALWAYS_OPTIONS)})"
                        ).completer = completion.guest_option_words
    parser.set_defaults(handler=cmd_run)


def add_test_parser(subparsers):
    """The `test` subcommand's options."""
    parser = subparsers.add_parser(
        "test", help=f"run the boot tests listed in {TESTS_CFG}",
        description=f"Run the boot tests of {TESTS_CFG}, printing TAP version 13: the\n"
                    "version line and the plan, one `ok`/`not ok` line each (the reason\n"
                    "after `#`; a test that is not ok then shows each failed check, the\n"
                    "verdict and the guest's own `not ok` lines), and kselftest's\n"
                    "`# Totals: pass:N fail:N xfail:0 xpass:0 skip:N error:N` (error: the\n"
                    f"boot broke or hung). Logs go to {TESTS_DIR}/NAME.log, and the\n"
                    "run's record, when the boot gave one, to NAME.json. accel=kvm tests\n"
                    "are skipped when /dev/kvm is unusable. Guest options (args=) are\n"
                    "checked against the image's table before any boot, except on\n"
                    "expect=fail lines. Exit status 0 only when no test failed.",
        epilog=f"{FORMAT_HELP}\n\n{NOTES}", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="list the chosen tests and stop")
    parser.add_argument("--group", metavar="G",
                        help="only tests in group G (an unknown group is an error, naming "
                             "the groups)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print each boot's QEMU command (and Xen's command line) on "
                             "stderr before it starts")
    parser.add_argument("--junit", metavar="FILE",
                        help="also write the results as JUnit XML to FILE, for CI systems")
    parser.add_argument("--jobs", type=positive_int, default=2, metavar="N",
                        help="boots run at once (default: 2)")
    parser.add_argument("--config", metavar="FILE", help=f"test list (default: {TESTS_CFG})")
    parser.add_argument("--no-build", action="store_true", help="don't run make first")
    parser.add_argument("--beside", metavar="COMMAND",
                        help="run COMMAND (through sh) beside the boots once none that must "
                             "run alone is left; its output goes to "
                             f"{TESTS_DIR}/beside.log and is shown after the results, and "
                             "its failure fails the run (make test runs the tool tests so)")
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these tests"
                        ).completer = completion.test_names
    parser.set_defaults(handler=cmd_test)


def add_parse_parser(subparsers):
    """The `parse` subcommand's options."""
    parser = subparsers.add_parser(
        "parse", help="extract and check the guest's JSON report from a console log",
        description=f"Extract the guest's JSON report (schema {report.SCHEMA}, the lines\n"
                    f"between '{report.BEGIN}' and '{report.END}') from a console\n"
                    f"log, raw or as saved by `run`, validate it against {report.SCHEMA_FILE}\n"
                    "and print a summary: one line per clock. docs/report-format.md\n"
                    "describes every field.",
        epilog="exit statuses:\n"
               f"  0   the log holds a valid {report.SCHEMA} report\n"
               "  2   it does not (no report, truncated, not JSON, another schema\n"
               "      version, a field missing or of the wrong type), or the log\n"
               "      cannot be read: one sentence says which\n"
               f"{INTERRUPTED_EXITS}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", metavar="OUT",
                        help="write the report as JSON to OUT ('-': standard output) "
                             "instead of printing the summary")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing: only the exit status tells")
    parser.add_argument("log", metavar="LOG", help="console log ('-': standard input)")
    parser.set_defaults(handler=cmd_parse)


# `matrix` and `compare` import modules (statistics, plotting, JSON matching) that take as
# long to load as the rest of the runner: a run starts ~0.1 s sooner without them.  Their
# options are only built when the command line names one of them, or shows every command's
# (clockbench --help, shell completion).
LAZY_COMMANDS = {
    "matrix": "run the image in every environment this machine can run, N times",
    "compare": "compare reports side by side across environments",
    "verdict": "which clocksource to use here, what it costs, whether it stays safe",
}


def lazy_commands_needed(argv):
    """Whether `argv` (the arguments after the program's name) may need the `matrix` or
    `compare` options: it names one of them, names no command, or is a completion."""
    if os.environ.get("_ARGCOMPLETE"):
        return True
    words = [word for word in argv if not word.startswith("-")]
    return not words or words[0] in LAZY_COMMANDS


def add_matrix_parser(subparsers):
    """The `matrix` subcommand's options."""
    from .compare import matrix  # pylint: disable=import-outside-toplevel  (see LAZY_COMMANDS)
    parser = subparsers.add_parser(
        "matrix", help=LAZY_COMMANDS["matrix"],
        description=f"Boot the image (--smp {matrix.MATRIX_SMP}) in every environment: "
                    f"{', '.join(matrix.ENVIRONMENT_NAMES)}.\n"
                    "QEMU boots the multiboot1 image; in xen-* Xen 4.17 (under TCG) boots the\n"
                    "PV image as its dom0. Ones this machine cannot run (KVM unusable; Xen not\n"
                    "installed, or its PV image missing) are listed as skipped with the reason.\n"
                    "Each run leaves DIR/ENV/run-K.log and its record DIR/ENV/run-K.json (the\n"
                    "guest's report, when it gave one, and the runner member: host, versions,\n"
                    "QEMU command, times); "
                    f"DIR/{matrix.MANIFEST} records the host (name, CPU, kernel),\n"
                    "the QEMU and Xen versions, each invocation, every QEMU command line and,\n"
                    "for Xen, its options and the platform timer it chose. A failed run is\n"
                    "recorded with its reason and the matrix goes on. A DIR with files in it is\n"
                    "refused unless --add. Guest options (after --), --cpu, --smp and --xen-args\n"
                    "apply to every environment; --env-file adds environments. docs/compare.md.",
        epilog=f"{matrix.ENV_FILE_HELP}\n\n"
               "exit statuses:\n  0   every run gave a report and the guest judged it PASS\n"
               "      (or SKIP)\n"
               "  1   some run gave none, or the guest judged it FAIL or ERROR (see the\n"
               "      manifest; compare lists them and leaves them out)\n"
               "  2   the matrix could not start (missing QEMU or image, unwritable DIR,\n"
               "      DIR not empty without --add, a bad environment file line, named\n"
               "      FILE:LINE)\n"
               f"{INTERRUPTED_EXITS}; QEMU is killed too, and the manifest\n"
               "                keeps the runs that ended",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=positive_int, default=matrix.DEFAULT_REPEATS,
                        metavar="N", help=f"runs per environment (default: "
                                          f"{matrix.DEFAULT_REPEATS})")
    parser.add_argument("--out", metavar="DIR",
                        help=f"results folder, new or empty unless --add (default: "
                             f"{matrix.RESULTS_DIR}/<UTC date-time>)")
    parser.add_argument("--add", action="store_true",
                        help="add this matrix's runs to the matrix folder --out names: its "
                             "earlier runs stay, run numbers go on from the last, and the "
                             "manifest says which invocation made each run (refused when "
                             "the folder holds another host's runs, or an environment of the "
                             "same name run otherwise)")
    parser.add_argument("-v", "--verbose", action="store_const", dest="announce",
                        const=command_announcer("matrix"),
                        help="print each boot's QEMU command (and Xen's command line) on "
                             "stderr before it starts")
    parser.add_argument("--env", nargs="+", metavar="NAME",
                        help="only these environments, built in or from --env-file "
                             "(default: all)").completer = completion.environment_names
    parser.add_argument("--env-file", metavar="FILE",
                        help="more environments, one a line (see below)")
    parser.add_argument("--cpu", default="", metavar="MODEL",
                        help="QEMU -cpu model for every environment, in place of its own "
                             "(default: each environment's; under kvm the model this host's "
                             "KVM starts, as for run)")
    parser.add_argument("--smp", type=positive_int, metavar="N",
                        help=f"vCPUs of every environment, in place of its own (default: "
                             f"{matrix.MATRIX_SMP}, or an environment file's smp=)")
    parser.add_argument("--xen-args", default="", metavar="OPTS",
                        help="appended to Xen's command line in every Xen environment, after "
                             "its own (e.g. xen-hpet's clocksource=hpet)")
    parser.add_argument("--no-build", action="store_true", help="don't run make first")
    parser.add_argument("guest_options", nargs="*", metavar="-- guest options",
                        help="options passed to the guest in every environment, after its "
                             "own, e.g. -- tick_rates=100"
                        ).completer = completion.guest_option_words
    parser.set_defaults(handler=matrix.cmd_matrix)


def add_compare_parser(subparsers):
    """The `compare` subcommand's options."""
    from .compare import command  # pylint: disable=import-outside-toplevel  (see LAZY_COMMANDS)
    parser = subparsers.add_parser(
        "compare", help=LAZY_COMMANDS["compare"],
        description="First, at most five lines: the costliest reads and where, warps, the\n"
                    "runs' verdicts (FAIL/ERROR runs are left out of every figure and\n"
                    "listed with why; --include-failed takes them in), before/after\n"
                    "changes, the hosts and busy ones.  Then per clock and environment:\n"
                    "p50 and p99 read cost, batch ns/read, resolution, warps and max\n"
                    "|drift|, as the median over runs with the min … max range, the p50\n"
                    "against the same environment's tsc (x tsc),\n"
                    "cost ratios against the baseline environment, and flags (trapped,\n"
                    "warps).  A reason shared by environments or rates is one line.\n"
                    "Then, per tick source, rate and environment: interrupts a second, CPU\n"
                    "lost, cycles per interrupt (with ratios) and lateness p50 (µs).\n"
                    "RESULTS are matrix folders or single reports (JSON or console log).\n"
                    "Runs are merged only when they share the environment's name, host,\n"
                    "accelerator, guest CPU model and hypervisor (and --label); others are\n"
                    "separate rows (tcg-pc@host-a, tcg-pc@host-b) and a note says why;\n"
                    "a host is its name with its CPU, kernel, QEMU and Xen versions and\n"
                    "machine id, and a run given twice counts once.  --before A --after B\n"
                    "(or two --labels) compares each environment's clocks with\n"
                    "themselves, with a bootstrap interval over the runs.  Text fits 160\n"
                    "columns (--wide: every column).\n"
                    "docs/compare.md explains every column.",
        epilog="exit statuses:\n  0   the comparison was printed (with --fail-above: and no\n"
               "      clock is above the limit beyond the noise)\n"
               "  1   --fail-above: some clock rose above the limit, its bootstrap interval\n"
               "      wholly above 1 (one line each on stderr)\n"
               "  2   an input is unreadable, truncated, malformed, of another schema\n"
               "      version or missing a field, or --html's FILE cannot be written: one\n"
               "      sentence names the file and the fault\n"
               f"{INTERRUPTED_EXITS}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=command.DEFAULT_BASELINE, metavar="ENV",
                        help=f"the row ratios (and --fail-above) are against, named as "
                             f"the table names it: kvm-pc, tcg-pc@host-b (default: "
                             f"{command.DEFAULT_BASELINE}; when it is not among the rows, "
                             f"a line on stderr lists them)")
    parser.add_argument("--label", action="append", metavar="NAME=PATH",
                        help="name the input PATH (one of RESULTS, as written) NAME: a "
                             "single report's row is then NAME, a matrix folder's rows "
                             "ENV@NAME, and a labelled input is never merged with another "
                             "(repeatable)")
    parser.add_argument("--before", metavar="PATH",
                        help="the input (matrix folder or report) before a change: its "
                             "rows are ENV@before, and each environment's clocks are "
                             "compared with the same environment's in --after")
    parser.add_argument("--after", metavar="PATH",
                        help="the input after the change (see --before)")
    parser.add_argument("--fail-above", type=positive_float, metavar="RATIO",
                        help="exit 1 when a clock's p50 read cost (median over the runs) "
                             "rose more than RATIO times, after against before per "
                             "environment (or each row against --baseline), and its "
                             "bootstrap interval over the runs lies wholly above 1, "
                             "naming each on stderr (a regression gate: docs/compare.md)")
    parser.add_argument("--percentiles", metavar="P,P,...",
                        help="also a table of read-cost percentiles pooled over the runs "
                             "from their histograms (every read of every run), e.g. "
                             "50,99,99.9,99.99 (the default of --table percentiles)")
    parser.add_argument("--wide", action="store_true",
                        help="every column (batch, resolution, drift, cycles, every "
                             "ratio) and no wrapping; by default text fits 160 columns")
    parser.add_argument("--format", choices=command.FORMATS, default="table",
                        help="output format (default: table)")
    parser.add_argument("--table", choices=("all", "clocks", "changes", "percentiles", "ticks",
                                                  "xen", "lifecycle", "timers", "os",
                                                  "verdict"),
                        default=None,
                        help="which table: clocks, changes (before/after per environment, "
                             "with --before/--after, two --labels or --fail-above), "
                             "percentiles (pooled over the runs, --percentiles), "
                             "ticks, xen (per Xen guest type: a "
                             "xen_pvclock and a tsc read and their ratio), lifecycle "
                             "(per event of run --event: what each clock did, against "
                             "the host's window and the TSC), timers (per event: "
                             "what became of the timer armed across it), os (per "
                             "clocksource: the raw read beside clock_gettime through libc "
                             "and the syscall, from clockbench-user's ENV.os.json), verdict "
                             "(per environment: which clocksource to use, what it costs, "
                             "whether it stays safe: docs/verdict.md) or all "
                             "(default: all; csv holds one table, clocks unless another is "
                             "chosen)")
    parser.add_argument("--plot", metavar="DIR",
                        help="also write PNG and SVG plots (matplotlib) into DIR")
    parser.add_argument("--html", metavar="FILE",
                        help="also write one self-contained HTML report to FILE: the inputs, "
                             "a line per finding, every table and the plots inline (no "
                             "script, nothing fetched); plots go to a scratch folder unless "
                             "--plot DIR is given")
    parser.add_argument("--include-failed", action="store_true",
                        help="take the figures of runs the guest judged FAIL or ERROR into "
                             "the tables, plots and gate (by default they are left out and "
                             "listed with their reason)")
    add_reads_per_second(parser)
    parser.add_argument("results", nargs="*", metavar="RESULTS",
                        help="matrix folders, report JSON files or console logs (none "
                             "needed with --before and --after)")
    parser.set_defaults(handler=command.cmd_compare)


def read_rate(text):
    """argparse type: a read rate, reads a second: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a read rate: give reads a second, a number above 0 "
            f"(e.g. 500000)")
    return value


def add_reads_per_second(parser):
    """--reads-per-second, which `verdict` and `compare` share."""
    from .verdict.cost import DEFAULT_READS_PER_S  # pylint: disable=import-outside-toplevel
    parser.add_argument("--reads-per-second", type=read_rate, default=DEFAULT_READS_PER_S,
                        metavar="N",
                        help=f"the read rate each clocksource's cost is priced at: the "
                             f"share of one CPU that N clock reads a second take (default "
                             f"{DEFAULT_READS_PER_S:,}: the seed's fleet, a third of a CPU "
                             f"at 0.68 µs a read; docs/verdict.md)")


def add_verdict_parser(subparsers):
    """The `verdict` subcommand's options."""
    from .compare import verdicts  # pylint: disable=import-outside-toplevel  (see LAZY_COMMANDS)
    parser = subparsers.add_parser(
        "verdict", help=LAZY_COMMANDS["verdict"],
        description="Per environment of the results (a matrix folder, run records and\n"
                    "clockbench-user's ENV.os.json documents, as compare reads them; one\n"
                    "verdict per host, never merged): which clocksource Linux picks by\n"
                    "itself and which it should use (the cheapest whose safety evidence\n"
                    "holds), what clock_gettime(CLOCK_MONOTONIC) costs through each and\n"
                    "the share of one CPU that takes at --reads-per-second, the evidence\n"
                    "(warps, offsets, drift, the watchdog's predictions, lifecycle events,\n"
                    "contention) and the caveats, as one paragraph and a line per\n"
                    "clocksource.  docs/verdict.md.",
        epilog="exit statuses:\n  0   every watchdog prediction Linux could check agrees with it\n"
               "  1   a prediction disagrees with Linux's own decision (a failed check,\n"
               "      named on stderr)\n"
               "  2   an input is unreadable or of another schema, or a bad option: one\n"
               "      sentence\n"
               f"{INTERRUPTED_EXITS}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_reads_per_second(parser)
    parser.add_argument("--json", metavar="FILE",
                        help="also write the verdicts as JSON (clockbench-verdict/1, "
                             "docs/verdict.schema.json) to FILE; - for stdout alone")
    parser.add_argument("results", nargs="+", metavar="PATH",
                        help="matrix folders, run records (JSON or console log) and "
                             "clockbench-user's documents (ENV.os.json)")
    parser.set_defaults(handler=verdicts.cmd_verdict)


def build_parser(argv=None):
    """The command-line parser for `clockbench`; given the arguments `argv` it will parse,
    `matrix` and `compare` are only named, without their options, when `argv` needs
    neither (see LAZY_COMMANDS)."""
    parser = argparse.ArgumentParser(
        prog="clockbench",
        description="Host-side runner for the clockbench bare-metal test image.",
        epilog=NOTES, formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest="command",
                                       metavar="{run,test,parse,matrix,compare,verdict,host,lava}")
    add_run_parser(subparsers)
    add_test_parser(subparsers)
    add_parse_parser(subparsers)
    if argv is None or lazy_commands_needed(argv):
        add_matrix_parser(subparsers)
        add_compare_parser(subparsers)
        add_verdict_parser(subparsers)
    else:
        for name, summary in LAZY_COMMANDS.items():
            subparsers.add_parser(name, help=summary)
    host.add_host_parser(subparsers)
    lava.add_lava_parser(subparsers)
    for subparser in (parser, *subparsers.choices.values()):
        subparser.add_argument("--version", action=VersionAction)
    return parser


class VersionAction(argparse.Action):
    """--version: print version.version_text() and exit 0 (the revision is looked up
    only when asked for)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        kwargs.pop("default", None)
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0,
                         help="print clockbench's version and revision and the schema "
                              "versions of its documents, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(version.version_text(), flush=True)
        parser.exit(EXIT_PASS)


def raise_terminated(signal_number, _frame):
    """Signal handler: unwind the main thread so that QEMU gets killed on the way out."""
    raise Terminated(signal_number)


def complete(parser):
    """Answer the shell's completion request, if this is one: bash's completion script
    (make install puts it in share/bash-completion/completions/) runs the tool with
    _ARGCOMPLETE set, and Debian's python3-argcomplete then prints the words and exits.
    Without the package, or outside completion, nothing happens."""
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def main(argv=None):
    """Entry point: returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    complete(parser)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    runinfo.set_argv([sys.argv[0], *argv])
    for signal_number in STOP_SIGNALS:
        signal.signal(signal_number, raise_terminated)
    try:
        return args.handler(args)
    except RunnerError as error:
        say(args.command, str(error))
        return error.status
    except KeyboardInterrupt:
        stop_all()
        say(args.command, "interrupted.")
        return EXIT_INTERRUPTED
    except Terminated as error:
        stop_all()
        say(args.command, "interrupted." if error.signal_number == signal.SIGINT
            else f"stopped by {error.signal_name} ({error}).")
        return error.status
    except BrokenPipeError:
        # Whoever read stdout went away (`| head`): stop quietly, as a shell tool would.
        stop_all()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
