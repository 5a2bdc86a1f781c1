# SPDX-License-Identifier: MIT
"""Verdicts, the runner's exit statuses, and how QEMU's exit status maps to a verdict."""

import signal
from dataclasses import dataclass

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_ERROR = 2
EXIT_HANG = 3
EXIT_SKIP = 77
EXIT_INTERRUPTED = 130

VERDICT_EXIT = {
    "pass": EXIT_PASS,
    "fail": EXIT_FAIL,
    "skip": EXIT_SKIP,
    "error": EXIT_ERROR,
    "hang": EXIT_HANG,
}

# Codes the guest writes to isa-debug-exit; QEMU then exits with (code << 1) | 1.
# ERROR: the test or its environment is broken (a check of clockbench's own foundation
# did not hold), which the runner reports as an error.
GUEST_EXIT_CODES = {1: "pass", 2: "fail", 3: "skip", 4: "error"}

# What the runner says of a guest that reported ERROR.
GUEST_ERROR_REASON = ("the guest reported ERROR: a check of its own foundation did not "
                      "hold, so the test itself is broken here (see its 'not ok ... # ERROR' "
                      "lines)")



@dataclass(frozen=True)
class Reporter:
    """Who prints a boot's verdict line ("NAME: PASS"), and what its ERROR means."""

    name: str
    error_reason: str

    def said(self, verdict):
        """The verdict line, quoted: 'clockbench: PASS'."""
        return f"'{self.name}: {verdict.upper()}'"


# The image, whose last line is "clockbench: VERDICT" (base/exit.c).
IMAGE = Reporter("clockbench", GUEST_ERROR_REASON)

# The statuses of a runner stopped by a signal, for every subcommand's table.
INTERRUPTED_EXITS = "  130, 143, 129 interrupted (SIGINT, SIGTERM, SIGHUP)"
# The signals that stop the runner (each raises Terminated in the main thread).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

EXIT_TABLE = f"""\
exit statuses:
  0   pass      the guest reported PASS
  1   fail      the guest reported FAIL, or Xen said dom0 crashed
                (for `test`: some test failed)
  77  skip      the guest reported SKIP
  2   error     missing dependency, build failed, bad option or tests.cfg,
                QEMU failed, no verdict, verdict mismatch, or the guest
                reported ERROR (its own foundation is broken)
  3   hang      no verdict before the timeout (QEMU is killed)
{INTERRUPTED_EXITS}; QEMU is killed too,
                and `run --json` writes what the boot had seen"""


class Terminated(BaseException):
    """Raised in the main thread when the runner gets SIGINT, SIGTERM or SIGHUP.

    What an interrupted boot had seen rides on it: `process_result` (a
    process.ProcessResult, QEMU stopped) and `outcome` (a boot.BootOutcome, judged as an
    error), once made.  The exit status is 128 + the signal's number."""

    def __init__(self, signal_number):
        super().__init__(f"signal {signal_number}")
        self.signal_number = signal_number
        self.status = 128 + signal_number
        self.process_result = None
        self.started = None  # when the interrupted boot began (UTC), once it had
        self.outcome = None

    @property
    def signal_name(self):
        """SIGINT, SIGTERM or SIGHUP."""
        return signal.Signals(self.signal_number).name


class RunnerError(Exception):
    """An expected problem, reported as one sentence; the runner exits with `status`."""

    def __init__(self, message, status=EXIT_ERROR):
        super().__init__(message)
        self.status = status


def status_verdict(qemu_status):
    """Return "pass", "fail", "skip" or "error" for a QEMU exit status that carries one,
    else None.

    Negative statuses (QEMU killed by a signal) and None never carry a verdict.
    """
    if qemu_status is None or qemu_status < 0 or not qemu_status & 1:
        return None
    return GUEST_EXIT_CODES.get(qemu_status >> 1)


def no_verdict_reason(qemu_status):
    """Say in words why a QEMU exit status carries no verdict."""
    if qemu_status == 0:
        return ("QEMU exited with status 0 without a verdict: the guest reset or "
                "powered off (a triple fault ends QEMU this way under -no-reboot)")
    if qemu_status == 1:
        return "QEMU itself failed (status 1)"
    if qemu_status < 0:
        return f"QEMU was killed by signal {-qemu_status}"
    return f"QEMU exited with status {qemu_status}, which carries no verdict"


def judge(qemu_status, console_verdict, announced_end=None, reporter=IMAGE):
    """Combine QEMU's exit status with the guest's final console line.

    `console_verdict` is "pass"/"fail"/"skip"/"error" from `reporter`'s verdict line (the
    image's `clockbench: X` by default), or None when the console had none.
    `announced_end` is how the guest said, after that line, that the
    run ends when not through isa-debug-exit (console.parse_announced_end): then QEMU's
    status 0 (a power-off or reset under -no-reboot), or None (the runner stopped QEMU
    once the guest halted), carries the console's verdict.  Returns (verdict, reason);
    reason is None for a clean verdict.  Otherwise both must agree: any disagreement or
    absence is an "error".
    """
    verdict = status_verdict(qemu_status)
    error_reason = reporter.error_reason
    if verdict is None and announced_end and console_verdict and qemu_status in (0, None):
        return console_verdict, error_reason if console_verdict == "error" else None
    if verdict is None:
        reason = no_verdict_reason(qemu_status)
        if console_verdict:
            reason += f", although the console said {reporter.said(console_verdict)}"
        return "error", reason
    if console_verdict is None:
        return "error", (f"verdict mismatch: QEMU's exit status {qemu_status} means "
                         f"{verdict.upper()} but the console has no "
                         f"{reporter.said(verdict)} line")
    if console_verdict != verdict:
        return "error", (f"verdict mismatch: QEMU's exit status {qemu_status} means "
                         f"{verdict.upper()} but the console said "
                         f"{reporter.said(console_verdict)}")
    return verdict, error_reason if verdict == "error" else None
