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

import math
import os
import re
import statistics
from dataclasses import dataclass

from ..model import histogram
from ..base.outcome import RunnerError

MATPLOTLIB_PACKAGE = "python3-matplotlib"
# Costs below this are drawn at it on the log ns axes, and the caption says which: a read
# that cost less than the empty bracket is reported as 0 ns, which a log axis cannot show.
FLOOR_NS = 1.0
# A rate is delivered when the interrupts that arrived are within this fraction of the rate
# asked for: the report's own `reached` rule (docs/report-format.md, ticks).
DELIVERED_WITHIN = 0.10
# Symmetric-log axes are linear within these of 0: below them a cross-CPU offset or drift
# is far inside its own uncertainty on every machine measured so far.
OFFSET_LINEAR_NS = 10.0
DRIFT_LINEAR_PPM = 0.1
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
# The quantiles of the six-point distributions, as 1 − quantile (min is quantile 0).
SIX_POINTS = (("min", 1.0), ("p50", 0.5), ("p90", 0.1), ("p99", 0.01), ("p999", 0.001))
# Reference lines (zero, separators) carry this gid, so that a check of what is drawn
# inside the axes can tell them from data.
REFERENCE = "reference"


@dataclass(frozen=True)
class PlotFile:
    """One written figure: a short title, the question its figure's title asks, the
    caption that says how to read it, and its two files."""

    stem: str
    title: str
    question: str
    caption: str
    png: str
    svg: str


@dataclass
class Drawn:
    """One figure built and not yet saved."""

    stem: str
    title: str
    question: str
    caption: str
    figure: object  # matplotlib.figure.Figure


def _figure_class():
    """matplotlib's Figure on the Agg backend; RunnerError naming the package if missing.
    Figures are made without pyplot, so none is kept alive by its global state."""
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel
        matplotlib.use("Agg")
        from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise RunnerError(f"--plot needs matplotlib: install the Debian package "
                          f"{MATPLOTLIB_PACKAGE} (`make deps` installs it).") from None
    return Figure


def _ticker():
    import matplotlib.ticker  # pylint: disable=import-outside-toplevel
    return matplotlib.ticker


def _line2d():
    from matplotlib.lines import Line2D  # pylint: disable=import-outside-toplevel
    return Line2D


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str


def _styles(envs):
    """Environment -> Style, the same in every figure (`envs` is every environment of the
    inputs, also where a figure draws only some): colour and marker both differ, so
    environments stay apart in grey print too."""
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
    return {env: Style(palette[index % len(palette)], MARKERS[index % len(MARKERS)])
            for index, env in enumerate(envs)}


def _reference_line(axis, horizontal, value, **style):
    line = (axis.axhline if horizontal else axis.axvline)(
        value, color=style.pop("color", "grey"), linewidth=style.pop("linewidth", 0.8),
        **style)
    line.set_gid(REFERENCE)
    return line


def _duration_text(value_ns):
    """A duration in the unit that suits it: 850 ns, 31.6 µs, 1.52 ms."""
    magnitude = abs(value_ns)
    if magnitude >= 1e6:
        return f"{value_ns / 1e6:.3g} ms"
    if magnitude >= 1e3:
        return f"{value_ns / 1e3:.3g} µs"
    return f"{value_ns:.3g} ns"


def _rate_text(rate_hz):
    """A rate as people write it: 100 Hz, 10 kHz."""
    if rate_hz >= 1e6 and rate_hz % 1e6 == 0:
        return f"{rate_hz / 1e6:g} MHz"
    if rate_hz >= 1e3 and rate_hz % 1e3 == 0:
        return f"{rate_hz / 1e3:g} kHz"
    return f"{rate_hz:g} Hz"


def _floored(value_ns, where, floored):
    """`value_ns` raised to FLOOR_NS, noting `where` in `floored` when it was below."""
    if value_ns < FLOOR_NS:
        if where not in floored:
            floored.append(where)
        return FLOOR_NS
    return value_ns


