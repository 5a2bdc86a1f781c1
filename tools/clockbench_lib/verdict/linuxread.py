# SPDX-License-Identifier: MIT
"""What a Linux guest decided about its clocksources, from clockbench-user's document
(`clockbench-os/1`, its `kernel_clocksource`): one LinuxDecision per snapshot, each with
the unstable marks and log lines the kernel had written by then (docs/watchdog.md)."""

import re

from .model import LinuxDecision

MARKED = re.compile(r"[Mm]arking clocksource '([^']+)' as unstable")
# mark_tsc_unstable's own line ("Marking TSC unstable due to TSCs unsynchronized"): tsc
# is then never registered, or loses its rating.
TSC_MARKED = re.compile(r"Marking TSC unstable due to")


def decisions(os_document):
    """One LinuxDecision per snapshot of the document's kernel_clocksource, in time
    order; [] when the document has none, could not read it, or holds it broken."""
    if not isinstance(os_document, dict):
        return []
    member = os_document.get("kernel_clocksource")
    if not isinstance(member, dict) or member.get("read") is not True:
        return []
    snapshots = member.get("snapshots")
    if not isinstance(snapshots, list):
        return []
    log = [entry for entry in member.get("log") or []
           if isinstance(entry, dict) and isinstance(entry.get("line"), str)]
    marks = unstable_marks(member, log)
    flags = member.get("cpu_flags") if isinstance(member.get("cpu_flags"), dict) else {}
    release = member.get("release") if isinstance(member.get("release"), str) else ""
    found = []
    for snapshot in snapshots:
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("current"), str):
            continue
        uptime_s = seconds(snapshot.get("uptime_s"))
        available = snapshot.get("available")
        found.append(LinuxDecision(
            when=str(snapshot.get("when") or ""),
            current=snapshot["current"],
            available=[name for name in available if isinstance(name, str)]
            if isinstance(available, list) else [],
            unstable={name: line for name, (at_s, line) in marks.items()
                      if uptime_s is None or at_s is None or at_s <= uptime_s},
            log=[entry["line"] for entry in log
                 if uptime_s is None or seconds(entry.get("uptime_s")) is None
                 or seconds(entry.get("uptime_s")) <= uptime_s],
            release=release,
            flags=dict(flags)))
    return found


def command_line(os_document):
    """Linux's command line as the document read it (/proc/cmdline), for
    watchdog.predict and choice.predict_choice: tsc= and clocksource= change what Linux
    does; "" when the document has none."""
    if not isinstance(os_document, dict):
        return ""
    member = os_document.get("kernel_clocksource")
    if not isinstance(member, dict) or not isinstance(member.get("cmdline"), str):
        return ""
    return member["cmdline"]


def unstable_marks(member, log):
    """{clocksource: (uptime_s, the kernel's line)}: the document's `unstable` list, and
    any "Marking clocksource '...' as unstable" line of the log it left out."""
    marks = {}
    for entry in member.get("unstable") or []:
        if isinstance(entry, dict) and isinstance(entry.get("clocksource"), str):
            marks.setdefault(entry["clocksource"],
                             (seconds(entry.get("uptime_s")), str(entry.get("line") or "")))
    for entry in log:
        found = MARKED.search(entry["line"])
        name = found.group(1) if found else "tsc" if TSC_MARKED.search(entry["line"]) else None
        if name:
            marks.setdefault(name, (seconds(entry.get("uptime_s")), entry["line"]))
    return marks


def seconds(value):
    """A number of seconds, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
