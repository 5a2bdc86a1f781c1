# SPDX-License-Identifier: MIT
"""The clocks table of `clockbench compare`: per clock and environment the read costs,
resolution, warps and drift, against the same environment's tsc and against the baseline;
and the flags a reader must not miss (change.py compares rows and gates them)."""

import functools

from .cells import (DEFAULT_BASELINE, add_ratios, build_cell, cell_row, cells_csv,
                    collapsed_missing, median_ratio, missing_row, number_text, ratio_text)
from .table import TEXT_WIDTH, Column, Row, Table, wrap_text


def cross_cpu_entry(document, name):
    cross = document.get("cross_cpu") or {}
    if not cross.get("applies"):
        return None
    return next((entry for entry in cross.get("clocks", []) if entry["clock"] == name), None)


def _max_abs_drift(entry):
    values = [abs(d["drift_ppm"]) for d in entry["drift_ppm"] if d["drift_ppm"] is not None]
    return max(values) if values else None


# Metric name -> (heading, unit, function of (Clock, Report), ratio shown).
METRICS = {
    "p50": ("p50", "ns", lambda c, r: c.read_ns.p50 if c.read_ns else None, True),
    "p99": ("p99", "ns", lambda c, r: c.read_ns.p99 if c.read_ns else None, True),
    "batch": ("batch", "ns/read", lambda c, r: c.batch_ns_per_read, True),
    "resolution": ("resolution", "ns", lambda c, r: c.resolution_ns, False),
    "warps": ("warps", "",
              lambda c, r: (cross_cpu_entry(r.document, c.name) or {}).get("warps"), False),
    "drift": ("max |drift|", "ppm",
              lambda c, r: _max_abs_drift(cross_cpu_entry(r.document, c.name))
              if cross_cpu_entry(r.document, c.name) else None, False),
}


def clock_order(inputs):
    """Clock names in report order, first appearance first."""
    names = []
    for runs in inputs.runs.values():
        for run in runs:
            for clock in run.report.clocks:
                if clock.name not in names:
                    names.append(clock.name)
    return names


def _clock_figures(clock_name, run):
    """(Clock, Report) when `clock_name` was present and timed in `run`, else (None, why
    not)."""
    clock = run.report.clock(clock_name)
    if clock is None:
        return None, "not in the report"
    if not clock.timed:
        return None, clock.absent_reason or "present but not measured"
    return (clock, run.report), None


def compare(inputs, baseline=DEFAULT_BASELINE):
    """The Cells, grouped per clock in environment order: [(clock, [Cell])]."""
    table = []
    for clock_name in clock_order(inputs):
        figures_of = functools.partial(_clock_figures, clock_name)
        cells = [build_cell((clock_name,), env, runs, figures_of, METRICS)
                 for env, runs in inputs.runs.items()]
        add_ratios(cells, baseline, METRICS, median_ratio)
        table.append((clock_name, cells))
    return table


def run_p50s(runs, clock_name):
    """The p50 read costs (ns) of `clock_name` in the runs that measured it."""
    found = [_clock_figures(clock_name, run)[0] for run in runs]
    return [clock.read_ns.p50 for clock, _ in filter(None, found)
            if clock.read_ns and clock.read_ns.p50 is not None]


def clock_flags(inputs, cell):
    """What a reader must not miss about one clock in one environment, as words: `trapped`
    (its reads are intercepted or emulated: the report's `trapped`, in every run that timed
    it or in some) and `warps` (it went backwards between CPUs, with the worst step)."""
    trapped, timed, worst_warp_ns, warped = 0, 0, None, 0
    for run in inputs.runs.get(cell.env, []):
        clock = run.report.clock(cell.subject[0])
        if clock and clock.timed:
            timed += 1
            trapped += clock.trapped
        entry = cross_cpu_entry(run.document, cell.subject[0])
        if entry and entry.get("warps"):
            warped += 1
            worst = entry.get("worst_warp_ns")
            if worst is not None:
                worst_warp_ns = max(worst, worst_warp_ns or 0)
    flags = []
    if trapped:
        flags.append("trapped" if trapped == timed else f"trapped in {trapped} of {timed}")
    if warped:
        flags.append("warps" + (f" (worst {number_text(worst_warp_ns)} ns)"
                                if worst_warp_ns is not None else ""))
    return flags


def tsc_p50s(table):
    """env -> the median tsc p50 of that environment, where tsc was timed."""
    cells = dict(table).get("tsc", [])
    return {cell.env: cell.metrics["p50"].median for cell in cells
            if not cell.missing and cell.metrics.get("p50")}


def over_tsc(cell, tsc_p50):
    """The cell's p50 over the tsc p50 of the same environment, or None."""
    mine, theirs = cell.metrics.get("p50"), tsc_p50.get(cell.env)
    return mine.median / theirs if mine and theirs else None


# The columns of the clocks table without --wide: what a read costs, against tsc and the
# baseline, its warps and flags; --wide adds the batch, resolution, p99 ratio and drift.
NARROW_HEADINGS = ("clock", "env", "runs", "p50 ns", "× tsc", "p99 ns", "warps", "flags")
# The columns that show the median alone without --wide (the p50 keeps its range).
NARROW_MEDIAN_ONLY = ("p99 ns", "warps")