def _floor_caption(floored):
    if not floored:
        return ""
    return (f" Costs under {FLOOR_NS:g} ns are drawn at {FLOOR_NS:g} ns, the floor of the "
            f"log axis (a read no slower than the empty bracket is reported as 0 ns): "
            f"{', '.join(floored)}.")


def _footnote(figure, text):
    """`text` under the figure's axes, in the saved image too (bbox_inches="tight" takes
    it in), so that a PNG on its own says what its caption says."""
    if text:
        figure.text(0.0, -0.01, text.strip(), ha="left", va="top", fontsize="small",
                    wrap=True, color="#444444")


# ---------------------------------------------------------------------------- read cost

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


def _row_offsets(count, band=0.7):
    """Offsets within a row of height 1 for `count` items, spread over `band`."""
    if count <= 1:
        return [0.0]
    step = band / (count - 1)
    return [-band / 2 + step * index for index in range(count)]


def build_read_cost(figure_class, inputs):
    """Every clock's p50–p99 bar and slowest read on one shared log axis."""
    clocks = clock_names(inputs)
    if not clocks:
        return None
    styles = _styles(list(inputs.runs))
    envs = [env for env, runs in inputs.runs.items()
            if any(_timed_clock(run, name) for run in runs for name in clocks)]
    offsets = dict(zip(envs, _row_offsets(len(envs))))
    figure = figure_class(figsize=(10, 0.55 * len(envs) * len(clocks) / 2.5 + 2.2))
    axis = figure.subplots()
    floored, values = [], []
    for row, name in enumerate(clocks):
        for env, runs in inputs.runs.items():
            clocks_of_runs = [c for c in (_timed_clock(run, name) for run in runs) if c]
            if not clocks_of_runs:
                continue
            y = row + offsets[env]
            style = styles[env]
            where = f"{name} in {env}"
            p50 = _floored(statistics.median(c["read_ns"]["p50"] for c in clocks_of_runs),
                           where, floored)
            p99 = _floored(statistics.median(c["read_ns"]["p99"] for c in clocks_of_runs),
                           where, floored)
            worst = _floored(max(c["read_ns"]["max"] for c in clocks_of_runs), where, floored)
            values += [p50, p99, worst]
            axis.plot([p50, p99], [y, y], color=style.colour, linewidth=4, alpha=0.55,
                      solid_capstyle="butt")
            axis.plot([p99, worst], [y, y], color=style.colour, linewidth=0.8,
                      linestyle=":")
            axis.plot([p50], [y], linestyle="none", marker=style.marker, color=style.colour,
                      markersize=7)
            axis.plot([worst], [y], linestyle="none", marker=style.marker,
                      markerfacecolor="white", markeredgecolor=style.colour, markersize=7)
    for row in range(len(clocks) - 1):
        _reference_line(axis, True, row + 0.5, color="#cccccc")
    axis.set_xscale("log")
    axis.set_xlim(min(values) / 1.6, max(values) * 1.6)
    axis.set_ylim(len(clocks) - 0.5, -0.5)  # the first clock at the top
    axis.set_yticks(range(len(clocks)))
    axis.set_yticklabels(clocks)
    axis.set_xlabel("ns per read (log scale)")
    axis.grid(True, axis="x", which="major", alpha=0.4)
    axis.grid(True, axis="x", which="minor", alpha=0.12)
    line2d = _line2d()
    handles = [line2d([], [], linestyle="none", marker=styles[env].marker,
                      color=styles[env].colour, markersize=7, label=env) for env in envs]
    handles += [line2d([], [], color="black", linewidth=4, alpha=0.55,
                       label="p50 (marker) to p99"),
                line2d([], [], color="black", linewidth=0.8, linestyle=":", marker="o",
                       markerfacecolor="white", markevery=[1], label="slowest read (max)")]
    axis.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                fontsize="small", frameon=False)
    question = "What does one read of each clock cost, typically and at worst?"
    axis.set_title(question)
    caption = ("Each clock on one log axis; per environment the p50 marker, a bar to p99 "
               "(medians over its runs) and a dotted line to the slowest read of any run "
               "(hollow). The minimum is left out." + _floor_caption(floored))
    _footnote(figure, _floor_caption(floored))
    return Drawn("read-cost", "Read cost of every clock", question, caption, figure)


