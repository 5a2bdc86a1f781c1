# SPDX-License-Identifier: MIT
"""What the commands that boot (run, test, matrix) share: their messages on stderr, the
-v announcer of each boot's QEMU command, the CPU model KVM starts here, and whether a
boot's guest options are checked before it."""

import sys
import threading

from ..base import paths
from . import cpumodel
from .once import command_lines


def say(command, message):
    """Print one runner message (not guest output) to stderr."""
    print(f"clockbench {command}: {message}", file=sys.stderr, flush=True)


_SHOW_LOCK = threading.Lock()


def command_announcer(command, name=None):
    """The before() callback of boot_once() for -v: prints the QEMU command (and Xen's
    command line) to stderr, each heading naming the subcommand (and the test), the
    command on its own indented line so that it can be pasted into a shell."""
    label = f"clockbench {command}: " + (f"{name}: " if name else "")

    def announce(spec, qemu_command):
        lines = command_lines(spec, qemu_command)
        text = "\n".join(line if line.startswith(" ") else label + line for line in lines)
        with _SHOW_LOCK:
            print(text, file=sys.stderr, flush=True)
    return announce


def kvm_cpu_choice():
    """The CPU model KVM starts on this host (found once, kept under build/)."""
    return cpumodel.choose_for(paths.work_root())


def checks_guest_options(spec, unchecked=False):
    """True when the runner checks `spec`'s guest options before booting: the image's
    boots with options (the linux boots' are clockbench-user's), unless `unchecked`."""
    return not unchecked and not spec.runs_user and bool(spec.cmdline.strip())
