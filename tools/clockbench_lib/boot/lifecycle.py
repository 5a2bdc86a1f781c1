# SPDX-License-Identifier: MIT
"""Events in the VM's life, driven by the runner (docs/lifecycle.md): `--event stop:3s`,
`--event savevm`, `--event migrate`, in order.  The guest (events=N) stops at each event
point and says so on its console; the runner answers its sync at once, carries out the
event through QMP, and writes the host's line (lib/hostline.h) to the guest's COM1:

  guest: clockbench-event N sync           host: clockbench-host N sync ready_ns= sent_ns=
  guest: clockbench-event N ready          host: (the event) clockbench-host N done ...

stop holds the VM stopped for its time (QMP stop, cont); savevm snapshots the running VM
to a scratch qcow2 under build/ and loads the snapshot back at once (loadvm); migrate
starts a second QEMU with -incoming on a unix socket and migrates to it, the run
continuing there, whose console the runner follows.  An event the host cannot carry out
is answered "abort", and the run ends as an error with the runner's sentence.

Under Xen the domU's events are driven in dom0 by dom0/clockbench-domu (`--event
pause:3s`), which answers on the domain's PV console ring; the runner only hands them over
(dom0's clockbench.events=) and the script gives the image its event points.
"""

import os
import queue
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, replace

from ..base.outcome import RunnerError
from . import qmp

KINDS = ("stop", "savevm", "migrate")
# The events dom0's clockbench-domu carries out on a Xen domU.
XEN_KINDS = ("pause", "save", "migrate")
# The Xen domU boots whose dom0 drives events: the images that read the PV console ring.
XEN_EVENT_BOOTS = ("xen-pv-domu", "xen-pvh-domu", "xen-hvm-domu")
DEFAULT_STOP_S = 1.0
MAX_EVENTS = 8                 # the image's events= maximum (lib/options.c)
MAX_STOP_S = 600.0
MIGRATE_TIMEOUT_S = 30.0       # a migration that has not converged by then is cancelled
MIGRATE_POLL_S = 0.01
RESUME_WAIT_S = 2.0            # for QMP's RESUME event after cont or a migration
# The guest's bound on each wait beyond the event's own time (event_wait_ms=), and the
# runner's extra time for the whole boot per event.
GUEST_WAIT_EXTRA_S = 30.0
BOOT_EXTRA_S = 15.0
SCRATCH_DISK_MIB = 16
# The sync line is padded to about a "done" line's length (unknown keys, which the guest
# skips): a line reaches the guest's UART a FIFO's worth at a time, so the sync then times
# the round trip the "done" takes.
SYNC_LINE_CHARS = 300
EVENT_LINE = re.compile(r"^clockbench-event (\d+) (sync|ready)\s*$")
# Boots that can have events: the -kernel boots, which take the scratch drive and COM1,
# and Linux alone under QEMU, whose clockbench-user answers them on ttyS0 (COM1).
EVENT_BOOTS = ("multiboot1", "pvh", "linux")
# Of those, the one whose event points clockbench-user runs (user/events.c): its options,
# not the image's, ask for them.
USER_EVENT_BOOTS = ("linux",)


@dataclass(frozen=True)
class EventSpec:
    """One event: its kind and, for stop, how long the VM stays stopped; for savevm, how
    long it runs on between the snapshot and its loadvm (0: at once)."""

    kind: str
    seconds: float = 0.0

    def describe(self):
        """e.g. "stop 3 s", "savevm"."""
        return f"{self.kind} {self.seconds:g} s" if self.seconds else self.kind

    def text(self):
        """The event as --event takes it, e.g. "pause:3s" (clockbench-domu's --event)."""
        return f"{self.kind}:{self.seconds:g}s" if self.seconds else self.kind


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s)?$")