# ---------------------------------------------------------------------------- percentiles

def _file_part(name):
    """`name` (from a report: untrusted) made safe as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "_"


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
    ticker = _ticker()
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
    styles = _styles(list(inputs.runs))
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
            costs = [_floored(cost, where, floored) for _, cost in points]
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
    line2d = _line2d()
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
    caption += _floor_caption(floored)
    _footnote(figure, _floor_caption(floored))
    return Drawn(f"percentiles-{_file_part(name)}", f"Percentiles of {name}", question, caption, figure)


# ---------------------------------------------------------------------------- cross-CPU

def _cross_entries(run):
    cross = run.document.get("cross_cpu") or {}
    return cross.get("clocks", []) if cross.get("applies") else []


def _cross_rows(inputs):
    """(clock, cpu) pairs measured in some report, clocks in report order, CPUs ascending."""
    rows = {}
    for runs in inputs.runs.values():
        for run in runs:
            for entry in _cross_entries(run):
                cpus = rows.setdefault(entry["clock"], [])
                for item in entry["offsets"] + entry["drift_ppm"]:
                    if item["cpu"] not in cpus:
                        cpus.append(item["cpu"])
    return [(clock, cpu) for clock, cpus in rows.items() for cpu in sorted(cpus)]


def _symlog_limits(lows, highs, linear):
    """Limits of a symmetric-log axis that hold every low and high and 0, with a margin
    of a factor of 2 (a third of a decade) beyond the outermost."""
    low = min([0.0] + lows)
    high = max([0.0] + highs)
    return min(low * 2, -linear), max(high * 2, linear)


def _count_text(count):
    """A count in three digits at most: 950, 59k, 1.2M."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(count) >= size:
            return f"{count / size:.3g}{suffix}"
    return f"{count:g}"


def _symlog_ticks(axis, limits, linear, label_of):
    """Major ticks of a symmetric-log x axis within `limits`: 0 and ± decades from
    `linear`, at most three a side, labelled by `label_of`; no minor ticks, which
    matplotlib crowds together near the linear part."""
    low, high = limits
    reach = max(abs(low), abs(high), linear)
    decades = int(math.floor(math.log10(reach / linear) + 1e-9))
    step = max(1, math.ceil((decades + 1) / 3))
    values = [linear * 10 ** power for power in range(0, decades + 1, step)]
    ticks = [-value for value in reversed(values) if -value >= low] + [0.0] + \
        [value for value in values if value <= high]
    ticker = _ticker()
    axis.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    axis.xaxis.set_minor_locator(ticker.NullLocator())
    axis.xaxis.set_major_formatter(ticker.FixedFormatter([label_of(t) for t in ticks]))


def _error_panel(axis, inputs, rows, y_of, styles, spec):
    """Points with error bars of one cross-CPU quantity (offsets or drift) in `axis`;
    returns the lows and highs of the bars drawn.  `spec` is (the list key, value key,
    error key)."""
    key, value_key, error_key = spec
    lows, highs = [], []
    for env, runs in inputs.runs.items():
        xs, ys, errors = [], [], []
        for number, run in enumerate(runs):
            for entry in _cross_entries(run):
                for item in entry[key]:
                    value = item[value_key]
                    if value is None or (entry["clock"], item["cpu"]) not in rows:
                        continue
                    error = item[error_key] or 0.0
                    xs.append(value)
                    ys.append(y_of(env, number, (entry["clock"], item["cpu"])))
                    errors.append(error)
                    lows.append(value - error)
                    highs.append(value + error)
        if xs:
            style = styles[env]
            axis.errorbar(xs, ys, xerr=errors, fmt=style.marker, color=style.colour,
                          markersize=5, capsize=2.5, elinewidth=1.0)
    return lows, highs


