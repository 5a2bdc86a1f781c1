# SPDX-License-Identifier: MIT
"""A QMP client (QEMU's machine protocol, JSON lines over a unix socket): commands with
their answers, and the events QEMU sends meanwhile, kept with QEMU's own timestamps."""

import json
import os
import socket
import threading
import time

from ..base.outcome import RunnerError

CONNECT_TIMEOUT_S = 10.0
COMMAND_TIMEOUT_S = 60.0
_READ_BYTES = 65536


def qmp_arguments(path):
    """QEMU's options for a QMP server on the unix socket `path`, not waiting for it."""
    return ["-qmp", f"unix:{path},server=on,wait=off"]


def event_us(event):
    """A QMP event's timestamp (the host's CLOCK_REALTIME) in microseconds."""
    stamp = event.get("timestamp", {})
    return int(stamp.get("seconds", 0)) * 1_000_000 + int(stamp.get("microseconds", 0))


class Qmp:
    """One QMP connection: command() waits for its answer; events() what came meanwhile."""

    def __init__(self, path, alive=None, timeout_s=CONNECT_TIMEOUT_S):
        """Connect to `path`, retrying until QEMU has made it (at most `timeout_s`, and
        only while `alive()` says QEMU still runs), then leave capabilities negotiation."""
        deadline = time.monotonic() + timeout_s
        self._sock = None
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                self._sock = sock
                break
            except OSError as error:
                sock.close()
                if alive is not None and not alive():
                    raise RunnerError(f"QEMU ended before its QMP socket {path} answered."
                                      ) from None
                if time.monotonic() > deadline:
                    raise RunnerError(f"QEMU's QMP socket {path} did not answer within "
                                      f"{timeout_s:g} s ({os.strerror(error.errno)})."
                                      ) from None
                time.sleep(0.05)
        self._buffer = b""
        self._events = []
        self._lock = threading.Lock()
        self._sock.settimeout(COMMAND_TIMEOUT_S)
        greeting = self._read_message()
        if "QMP" not in greeting:
            raise RunnerError(f"QEMU's QMP socket {path} did not greet as QMP does.")
        self.command("qmp_capabilities")

    def _read_message(self):
        while b"\n" not in self._buffer:
            try:
                chunk = self._sock.recv(_READ_BYTES)
            except socket.timeout:
                raise RunnerError(f"QEMU's QMP gave no answer within "
                                  f"{COMMAND_TIMEOUT_S:g} s.") from None
            except OSError as error:
                raise RunnerError(f"QEMU's QMP connection failed: "
                                  f"{os.strerror(error.errno)}.") from None
            if not chunk:
                raise RunnerError("QEMU closed its QMP connection (it ended).")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            raise RunnerError(f"QEMU's QMP sent a line that is not JSON: {line[:80]!r}."
                              ) from None

    def command(self, name, **arguments):
        """Run QMP command `name`: its "return" value, or RunnerError with QEMU's own
        description of the error."""
        message = {"execute": name}
        if arguments:
            message["arguments"] = arguments
        with self._lock:
            try:
                self._sock.sendall(json.dumps(message).encode() + b"\n")
            except OSError as error:
                raise RunnerError(f"cannot send {name} to QEMU's QMP: "
                                  f"{os.strerror(error.errno)}.") from None
            while True:
                reply = self._read_message()
                if "event" in reply:
                    self._events.append(reply)
                    continue
                if "error" in reply:
                    raise RunnerError(f"QEMU refused {name}: "
                                      f"{reply['error'].get('desc', reply['error'])}.")
                return reply.get("return")

    def human(self, command_line):
        """A monitor command (savevm, loadvm) through QMP: what it printed ("" when all
        went well)."""
        return (self.command("human-monitor-command", **{"command-line": command_line})
                or "").strip()

    def wait_event(self, name, timeout_s):
        """The first event `name` received (now or within `timeout_s`), or None."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                for event in self._events:
                    if event.get("event") == name:
                        return event
            if time.monotonic() > deadline:
                return None
            # A cheap command drains what QEMU sent meanwhile.
            self.command("query-status")
            time.sleep(0.01)

    def events(self, name=None):
        """The events received so far (only `name`'s, when given)."""
        with self._lock:
            return [e for e in self._events if name is None or e.get("event") == name]

    def close(self):
        """Close the connection."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
