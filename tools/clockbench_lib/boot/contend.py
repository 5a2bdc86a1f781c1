# SPDX-License-Identifier: MIT
"""`--contend`: a busy neighbour on each vCPU's host CPU, for a bounded time.  (Under
Xen, for a domU, dom0/clockbench-domu arranges it and xen.domu_contend() reads what it
said; this module is QEMU's half.)

QEMU starts stopped (-S) with a QMP socket.  The runner asks it for its vCPU threads
(query-cpus-fast's thread-id), pins vCPU K's thread to host CPU K (counted in the set this
runner may use, round and round when there are more vCPUs than CPUs) with
sched_setaffinity, starts one busy loop (a Python process that spins on its clock) pinned
to each of those host CPUs, and only then lets the guest run (cont): the guest measures
from its first instruction beside its neighbour.  The loops end when the run ends
(finish(), called from a finally), and each ends by itself after its bound (the boot's
timeout and a margin) should the runner die first.  The record's runner.contend and the
run's output say what was arranged.
"""

import os
import signal
import subprocess
import sys
import time

from ..base import hoststate
from ..base.outcome import RunnerError
from . import qmp

# The busy loop: spins until its bound (seconds, its argument) has passed.
LOOP_PROGRAM = ("import sys, time\n"
                "end = time.monotonic() + float(sys.argv[1])\n"
                "while time.monotonic() < end:\n"
                "    pass\n")
LOOP_WHAT = "a busy loop (a python3 process spinning on its clock)"
# A loop outlives the boot's timeout by this much at most, should the runner die first.
BOUND_MARGIN_S = 10.0
QMP_CONNECT_S = 10.0
LOOP_EXIT_WAIT_S = 5.0


def arrangement(vcpus, allowed):
    """Which host CPU each vCPU thread goes to: `vcpus` is query-cpus-fast's answer,
    `allowed` the host CPUs this runner may use; returns [(vCPU index, thread id, host
    CPU)] in vCPU order.  vCPUs that share a thread (TCG without one thread a vCPU) share
    its CPU.  RunnerError when QEMU named no vCPU threads."""
    cpus = sorted(allowed)
    if not cpus:
        raise RunnerError("--contend: this runner may use no host CPU (its affinity is "
                          "empty), so nothing can be pinned.")
    pairs, placed = [], {}  # placed: thread id -> its host CPU
    for entry in sorted(vcpus or (), key=lambda entry: entry.get("cpu-index", 0)):
        index, thread = entry.get("cpu-index"), entry.get("thread-id")
        if not isinstance(index, int) or not isinstance(thread, int) or thread <= 0:
            raise RunnerError(f"--contend: QEMU's query-cpus-fast named no thread for a "
                              f"vCPU ({entry!r}), so nothing can be pinned beside it.")
        if thread not in placed:
            placed[thread] = cpus[len(placed) % len(cpus)]
        pairs.append((index, thread, placed[thread]))
    if not pairs:
        raise RunnerError("--contend: QEMU listed no vCPUs (query-cpus-fast), so nothing "
                          "can be pinned beside them.")
    return pairs


def contend_sentence(state):
    """One sentence on what --contend arranged, from the record's runner.contend."""
    if not state.get("loops"):
        return "--contend: nothing was arranged (the run ended before its vCPUs were pinned)"
    beside = "; ".join(
        f"host CPU {loop['host_cpu']} beside vCPU "
        + ", ".join(str(v["vcpu"]) for v in state["vcpus"] if v["host_cpu"] == loop["host_cpu"])
        + f" ({loop['cpu_seconds']:g} s of CPU time in {loop['seconds']:g} s)"
        for loop in state["loops"])
    return (f"--contend: {state['what']} ran pinned to each vCPU's host CPU from before the "
            f"guest's first instruction to the run's end (each bounded to "
            f"{state['bound_s']:g} s): {beside}")


class Contender:
    """The --contend arrangement of one boot: arguments() for QEMU's command, start()
    once QEMU runs (stopped), finish() when the run has ended (always: a finally)."""

    def __init__(self, work_dir, name, bound_s, allowed=None):
        os.makedirs(work_dir, exist_ok=True)
        self.socket = os.path.join(work_dir, f"{name}-contend.sock")
        self.bound_s = bound_s
        self.allowed = sorted(allowed if allowed is not None else os.sched_getaffinity(0))
        self.pairs = []
        self.loops = []      # [Popen, host CPU, start time, CPU s, s]
        self.finished = False

    def arguments(self):
        """What QEMU's command gains: start stopped, with the QMP socket."""
        return ["-S", *qmp.qmp_arguments(self.socket)]

    def start(self, process):
        """Pin `process`'s vCPU threads, start the loops beside them, let the guest run.
        RunnerError, in one sentence, when any of it cannot be done (the caller stops
        QEMU and calls finish())."""
        link = qmp.Qmp(self.socket, alive=lambda: process.poll() is None,
                       timeout_s=QMP_CONNECT_S)
        try:
            self.pairs = arrangement(link.command("query-cpus-fast"), self.allowed)
            for index, thread, cpu in self.pairs:
                try:
                    os.sched_setaffinity(thread, {cpu})
                except OSError as error:
                    raise RunnerError(f"--contend: cannot pin vCPU {index}'s thread "
                                      f"{thread} to host CPU {cpu}: "
                                      f"{os.strerror(error.errno)}.") from None
            for cpu in sorted({cpu for _, _, cpu in self.pairs}):
                self._start_loop(cpu)
            link.command("cont")
        finally:
            link.close()

    def _start_loop(self, cpu):
        try:
            loop = subprocess.Popen([sys.executable, "-c", LOOP_PROGRAM, f"{self.bound_s:g}"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        except OSError as error:
            raise RunnerError(f"--contend: cannot start the busy loop: "
                              f"{os.strerror(error.errno)}.") from None
        self.loops.append([loop, cpu, time.monotonic(), 0.0, 0.0])
        try:
            os.sched_setaffinity(loop.pid, {cpu})
        except OSError as error:
            raise RunnerError(f"--contend: cannot pin the busy loop to host CPU {cpu}: "
                              f"{os.strerror(error.errno)}.") from None

    def finish(self):
        """Stop every loop (their CPU time read first); safe to call more than once."""
        if self.finished:
            return
        self.finished = True
        try:
            os.unlink(self.socket)
        except OSError:
            pass
        ticks_hz = os.sysconf("SC_CLK_TCK")
        for entry in self.loops:
            loop = entry[0]
            seen = hoststate.process_ticks(loop.pid)
            entry[3] = seen[1] / ticks_hz if seen else 0.0
            entry[4] = time.monotonic() - entry[2]
            if loop.poll() is None:
                loop.send_signal(signal.SIGKILL)
            try:
                loop.wait(LOOP_EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                pass

    def to_json(self):
        """The record's runner.contend member."""
        state = {
            "what": LOOP_WHAT,
            "bound_s": self.bound_s,
            "host_cpus": sorted({cpu for _, _, cpu in self.pairs}),
            "vcpus": [{"vcpu": index, "thread_id": thread, "host_cpu": cpu}
                      for index, thread, cpu in self.pairs],
            "loops": [{"host_cpu": cpu, "seconds": round(seconds, 2),
                       "cpu_seconds": round(cpu_s, 2)}
                      for _, cpu, _, cpu_s, seconds in self.loops],
        }
        state["said"] = contend_sentence(state)
        return state
