# SPDX-License-Identifier: MIT
"""`clockbench compare --plot DIR`: PNG and SVG figures with matplotlib (Agg, no display).

Each figure answers one question, and its title asks it:

- `read-cost`: what does one read of each clock cost? Every clock on one shared log-ns
  axis, p50 to p99 as a bar and the slowest read apart, one marker per environment.
- `percentiles-CLOCK`: how slow are a clock's slowest reads? Read cost against 1 − quantile
  on a log axis (50 %, 90 %, 99 %, 99.9 % ...), a line per run from the report's histogram,
  or its six points (min, p50, p90, p99, p99.9, max) where the report has none.
- `cross-cpu`: do the CPUs agree on the time? Offsets and drift against CPU 0 with their
  error bars, and warps (time going back between CPUs), per clock, CPU and environment.
- `tick-cost`: what does a tick rate cost? CPU lost against the interrupts that arrived a
  second, per tick source, rates that were not delivered marked with the rate asked for.

Figures are built first (build_figures, which the tests inspect) and saved after.
"""

import os

from ..base.outcome import RunnerError
from .plotbase import PlotFile, load_figure_class
from .plotcosts import build_percentiles, build_read_cost, clock_names
from .plotcross import build_cross_cpu
from .plotticks import build_ticks


def build_figures(inputs, ticks):
    """Every figure the reports allow, and a sentence for each one they do not: the read
    costs, percentiles and cross-CPU figures from `inputs`, the tick costs from compare's
    tick table `ticks` ([((source, rate Hz), [Cell])]).  Returns ([Drawn], [message])."""
    figure_class = load_figure_class()
    drawn, messages = [], []
    read_cost = build_read_cost(figure_class, inputs)
    if read_cost is None:
        messages.append("no report has a clock whose reads were timed, so the read-cost "
                        "and percentile plots are not written.")
    else:
        drawn.append(read_cost)
        drawn += [build_percentiles(figure_class, inputs, name) for name in clock_names(inputs)]
    cross = build_cross_cpu(figure_class, inputs)
    if cross is None:
        messages.append("no report measured clocks across CPUs (a 'cross_cpu' section that "
                        "applies: at least 2 CPUs), so the cross-CPU plot is not written.")
    else:
        drawn.append(cross)
    tick_figure = build_ticks(figure_class, inputs, ticks)
    if tick_figure is None:
        messages.append("no report has tick measurements (a 'ticks' section that applies), "
                        "so the tick-cost plot is not written.")
    else:
        drawn.append(tick_figure)
    return drawn, messages


# What each format is for: PNG to look at (and the HTML report embeds it), SVG to scale
# and edit.
FORMATS = ("png", "svg")


def _save(drawn, out_dir, formats):
    paths = {}
    for ext in formats:
        path = os.path.join(out_dir, f"{drawn.stem}.{ext}")
        try:
            drawn.figure.savefig(path, dpi=120 if ext == "png" else None, bbox_inches="tight")
        except OSError as error:
            raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
        paths[ext] = path
    return PlotFile(drawn.stem, drawn.title, drawn.question, drawn.caption,
                    paths.get("png"), paths.get("svg"))


def write_plots(inputs, ticks, out_dir, formats=FORMATS):
    """Write every plot the reports allow into `out_dir`, a file per format of `formats`
    (PNG and SVG unless told; a format not asked for is None in its PlotFile).  Returns
    ([PlotFile] in the order written, [message for the user about plots not written])."""
    drawn, messages = build_figures(inputs, ticks)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise RunnerError(f"cannot create {out_dir}: {error.strerror}.") from None
    return [_save(item, out_dir, formats) for item in drawn], messages
