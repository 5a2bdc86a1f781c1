# SPDX-License-Identifier: MIT
"""What every table of `clockbench compare` is made of: a Cell per thing measured and
environment, whose figures over the runs are reduced to the median of the per-run values
and their min-max range, with ratios (medians against the baseline's); and how a cell is
written as table cells and CSV."""

import statistics
from dataclasses import dataclass, field

from ..model import report
from .table import Row, Table


DEFAULT_BASELINE = "tcg-pc"


@dataclass
class Spread:
    """One metric over the runs of one environment."""

    median: float
    low: float
    high: float
    count: int


def spread(values):
    """Median of the per-run values and their range, or None when there are none."""
    values = [value for value in values if value is not None]
    if not values:
        return None
    return Spread(statistics.median(values), min(values), max(values), len(values))


def read_p50(run, name):
    """The p50 read cost (ns) of the clock called `name` in `run`'s report, or None when it
    was absent or not timed."""
    clock = run.report.clock(name)
    return clock.read_p50_ns if clock else None


@dataclass
class Cell:
    """One thing measured in one environment (a clock, or a tick source at one rate): its
    spreads over the runs that measured it, or why none did."""

    subject: tuple      # what was measured: (clock,) or (tick source, rate Hz)
    env: str
    runs: int
    measured_runs: int  # runs with figures: the clock present and timed, the rate measured
    metrics: dict = field(default_factory=dict)   # metric -> Spread or None
    ratios: dict = field(default_factory=dict)    # metric -> float or None
    missing_reason: str = None

    @property
    def missing(self):
        return self.measured_runs == 0


def build_cell(subject, env, runs, figures_of, metrics):
    """The Cell of `subject` over `runs` of `env`.

    `figures_of(run)` returns (arguments, None) for a run that measured `subject`, where
    the arguments are what the value function of each of `metrics` is called with, or
    (None, why that run did not).  The first such reason is the cell's when no run did.
    """
    found, reasons = [], []
    for run in runs:
        arguments, reason = figures_of(run)
        if arguments is None:
            reasons.append(reason)
        else:
            found.append(arguments)
    cell = Cell(subject, env, len(runs), len(found))
    if not found:
        cell.missing_reason = reasons[0] if reasons else "no run"
    for metric, (_, _, value_of, _) in metrics.items():
        cell.metrics[metric] = spread([value_of(*arguments) for arguments in found])
    return cell


def add_ratios(cells, baseline, metrics, ratio_of):
    """Set the ratio of every metric of `metrics` that shows one, in each of `cells`:
    `ratio_of(cell, base, metric)` against the cell of the `baseline` environment, or None
    when that environment is not among them."""
    base = next((cell for cell in cells if cell.env == baseline), None)
    for cell in cells:
        for metric, (_, _, _, with_ratio) in metrics.items():
            if with_ratio:
                cell.ratios[metric] = ratio_of(cell, base, metric) if base else None


def median_ratio(cell, base, metric):
    """The cell's median over the baseline's; None when either has none or the baseline's
    is 0."""
    mine, theirs = cell.metrics[metric], base.metrics[metric]
    return mine.median / theirs.median if mine and theirs and theirs.median else None


def number_text(value):
    return report._number(value)  # pylint: disable=protected-access


def spread_text(value):
    """The median, and with a spread over the runs its range: `240 (236 … 250)` (an
    ellipsis, so that a negative range reads `(-1.71 … -0.252)`)."""
    if value is None:
        return "-"
    if value.count == 1 or value.low == value.high:
        return number_text(value.median)
    return f"{number_text(value.median)} ({range_text(value.low, value.high)})"


def range_text(low, high):
    """A range as every view writes it: `min … max`."""
    return f"{number_text(low)} … {number_text(high)}"


def csv_number(value):
    """A figure for CSV at the precision the tables show it (number_text: about three
    significant digits, whole numbers from 1000 up), as a number, not as float noise
    (0.0035288437025000003 is 0.00353); "" for None."""
    if value is None:
        return ""
    text = number_text(value)
    if text == "-":
        return ""
    return int(text) if "." not in text else float(text)


