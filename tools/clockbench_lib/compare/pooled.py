# SPDX-License-Identifier: MIT
"""compare --percentiles: read-cost percentiles pooled over the runs from their histograms.

A report's percentiles are per run, and the clocks table shows their medians over the
runs.  A run's histogram (read_ns.hist) holds every read, so the runs' histograms added
bucket by bucket (histogram.pooled) give the percentiles of every read of every run, as
far into the tail as the reads go: p99.99 of 5 runs of 20000 reads is the 10th slowest of
100000.  A quantile is the low end of its bucket (within the histogram's relative error
below the exact one, exact under 2^sub_bits ns)."""

from ..base.outcome import RunnerError
from ..model import histogram
from .cells import csv_number, number_text
from .clocks import clock_order
from .table import Column, Row, Table

DEFAULT_PERCENTILES = (50.0, 99.0, 99.9, 99.99)


def parse_percentiles(text):
    """The percentiles of a --percentiles value ("50,99,99.9,99.99"), in order;
    RunnerError for one that is not a number in (0, 100]."""
    values = []
    for word in text.split(","):
        try:
            value = float(word)
        except ValueError:
            value = None
        if value is None or not 0 < value <= 100:
            raise RunnerError(f"--percentiles {text}: {word!r} is not a percentile "
                              f"(a number above 0 and at most 100).")
        values.append(value)
    return tuple(dict.fromkeys(values))


def _heading(value):
    return f"p{value:g} ns"


def _histograms(runs, clock_name):
    """(the Histograms of `clock_name`'s reads in the runs that timed it, how many timed
    it)."""
    found, timed = [], 0
    for run in runs:
        clock = run.report.clock(clock_name)
        if not clock or not clock.timed or not clock.entry.get("read_ns"):
            continue
        timed += 1
        hist = histogram.of(clock.entry["read_ns"])
        if hist is not None:
            found.append(hist)
    return found, timed


def pooled_rows(inputs, percentiles):
    """[(clock, env, runs pooled, runs timed, reads, {percentile: ns or None}, why)] per
    clock and row that timed it; `why` says what is missing (no histogram)."""
    rows = []
    for clock_name in clock_order(inputs):
        for env, runs in inputs.runs.items():
            found, timed = _histograms(runs, clock_name)
            if not timed:
                continue
            why, values, reads = None, {}, 0
            if not found:
                why = "no histogram in its reports (reports before histograms)"
            else:
                try:
                    pool = histogram.pooled(found)
                except RunnerError as error:
                    pool, why = None, str(error)
                if pool is not None:
                    reads = pool.total
                    values = {p: pool.quantile(p / 100) for p in percentiles}
            if found and len(found) < timed and why is None:
                why = f"{timed - len(found)} run(s) without a histogram left out"
            rows.append((clock_name, env, len(found), timed, reads, values, why))
    return rows


def pooled_table(inputs, percentiles):
    """The pooled percentiles as a Table: per clock and row, the runs and reads pooled,
    each percentile in ns, and the slowest read of all."""
    columns = [Column("clock", True), Column("env", True), Column("runs"), Column("reads")]
    columns += [Column(_heading(p)) for p in percentiles]
    columns.append(Column("note", True))
    rows = []
    for clock_name, env, pooled_runs, timed, reads, values, why in pooled_rows(inputs,
                                                                               percentiles):
        runs = str(timed) if pooled_runs == timed else f"{pooled_runs} of {timed}"
        if not values:
            rows.append(Row([clock_name, env, runs, "-", *("-" for _ in percentiles),
                             why or ""], clock_name))
            continue
        rows.append(Row([clock_name, env, runs, str(reads),
                         *(number_text(values[p]) for p in percentiles), why or ""],
                        clock_name))
    return Table("read cost percentiles pooled over the runs: every read of every run, from "
                 "their histograms (ns)", columns, rows)


def pooled_csv(inputs, percentiles):
    """The pooled percentiles as CSV at the tables' precision."""
    heading = ["clock", "env", "runs_pooled", "runs_timed", "reads",
               *(f"p{p:g}_ns".replace(".", "_") for p in percentiles), "note"]
    rows = [[clock_name, env, pooled_runs, timed, reads,
             *(csv_number(values.get(p)) for p in percentiles), why or ""]
            for clock_name, env, pooled_runs, timed, reads, values, why
            in pooled_rows(inputs, percentiles)]
    return Table("", heading, rows).csv()
