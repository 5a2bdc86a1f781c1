# SPDX-License-Identifier: MIT
"""What the verdict's modules hand one another (docs/verdict.md).

A WatchdogPrediction is what Linux's clocksource watchdog would decide for one pair it
could form here (a clocksource watched by another), in one setting (at rest, or across
one lifecycle event), replayed on clockbench's own raw reads.  A LinuxDecision is what a
Linux guest decided, read back by clockbench-user (its document's `kernel_clocksource`).
An Agreement is one prediction set beside one decision: a disagreement is a failed check.
"""

from dataclasses import dataclass, field

# WatchdogPrediction.outcome
STABLE = "stable"              # watched, and within the margin: Linux keeps it
UNSTABLE = "unstable"          # Linux would mark it unstable
EXEMPT = "exempt"              # never watched here (the x86 TSC exemption, tsc=reliable)
SKIP = "skip"                  # the check would be skipped (read-back too slow, ...)
NOT_WATCHED = "not watched"    # the clocksource does not ask to be verified, or no watchdog
UNKNOWN = "unknown"            # the record lacks what the rule needs (said in the sentence)
OUTCOMES = (STABLE, UNSTABLE, EXEMPT, SKIP, NOT_WATCHED, UNKNOWN)

AT_REST = "at rest"


@dataclass
class WatchdogPrediction:
    """Linux's watchdog replayed on one pair in one setting."""

    clocksource: str           # Linux's name of the watched clocksource: "tsc"
    watchdog: str              # Linux's name of its watchdog ("kvm-clock", "hpet",
                               # "acpi_pm", "xen"), or "" when there is none
    setting: str               # AT_REST, or the event as the record names it: "stop 1"
    outcome: str               # one of OUTCOMES
    sentence: str              # "Linux would mark tsc unstable here: it stepped 3.0 s
                               # against kvm-clock across stop 1, over a 250 µs limit"
    figures: dict = field(default_factory=dict)  # what the sentence rests on, units in
                               # the names: skew_ns, limit_ns, readback_ns, rate_ppm, ...
    rules: str = ""            # whose rules: "Linux 6.1, clocksource.c"


@dataclass
class LinuxDecision:
    """What one Linux guest decided about its clocksources, at one moment."""

    when: str                  # "boot" (before clockbench-user switched anything), or
                               # after an event: "after stop 1"
    current: str               # the clocksource in use
    available: list            # what sysfs offered
    unstable: dict = field(default_factory=dict)  # clocksource -> the kernel's log line
    log: list = field(default_factory=list)       # the kernel's clocksource lines
    release: str = ""          # uname -r
    flags: dict = field(default_factory=dict)     # /proc/cpuinfo: constant_tsc,
                               # nonstop_tsc, tsc_adjust, tsc_known_freq, tsc_reliable


@dataclass
class Agreement:
    """One prediction beside Linux's decision: the check a disagreement fails."""

    check: str                 # a stable name: "watchdog tsc/hpet at rest agrees with Linux"
    ok: bool
    sentence: str
    prediction: WatchdogPrediction = None
    decision: LinuxDecision = None