def build_cross_cpu(figure_class, inputs):
    """Offsets, drift and warps per clock, CPU and environment, nothing clipped."""
    rows = _cross_rows(inputs)
    if not rows:
        return None
    styles = _styles(list(inputs.runs))
    envs = [env for env, runs in inputs.runs.items()
            if any(_cross_entries(run) for run in runs)]
    index = {row: position for position, row in enumerate(rows)}
    env_offsets = dict(zip(envs, _row_offsets(len(envs), band=0.72)))
    run_step = 0.72 / max(1, len(envs)) / 2.5

    def y_of(env, number, row):
        runs = len(inputs.runs[env])
        return index[row] + env_offsets[env] + run_step * (number - (runs - 1) / 2)

    figure = figure_class(figsize=(15, 0.24 * len(rows) * max(2, len(envs)) + 1.6),
                          layout="constrained")
    offset_axis, drift_axis, warp_axis = figure.subplots(
        1, 3, sharey=True, gridspec_kw={"width_ratios": [1.2, 1.2, 1.0]})
    lows, highs = _error_panel(offset_axis, inputs, index, y_of, styles,
                               ("offsets", "offset_ns", "uncertainty_ns"))
    offset_axis.set_xscale("symlog", linthresh=OFFSET_LINEAR_NS)
    limits = _symlog_limits(lows, highs, OFFSET_LINEAR_NS)
    offset_axis.set_xlim(*limits)
    _symlog_ticks(offset_axis, limits, OFFSET_LINEAR_NS,
                  lambda value: "0" if value == 0 else _duration_text(value))
    offset_axis.set_title("offset from CPU 0\n(bars: ± half the narrowest bracket)",
                          fontsize="medium")
    offset_axis.set_xlabel(f"symmetric log; linear within ±{OFFSET_LINEAR_NS:g} ns")
    lows, highs = _error_panel(drift_axis, inputs, index, y_of, styles,
                               ("drift_ppm", "drift_ppm", "uncertainty_ppm"))
    drift_axis.set_xscale("symlog", linthresh=DRIFT_LINEAR_PPM)
    limits = _symlog_limits(lows, highs, DRIFT_LINEAR_PPM)
    drift_axis.set_xlim(*limits)
    _symlog_ticks(drift_axis, limits, DRIFT_LINEAR_PPM, lambda value: f"{value:g}")
    drift_axis.set_title("drift against CPU 0, ppm\n(bars: ± 1 standard error)",
                         fontsize="medium")
    drift_axis.set_xlabel(f"symmetric log; linear within ±{DRIFT_LINEAR_PPM:g} ppm")
    _warp_panel(warp_axis, inputs, rows, y_of, styles)
    for axis in (offset_axis, drift_axis, warp_axis):
        _reference_line(axis, False, 0)
        for row in range(len(rows) - 1):
            _reference_line(axis, True, row + 0.5, color="#cccccc")
        axis.grid(True, axis="x", which="major", alpha=0.3)
    offset_axis.set_ylim(len(rows) - 0.5, -0.5)
    offset_axis.set_yticks(range(len(rows)))
    offset_axis.set_yticklabels([f"{clock}, CPU {cpu}" for clock, cpu in rows])
    line2d = _line2d()
    handles = [line2d([], [], linestyle="none", marker=styles[env].marker,
                      color=styles[env].colour, label=env) for env in envs]
    warp_axis.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     fontsize="small", frameon=False, title="one point per run")
    question = "Do the CPUs agree on the time, and does it ever go back between them?"
    figure.suptitle(question)
    caption = ("Per clock and CPU, the offset from CPU 0 and its drift over the run, one "
               "point per run with its error bar; right, the warps of the warp test (reads "
               "lower than one another CPU had already made) over all CPUs, labelled with "
               "the worst step back. Every point and bar is inside the axes.")
    return Drawn("cross-cpu", "Cross-CPU offsets, drift and warps", question, caption,
                 figure)


