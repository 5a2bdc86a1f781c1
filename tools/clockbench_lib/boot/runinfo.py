# SPDX-License-Identifier: MIT
"""What a run's record says of where and how it ran, beyond what the guest sees: the
host (name, CPU, kernel), the QEMU and Xen versions, clockbench's revision, the runner's
own command line and the UTC times.  Each fact that costs a process is asked for once per
runner process (a matrix asks QEMU its version once, not per run)."""

import datetime
import functools
import sys
import threading

from ..base import hostinfo, revision
from . import xen

_ARGV = []  # the runner's command line, set by the entry point (set_argv)


def set_argv(argv):
    """Remember the runner's own command line, as it was started, for every record."""
    _ARGV[:] = [str(word) for word in argv]


def argv():
    """The runner's command line (sys.argv when the entry point set none)."""
    return list(_ARGV or sys.argv)


def utc_now():
    """The current time, UTC."""
    return datetime.datetime.now(datetime.timezone.utc)


def iso_utc(moment):
    """`moment` as ISO 8601 UTC to the second: 2026-12-01T21:52:03Z."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=None)
def host_facts():
    """The host block of a record and of a matrix manifest: name, CPU (model, vendor),
    kernel, and the hash of its machine identity (hostinfo.machine_id())."""
    return {
        "name": hostinfo.host_name(),
        "cpu": {"model": hostinfo.host_cpu(), "vendor": hostinfo.host_cpu_vendor()},
        "kernel": hostinfo.kernel(),
        "machine_id": hostinfo.machine_id(),
    }


_asking = {}  # program: (the thread asking it, the list its answer is appended to)
_asking_lock = threading.Lock()  # boot tests start QEMU from two threads at once


def ask_qemu_version(program):
    """Start asking `program --version` in the background, once: QEMU takes about 70 ms to
    answer, which a boot need not wait for.  qemu_version() waits for the answer."""
    with _asking_lock:
        if program in _asking:
            return
        answer = []
        thread = threading.Thread(
            target=lambda: answer.append(hostinfo.first_line([program, "--version"])),
            daemon=True)
        _asking[program] = (thread, answer)
        thread.start()


def qemu_version(program):
    """The first line `program --version` prints, or None (asked once per program)."""
    ask_qemu_version(program)
    thread, answer = _asking[program]
    thread.join()
    return answer[0] if answer else None


@functools.lru_cache(maxsize=None)
def xen_version():
    """The installed Xen package's version, or None."""
    return xen.installed_version()


@functools.lru_cache(maxsize=None)
def clockbench_revision():
    """'VERSION (REVISION)', as --version's first line names this copy."""
    return f"{revision.project_version()} ({revision.revision()})"
