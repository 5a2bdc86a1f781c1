# SPDX-License-Identifier: MIT
"""Running QEMU: output captured line by line into a log, an optional live echo, a timeout.

QEMU pauses the guest for good after a KVM internal error (it prints the error and a
register dump on stderr, then waits); such a run is stopped at once instead of waiting
for the timeout.  So is a run whose console shows a caller's `end_line` (Xen halting the
machine after dom0 ended, xen.END_LINE).
"""

import fcntl
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from ..model.console import (CONSOLE_LOSS_MARK, HeldLines, LineSplitter, cut_note,
                             last_nonblank)
from ..base.outcome import RunnerError, Terminated

_READ_CHUNK_BYTES = 65536
_POLL_S = 0.2
_TERMINATE_GRACE_S = 2.0
_READER_JOIN_S = 5.0
# Time left after a stall line for the register dump that follows it to arrive, and
# after an end line for whatever the machine prints last.
_STALL_DUMP_S = 1.0
_END_GRACE_S = 1.0
# What QEMU says on stderr when a signal stops it (qemu.py reads the same line).
_STOPPED_BY_SIGNAL = re.compile(r"terminating on signal \d+")
# QEMU stderr lines after which the guest never runs again.
_STALL_LINE = re.compile(r"^KVM internal error")
# QEMU writes the console to its stdout without blocking, and its virtio console drops
# what a full pipe does not take (QEMU's virtio-console.c: console ports are not
# throttled), silently: the guest sees its buffer taken.  So the pipe is made as large
# as the host allows (/proc/sys/fs/pipe-max-size, 1 MiB by default), more than a run
# writes, and a runner that a busy host leaves unscheduled for a while loses nothing.
PIPE_MAX_SIZE_FILE = "/proc/sys/fs/pipe-max-size"
PIPE_BYTES_CAP = 16 << 20
# A stalled reader (a test's console_reader=stalled): nothing is read from QEMU's stdout
# until QEMU has exited (at most STALL_MAX_S), the worst a busy host can do.
STALL_MAX_S = 60.0
_MARK = (b"\n" + CONSOLE_LOSS_MARK.encode())

_live_processes = set()
_live_lock = threading.Lock()


@dataclass
class ProcessResult:
    """What one QEMU run left behind.

    `status` is QEMU's exit status (negative: killed by that signal), or None when the
    runner killed it: `stop_reason` then says why ("timeout"; "stalled", with the QEMU
    line in `stall_line`; "ended", with the console's end line in `end_line`;
    "interrupted", the runner being stopped by a signal: this result then rides on the
    outcome.Terminated that run_process() raises).  `lines`
    holds stdout and stderr lines in arrival order, cleaned of escape sequences;
    `console_lines` only stdout's, `stderr_lines` only stderr's.  `console_bytes` is how
    many bytes stdout brought before the guest's `clockbench: console:` line (None
    without one), for the runner to hold against the bytes the guest says it wrote.
    """

    status: int
    seconds: float
    console_bytes: int = None  # stdout's bytes before the guest's console account line
    lines: list = field(default_factory=list)
    console_lines: list = field(default_factory=list)
    stderr_lines: list = field(default_factory=list)
    stop_reason: str = None
    stall_line: str = None
    end_line: str = None

    @property
    def timed_out(self):
        """True when the runner killed QEMU because the timeout expired."""
        return self.stop_reason == "timeout"

    @property
    def stalled(self):
        """True when the runner killed QEMU because QEMU had stopped the guest."""
        return self.stop_reason == "stalled"

    @property
    def ended(self):
        """True when the runner stopped QEMU after the console's end line."""
        return self.stop_reason == "ended"

    @property
    def last_line(self):
        """The last non-blank line of the serial console, or ""."""
        return last_nonblank(self.console_lines)