def _warp_panel(axis, inputs, rows, y_of, styles):
    """Warps per clock and run, on the row of the clock's first CPU; the worst step back
    of each environment that had warps labels its largest count."""
    first_row = {}
    for clock, cpu in rows:
        first_row.setdefault(clock, (clock, cpu))
    counts = [0]
    for env, runs in inputs.runs.items():
        style = styles[env]
        xs, ys, worst = [], [], {}
        for number, run in enumerate(runs):
            for entry in _cross_entries(run):
                if entry["clock"] not in first_row:
                    continue
                y = y_of(env, number, first_row[entry["clock"]])
                xs.append(entry["warps"])
                ys.append(y)
                counts.append(entry["warps"])
                if entry["warps"]:
                    known = worst.get(entry["clock"])
                    worst[entry["clock"]] = (
                        max(entry["worst_warp_ns"], known[0]) if known else
                        entry["worst_warp_ns"],
                        max((entry["warps"], y), known[1]) if known else (entry["warps"], y))
        if xs:
            axis.plot(xs, ys, linestyle="none", marker=style.marker, color=style.colour,
                      markersize=5)
        for worst_ns, (count, y) in worst.values():
            axis.annotate(f"{_count_text(count)}, worst {_duration_text(worst_ns)}",
                          (count, y), xytext=(7, 0),
                          textcoords="offset points", va="center", fontsize="x-small",
                          color=style.colour)
    axis.set_xscale("symlog", linthresh=1.0)
    # Room on the right for the worst warp's label, which sits beside its point.
    limits = (-0.8, max(10.0, max(counts) * 60))
    axis.set_xlim(*limits)
    _symlog_ticks(axis, limits, 1.0, _count_text)
    axis.set_title("warps: reads lower than another CPU's,\nall CPUs, label: the worst step "
                   "back", fontsize="medium")
    axis.set_xlabel("count (symmetric log)")


# ---------------------------------------------------------------------------- ticks

def _delivered(cell, requested_hz):
    """Whether every run that measured `cell` delivered its rate (within DELIVERED_WITHIN)."""
    rate = cell.metrics.get("rate")
    return bool(rate) and all(abs(value - requested_hz) <= DELIVERED_WITHIN * requested_hz
                              for value in (rate.low, rate.high))


def _tick_sources(ticks):
    sources = []
    for (source, _), _ in ticks:
        if source not in sources:
            sources.append(source)
    return sources


def _not_measured_lines(ticks, source):
    """What the panel of `source` cannot draw: one line per environment and state naming
    the rates it did not measure, and one naming the environments without the source."""
    lines, absent = {}, []
    for (name, rate_hz), cells in ticks:
        if name != source:
            continue
        for cell in cells:
            reason = cell.missing_reason or ""
            if not cell.missing or reason in ("not in the report",
                                              "no tick measurements in the report"):
                continue
            if reason.startswith("absent"):
                if cell.env not in absent:
                    absent.append(cell.env)
                continue
            state = reason.split(":", 1)[0]
            lines.setdefault((cell.env, state), []).append(_rate_text(rate_hz))
    text = [f"{env}: {', '.join(rates)} {state}, not measured"
            for (env, state), rates in lines.items()]
    if absent:
        text.append(f"absent in {', '.join(absent)}")
    return text


def _tick_points(ticks, source, env):
    """[(requested Hz, cell)] of `env` at the rates of `source` it measured with a CPU lost."""
    return [(rate_hz, cell) for (name, rate_hz), cells in ticks if name == source
            for cell in cells if cell.env == env and not cell.missing
            and cell.metrics.get("rate") and cell.metrics.get("stolen")]


def _undelivered_labels(points):
    """Labels for the rates not delivered, those drawn at nearly the same place merged:
    [(x, y, "asked 10 kHz, 100 kHz")]."""
    labels = []
    for rate_hz, cell in sorted(points, key=lambda point: point[0]):
        if _delivered(cell, rate_hz):
            continue
        x, y = cell.metrics["rate"].median, cell.metrics["stolen"].median
        near = next((label for label in labels if abs(math.log10(x / label[0])) < 0.12
                     and abs(y - label[1]) < 8), None)
        if near:
            near[2].append(_rate_text(rate_hz))
        else:
            labels.append((x, y, [_rate_text(rate_hz)]))
    return [(x, y, "asked " + ", ".join(rates)) for x, y, rates in labels]


# Where a label may go beside its point, in points, tried in this order.
LABEL_PLACES = ((6, 3, "left"), (-6, 3, "right"), (6, -12, "left"), (-6, -12, "right"),
                (6, 14, "left"), (-6, 14, "right"), (6, -23, "left"), (-6, -23, "right"),
                (6, 25, "left"), (-6, 25, "right"))