def ratio_text(value):
    return "-" if value is None else f"{value:.2f}x"


# A ratio column is headed by its metric's key, but where the key is not the words the
# metric's own column uses: the tick table's CPU lost ("stolen" is the report's member).
RATIO_HEADINGS = {"stolen": "lost"}


def headings(subject, metrics, baseline):
    """Column headings: those naming the subject, env, runs, then each metric's (and its
    ratio's)."""
    headings = [*subject, "env", "runs"]
    for metric, (heading, unit, _, with_ratio) in metrics.items():
        headings.append(f"{heading} {unit}".strip())
        if with_ratio:
            headings.append(f"{RATIO_HEADINGS.get(metric, metric)} / {baseline}")
    return headings


def runs_text(cell):
    return str(cell.runs) if cell.measured_runs == cell.runs else \
        f"{cell.measured_runs} of {cell.runs}"


def cell_row(cell, metrics):
    """The cells of a measured cell's row: the subject, env, runs and each metric's spread
    (and ratio)."""
    row = [*(str(part) for part in cell.subject), cell.env, runs_text(cell)]
    for metric, (_, _, _, with_ratio) in metrics.items():
        row.append(spread_text(cell.metrics[metric]))
        if with_ratio:
            row.append(ratio_text(cell.ratios[metric]))
    return row


def missing_row(subject, cells, group):
    """One row for the missing `cells` of one subject that share one reason: the envs
    named together, so that a reason repeated by every environment (or every rate) is one
    line.  `subject` is the row's leading cells (the clock; the tick source and its rates)."""
    envs = [cell.env for cell in cells]
    runs = sorted({cell.runs for cell in cells})
    runs_cell = ", ".join(str(count) for count in runs)
    reason = f"missing: {cells[0].missing_reason}"
    if len(cells) == 1:
        return Row([*subject, envs[0], runs_cell, reason], group,
                   lead=len(subject) + 2, text=reason)
    each = f"{runs[0]} run{'s' if runs[0] != 1 else ''} each" if len(runs) == 1 else \
        f"{runs_cell} runs"
    return Row([*subject, ", ".join(envs), runs_cell, reason], group, lead=len(subject),
               text=f"{', '.join(envs)} ({each}): {reason}")


def collapsed_missing(cells):
    """The missing cells of `cells` grouped by reason, in order of first appearance:
    [[Cell]]."""
    by_reason = {}
    for cell in cells:
        if cell.missing:
            by_reason.setdefault(cell.missing_reason, []).append(cell)
    return list(by_reason.values())


def cells_csv(table, heading, metrics, names, baseline, extra=()):
    """`table` as CSV lines, numbers at the tables' precision (csv_number): the `heading` columns (the subject, env,
    runs, runs measured, missing_reason), then per metric of `metrics` its median, min and
    max (and ratio), named by `names[metric]`: (the values' prefix, the ratio's), then the
    `extra` columns: (heading, function of a cell)."""
    heading = list(heading)
    for metric, (_, _, _, with_ratio) in metrics.items():
        value_name, ratio_name = names[metric]
        heading += [f"{value_name}_median", f"{value_name}_min", f"{value_name}_max"]
        if with_ratio:
            heading.append(f"{ratio_name}_ratio_to_{baseline}")
    heading += [name for name, _ in extra]
    rows = []
    for _, cells in table:
        for cell in cells:
            row = [*cell.subject, cell.env, cell.runs, cell.measured_runs,
                   cell.missing_reason or ""]
            for metric, (_, _, _, with_ratio) in metrics.items():
                value = cell.metrics[metric]
                row += ["", "", ""] if value is None else [
                    csv_number(value.median), csv_number(value.low), csv_number(value.high)]
                if with_ratio:
                    ratio = cell.ratios[metric]
                    row.append("" if ratio is None else round(ratio, 2))
            rows.append(row + [value_of(cell) for _, value_of in extra])
    return Table("", heading, rows).csv()