class LineSink:
    """Collects lines from both QEMU streams, writes them to the log and echoes them."""

    def __init__(self, log_path, echo=None, end_pattern=None, listener=None):
        os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
        self._log = open(log_path, "w", encoding="utf-8")
        self._echo = echo
        self._end_pattern = end_pattern
        self._listener = listener  # listener(line) for every console line (events)
        self._lock = threading.Lock()
        self._lines = HeldLines()
        self._streams = {"stdout": HeldLines(), "stderr": HeldLines()}
        self._long = {}  # stream -> [first piece, bytes after it] of an over-long line
        self.stall_line = None
        self.stall_time = None
        self.end_line = None
        self.end_time = None
        self.console_bytes = None  # stdout's bytes before the console account line
        # Every QEMU's stdout counts: a migration's destination carries on the source's
        # console, so the account line's place is in the bytes of both.
        self._stdout_bytes = 0

    def count_stdout(self, tail, chunk):
        """Count a `chunk` of some QEMU's stdout (`tail`: the end of that stdout's last
        chunk, as long as the account line's mark), noting where the account line
        starts (console_bytes) the first time it is seen."""
        with self._lock:
            if self.console_bytes is None:
                found = (tail + chunk).find(_MARK)
                if found >= 0:
                    self.console_bytes = self._stdout_bytes - len(tail) + found + 1
            self._stdout_bytes += len(chunk)

    def add_piece(self, text, ends, stream):
        """Record one piece of a line from `stream` ("stdout" or "stderr"), as
        LineSplitter.pieces() cuts it: the log gets every piece; memory, the matching
        and the echo get the line once it ends, cut to its first piece."""
        with self._lock:
            if self._log.closed:
                return
            self._log.write(text + ("\n" if ends else ""))
            if ends:
                self._log.flush()
            if stream in self._long:
                self._long[stream][1] += len(text.encode("utf-8", errors="replace"))
            elif not ends:
                self._long[stream] = [text, 0]
            if not ends:
                return
            if stream in self._long:
                head, left_out = self._long.pop(stream)
                text = head + cut_note(left_out)
            self._hold(text, stream)

    def add(self, line, stream):
        """Record one whole line that arrived on `stream` ("stdout" or "stderr")."""
        self.add_piece(line, True, stream)

    def _hold(self, line, stream):
        """Keep, match and echo one line (the lock held)."""
        self._lines.append(line)
        self._streams[stream].append(line)
        if stream == "stderr":
            if self.stall_line is None and _STALL_LINE.match(line):
                self.stall_line, self.stall_time = line.strip(), time.monotonic()
        elif (self.end_line is None and self._end_pattern is not None
                and self._end_pattern.match(line)):
            self.end_line, self.end_time = line.strip(), time.monotonic()
        if self._listener and stream == "stdout":
            self._listener(line)
        if self._echo and not (stream == "stderr" and self.end_line is not None
                               and _STOPPED_BY_SIGNAL.search(line)):
            # After the guest's last line the runner itself stops QEMU, which says so
            # ("terminating on signal 15"): the log keeps it, the terminal is spared it.
            self._echo(line, stream)

    @property
    def lines(self):
        """Both streams' lines held, in arrival order."""
        with self._lock:
            return self._lines.to_list()

    @property
    def console_lines(self):
        """The serial console's lines held."""
        with self._lock:
            return self._streams["stdout"].to_list()

    @property
    def stderr_lines(self):
        """QEMU's own lines held."""
        with self._lock:
            return self._streams["stderr"].to_list()

    def has_long_line(self, stream):
        """True while an over-long line of `stream` has not ended."""
        with self._lock:
            return stream in self._long

    def stop_due(self):
        """Why QEMU must be stopped now ("stalled" or "ended"), or None.

        A grace time after the line lets what follows it reach the log.
        """
        with self._lock:
            now = time.monotonic()
            if self.stall_time is not None and now - self.stall_time >= _STALL_DUMP_S:
                return "stalled"
            if self.end_time is not None and now - self.end_time >= _END_GRACE_S:
                return "ended"
            return None

    def close(self):
        """Close the log file."""
        with self._lock:
            self._log.close()


def pipe_bytes(path=PIPE_MAX_SIZE_FILE):
    """The pipe size to give QEMU's stdout: the host's largest (at most PIPE_BYTES_CAP),
    or None when it cannot be read."""
    try:
        with open(path, encoding="ascii") as source:
            return min(int(source.read().strip()), PIPE_BYTES_CAP)
    except (OSError, ValueError):
        return None


def _enlarge_pipe(pipe):
    """Make `pipe` (QEMU's stdout) as large as the host allows; where it cannot be, the
    pipe keeps its size and the byte count (console_problem()) still tells a loss."""
    size = pipe_bytes()
    if size:
        try:
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, size)
        except OSError:
            pass


def _pump(pipe, sink, stream, stall=None):
    """Read `pipe` until end of file, handing each complete line to `sink`; on stdout,
    count its bytes up to the guest's console account line (sink.count_stdout()).
    `stall()`, when given, is called before the first read (a test's stalled reader)."""
    splitter = LineSplitter()
    fd = pipe.fileno()
    tail = b""
    if stall:
        stall()
    while True:
        chunk = os.read(fd, _READ_CHUNK_BYTES)
        if not chunk:
            break
        if stream == "stdout":
            sink.count_stdout(tail, chunk)
            tail = (tail + chunk)[-len(_MARK):]
        for text, ends in splitter.pieces(chunk):
            sink.add_piece(text, ends, stream)
    tail = splitter.finish_piece()
    if (tail is not None and tail.strip()) or sink.has_long_line(stream):
        sink.add_piece(tail or "", True, stream)
    pipe.close()