def _place_labels(figure, axis, labels, taken):
    """Annotate each of `labels` [(x, y, text, colour)] at the first place of LABEL_PLACES
    where it stays inside the axes and overlaps no label placed before (the boxes in
    `taken`, which grows); the first place when none is free.  Needs the axes' position
    and limits final."""
    renderer = figure.canvas.get_renderer()
    inside = axis.get_window_extent(renderer)
    for x, y, text, colour in labels:
        chosen = None
        for dx, dy, align in LABEL_PLACES:
            note = axis.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                 ha=align, va="bottom", fontsize="x-small", color=colour)
            box = note.get_window_extent(renderer)
            if inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 \
                    and box.y1 <= inside.y1 and not any(box.overlaps(o) for o in taken):
                chosen = box
                break
            note.remove()
        if chosen is None:
            dx, dy, align = LABEL_PLACES[0]
            note = axis.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                 ha=align, va="bottom", fontsize="x-small", color=colour)
            chosen = note.get_window_extent(renderer)
        taken.append(chosen)


def build_ticks(figure_class, inputs, ticks):
    """Per tick source, CPU lost against the interrupts that arrived each second."""
    sources = _tick_sources(ticks)
    if not sources:
        return None
    styles = _styles(list(inputs.runs))
    envs = [env for env in inputs.runs if any(_tick_points(ticks, source, env)
                                              for source in sources)]
    columns = min(3, len(sources))
    rows = math.ceil(len(sources) / columns)
    figure = figure_class(figsize=(5.4 * columns, 4.4 * rows + 0.8))
    # A fixed layout, not a constrained one: labels are placed by measuring them, which
    # needs the axes where they will be saved.
    figure.subplots_adjust(left=0.07, right=0.98, top=1 - 0.7 / figure.get_figheight(),
                           bottom=0.9 / figure.get_figheight(), wspace=0.25, hspace=0.42)
    _canvas(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    for number, source in enumerate(sources):
        _tick_panel(figure, axes[number // columns][number % columns], ticks, source,
                    envs, styles)
    for number in range(len(sources), rows * columns):
        axes[number // columns][number % columns].set_visible(False)
    line2d = _line2d()
    handles = [line2d([], [], marker=styles[env].marker, color=styles[env].colour,
                      label=env) for env in envs]
    handles += [line2d([], [], linestyle="none", marker="o", color="black",
                       label="rate delivered (within 10 % of the rate asked for)"),
                line2d([], [], linestyle="none", marker="o", markerfacecolor="white",
                       color="black", label="not delivered: labelled with the rate asked for")]
    figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  ncol=min(4, len(handles)), fontsize="small", frameon=False)
    question = ("What does a tick rate cost? CPU lost against the interrupts that "
                "actually arrived")
    figure.suptitle(question)
    caption = ("Per tick source, the CPU a work loop lost (%) against the interrupts that "
               "arrived a second, a line per environment through the medians of its runs "
               "in the order of the rates asked for (bars: the runs' range on both axes). A hollow marker is a rate the timer "
               "did not deliver (fewer or more than 10 % off in some run), labelled with the "
               "rate asked for; rates not measured at all are listed in the panel.")
    return Drawn("tick-cost", "Tick cost against the interrupts that arrived", question,
                 caption, figure)


def _canvas(figure):
    """Give `figure` an Agg canvas, whose renderer measures text before saving."""
    from matplotlib.backends.backend_agg import \
        FigureCanvasAgg  # pylint: disable=import-outside-toplevel
    FigureCanvasAgg(figure)


def _tick_panel(figure, axis, ticks, source, envs, styles):
    xs_low, xs_high, ys_low, ys_high, labels, markers = [], [], [], [], [], []
    for env in envs:
        points = _tick_points(ticks, source, env)
        if not points:
            continue
        style = styles[env]
        # In the order of the rate asked for (the table's), so that a line that turns back
        # shows a timer that delivered less when asked for more.
        rates = [cell.metrics["rate"] for _, cell in points]
        losses = [cell.metrics["stolen"] for _, cell in points]
        xs = [rate.median for rate in rates]
        ys = [lost.median for lost in losses]
        axis.errorbar(xs, ys, xerr=[[r.median - r.low for r in rates],
                                    [r.high - r.median for r in rates]],
                      yerr=[[lost.median - lost.low for lost in losses],
                            [lost.high - lost.median for lost in losses]],
                      fmt="-", color=style.colour, linewidth=1.2, elinewidth=0.8, capsize=2)
        for (rate_hz, cell), x, y in zip(points, xs, ys):
            hollow = not _delivered(cell, rate_hz)
            axis.plot([x], [y], linestyle="none", marker=style.marker, color=style.colour,
                      markerfacecolor="white" if hollow else style.colour, markersize=6)
        labels += [(x, y, text, style.colour) for x, y, text in _undelivered_labels(points)]
        markers += list(zip(xs, ys))
        xs_low += [rate.low for rate in rates]
        xs_high += [rate.high for rate in rates]
        ys_low += [lost.low for lost in losses]
        ys_high += [lost.high for lost in losses]
    missing = _not_measured_lines(ticks, source)
    axis.set_xscale("log")
    axis.set_title(source)
    axis.set_xlabel("interrupts that arrived per second (log)")
    axis.set_ylabel("CPU lost, %")
    axis.grid(True, which="major", alpha=0.35)
    axis.grid(True, which="minor", alpha=0.1)
    _reference_line(axis, True, 0)
    taken = []
    if missing:
        note = axis.text(0.98, 0.03, "\n".join(missing), transform=axis.transAxes,
                         ha="right", va="bottom", fontsize="x-small", color="#444444")
        taken.append(note.get_window_extent(figure.canvas.get_renderer()))
    if not xs_low:
        axis.text(0.5, 0.5, "measured in no environment", ha="center", va="center",
                  transform=axis.transAxes)
        axis.set_xlim(10, 1e6)
        axis.set_ylim(-10, 110)
        return
    # Room below for the lines of what was not measured, above for the labels.
    axis.set_xlim(min(xs_low) / 2.5, max(xs_high) * 2.5)
    axis.set_ylim(min(-12.0, min(ys_low) - 8.0) - 7.0 * len(missing),
                  max(112.0, max(ys_high) + 14.0))
    taken += [_marker_box(axis, x, y) for x, y in markers]
    _place_labels(figure, axis, labels, taken)


def _marker_box(axis, x, y, half_px=5.0):
    """The box a marker at (x, y) covers in display coordinates, for labels to avoid."""
    from matplotlib.transforms import Bbox  # pylint: disable=import-outside-toplevel
    centre_x, centre_y = axis.transData.transform((x, y))
    return Bbox.from_extents(centre_x - half_px, centre_y - half_px, centre_x + half_px,
                             centre_y + half_px)


# ---------------------------------------------------------------------------- writing

def build_figures(inputs, ticks):
    """Every figure the reports allow, and a sentence for each one they do not: the read
    costs, percentiles and cross-CPU figures from `inputs`, the tick costs from compare's
    tick table `ticks` ([((source, rate Hz), [Cell])]).  Returns ([Drawn], [message])."""
    figure_class = _figure_class()
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


def _save(drawn, out_dir):
    paths = {}
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{drawn.stem}.{ext}")
        try:
            drawn.figure.savefig(path, dpi=120 if ext == "png" else None, bbox_inches="tight")
        except OSError as error:
            raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
        paths[ext] = path
    return PlotFile(drawn.stem, drawn.title, drawn.question, drawn.caption,
                    paths["png"], paths["svg"])


def write_plots(inputs, ticks, out_dir):
    """Write every plot the reports allow into `out_dir` as PNG and SVG.  Returns
    ([PlotFile] in the order written, [message for the user about plots not written])."""
    drawn, messages = build_figures(inputs, ticks)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise RunnerError(f"cannot create {out_dir}: {error.strerror}.") from None
    return [_save(item, out_dir) for item in drawn], messages
