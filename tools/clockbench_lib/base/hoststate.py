# SPDX-License-Identifier: MIT
"""The host's state over one run, for its record: the load average at the start and the
end, the busy and steal shares of the host's CPU time from /proc/stat's cpu line (the
difference between the two ends), how much of it this run's QEMU took, the other QEMU
processes running, and the host's own clocksource.

A run's host was *busy* when processes other than this run's QEMU took more than
BUSY_OTHERS_PCT % of the host's CPU time over the run (all CPUs together: on a 2-CPU host
25 % is half a CPU), or the host's own hypervisor stole more than BUSY_STEAL_PCT % of it.
"Other processes" are everything but this run's QEMU: the runner's own Python (a few % at
most), a second boot of the same runner, --contend's busy loops, and anyone else's work.

The arithmetic (host_state()) is pure, over two /proc/stat texts and the tick counts of
processes, so that it is tested on fixtures; HostWatch reads /proc around a run.
"""

import os
import time
from dataclasses import dataclass

# /proc/stat's cpu line, in its order (Linux's Documentation/filesystems/proc.rst); guest
# and guest_nice follow but are already counted in user and nice, so they are not read.
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
BUSY_FIELDS = ("user", "nice", "system", "irq", "softirq")
# What makes a host busy over a run (percent of all its CPUs' time).
BUSY_OTHERS_PCT = 25.0
BUSY_STEAL_PCT = 10.0
# Fewer clock ticks of all CPUs between the two ends than this and the shares mean little
# (USER_HZ is 100: on 2 CPUs, 0.1 s).
MIN_TOTAL_TICKS = 20
# A QEMU process is one whose command name (comm, at most 15 characters) starts so.
QEMU_COMM_PREFIX = "qemu-system"
CLOCKSOURCE_FILE = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
BUSY_RULE = (f"busy: processes other than this run's QEMU took more than "
             f"{BUSY_OTHERS_PCT:g} % of the host's CPU time over the run, or steal more "
             f"than {BUSY_STEAL_PCT:g} %")


@dataclass(frozen=True)
class CpuTimes:
    """The host's aggregate cpu line of /proc/stat, in clock ticks (USER_HZ) summed over
    every CPU."""

    user: int
    nice: int
    system: int
    idle: int
    iowait: int
    irq: int
    softirq: int
    steal: int

    @property
    def total(self):
        return sum(getattr(self, name) for name in CPU_FIELDS)

    @property
    def busy(self):
        return sum(getattr(self, name) for name in BUSY_FIELDS)


def parse_cpu_times(text):
    """The CpuTimes of /proc/stat's text (its `cpu` line, all CPUs together), or None when
    it has no such line.  An older kernel's line with fewer fields counts the missing ones
    as 0; a field that is not a number makes it None."""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            values = words[1:1 + len(CPU_FIELDS)]
            if len(values) < 4 or not all(value.isdigit() for value in values):
                return None
            numbers = [int(value) for value in values]
            numbers += [0] * (len(CPU_FIELDS) - len(numbers))
            return CpuTimes(*numbers)
    return None


def parse_pid_stat(text):
    """(comm, utime + stime in clock ticks) of a /proc/PID/stat text, or None.  The
    command name is in parentheses and may itself hold spaces and parentheses: the fields
    are counted after the last ')'."""
    head, paren, rest = text.rpartition(")")
    if not paren or "(" not in head:
        return None
    comm = head.split("(", 1)[1]
    fields = rest.split()
    # After comm: state (field 3) ... utime is field 14 and stime 15, 1-based.
    if len(fields) < 13 or not fields[11].isdigit() or not fields[12].isdigit():
        return None
    return comm, int(fields[11]) + int(fields[12])


def parse_load_average(text):
    """The 1, 5 and 15 minute load averages of a /proc/loadavg text, or None."""
    try:
        return [float(word) for word in text.split()[:3]] if len(text.split()) >= 3 else None
    except ValueError:
        return None


def _read(path):
    try:
        with open(path, encoding="ascii", errors="replace") as source:
            return source.read()
    except OSError:
        return None


def process_ticks(pid, proc="/proc"):
    """(comm, CPU ticks so far) of process `pid`, or None when it is gone."""
    text = _read(os.path.join(proc, str(pid), "stat"))
    return parse_pid_stat(text) if text else None


def qemu_processes(proc="/proc", exclude=()):
    """{pid: CPU ticks so far} of every QEMU process running, but those in `exclude`."""
    found = {}
    try:
        names = os.listdir(proc)
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) in exclude:
            continue
        seen = process_ticks(name, proc)
        if seen and seen[0].startswith(QEMU_COMM_PREFIX):
            found[int(name)] = seen[1]
    return found


@dataclass(frozen=True)
class Snapshot:
    """What is read of the host at one end of a run."""

    cpu: CpuTimes
    load_average: list
    qemus: dict  # pid: ticks, of QEMU processes not this run's


def _pct(part, whole):
    return round(100.0 * part / whole, 1)


