# SPDX-License-Identifier: MIT
"""The tick table of `clockbench compare`: per tick source, rate and environment,
interrupts a second, CPU lost, cycles per interrupt and lateness."""

import functools

from .cells import (DEFAULT_BASELINE, add_ratios, build_cell, cell_row, cells_csv, headings,
                    missing_row)
from .clocks import verdict_words
from .table import TEXT_WIDTH, Column, Row, Table


# Lateness is µs in every view, as the guest's KTAP lines and `clockbench parse` give it.
NS_PER_US = 1000


def _late_p50_us(rate):
    """The median lateness of a rate's interrupts in µs, or None without records."""
    late = rate.get("lateness_ns")
    return late["p50"] / NS_PER_US if late else None


# Tick metric -> (heading, unit, function of a measured rate entry, ratio shown).
TICK_METRICS = {
    "rate": ("intr/s", "", lambda r: r.get("interrupts_per_s"), False),
    "stolen": ("CPU lost", "%", lambda r: r.get("cpu_stolen_pct"), True),
    "cycles": ("cyc/intr", "", lambda r: r.get("cycles_per_interrupt"), True),
    "late": ("late p50", "µs", _late_p50_us, False),
}


# Computed with the others, not shown as a column: what the CPU lost is judged against.
TICK_NOISE = ("noise", "%", lambda r: r.get("noise_pct"), False)


TICK_FIGURES = {**TICK_METRICS, "noise": TICK_NOISE}


def _tick_sources(document):
    ticks = document.get("ticks") or {}
    return ticks.get("sources", []) if ticks.get("applies") else []


def has_ticks(inputs):
    """Whether any report holds tick measurements."""
    return any(_tick_sources(run.document) for runs in inputs.runs.values() for run in runs)


def tick_order(inputs):
    """(source, rate) pairs in report order, first appearance first, rates ascending within
    a source."""
    order = {}
    for runs in inputs.runs.values():
        for run in runs:
            for source in _tick_sources(run.document):
                rates = order.setdefault(source["name"], [])
                for rate in source["rates"]:
                    if rate["requested_hz"] not in rates:
                        rates.append(rate["requested_hz"])
    return [(name, hz) for name, rates in order.items() for hz in sorted(rates)]


def _tick_figures(source_name, rate_hz, run):
    """(rate entry,) when `source_name` was measured at `rate_hz` in `run`, else
    (None, why not)."""
    source = next((s for s in _tick_sources(run.document) if s["name"] == source_name), None)
    rate = next((r for r in source["rates"] if r["requested_hz"] == rate_hz),
                None) if source else None
    if source is None:
        return None, ("not in the report" if run.document.get("ticks") else
                      "no tick measurements in the report")
    if not source["present"]:
        return None, f"absent: {source['absent_reason']}"
    if rate is None:
        return None, "rate not asked for"
    if rate["state"] != "measured":
        return None, f"{rate['state']}: {rate['problem']}"
    return (rate,), None


def tick_cost_measured(cell):
    """Whether a cell's CPU lost stands above its noise (the median of each over the runs):
    below it, the cost and cycles per interrupt are noise, and so would a ratio be."""
    stolen, noise = cell.metrics.get("stolen"), cell.metrics.get("noise")
    return bool(stolen and stolen.median > (noise.median if noise else 0.0))


def _tick_cost_ratio(cell, base, metric):
    """The cell's median over the baseline's, when both costs stand above their noise and
    both medians are above 0; else None."""
    mine, theirs = cell.metrics[metric], base.metrics[metric]
    measured = tick_cost_measured(cell) and tick_cost_measured(base)
    return (mine.median / theirs.median if measured and mine and theirs and theirs.median > 0
            and mine.median > 0 else None)


def compare_ticks(inputs, baseline=DEFAULT_BASELINE):
    """The Cells grouped per (source, rate) in environment order:
    [((source, rate_hz), [Cell])]."""
    table = []
    for source_name, rate_hz in tick_order(inputs):
        figures_of = functools.partial(_tick_figures, source_name, rate_hz)
        cells = [build_cell((source_name, rate_hz), env, runs, figures_of, TICK_FIGURES)
                 for env, runs in inputs.runs.items()]
        add_ratios(cells, baseline, TICK_METRICS, _tick_cost_ratio)
        table.append(((source_name, rate_hz), cells))
    return table


TICK_TITLE = ("tick costs: each source at each rate on CPU 0, CPU lost by a work loop "
              "(docs/report-format.md, ticks)")


# What the tick table leaves out unless --wide: the cycles, which CPU lost already says.
TICK_WIDE_ONLY = ("cyc/intr",)


def tick_table(table, baseline, wide=True):
    """The tick costs (a Table): per source, rate and environment the metrics; per source,
    one row per reason for what was not measured, naming the rates (`all` for every rate of
    the source) and the environments it holds for.  Without `wide`, no cycles columns."""
    columns = [Column("source", True), Column("rate Hz"), Column("env", True), Column("runs")]
    columns += [Column(heading) for heading in headings((), TICK_METRICS, baseline)[2:]]
    rows = []
    sources = list(dict.fromkeys(source for (source, _), _ in table))
    for source in sources:
        rates = [(rate, cells) for (name, rate), cells in table if name == source]
        missing = {}  # reason -> env -> [rate]
        for rate, cells in rates:
            for cell in cells:
                if cell.missing:
                    missing.setdefault(cell.missing_reason, {}).setdefault(
                        cell.env, []).append((rate, cell))
                else:
                    rows.append(Row(cell_row(cell, TICK_METRICS), source))
        every_rate = [rate for rate, _ in rates]
        for per_env in missing.values():
            by_rates = {}  # the rates an env misses for this reason -> its cells
            for env_cells in per_env.values():
                key = tuple(rate for rate, _ in env_cells)
                by_rates.setdefault(key, []).append(env_cells[0][1])
            for key, cells in by_rates.items():
                rates_text = "all" if list(key) == every_rate and len(key) > 1 else \
                    ", ".join(str(rate) for rate in key)
                rows.append(missing_row([source, rates_text], cells, source))
    full = Table(TICK_TITLE, columns, rows)
    if wide:
        return full
    return full.only([column.heading for column in columns
                      if column.heading not in TICK_WIDE_ONLY
                      and not column.heading.startswith("cycles /")])


def format_tick_table(table, baseline, markdown=False, wide=False):
    """The tick costs as aligned text columns or a Markdown table (a title line first),
    without the columns that would be all '-'."""
    return tick_table(table, baseline, wide).without_empty_columns(keep=5).lines(
        "markdown" if markdown else "table", None if wide else TEXT_WIDTH)


# The tick CSV's name of each metric's columns.
TICK_CSV_NAMES = {"rate": "interrupts_per_s", "stolen": "cpu_stolen_pct",
                  "cycles": "cycles_per_interrupt", "late": "lateness_p50_us",
                  "noise": "noise_pct"}


def format_tick_csv(table, baseline, inputs=None):
    """The tick costs as CSV: one row per source, rate and environment, numbers at the
    tables' precision; with `inputs`, the row's verdicts last (as the clocks' CSV)."""
    names = {metric: (name, name) for metric, name in TICK_CSV_NAMES.items()}
    extra = [("verdicts", lambda cell: verdict_words(inputs.verdicts.get(cell.env, {})))] \
        if inputs is not None else ()
    return cells_csv(table, ("source", "rate_hz", "env", "runs", "measured_runs", "missing_reason"),
                     TICK_FIGURES, names, baseline, extra)
