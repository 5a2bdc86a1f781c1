# SPDX-License-Identifier: MIT
"""The tick-cost figure of `compare --plot`: CPU lost against the interrupts that arrived,
per tick source, the rates not delivered marked."""

import math

from .plotbase import Drawn, agg_canvas, env_styles, line2d_class, rate_text, reference_line


# A rate is delivered when the interrupts that arrived are within this fraction of the rate
# asked for: the report's own `reached` rule (docs/report-format.md, ticks).
DELIVERED_WITHIN = 0.10


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
            lines.setdefault((cell.env, state), []).append(rate_text(rate_hz))
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
            near[2].append(rate_text(rate_hz))
        else:
            labels.append((x, y, [rate_text(rate_hz)]))
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
    styles = env_styles(list(inputs.runs))
    envs = [env for env in inputs.runs if any(_tick_points(ticks, source, env)
                                              for source in sources)]
    columns = min(3, len(sources))
    rows = math.ceil(len(sources) / columns)
    figure = figure_class(figsize=(5.4 * columns, 4.4 * rows + 0.8))
    # A fixed layout, not a constrained one: labels are placed by measuring them, which
    # needs the axes where they will be saved.
    figure.subplots_adjust(left=0.07, right=0.98, top=1 - 0.7 / figure.get_figheight(),
                           bottom=0.9 / figure.get_figheight(), wspace=0.25, hspace=0.42)
    agg_canvas(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    for number, source in enumerate(sources):
        _tick_panel(figure, axes[number // columns][number % columns], ticks, source,
                    envs, styles)
    for number in range(len(sources), rows * columns):
        axes[number // columns][number % columns].set_visible(False)
    line2d = line2d_class()
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
    reference_line(axis, True, 0)
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
