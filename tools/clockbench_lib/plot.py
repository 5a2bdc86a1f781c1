# SPDX-License-Identifier: MIT
"""`clockbench compare --plot DIR`: PNG and SVG figures with matplotlib (Agg, no display).

The report holds percentiles, not raw samples, so a read-cost "CDF" is each run's
min/p50/p90/p99/p99.9/max drawn as steps; and it holds one offset per CPU and a fitted
drift, not a time series, so cross-CPU figures are error bars per environment.  Tick costs
are the median CPU lost over the runs at each rate, the runs' range as error bars.
"""

import math
import os

from .outcome import RunnerError
from .report import PERCENTILES

MATPLOTLIB_PACKAGE = "python3-matplotlib"
CDF_LEVELS = (0.0, 0.5, 0.9, 0.99, 0.999, 1.0)  # the fraction of reads at or below each
LOG_FLOOR_NS = 0.1  # a 0 ns read (cost below the empty bracket) drawn here on the log axis


def _pyplot():
    """matplotlib.pyplot on the Agg backend; RunnerError naming the package if missing."""
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise RunnerError(f"--plot needs matplotlib: install the Debian package "
                          f"{MATPLOTLIB_PACKAGE} (`make deps` installs it).") from None
    return pyplot


def _save(pyplot, figure, out_dir, stem):
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{stem}.{ext}")
        try:
            figure.savefig(path, dpi=120 if ext == "png" else None, bbox_inches="tight")
        except OSError as error:
            raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
        paths.append(path)
    pyplot.close(figure)
    return paths


def _colours(pyplot, envs):
    cycle = pyplot.rcParams["axes.prop_cycle"].by_key()["color"]
    return {env: cycle[index % len(cycle)] for index, env in enumerate(envs)}


def _clock_names(inputs):
    names = []
    for runs in inputs.runs.values():
        for run in runs:
            names += [c["name"] for c in run.document["clocks"]
                      if c["present"] and c.get("read_ns") and c["name"] not in names]
    return names


