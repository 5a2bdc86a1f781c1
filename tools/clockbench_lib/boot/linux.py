# SPDX-License-Identifier: MIT
"""The Linux boots: Debian's kernel and the project's initramfs (make dom0, docs/dom0.md)
running clockbench-user (docs/os-layer.md), what Linux adds to a clock read.

`--boot linux` has QEMU boot build/dom0/vmlinuz with build/dom0/initrd.img as a plain
Linux guest (console=ttyS0); `--boot xen-linux-dom0` has Xen boot the same two as its PV
dom0 (console=hvc0, xen.XEN_BOOTS).  Either way /init runs clockbench-user with the
options of `clockbench.user=` (always --switch and --console, so every clocksource is
measured and the JSON document is framed on the console), and ends QEMU through
isa-debug-exit with the program's verdict.  `--boot xen-linux-pv-domu` has that Linux
dom0 start the same kernel as a PV domU with its own small initramfs
(build/dom0/domu-initrd.img), whose /init runs clockbench-user the same way on the
domU's console, which dom0 copies to QEMU's; dom0 ends QEMU with its verdict.  The runner judges the boot by the program's
last line, `clockbench-user: VERDICT`, and QEMU's exit status.
"""

from dataclasses import dataclass

from ..base import paths
from . import xen
from ..base.outcome import Reporter, RunnerError, judge as judge_status, status_verdict

USER_BOOTS = ("linux", "xen-linux-dom0", "xen-linux-pv-domu")
PROGRAM = "clockbench-user"
USER_BINARY = f"{paths.BUILD_DIR}/{PROGRAM}"
# Every clocksource, switched to in turn (/init runs as root), and the JSON document on
# the console, where the runner reads it.
ALWAYS_OPTIONS = ("--switch", "--console")
# The plain guest's kernel: its console on QEMU's -serial (COM1), quiet, and a panic ends
# QEMU at once (a reboot under -no-reboot) instead of waiting for the runner's timeout.
KERNEL_OPTIONS = ("console=ttyS0", "loglevel=1", "panic=-1")
LINUX_TIMEOUT_S = 120
LINUX_MEMORY_MIB = 512
# Linux unpacks the 74.5 MiB initramfs into RAM: it booted in 288 MiB here and not in 272
# ("Initramfs unpacking failed: write error", then no init); with the 63.7 MiB one before
# the Linux PV domU's files joined it, in 256 and not in 240.
LINUX_MIN_MEMORY_MIB = 288

# The Linux PV domU's memory (xen-linux-pv-domu), its 3 MiB initramfs unpacked in it: with
# 2 vCPUs it ran in 96 MiB here; in 80 Linux panicked at boot ("System is deadlocked on
# memory"), and in 64 xl create refused it (the kernel's segment is 0x3a00 pages, 58 MiB,
# beside Xen's 0x1000 for the domain's start).  128 leaves room for clockbench-user.
LINUX_DOMU_MEMORY_MIB = 128

USER = Reporter(PROGRAM, f"{PROGRAM} reported ERROR: a bad option, a clocksource it could "
                         f"not put back, or a document it could not write (its own lines "
                         f"say which)")


@dataclass(frozen=True)
class LinuxWorkaround:
    """A kernel option passed only because of a limit met here, and why."""

    words: tuple   # kernel command-line words
    what: str      # as the user would type it
    why: str


# Every workaround of the Linux boots, each named once (docs/dom0.md).
WORKAROUNDS = {
    "tsc-reliable": LinuxWorkaround(
        ("tsc=reliable",), "Linux option tsc=reliable",
        "with more than one CPU, Linux 6.1 drops the tsc clocksource at boot on a non-Intel "
        "CPU without an invariant TSC ('Marking TSC unstable due to TSCs unsynchronized'), "
        "and TCG's -cpu max is one (AMD, no invtsc); TCG's vCPUs read one host counter "
        "(clockbench's own cross-CPU test finds no TSC warp there, and clockbench-user "
        "checks the clocks across CPUs again); the option also keeps Linux's clocksource "
        "watchdog off the TSC"),
}


def workaround_keys(accel, smp):
    """The WORKAROUNDS a Linux boot needs: tsc=reliable under TCG with more than one CPU
    (with one, Linux keeps the tsc clocksource by itself)."""
    return ("tsc-reliable",) if accel == "tcg" and smp > 1 else ()


def workaround_lines(accel, smp):
    """What the runner prints once per run of a Linux boot: one line per workaround."""
    return [f"working around: {WORKAROUNDS[key].what}: {WORKAROUNDS[key].why}"
            for key in workaround_keys(accel, smp)]


def _workaround_words(accel, smp):
    return [word for key in workaround_keys(accel, smp) for word in WORKAROUNDS[key].words]


def user_options(options):
    """clockbench-user's options: ALWAYS_OPTIONS (unless `options` has them), then
    `options` (text, split at blanks)."""
    words = options.split()
    return " ".join([option for option in ALWAYS_OPTIONS if option not in words] + words)


def user_parameter(options):
    """The kernel command-line word that has /init run clockbench-user with `options`."""
    return f"clockbench.user={xen.percent_encode(user_options(options))}"


