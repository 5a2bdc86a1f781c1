# SPDX-License-Identifier: MIT
"""The cross-CPU figure of `compare --plot`: offsets, drift and warps against CPU 0, per
clock, CPU and environment."""

import math

from .plotbase import (DRIFT_LINEAR_PPM, Drawn, OFFSET_LINEAR_NS, duration_text, env_styles,
                       line2d_class, reference_line, row_offsets, ticker_module)


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
    ticker = ticker_module()
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
    styles = env_styles(list(inputs.runs))
    envs = [env for env, runs in inputs.runs.items()
            if any(_cross_entries(run) for run in runs)]
    index = {row: position for position, row in enumerate(rows)}
    env_offsets = dict(zip(envs, row_offsets(len(envs), band=0.72)))
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
                  lambda value: "0" if value == 0 else duration_text(value))
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
        reference_line(axis, False, 0)
        for row in range(len(rows) - 1):
            reference_line(axis, True, row + 0.5, color="#cccccc")
        axis.grid(True, axis="x", which="major", alpha=0.3)
    offset_axis.set_ylim(len(rows) - 0.5, -0.5)
    offset_axis.set_yticks(range(len(rows)))
    offset_axis.set_yticklabels([f"{clock}, CPU {cpu}" for clock, cpu in rows])
    line2d = line2d_class()
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
            axis.annotate(f"{_count_text(count)}, worst {duration_text(worst_ns)}",
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