def plot_read_cost(pyplot, inputs, out_dir):
    """One panel per clock: each run's read-cost percentiles as a step CDF, log x."""
    clocks = _clock_names(inputs)
    if not clocks:
        return []
    columns = min(3, len(clocks))
    rows = math.ceil(len(clocks) / columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(5 * columns, 3.6 * rows),
                                   squeeze=False)
    colours = _colours(pyplot, inputs.runs)
    for index, name in enumerate(clocks):
        axis = axes[index // columns][index % columns]
        for env, runs in inputs.runs.items():
            for number, run in enumerate(runs):
                clock = next((c for c in run.document["clocks"] if c["name"] == name), None)
                if not clock or not clock["present"] or not clock.get("read_ns"):
                    continue
                costs = [max(clock["read_ns"][key], LOG_FLOOR_NS) for key in PERCENTILES]
                axis.step(costs, CDF_LEVELS, where="post", color=colours[env],
                          alpha=0.85, label=env if number == 0 else None)
        axis.set_xscale("log")
        axis.set_title(f"{name}: read cost")
        axis.set_xlabel("ns per read (log)")
        axis.set_ylabel("fraction of reads")
        axis.set_ylim(0, 1.02)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize="small", loc="lower right")
    for index in range(len(clocks), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle("Read cost per clock and environment (step CDF of min, p50, p90, p99, "
                    f"p99.9, max; one line per run; 0 ns drawn at {LOG_FLOOR_NS} ns)")
    figure.tight_layout()
    return _save(pyplot, figure, out_dir, "read-cost-cdf")


def _cross_points(inputs, key, value_key, error_key):
    """{(clock, cpu): {env: [(value, error)]}} from every run's cross_cpu section."""
    points = {}
    for env, runs in inputs.runs.items():
        for run in runs:
            cross = run.document.get("cross_cpu") or {}
            for entry in cross.get("clocks", []) if cross.get("applies") else []:
                for item in entry[key]:
                    if item[value_key] is None:
                        continue
                    points.setdefault((entry["clock"], item["cpu"]), {}).setdefault(
                        env, []).append((item[value_key], item[error_key] or 0.0))
    return points


def _error_bar_panel(axis, points, colours, envs, ylabel, title):
    labels = [f"{clock}\nCPU {cpu}" for clock, cpu in points]
    width = 0.8 / max(1, len(envs))
    for env_index, env in enumerate(envs):
        xs, ys, errors = [], [], []
        for position, key in enumerate(points):
            for run_index, (value, error) in enumerate(points[key].get(env, [])):
                xs.append(position - 0.4 + width * (env_index + 0.5) + run_index * width * 0.15)
                ys.append(value)
                errors.append(error)
        if xs:
            axis.errorbar(xs, ys, yerr=errors, fmt="o", color=colours[env], capsize=3,
                          markersize=4, label=env)
    axis.axhline(0, color="grey", linewidth=0.8)
    axis.set_xticks(range(len(labels)))
    axis.set_xticklabels(labels, fontsize="small")
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.set_yscale("symlog", linthresh=1.0)
    axis.grid(True, axis="y", alpha=0.3)
    axis.legend(fontsize="small")


def plot_cross_cpu(pyplot, inputs, out_dir):
    """Offset against CPU 0 (± uncertainty) and drift (± 1 s.e.) per clock and CPU."""
    offsets = _cross_points(inputs, "offsets", "offset_ns", "uncertainty_ns")
    drifts = _cross_points(inputs, "drift_ppm", "drift_ppm", "uncertainty_ppm")
    if not offsets and not drifts:
        return []
    envs = list(inputs.runs)
    colours = _colours(pyplot, envs)
    count = max(len(offsets), len(drifts))
    figure, (top, bottom) = pyplot.subplots(2, 1, figsize=(max(8, 1.3 * count), 8))
    _error_bar_panel(top, offsets, colours, envs, "offset from CPU 0, ns (symlog)",
                     "Cross-CPU offset (± half the bracket width), one point per run")
    _error_bar_panel(bottom, drifts, colours, envs, "drift against CPU 0, ppm (symlog)",
                     "Drift of the offset over the run (± 1 standard error)")
    figure.tight_layout()
    return _save(pyplot, figure, out_dir, "cross-cpu")


def plot_ticks(pyplot, inputs, ticks, out_dir):
    """One panel per tick source: CPU lost against the tick rate, a line per environment
    (median over its runs, bars from the least to the most), log rate axis.  `ticks` is
    the table compare.compare_ticks() made: [((source, rate Hz), [cells])]."""
    sources = []
    for (source, _), _ in ticks:
        if source not in sources:
            sources.append(source)
    if not sources:
        return []
    columns = min(2, len(sources))
    rows = math.ceil(len(sources) / columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(6 * columns, 4.2 * rows),
                                   squeeze=False)
    colours = _colours(pyplot, inputs.runs)
    for index, source in enumerate(sources):
        axis = axes[index // columns][index % columns]
        drawn = False
        for env in inputs.runs:
            points = [(rate, cell) for (name, rate), cells in ticks if name == source
                      for cell in cells if cell.env == env and not cell.missing
                      and cell.metrics["stolen"] is not None]
            if not points:
                continue
            rates = [rate for rate, _ in points]
            medians = [cell.metrics["stolen"].median for _, cell in points]
            below = [cell.metrics["stolen"].median - cell.metrics["stolen"].low
                     for _, cell in points]
            above = [cell.metrics["stolen"].high - cell.metrics["stolen"].median
                     for _, cell in points]
            axis.errorbar(rates, medians, yerr=[below, above], fmt="o-", capsize=3,
                          color=colours[env], markersize=4, label=env)
            drawn = True
        if not drawn:
            axis.text(0.5, 0.5, "absent or not measured everywhere", ha="center",
                      va="center", transform=axis.transAxes)
        axis.set_xscale("log")
        axis.set_ylim(-10, 105)
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_title(f"{source}: CPU lost to timer interrupts")
        axis.set_xlabel("tick rate asked for, Hz (log)")
        axis.set_ylabel("CPU lost by the work loop, %")
        axis.grid(True, which="both", alpha=0.3)
        if drawn:
            axis.legend(fontsize="small", loc="upper left")
    for index in range(len(sources), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle("Tick rate vs CPU stolen (median over runs, bars: min to max; a rate "
                    "a timer could not deliver still costs what it cost)")
    figure.tight_layout()
    return _save(pyplot, figure, out_dir, "tick-cost")


def write_plots(inputs, ticks, out_dir):
    """Write every plot the reports allow into `out_dir`: the read costs and cross-CPU
    figures from `inputs`, the tick costs from compare's tick table `ticks`.  Returns
    lines to tell the user."""
    pyplot = _pyplot()
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise RunnerError(f"cannot create {out_dir}: {error.strerror}.") from None
    written = (plot_read_cost(pyplot, inputs, out_dir) + plot_cross_cpu(pyplot, inputs, out_dir)
               + plot_ticks(pyplot, inputs, ticks, out_dir))
    return [f"wrote {path}" for path in written]