def parse_event(text):
    """An EventSpec from `--event` text (stop[:DURATION], savevm[:DURATION], migrate), or
    RunnerError naming what is wrong."""
    kind, _, arg = text.strip().partition(":")
    if kind not in KINDS + XEN_KINDS:
        raise RunnerError(f"--event {text!r}: the event is none of {', '.join(KINDS)} "
                          f"(QEMU) or {', '.join(XEN_KINDS)} (a Xen domU) (e.g. --event "
                          f"stop:3s --event savevm --event migrate).")
    if kind == "migrate":
        if arg:
            raise RunnerError(f"--event {text!r}: {kind} takes no argument.")
        return EventSpec(kind)
    if not arg:
        return EventSpec(kind, DEFAULT_STOP_S if kind in ("stop", "pause") else 0.0)
    match = _DURATION.match(arg)
    if not match:
        raise RunnerError(f"--event {text!r}: the {kind}'s time {arg!r} is not a duration "
                          f"such as 3s or 500ms.")
    seconds = float(match.group(1)) / (1000 if match.group(2) == "ms" else 1)
    if not 0 < seconds <= MAX_STOP_S:
        raise RunnerError(f"--event {text!r}: a {kind}'s time is more than 0 and at most "
                          f"{MAX_STOP_S:g} s.")
    return EventSpec(kind, seconds)


def parse_events(texts):
    """The EventSpecs of repeated --event options, in order."""
    events = tuple(parse_event(t) for t in texts or ())
    if len(events) > MAX_EVENTS:
        raise RunnerError(f"{len(events)} events asked: the image has at most "
                          f"{MAX_EVENTS} event points.")
    return events


def dom0_drives(boot):
    """True when dom0's clockbench-domu carries out the events of `boot` (a Xen domU)."""
    return boot in XEN_EVENT_BOOTS


def with_events(spec, events):
    """`spec` given `events`: QEMU's boots get the image's event points in their guest
    options and COM1 for the host's line (unless a console was chosen); under Xen, dom0
    gets the events (spec.events) and its script asks the image for the points."""
    if not events:
        return spec
    if dom0_drives(spec.boot):
        return replace(spec, events=tuple(e.text() for e in events))
    options = (user_options(events) if spec.boot in USER_EVENT_BOOTS
               else guest_options(events))
    return replace(spec, cmdline=" ".join(filter(None, (spec.cmdline, options))),
                   console=spec.console or "uart")


def check_boot(spec, events):
    """RunnerError when the boot `spec` cannot have `events`, saying which and why."""
    if not events:
        return
    if spec.contend:
        raise RunnerError("--event and --contend do not go together yet: a migration's "
                          "destination would run without its neighbours, and the events' "
                          "times would carry the contention's.")
    kinds = {e.kind for e in events}
    if dom0_drives(spec.boot):
        if kinds - set(XEN_KINDS):
            raise RunnerError(f"--event: the {spec.boot} boot is a Xen domU, whose events "
                              f"dom0 carries out with xl ({', '.join(XEN_KINDS)}); "
                              f"{', '.join(sorted(kinds - set(XEN_KINDS)))} is QEMU's.")
        return
    if spec.xen_boot and spec.runs_user:
        raise RunnerError(f"--event: the {spec.boot} boot cannot have events yet: its "
                          f"clockbench-user runs under Xen, whose events dom0's "
                          f"clockbench-domu drives only for the images of the boots "
                          f"{', '.join(XEN_EVENT_BOOTS)}; Linux alone under QEMU (--boot "
                          f"linux) takes QEMU's.")
    if spec.xen_boot:
        raise RunnerError(f"--event: the {spec.boot} boot cannot have events: Xen's "
                          f"events are driven by the Linux dom0 of the boots "
                          f"{', '.join(XEN_EVENT_BOOTS)} (the images that read the PV "
                          f"console ring); QEMU's need one of the boots "
                          f"{', '.join(EVENT_BOOTS)}.")
    if kinds - set(KINDS):
        raise RunnerError(f"--event: {', '.join(sorted(kinds - set(KINDS)))} is an event "
                          f"of a Xen domU (the boots {', '.join(XEN_EVENT_BOOTS)}), not "
                          f"of QEMU's {spec.boot} boot.")
    if spec.boot not in EVENT_BOOTS:
        raise RunnerError(f"--event: the {spec.boot} boot cannot have events yet; "
                          f"they need one of the -kernel boots {', '.join(EVENT_BOOTS)} "
                          f"(COM1 for the host's line, a scratch drive for savevm).")
    if spec.console_choice != "uart":
        raise RunnerError("--event: the host's line cannot reach the virtio console: its "
                          "stdio, shared with COM1 (a mux), gave it no input under QEMU "
                          "7.2, so the line goes to COM1: use --console uart (the default "
                          "with --event).")


