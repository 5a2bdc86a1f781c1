# SPDX-License-Identifier: MIT
"""What the host is: its CPU, its kernel, and the version a program prints of itself."""

import platform
import socket
import subprocess

VERSION_TIMEOUT_S = 30


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
