# SPDX-License-Identifier: MIT
"""What the host is: its CPU, its kernel, its machine identity, and the version a program
prints of itself."""

import hashlib
import hmac
import platform
import socket
import subprocess

VERSION_TIMEOUT_S = 30
# Where systemd (and before it D-Bus) keeps the machine's 128-bit identity.
MACHINE_ID_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")
# The key of the machine-id hash: an id of clockbench's own, as systemd asks of programs
# that show a machine's identity (sd_id128_get_machine_app_specific), so that a record
# shared in a bug report does not give the machine's id away.
MACHINE_ID_KEY = b"clockbench host identity"
MACHINE_ID_HEX_DIGITS = 16


def first_line(command):
    """The first line `command` prints on stdout, or None when it cannot be run or fails."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False,
                                timeout=VERSION_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.splitlines()
    return lines[0].strip() if result.returncode == 0 and lines else None


def _cpuinfo_value(name, cpuinfo):
    """The first value of key `name` in /proc/cpuinfo (the first CPU's), or None."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == name:
                    return value.strip() or None
    except OSError:
        pass
    return None


def host_cpu(cpuinfo="/proc/cpuinfo"):
    """The host CPU's model name from /proc/cpuinfo, or None."""
    return _cpuinfo_value("model name", cpuinfo)


def host_cpu_vendor(cpuinfo="/proc/cpuinfo"):
    """The host CPU's vendor_id from /proc/cpuinfo (GenuineIntel, AuthenticAMD), or None."""
    return _cpuinfo_value("vendor_id", cpuinfo)


def host_name():
    """The host's name as uname -n gives it ("" when it has none)."""
    return platform.node() or socket.gethostname()


def kernel():
    """The host kernel: system, release, version and machine, as uname gives them."""
    uname = platform.uname()
    return f"{uname.system} {uname.release} {uname.version} {uname.machine}"


def machine_id(files=MACHINE_ID_FILES):
    """A hash of the machine's identity (the first of `files` that holds one, 32 hex
    digits), 16 hex digits, or None when none does: two hosts of one name (cloud images
    share names) have different ones, and the id itself is not given away."""
    for path in files:
        try:
            with open(path, encoding="ascii", errors="replace") as source:
                text = source.read(64).strip().lower()
        except OSError:
            continue
        if len(text) == 32 and all(char in "0123456789abcdef" for char in text):
            digest = hmac.new(MACHINE_ID_KEY, text.encode("ascii"), hashlib.sha256)
            return digest.hexdigest()[:MACHINE_ID_HEX_DIGITS]
    return None