def event_wait_s(events):
    """The guest's bound on each wait for the host's line."""
    return max(e.seconds for e in events) + GUEST_WAIT_EXTRA_S + MIGRATE_TIMEOUT_S


def user_options(events):
    """clockbench-user's options that give it its event points (user/events.c)."""
    if not events:
        return ""
    return f"--events {len(events)} --event-wait-ms {int(event_wait_s(events) * 1000)}"


def guest_options(events):
    """The guest options that give the image its event points."""
    if not events:
        return ""
    return f"events={len(events)} event_wait_ms={int(event_wait_s(events) * 1000)}"


# A Xen save and restore of a 32 MiB PV domU under TCG: 2-4 s each on a quiet host,
# 14 and 12 s on one loaded with other work.
XEN_SAVE_EXTRA_S = 60.0


def extra_timeout_s(events):
    """Time the whole boot needs beyond a run without events."""
    return sum(e.seconds + BOOT_EXTRA_S + (XEN_SAVE_EXTRA_S if e.kind == "save" else 0)
               for e in events)


def make_scratch_disk(path, qemu_img="qemu-img"):
    """Create the scratch qcow2 savevm writes to; RunnerError when it cannot be."""
    program = shutil.which(qemu_img)
    if program is None:
        raise RunnerError("--event savevm needs a writable qcow2 disk, and qemu-img "
                          "(qemu-utils) is not installed to make one.")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    result = subprocess.run([program, "create", "-q", "-f", "qcow2", path,
                             f"{SCRATCH_DISK_MIB}M"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RunnerError(f"--event savevm needs a writable qcow2 disk, and qemu-img "
                          f"could not create {path}: {result.stderr.strip()}")


def drive_arguments(path):
    """The scratch drive, attached to no device: savevm's snapshots go there."""
    return ["-drive", f"file={path},if=none,id=clockbench-scratch,format=qcow2"]


class EventDriver:
    """Answers the guest's event points for one boot: started with the source QEMU, fed
    every console line, and asked which QEMU process the run goes on in.

    `spawn(command)` starts another QEMU (the migration's destination) whose output joins
    the same log and returns its Popen.  `problem` is the runner's sentence when an event
    could not be carried out or the guest never reached one; `lines` what it said on the
    way (one a line, for the runner to print).
    """

    def __init__(self, events, command, work_dir, name):
        self.events = events
        self.command = list(command)
        self.work_dir = work_dir
        os.makedirs(work_dir, exist_ok=True)  # for the sockets
        self.name = name
        self.problem = None
        self.notes = []
        self.reached = 0
        self._queue = queue.Queue()
        self._process = None
        self._qmp = None
        self._spawn = None
        self._thread = None
        self._lock = threading.Lock()
        self._processes = []
        self._source_stops = []

    def socket_path(self, role):
        """A unix socket under the work folder (short: sun_path holds 108 bytes)."""
        return os.path.join(self.work_dir, f"{self.name}-{role}.sock")

    def source_command(self):
        """The source QEMU's command: the boot's, with its QMP socket."""
        return self.command + qmp.qmp_arguments(self.socket_path("qmp"))

    def start(self, process, spawn):
        """The source QEMU `process` has started; `spawn` starts the destination."""
        self._process, self._spawn = process, spawn
        self._processes.append(process)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def process(self):
        """The QEMU the run goes on in now."""
        with self._lock:
            return self._process

    def on_line(self, line):
        """A console line, with the host's monotonic time it arrived."""
        if line.startswith("clockbench-event "):
            self._queue.put((time.monotonic_ns(), line))

    def finish(self):
        """The boot is over: stop serving and say what was never reached."""
        self._queue.put(None)
        if self._thread:
            self._thread.join(5)
        if self._qmp:
            self._qmp.close()
        if self.problem is None and self.reached < len(self.events):
            event = self.events[self.reached]
            self.problem = (f"the guest never reached event point {self.reached + 1} "
                            f"({event.describe()}): the run ended first")

    def stop_all(self, stop):
        """Stop every QEMU this driver started that still runs, with `stop(process)`."""
        for process in self._processes:
            if process.poll() is None:
                stop(process)

    # --- the serving thread ---------------------------------------------------------

    def _say(self, text):
        self.notes.append(text)

    def _write(self, text):
        try:
            self.process.stdin.write((text + "\n").encode())
            self.process.stdin.flush()
        except (OSError, ValueError):
            self._fail("the guest's console input is closed (QEMU ended)")

    def _fail(self, sentence):
        if self.problem is None:
            self.problem = sentence

    def _connect(self, process, role):
        return qmp.Qmp(self.socket_path(role), alive=lambda: process.poll() is None)

    def _serve(self):
        while True:
            item = self._queue.get()
            if item is None:
                return
            ready_ns, line = item
            match = EVENT_LINE.match(line.strip())
            if not match:
                continue
            seq, what = int(match.group(1)), match.group(2)
            if seq < 1 or seq > len(self.events):
                self._fail(f"the guest announced event point {seq}, but "
                           f"{len(self.events)} were asked")
                continue
            if what == "sync":
                line = f"clockbench-host {seq} sync ready_ns={ready_ns}"
                line += " p=0" * max(0, (SYNC_LINE_CHARS - len(line) - 30) // 4)
                self._write(f"{line} sent_ns={time.monotonic_ns()}")
                continue
            self.reached = seq
            event = self.events[seq - 1]
            try:
                if self._qmp is None:
                    self._qmp = self._connect(self.process, "qmp")
                fields = self._run_event(event)
            except RunnerError as error:
                self._fail(f"event {seq} ({event.describe()}) failed: {error}")
                self._write(f"clockbench-host {seq} abort event={event.kind}")
                continue
            words = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
            self._write(f"clockbench-host {seq} done event={event.kind} "
                        f"ready_ns={ready_ns} {words} sent_ns={time.monotonic_ns()}")

    def _run_event(self, event):
        stops_before = len(self._qmp.events("STOP"))
        resumes_before = len(self._qmp.events("RESUME"))
        start_ns, start_real_ns = time.monotonic_ns(), time.time_ns()
        extra = {}
        if event.kind == "stop":
            self._qmp.command("stop")
            time.sleep(event.seconds)
            self._qmp.command("cont")
        elif event.kind == "savevm":
            tag = f"clockbench-{self.reached}"
            for command_line in (f"savevm {tag}", f"loadvm {tag}"):
                if command_line.startswith("loadvm") and event.seconds:
                    time.sleep(event.seconds)  # the VM runs on from its snapshot
                said = self._qmp.human(command_line)
                if said:
                    raise RunnerError(f"QEMU's {command_line.split()[0]} said: "
                                      f"{said.splitlines()[0]}")
        else:
            stops_before, resumes_before = 0, 0  # the destination's QMP from now on
            extra = self._migrate()
        end_ns, end_real_ns = time.monotonic_ns(), time.time_ns()
        stops = (self._source_stops if event.kind == "migrate"
                 else self._qmp.events("STOP")[stops_before:])
        resumes = self._resumes(resumes_before)
        start_ns = extra.pop("start_ns", start_ns)
        start_real_ns = extra.pop("start_real_ns", start_real_ns)
        fields = {"start_ns": start_ns, "end_ns": end_ns, "start_real_ns": start_real_ns,
                  "end_real_ns": end_real_ns,
                  "stop_us": qmp.event_us(stops[0]) if stops else None,
                  "resume_us": qmp.event_us(resumes[-1]) if resumes else None}
        fields.update(extra)
        held = (f", QEMU STOP to RESUME "
                f"{(fields['resume_us'] - fields['stop_us']) / 1e3:.1f} ms"
                if fields["stop_us"] and fields["resume_us"] else "")
        moved = (f", downtime {extra['downtime_ms']} ms of {extra['total_ms']} ms"
                 if "downtime_ms" in extra else "")
        self._say(f"event {self.reached} ({event.describe()}): "
                  f"{(end_ns - start_ns) / 1e6:.1f} ms on the host{held}{moved}")
        return fields

    def _resumes(self, before):
        """The RESUME events after the first `before`, waiting a little for one."""
        deadline = time.monotonic() + RESUME_WAIT_S
        while True:
            resumes = self._qmp.events("RESUME")[before:]
            if resumes or time.monotonic() > deadline:
                return resumes
            self._qmp.command("query-status")
            time.sleep(0.01)

    def _migrate(self):
        incoming = self.socket_path("migrate")
        if os.path.exists(incoming):
            os.unlink(incoming)
        role = f"qmp{self.reached}"
        if os.path.exists(self.socket_path(role)):
            os.unlink(self.socket_path(role))
        command = self.command + qmp.qmp_arguments(self.socket_path(role)) + [
            "-incoming", f"unix:{incoming}"]
        destination = self._spawn(command)
        self._processes.append(destination)
        try:
            dest_qmp = self._connect(destination, role)
        except RunnerError as error:
            raise RunnerError(f"the destination QEMU did not start: {error}") from None
        source_qmp = self._qmp
        before_stops = len(source_qmp.events("STOP"))
        # The event starts with the stream, not with the destination's start.
        started = {"start_ns": time.monotonic_ns(), "start_real_ns": time.time_ns()}
        source_qmp.command("migrate", uri=f"unix:{incoming}")
        deadline = time.monotonic() + MIGRATE_TIMEOUT_S
        while True:
            info = source_qmp.command("query-migrate") or {}
            status = info.get("status")
            if status == "completed":
                break
            if status in ("failed", "cancelled"):
                raise RunnerError(f"the destination refused the stream: migration "
                                  f"{status}"
                                  + (f" ({info['error-desc']})" if info.get("error-desc")
                                     else "")
                                  + (", the destination QEMU ended" if destination.poll()
                                     is not None else ""))
            if destination.poll() is not None:
                source_qmp.command("migrate_cancel")
                raise RunnerError(f"the destination QEMU ended (status "
                                  f"{destination.returncode}) while the stream was sent")
            if time.monotonic() > deadline:
                source_qmp.command("migrate_cancel")
                raise RunnerError(f"the migration did not converge within "
                                  f"{MIGRATE_TIMEOUT_S:g} s ({status}); cancelled, the "
                                  f"run stays on the source")
            time.sleep(MIGRATE_POLL_S)
        self._source_stops = source_qmp.events("STOP")[before_stops:]
        # The run goes on in the destination from now on; the source is left paused.
        with self._lock:
            self._process = destination
        self._qmp = dest_qmp
        try:
            source_qmp.command("quit")
        except RunnerError:
            pass  # it was ending anyway
        source_qmp.close()
        return dict(started, downtime_ms=info.get("downtime"), total_ms=info.get("total-time"))

