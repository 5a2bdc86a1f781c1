# SPDX-License-Identifier: MIT
"""The OS table of `clockbench compare`: per clocksource, the image's raw read of its
counter beside clock_gettime through libc and the syscall (clockbench-user's
documents)."""

from dataclasses import dataclass

from .cells import Spread, csv_number, number_text, ratio_text, read_p50, spread, spread_text
from .inputs import OS_SUFFIX
from .table import Column, Table


# The image's raw clock -> the Linux clocksource that reads the same counter.
RAW_TO_CLOCKSOURCE = {"tsc": "tsc", "hpet": "hpet", "acpi_pm": "acpi_pm",
                      "kvm_clock": "kvm-clock", "xen_pvclock": "xen"}


OS_CLOCK = "CLOCK_MONOTONIC"


@dataclass
class OsRow:
    """One clocksource in one environment: the image's raw read of its counter beside
    clock_gettime(CLOCK_MONOTONIC) through libc and through the system call, p50 ns over
    the runs (docs/os-layer.md)."""

    env: str
    clocksource: str
    raw_clock: str        # the image's clock of the same counter, or "-"
    raw: Spread = None
    libc: Spread = None
    syscall: Spread = None
    via: str = "-"        # where the libc reads were answered: vdso, syscall, or both
    added: float = None   # libc median - raw median, ns
    ratio: float = None   # libc median / raw median


def _osread_p50(run, path):
    """The p50 of the OS_CLOCK read through `path` in `run`, or None."""
    read = next((r for r in run["reads"] if r["clock"] == OS_CLOCK and r["path"] == path),
                None)
    if not read or not read["measured"] or not read["read_ns"]:
        return None, None
    return read["read_ns"]["p50"], read["through"]


def _os_runs_of(document, clocksource):
    return [run for run in document["runs"]
            if run["clocksource"] == clocksource and not run["problem"]]


def compare_os(inputs):
    """One OsRow per clocksource of each environment with clockbench-user documents."""
    rows = []
    for env, os_runs in inputs.os_runs.items():
        sources = []
        for run in os_runs:
            sources += [r["clocksource"] for r in run.document["runs"]
                        if r["clocksource"] not in sources]
        for source in sources:
            raw_clock = next((clock for clock, cs in RAW_TO_CLOCKSOURCE.items()
                              if cs == source), None)
            libc, syscall, through = [], [], set()
            for os_run in os_runs:
                for run in _os_runs_of(os_run.document, source):
                    value, via = _osread_p50(run, "libc")
                    libc.append(value)
                    through.add(via)
                    syscall.append(_osread_p50(run, "syscall")[0])
            raw = [read_p50(run, raw_clock) for run in inputs.runs.get(env, [])] \
                if raw_clock else []
            row = OsRow(env, source, raw_clock or "-", spread(raw), spread(libc),
                        spread(syscall), "/".join(sorted(v for v in through if v)) or "-")
            if row.raw and row.libc:
                row.added = row.libc.median - row.raw.median
                row.ratio = row.libc.median / row.raw.median if row.raw.median else None
            rows.append(row)
    return rows


OS_HEADINGS = ("env", "clocksource", "raw clock", "raw p50 ns",
               f"clock_gettime({OS_CLOCK}) p50 ns", "via", "OS adds ns", "OS / raw",
               "syscall p50 ns")


def os_notes(inputs, rows):
    """What the OS table cannot show: environments with no image report to set beside."""
    return [f"{env}: no image report of this environment, so no raw read to set beside "
            f"(name the image's report {env}.json and clockbench-user's {env}{OS_SUFFIX}"
            f".json)" for env in dict.fromkeys(row.env for row in rows)
            if env not in inputs.runs]


OS_TITLE = (f"What the OS adds: clock_gettime({OS_CLOCK}) through libc against the raw "
            f"read of the same counter (p50, median over the runs)")


def os_table(rows):
    """Raw against OS (a Table): what clock_gettime adds to the raw read, per clocksource."""
    columns = [Column(heading, index in (0, 1, 2, 5)) for index, heading in enumerate(OS_HEADINGS)]
    return Table(OS_TITLE, columns, [
        [row.env, row.clocksource, row.raw_clock, spread_text(row.raw),
         spread_text(row.libc), row.via, "-" if row.added is None else number_text(row.added),
         ratio_text(row.ratio), spread_text(row.syscall)] for row in rows])


def format_os_table(rows, inputs, markdown=False):
    """Raw against OS as aligned text columns or a Markdown table, then what it cannot
    show."""
    return os_table(rows).lines("markdown" if markdown else "table") + os_notes(inputs, rows)


def format_os_csv(rows):
    """Raw against OS as CSV, numbers at the tables' precision."""
    heading = ["env", "clocksource", "raw_clock"]
    for name in ("raw_p50_ns", "clock_gettime_p50_ns", "syscall_p50_ns"):
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    lines = []
    for row in rows:
        line = [row.env, row.clocksource, row.raw_clock]
        for value in (row.raw, row.libc, row.syscall):
            line += ["", "", ""] if value is None else [
                csv_number(value.median), csv_number(value.low), csv_number(value.high)]
        lines.append(line + [row.via, csv_number(row.added),
                             "" if row.ratio is None else round(row.ratio, 2)])
    return Table("", heading + ["via", "os_adds_ns", "os_over_raw"], lines).csv()