def host_state(start, end, run_ticks, cpus, clocksource, extra_words=None):
    """The record's host_state member from the Snapshots at the run's `start` and `end`,
    the CPU ticks this run's QEMU processes took over it (`run_ticks`), the host's CPU
    count and clocksource.  `extra_words`, when given, end the sentence (what --contend
    ran).  Shares are percent of the host's CPU time, all CPUs together; null when the
    run was too short to tell (under MIN_TOTAL_TICKS) or /proc/stat could not be read."""
    shares = None
    busy = None
    if start.cpu and end.cpu and end.cpu.total - start.cpu.total >= MIN_TOTAL_TICKS:
        total = end.cpu.total - start.cpu.total
        busy_pct = _pct(end.cpu.busy - start.cpu.busy, total)
        run_pct = min(busy_pct, _pct(run_ticks, total))
        shares = {"busy": busy_pct, "steal": _pct(end.cpu.steal - start.cpu.steal, total),
                  "this_run": run_pct, "others": round(max(0.0, busy_pct - run_pct), 1)}
        busy = shares["others"] > BUSY_OTHERS_PCT or shares["steal"] > BUSY_STEAL_PCT
    others = set(start.qemus) | set(end.qemus)
    both = set(start.qemus) & set(end.qemus)
    qemu_pct = None
    if shares is not None and others and both == others:
        taken = sum(max(0, end.qemus[pid] - start.qemus[pid]) for pid in both)
        qemu_pct = _pct(taken, end.cpu.total - start.cpu.total)
    state = {
        "clocksource": clocksource,
        "cpus": cpus,
        "load_average": {"start": start.load_average, "end": end.load_average},
        "cpu_pct": shares,
        "other_qemus": {"count": len(others), "cpu_pct": qemu_pct},
        "busy": busy,
        "busy_rule": BUSY_RULE,
    }
    state["said"] = host_sentence(state) + (f"; {extra_words}" if extra_words else "")
    return state


def host_sentence(state):
    """One sentence on how busy the host was over the run (from a host_state member)."""
    shares = state.get("cpu_pct")
    qemus = state.get("other_qemus") or {}
    count = qemus.get("count") or 0
    if count:
        taken = (f", taking {qemus['cpu_pct']:g} % of its CPU time"
                 if qemus.get("cpu_pct") is not None else "")
        neighbours = f"; {count} other QEMU process{'es' if count > 1 else ''} ran{taken}"
    else:
        neighbours = "; no other QEMU ran"
    if shares is None:
        return (f"how busy the host was is not known (the run was too short to tell, or "
                f"/proc/stat could not be read){neighbours}")
    steal = f", its hypervisor stole {shares['steal']:g} %" if shares["steal"] else ""
    if state.get("busy"):
        return (f"the host was busy: processes other than this run's QEMU took "
                f"{shares['others']:g} % of its CPU time over the run (busy means above "
                f"{BUSY_OTHERS_PCT:g} %, or steal above {BUSY_STEAL_PCT:g} %){steal}"
                f"{neighbours}")
    return (f"the host was quiet: processes other than this run's QEMU took "
            f"{shares['others']:g} % of its CPU time over the run{steal}{neighbours}")


def snapshot(proc="/proc", exclude=()):
    """A Snapshot of the host now, leaving out the QEMU processes in `exclude`."""
    stat = _read(os.path.join(proc, "stat"))
    load = _read(os.path.join(proc, "loadavg"))
    return Snapshot(cpu=parse_cpu_times(stat) if stat else None,
                    load_average=parse_load_average(load) if load else None,
                    qemus=qemu_processes(proc, exclude))


def host_clocksource(path=CLOCKSOURCE_FILE):
    """The host kernel's current clocksource (tsc, kvm-clock, hpet, ...), or None."""
    text = _read(path)
    return text.strip() or None if text is not None else None


class HostWatch:
    """Reads the host around one run: a snapshot at the start, the run's own QEMU
    processes followed while they run (follow(), then sample() at each poll: a process's
    last sample stands for it once it has exited, so up to one poll of its CPU time counts
    among the others), and a snapshot at the end (finish())."""

    def __init__(self, proc="/proc"):
        self._proc = proc
        self._followed = {}  # pid: ticks at its last sample
        self._start = snapshot(proc)
        self._started = time.monotonic()

    def follow(self, pid):
        """Count process `pid` (a QEMU of this run) as this run's own."""
        seen = process_ticks(pid, self._proc)
        self._followed[pid] = seen[1] if seen else 0

    def sample(self):
        """Read the CPU time of the run's processes that still run."""
        for pid in list(self._followed):
            seen = process_ticks(pid, self._proc)
            if seen:
                self._followed[pid] = seen[1]

    def finish(self, extra_words=None):
        """The record's host_state member (host_state()), the run having ended."""
        self.sample()
        followed = set(self._followed)
        end = snapshot(self._proc, exclude=followed)
        start = Snapshot(self._start.cpu, self._start.load_average,
                         {pid: ticks for pid, ticks in self._start.qemus.items()
                          if pid not in followed})
        return host_state(start, end, sum(self._followed.values()), os.cpu_count(),
                          host_clocksource(), extra_words)
