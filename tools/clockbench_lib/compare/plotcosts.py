# SPDX-License-Identifier: MIT
"""The read-cost and percentile figures of `compare --plot`: what one read of each clock
costs, and how slow its slowest reads are."""

import math
import statistics

from ..base.outcome import RunnerError
from ..model import histogram
from .plotbase import (Drawn, SIX_POINTS, env_styles, file_part, floor_caption, footnote,
                       line2d_class, raised_to_floor, reference_line, row_offsets, ticker_module)


def _timed_clock(run, name):
    """The clock entry `name` of `run` when it was present and timed, else None."""
    clock = run.report.clock(name)
    if not clock or not clock.present or not clock.entry.get("read_ns"):
        return None
    return clock.entry


def clock_names(inputs):
    """The clocks timed in some report, in report order."""
    names = []
    for runs in inputs.runs.values():
        for run in runs:
            names += [c.name for c in run.report.clocks
                      if _timed_clock(run, c.name) and c.name not in names]
    return names


# How far the read-cost axis reaches past the largest p99.9 (a factor on the log axis):
# the slowest single read (host preemption, tens of ms) must not squeeze the rest.
READ_COST_HEADROOM = 1.6
# How faint the slowest read's tick is.
SLOWEST_ALPHA = 0.35


def build_read_cost(figure_class, inputs):
    """Every clock's p50–p99 bar, a thin line on to p99.9, and its slowest read as a faint
    tick, on one shared log axis that ends a little past the largest p99.9 (a slowest read
    beyond it is a faint arrow at the axis's end)."""
    clocks = clock_names(inputs)
    if not clocks:
        return None
    styles = env_styles(list(inputs.runs))
    envs = [env for env, runs in inputs.runs.items()
            if any(_timed_clock(run, name) for run in runs for name in clocks)]
    offsets = dict(zip(envs, row_offsets(len(envs))))
    figure = figure_class(figsize=(10, 0.55 * len(envs) * len(clocks) / 2.5 + 2.2))
    axis = figure.subplots()
    floored, drawn = [], []
    for row, name in enumerate(clocks):
        for env, runs in inputs.runs.items():
            clocks_of_runs = [c for c in (_timed_clock(run, name) for run in runs) if c]
            if not clocks_of_runs:
                continue
            where = f"{name} in {env}"

            def median_of(key, of=clocks_of_runs, where=where):
                found = [c["read_ns"][key] for c in of if c["read_ns"].get(key) is not None]
                return raised_to_floor(statistics.median(found), where, floored) \
                    if found else None
            p50, p99 = median_of("p50"), median_of("p99")
            p999 = median_of("p999") or p99
            worst = raised_to_floor(max(c["read_ns"]["max"] for c in clocks_of_runs), where,
                                    floored)
            drawn.append((row + offsets[env], styles[env], p50, p99, max(p999, p99), worst))
    low = min(item[2] for item in drawn) / READ_COST_HEADROOM
    high = max(item[4] for item in drawn) * READ_COST_HEADROOM
    beyond = []
    for y, style, p50, p99, p999, worst in drawn:
        axis.plot([p50, p99], [y, y], color=style.colour, linewidth=4, alpha=0.55,
                  solid_capstyle="butt")
        axis.plot([p99, p999], [y, y], color=style.colour, linewidth=1.2)
        axis.plot([p50], [y], linestyle="none", marker=style.marker, color=style.colour,
                  markersize=7)
        if worst <= high:
            axis.plot([worst], [y], linestyle="none", marker="|", color=style.colour,
                      alpha=SLOWEST_ALPHA, markersize=9)
        else:
            beyond.append(worst)
            axis.plot([high], [y], linestyle="none", marker=">", color=style.colour,
                      alpha=SLOWEST_ALPHA, markersize=6, clip_on=False)
    for row in range(len(clocks) - 1):
        reference_line(axis, True, row + 0.5, color="#cccccc")
    axis.set_xscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(len(clocks) - 0.5, -0.5)  # the first clock at the top
    axis.set_yticks(range(len(clocks)))
    axis.set_yticklabels(clocks)
    axis.set_xlabel("ns per read (log scale)")
    axis.grid(True, axis="x", which="major", alpha=0.4)
    axis.grid(True, axis="x", which="minor", alpha=0.12)
    line2d = line2d_class()
    handles = [line2d([], [], linestyle="none", marker=styles[env].marker,
                      color=styles[env].colour, markersize=7, label=env) for env in envs]
    handles += [line2d([], [], color="black", linewidth=4, alpha=0.55,
                       label="p50 (marker) to p99"),
                line2d([], [], color="black", linewidth=1.2, label="on to p99.9"),
                line2d([], [], color="black", linestyle="none", marker="|", markersize=9,
                       alpha=SLOWEST_ALPHA, label="slowest read (max)"),
                line2d([], [], color="black", linestyle="none", marker=">", markersize=6,
                       alpha=SLOWEST_ALPHA, label="slowest read beyond the axis")]
    axis.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                fontsize="small", frameon=False)
    question = "What does one read of each clock cost, typically and at worst?"
    axis.set_title(question)
    past = (f" {len(beyond)} slowest read(s) lie beyond the axis (up to "
            f"{max(beyond):.0f} ns), marked at its end." if beyond else "")
    caption = ("Each clock on one log axis; per environment the p50 marker, a bar to p99, "
               "a thin line on to p99.9 (medians over its runs), and the slowest read of any "
               "run as a faint tick; the axis ends a little past the largest p99.9, so that "
               "one preempted read does not squeeze the rest." + past
               + " The minimum is left out." + floor_caption(floored))
    footnote(figure, floor_caption(floored))
    return Drawn("read-cost", "Read cost of every clock", question, caption, figure)