def _stop(process):
    """End `process` (and anything in its session): SIGTERM, then SIGKILL after a grace time."""
    for sig, wait_s in ((signal.SIGTERM, _TERMINATE_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def stop_all():
    """Stop every QEMU this runner started that is still running (used on Ctrl-C)."""
    with _live_lock:
        processes = list(_live_processes)
    for process in processes:
        _stop(process)


def _start(command, stdin=subprocess.DEVNULL):
    """Start `command` in its own session with stdin from /dev/null (or a pipe, for the
    console's input: subprocess.PIPE) and both outputs piped."""
    try:
        process = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as error:
        raise RunnerError(f"cannot start {command[0]}: {os.strerror(error.errno)}.") from None
    with _live_lock:
        _live_processes.add(process)
    return process


def _wait(process, sink, deadline, current=None, poll=None):
    """Wait for `process` to exit: returns (status, None) or (None, why it must be stopped).
    With `current()`, the run goes on in whichever process it returns (a migration's
    destination): a process left behind ending is not the run ending.  `poll()`, when
    given, is called at every poll (a HostWatch's sample)."""
    while True:
        if poll:
            poll()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, "timeout"
        waited = current() if current else process
        try:
            status = waited.wait(timeout=min(remaining, _POLL_S))
            if current and current() is not waited:
                continue
            return status, None
        except subprocess.TimeoutExpired:
            reason = sink.stop_due()
            if reason:
                return None, reason


def run_process(command, timeout_s, log_path, echo=None, end_line=None, driver=None,
                watch=None, contender=None, stalled_reader=False):
    """Run `command`, logging its output to `log_path`, killing it after `timeout_s` seconds.

    `echo(line, stream)`, when given, is called for every line as it arrives.  `end_line`,
    a compiled regex, marks a console line after which the machine never comes back:
    QEMU is then stopped soon after it.  When the runner is stopped by a signal
    (outcome.Terminated), QEMU is stopped and the Terminated raised again, holding what
    was seen as its `process_result`.

    `driver`, a lifecycle.EventDriver, answers the guest's event points: QEMU then gets
    a pipe for the console's input, the driver sees every console line, may start more
    QEMUs (a migration's destination, logged to the same sink), and says which one the
    run goes on in.

    `watch`, a hoststate.HostWatch, follows every QEMU started as this run's own and
    samples their CPU time at each poll.  `contender`, a contend.Contender, arranges
    --contend once QEMU has started (stopped, -S) and lets the guest run; its loops are
    stopped when the run ends, however it ends.  QEMU's stdout pipe is made as large as
    the host allows (_enlarge_pipe()); `stalled_reader` reads nothing of it until QEMU
    has exited, for a test that the console loses nothing all the same.
    """
    sink = LineSink(log_path, echo, end_line, listener=driver.on_line if driver else None)
    start = time.monotonic()
    readers = []
    started = []

    def spawn(more):
        child = _start(more, stdin=subprocess.PIPE if driver else subprocess.DEVNULL)
        started.append(child)
        if watch:
            watch.follow(child.pid)
        _enlarge_pipe(child.stdout)

        def stall():
            try:
                child.wait(STALL_MAX_S)
            except subprocess.TimeoutExpired:
                pass
        for pipe, name in ((child.stdout, "stdout"), (child.stderr, "stderr")):
            reader = threading.Thread(
                target=_pump, daemon=True,
                args=(pipe, sink, name, stall if stalled_reader and name == "stdout"
                      else None))
            readers.append(reader)
            reader.start()
        return child

    try:
        process = spawn(command)
        if contender:
            contender.start(process)
    except BaseException:
        for child in started:
            _stop(child)
            with _live_lock:
                _live_processes.discard(child)
        if contender:
            contender.finish()
        sink.close()
        raise
    if driver:
        driver.start(process, spawn)
    current = (lambda: driver.process) if driver else None

    def stop_every():
        for child in started:
            if child.poll() is None:
                _stop(child)

    interrupted = None
    try:
        status, stop_reason = _wait(process, sink, start + timeout_s, current,
                                    watch.sample if watch else None)
        if stop_reason:
            _stop(current() if current else process)
    except Terminated as error:
        stop_every()
        interrupted, status, stop_reason = error, None, "interrupted"
    except BaseException:
        stop_every()
        raise
    finally:
        if driver:
            driver.finish()
        if contender:
            contender.finish()
        stop_every()
        seconds = time.monotonic() - start
        for reader in list(readers):
            reader.join(_READER_JOIN_S)
        with _live_lock:
            for child in started:
                _live_processes.discard(child)
        sink.close()
    result = ProcessResult(status=status, seconds=seconds, console_bytes=sink.console_bytes,
                           lines=sink.lines,
                           console_lines=sink.console_lines, stderr_lines=sink.stderr_lines,
                           stop_reason=stop_reason, stall_line=sink.stall_line,
                           end_line=sink.end_line)
    if interrupted:
        interrupted.process_result = result
        raise interrupted
    return result