def clock_table(table, inputs, baseline, wide=True):
    """The clocks table (a Table): per clock and environment the metrics, `× tsc` (the p50
    over the same environment's tsc p50) after the p50 and its ratio, and the flags; one
    row per clock and reason for the environments where the clock is missing."""
    columns = [Column("clock", True), Column("env", True), Column("runs")]
    for metric, (heading, unit, _, with_ratio) in METRICS.items():
        columns.append(Column(f"{heading} {unit}".strip()))
        if metric == "p50":
            columns.append(Column("× tsc"))
        if with_ratio:
            columns.append(Column(f"{metric} / {baseline}"))
    columns.append(Column("flags", True))
    tsc_p50 = tsc_p50s(table)
    rows = []
    for clock_name, cells in table:
        missing = {id(group[0]): group for group in collapsed_missing(cells)}
        for cell in cells:
            if id(cell) in missing:
                rows.append(missing_row([clock_name], missing[id(cell)], clock_name))
            elif not cell.missing:
                row = cell_row(cell, METRICS)
                row.insert(4, ratio_text(over_tsc(cell, tsc_p50)))
                rows.append(Row(row + [", ".join(clock_flags(inputs, cell))], clock_name))
    full = Table(f"clocks: what one read costs (median over the runs, their range in "
                 f"brackets), against the same environment's tsc and against {baseline}",
                 columns, rows)
    if wide:
        return full
    narrow = full.only([*NARROW_HEADINGS, f"p50 / {baseline}"])
    for row in narrow.rows:  # only the p50 shows its range over the runs
        if row.text is None:
            row.cells = [cell.split(" (", 1)[0] if isinstance(cell, str) and heading in
                         NARROW_MEDIAN_ONLY else cell
                         for cell, heading in zip(row.cells, narrow.headings)]
    return narrow


def verdict_words(counts):
    """A row's verdicts in words, most severe first: `1 FAIL, 1 PASS`."""
    order = ("error", "fail", "skip", "pass", None)
    return ", ".join(f"{counts[verdict]} {(verdict or 'no verdict').upper()}"
                     for verdict in sorted(counts, key=lambda v: order.index(v)
                                           if v in order else 0))


def left_out_notes(inputs):
    """A line per FAIL or ERROR run: left out of the figures (or taken in), and why."""
    shown = "taken into the figures (--include-failed)" if inputs.include_failed else \
        "left out of the figures (--include-failed takes it in)"
    runs = [run for runs in inputs.runs.values() for run in runs if run.left_out] \
        if inputs.include_failed else inputs.left_out
    return [f"{run.env}: {run.verdict.upper()} run {run.source}, {shown}: {run.left_out}"
            for run in runs]


def notes(inputs, baseline):
    """Lines about what is not in the table: every row's verdicts, the runs left out and
    why, inputs counted once, rows kept apart, skipped environments, failed runs,
    baseline."""
    lines = ["verdicts: " + "; ".join(f"{row} {verdict_words(counts)}"
                                       for row, counts in inputs.verdicts.items())]
    lines += left_out_notes(inputs)
    lines += inputs.counted_once
    lines += list(inputs.apart)
    lines += [f"{env}: skipped: {reason}" for env, reason in inputs.skipped.items()]
    lines += [f"{env}: a run gave no report ({source}): {reason}"
              for env, source, reason in inputs.failed]
    if baseline not in inputs.runs and not inputs.paired:
        lines.append(f"baseline {baseline} is not in the results, so there are no ratios "
                     f"(--baseline picks another: {', '.join(inputs.runs)})")
    return lines


def format_table(table, inputs, baseline, markdown=False, wide=False):
    """The comparison as aligned text columns or a Markdown table, without the columns
    that would be all '-' (and but for `wide` only NARROW_HEADINGS, wrapped at
    TEXT_WIDTH), then the notes."""
    lines = clock_table(table, inputs, baseline, wide).without_empty_columns(keep=4).lines(
        "markdown" if markdown else "table", None if wide else TEXT_WIDTH)
    extra = notes(inputs, baseline)
    if extra:
        lines.append("")
        lines += [f"- {text}" for text in extra] if markdown else \
            [line for text in extra for line in wrap_text(text, None if wide else TEXT_WIDTH)]
    return lines


def format_csv(table, baseline, inputs=None):
    """The comparison as CSV: one row per clock and environment, numbers unformatted.
    Its present_runs are the cells' measured_runs: the runs where the clock was present
    and timed.  Then p50_over_tsc (the × tsc column) and, with `inputs`, flags and the
    row's verdicts (`1 FAIL, 1 PASS`: runs left out are counted, not in the figures)."""
    names = {}
    for metric, (_, unit, _, _) in METRICS.items():
        suffix = f"_{unit.replace('/', '_per_')}" if unit else ""
        names[metric] = (f"{metric}{suffix}", metric)
    tsc_p50 = tsc_p50s(table)

    def ratio(cell):
        value = over_tsc(cell, tsc_p50)
        return "" if value is None else round(value, 2)
    extra = [("p50_over_tsc", ratio)]
    if inputs is not None:
        extra.append(("flags", lambda cell: "; ".join(clock_flags(inputs, cell))))
        extra.append(("verdicts", lambda cell: verdict_words(inputs.verdicts.get(cell.env,
                                                                                 {}))))
    return cells_csv(table, ("clock", "env", "runs", "present_runs", "missing_reason"), METRICS,
                names, baseline, extra)