def _percent_label(fraction_above):
    """The tick label of 1 − quantile `fraction_above`: 0.5 -> "50 %", 1e-3 -> "99.9 %"."""
    if fraction_above >= 1.0:
        return "min"
    percent = 100.0 * (1.0 - fraction_above)
    decimals = max(0, -int(math.floor(math.log10(fraction_above))) - 2)
    return f"{percent:.{decimals}f} %"


def _curve(hist, maximum_ns):
    """(1 − quantile, ns) along `hist`, from quantile 0 to the last read, log-spaced in
    1 − quantile, and the slowest read (max) at 1 / total."""
    last = 1.0 / hist.total
    steps = 160
    fractions = [10 ** (math.log10(last) * index / steps) for index in range(steps + 1)]
    points = [(fraction, hist.quantile(1.0 - fraction)) for fraction in fractions[:-1]]
    points.append((last, maximum_ns))
    return points


def _percentile_ticks(axis, smallest_fraction):
    """Ticks at 0 %, 50 %, 90 %, 99 %, ... down to `smallest_fraction`, no minor ticks."""
    ticker = ticker_module()
    fractions = [1.0, 0.5]
    decade = 0.1
    while decade >= smallest_fraction * 0.999:
        fractions.append(decade)
        decade /= 10
    axis.xaxis.set_major_locator(ticker.FixedLocator(fractions))
    axis.xaxis.set_minor_locator(ticker.NullLocator())
    axis.xaxis.set_major_formatter(ticker.FixedFormatter([_percent_label(f)
                                                          for f in fractions]))
    return fractions


def build_percentiles(figure_class, inputs, name):
    """The read cost of clock `name` at each percentile, one line or six points per run."""
    envs = [env for env, runs in inputs.runs.items()
            if any(_timed_clock(run, name) for run in runs)]
    if not envs:
        return None
    styles = env_styles(list(inputs.runs))
    figure = figure_class(figsize=(9, 5))
    axis = figure.subplots()
    floored, xs, ys, labelled, kinds = [], [], [], set(), set()
    six_point_envs = []
    for env in envs:
        style = styles[env]
        for run in inputs.runs[env]:
            clock = _timed_clock(run, name)
            if clock is None:
                continue
            where = env
            distribution = clock["read_ns"]
            try:
                hist = histogram.of(distribution)
            except RunnerError as error:
                raise RunnerError(f"{run.source}: clock {name}: read_ns: {error}.") from None
            if hist is not None and hist.total > 0:
                points = _curve(hist, distribution["max"])
                line_style = {"linestyle": "-", "linewidth": 1.4}
                marker_every = [len(points) - 1]  # the slowest read only
                kinds.add("histogram")
            else:
                samples = clock.get("samples") or 0
                points = [(fraction, distribution[key]) for key, fraction in SIX_POINTS]
                if samples > 1:
                    points.append((1.0 / samples, distribution["max"]))
                line_style = {"linestyle": ":", "linewidth": 0.9}
                marker_every = None
                kinds.add("six")
                if env not in six_point_envs:
                    six_point_envs.append(env)
            fractions = [fraction for fraction, _ in points]
            costs = [raised_to_floor(cost, where, floored) for _, cost in points]
            axis.plot(fractions, costs, color=style.colour, marker=style.marker,
                      markersize=5, markevery=marker_every,
                      label=None if env in labelled else env, **line_style)
            labelled.add(env)
            xs += fractions
            ys += costs
    axis.set_xscale("log")
    axis.set_yscale("log")
    smallest = min(xs)
    fractions = _percentile_ticks(axis, smallest)
    axis.set_xlim(max(xs) * 1.25, min(smallest, fractions[-1]) / 1.6)  # tail to the right
    axis.set_ylim(min(ys) / 1.5, max(ys) * 1.5)
    axis.set_xlabel("percentile of reads (log scale in 1 − quantile: each step right is "
                    "ten times rarer)")
    axis.set_ylabel("ns per read (log scale)")
    axis.grid(True, which="major", alpha=0.3)
    handles, _ = axis.get_legend_handles_labels()
    line2d = line2d_class()
    if "histogram" in kinds:
        handles.append(line2d([], [], color="black", linewidth=1.4, marker="o",
                              markevery=[1], label="from the report's histogram;\n"
                              "marker: the slowest read"))
    if "six" in kinds:
        handles.append(line2d([], [], color="black", linewidth=0.9, linestyle=":", marker="o",
                              label="six points only (no histogram in\nthe report): min, "
                              "p50, p90, p99,\np99.9 and the slowest read"))
    axis.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                fontsize="small", frameon=False)
    question = f"{name}: how slow are the slowest reads?"
    axis.set_title(question)
    caption = ("Read cost at each percentile, one line per run; the last marker of each "
               "line is the slowest read, at 1 / reads taken.")
    if six_point_envs:
        caption += (f" {', '.join(six_point_envs)}: the report has no histogram, so only "
                    f"its six points (min, p50, p90, p99, p99.9, max) are drawn, joined by "
                    f"dotted lines that are not measurements.")
    caption += floor_caption(floored)
    footnote(figure, floor_caption(floored))
    return Drawn(f"percentiles-{file_part(name)}", f"Percentiles of {name}", question, caption, figure)
