# SPDX-License-Identifier: MIT
"""Which boot tests may share the machine, and a gate that keeps the others alone.

Under TCG a guest's timer interrupt is raised by QEMU's main-loop thread and taken by its
vCPU thread.  With another boot busy on the same cores, each tick waited for a thread the
host had not scheduled: on a two-core host a 1000 Hz APIC timer delivered 640 interrupts a
second and each cost the guest 0.8 ms (1.7 M cycles, against 150 k alone), so a boot test
that judges tick delivery failed for what ran beside it.  Such a boot runs alone: it waits
for the boots under way to end, and none starts until it has ended.
"""

import contextlib
import threading

from . import guestopts


# The rate whose tick delivery the guest judges (report/tolerances.h, TICK_CHECKED_RATE_HZ).
DELIVERY_JUDGED_HZ = "1000"


def measures_ticks_under_tcg(spec):
    """Whether the boot of `spec` (a qemu.BootSpec) is clockbench measuring timer ticks
    under TCG where a neighbour would change the verdict: not a Linux boot, and measuring
    at the rate whose delivery is judged (1000 Hz, or the default rates, which hold it).
    At other rates only the CPU lost is bounded, widely (report/tolerances.h): Xen's domU
    boots measure at 100 Hz beside others, and so do names-stable and ticks-slow.  At
    1000 Hz a Xen PV dom0 with four vCPUs beside another boot and the tool tests had its
    one-shot timer deliver 318 interrupts a second."""
    if spec.accel != "tcg" or spec.runs_user:
        return False
    rates = [word.partition("=")[2] for word in guestopts.cmdline_words(spec.cmdline)
             if word.startswith("tick_rates=")]
    return not rates or DELIVERY_JUDGED_HZ in rates[-1].split(",")


def runs_alone(test):
    """Whether the boot test `test` (a testlist entry) runs alone: it is to pass, so it gets
    that far (a test meant to fail or skip ends first), and it measures ticks under TCG or
    runs --contend.  A contended boot's busy neighbours fill the host CPUs its vCPUs are on
    (under Xen, both of the machine's): in one CI run it took 58 s (18 s alone), and the Xen
    domU boots of that stretch 27 to 37 s longer each than in the run before."""
    return test.expect == "pass" and (measures_ticks_under_tcg(test.spec)
                                      or test.spec.contend)


class BootGate:
    """Boots side by side, but one that must run alone waits for the others to end, and
    holds back those that would start while it waits or runs."""

    def __init__(self):
        self._condition = threading.Condition()
        self._running = 0
        self._alone_waiting = 0
        self._alone_running = False

    @contextlib.contextmanager
    def boot(self, alone):
        """A context in which one boot runs; `alone` keeps every other boot out of it."""
        with self._condition:
            if alone:
                self._alone_waiting += 1
                self._condition.wait_for(lambda: self._running == 0)
                self._alone_waiting -= 1
                self._alone_running = True
            else:
                self._condition.wait_for(
                    lambda: not self._alone_running and not self._alone_waiting)
            self._running += 1
        try:
            yield
        finally:
            with self._condition:
                self._running -= 1
                if alone:
                    self._alone_running = False
                self._condition.notify_all()
