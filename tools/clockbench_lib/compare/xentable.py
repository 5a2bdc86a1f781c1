# SPDX-License-Identifier: MIT
"""The Xen table of `clockbench compare`: per kind of Xen guest, what a xen_pvclock and a
tsc read cost and their ratio."""

from dataclasses import dataclass

from .cells import Spread, csv_number, ratio_text, read_p50, spread, spread_text
from .table import Column, Table


@dataclass
class XenRow:
    """What a xen_pvclock and a tsc read cost (p50 ns) in one Xen environment, and their
    ratio, over its runs: the question the project grew from, per kind of Xen guest."""

    env: str
    guest: str            # "pvh dom0", from the reports' env.xen
    runs: int
    pvclock: Spread = None
    tsc: Spread = None
    ratio: Spread = None  # of the per-run ratios xen_pvclock / tsc
    rdtsc: str = "-"      # "emulated by Xen", "native", or "-" when Xen did not say


# The guest type of a report that ran under Xen but predates env.xen (clockbench/1).
UNSAID_GUEST = "not said (before env.xen)"


def compare_xen(inputs):
    """One XenRow per environment whose reports ran under Xen (env.xen, or for an older
    report without it the hypervisor the guest named, Xen), in input order."""
    rows = []
    for env, runs in inputs.runs.items():
        kinds = [run.report.env.xen for run in runs]
        if not any(kinds) and not any(run.report.env.hypervisor == "Xen" for run in runs):
            continue
        kind = next((k for k in kinds if k), None)
        pvclock = [read_p50(run, "xen_pvclock") for run in runs]
        tsc = [read_p50(run, "tsc") for run in runs]
        ratios = [p / t for p, t in zip(pvclock, tsc) if p is not None and t]
        emulated = kind.get("tsc_emulated") if kind else None
        guest = f"{kind['guest']} {kind['domain']}" if kind else UNSAID_GUEST
        rows.append(XenRow(env, guest, len(runs),
                           spread(pvclock), spread(tsc), spread(ratios),
                           "-" if emulated is None else
                           "emulated by Xen" if emulated else "native"))
    return rows


XEN_HEADINGS = ("env", "guest", "runs", "xen_pvclock p50 ns", "tsc p50 ns",
                "xen_pvclock / tsc", "rdtsc")


XEN_TITLE = ("Xen guests: what a xen_pvclock and a tsc read cost (p50, median over the "
             "runs), and their ratio")


def xen_table(rows):
    """The Xen guests' clock costs (a Table)."""
    columns = [Column(heading, index in (0, 1, 6)) for index, heading in enumerate(XEN_HEADINGS)]
    return Table(XEN_TITLE, columns, [
        [row.env, row.guest, str(row.runs), spread_text(row.pvclock), spread_text(row.tsc),
         "-" if row.ratio is None else ratio_text(row.ratio.median), row.rdtsc]
        for row in rows])


def format_xen_table(rows, markdown=False):
    """The Xen guests' clock costs as aligned text columns or a Markdown table."""
    return xen_table(rows).lines("markdown" if markdown else "table")


def format_xen_csv(rows):
    """The Xen guests' clock costs as CSV, numbers at the tables' precision."""
    heading = ["env", "guest", "runs"]
    for name in ("xen_pvclock_p50_ns", "tsc_p50_ns", "xen_pvclock_over_tsc"):
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    lines = []
    for row in rows:
        line = [row.env, row.guest, row.runs]
        for value in (row.pvclock, row.tsc, row.ratio):
            line += ["", "", ""] if value is None else [
                csv_number(value.median), csv_number(value.low), csv_number(value.high)]
        lines.append(line + [row.rdtsc])
    return Table("", heading + ["rdtsc"], lines).csv()