def kernel_command_line(options, accel, smp, linux_args=""):
    """The plain Linux guest's kernel command line (boot linux): the runner's words, then
    `linux_args` (--linux-args, e.g. clocksource=tsc), then clockbench-user's."""
    return " ".join([*KERNEL_OPTIONS, *_workaround_words(accel, smp), *linux_args.split(),
                     user_parameter(options)])


def check_linux_args(boot, linux_args):
    """RunnerError unless `linux_args` (--linux-args, linux_args=) may go to `boot`'s
    kernel: only the plain Linux guest takes them, and not the words /init reads."""
    if not linux_args:
        return
    if boot != "linux":
        raise RunnerError(f"Linux kernel options (--linux-args, linux_args=) apply only to "
                          f"--boot linux, not to the {boot} boot.")
    ours = [word for word in linux_args.split() if word.startswith("clockbench.")]
    if ours:
        raise RunnerError(f"--linux-args {' '.join(ours)}: the clockbench.* words are the "
                          f"runner's (clockbench-user's options go after --).")


def dom0_command_line(options, smp):
    """The Linux dom0's kernel command line when it runs clockbench-user alone
    (boot xen-linux-dom0): quiet, on Xen's console, always under TCG."""
    return " ".join([*xen.DOM0_KERNEL_OPTIONS, *_workaround_words("tcg", smp),
                     user_parameter(options)])


def domu_dom0_command_line(boot, options, smp, timeout_s):
    """The Linux dom0's kernel command line when it runs Linux as a PV domU that runs
    clockbench-user (boot xen-linux-pv-domu): the domU gets `smp` vCPUs, and the Linux
    workarounds for them go onto the domU's kernel command line."""
    return xen.dom0_command_line(boot, smp, user_options(options), timeout_s,
                                 LINUX_DOMU_MEMORY_MIB, _workaround_words("tcg", smp))


def judge(qemu_status, console_verdict, xen_end=None):
    """The verdict of a Linux boot: returns (verdict, reason).

    /init ends QEMU through isa-debug-exit with clockbench-user's verdict, which
    `console_verdict` (from its last line, or None) must then say, as for the image.  Under
    Xen, when that did not end QEMU, /init powers dom0 off whatever the verdict, and Xen
    says so (`xen_end`, xen.XenEnd): that carries the console's verdict, with a reason; any
    other end of dom0 (a crash, a reboot, Xen's panic) is an error.
    """
    if xen_end is not None and status_verdict(qemu_status) is None:
        said = USER.said(console_verdict) if console_verdict else None
        if xen_end.kind == "halted" and console_verdict:
            return console_verdict, (f"{xen_end.describe()} after {said}: /init could not "
                                     f"end QEMU through isa-debug-exit")
        return "error", xen_end.describe() + (f", after {said}" if said
                                              else " before a verdict")
    return judge_status(qemu_status, console_verdict, None, USER)


# The read a summary line shows per clocksource: what `compare --table os` sets beside the
# image's raw read of the same counter.
SUMMARY_READ = ("clock_gettime", "CLOCK_MONOTONIC")


def _read(run, path):
    """The run's SUMMARY_READ through `path` (libc or syscall), or None."""
    call, clock = SUMMARY_READ
    return next((read for read in run["reads"] if read["call"] == call
                 and read["clock"] == clock and read["path"] == path), None)


def _p50(read):
    if not read or not read["measured"] or not read["read_ns"]:
        return "-"
    return f"{read['read_ns']['p50']:g} ns"


def summary_lines(document, environment):
    """What `clockbench run` prints of clockbench-user's document: the clocksources, and
    per clocksource where a CLOCK_MONOTONIC read through libc was answered and what it
    and the system call cost (p50)."""
    sources = document["clocksources"]
    lines = [f"{PROGRAM} in environment {environment}: clocksources "
             f"{' '.join(sources['available']) or '(none)'}"
             + (", each switched to" if sources["switch_done"] else
                f" ({sources['switch_reason']})")
             + (f", {sources['original']} put back" if sources["restored"] else "")]
    for run in document["runs"]:
        if run["problem"]:
            lines.append(f"{run['clocksource']}: not measured: {run['problem']}")
            continue
        libc, syscall = _read(run, "libc"), _read(run, "syscall")
        through = (libc or {}).get("through") or "?"
        lines.append(f"{run['clocksource']}: clock_gettime(CLOCK_MONOTONIC) through libc "
                     f"answered by {through}, p50 {_p50(libc)} (the system call "
                     f"{_p50(syscall)})")
    return lines + readback_lines(document.get("kernel_clocksource"))


def readback_lines(read):
    """What Linux decided (the document's kernel_clocksource), a line per snapshot and
    one for the clocksources it marked unstable; none for an older document."""
    if read is None:
        return []
    if not read["read"]:
        return [f"Linux's clocksource decisions were not read back: {read['reason']}"]
    moments = {"boot": "at boot", "end": "at the end"}
    lines = [f"Linux's clocksource {moments.get(snapshot['when'], snapshot['when'])}: "
             f"{snapshot['current']} of {' '.join(snapshot['available'])}"
             for snapshot in read["snapshots"]]
    marked = ", ".join(f"{entry['clocksource']} at {entry['uptime_s']:.1f} s "
                       f"('{entry['line']}')" for entry in read["unstable"])
    return lines + [f"Linux marked unstable: {marked or 'none'}"
                    + ("" if read["log_complete"] else " (its log had wrapped: earlier "
                                                      "lines are lost)")]
