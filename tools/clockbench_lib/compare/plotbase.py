# SPDX-License-Identifier: MIT
"""What every figure of `compare --plot` shares: matplotlib loaded on demand (Agg), the
styles per environment, the log-ns floor, captions and footnotes, file names."""

import re
from dataclasses import dataclass

from ..base.outcome import RunnerError


MATPLOTLIB_PACKAGE = "python3-matplotlib"


# Costs below this are drawn at it on the log ns axes, and the caption says which: a read
# that cost less than the empty bracket is reported as 0 ns, which a log axis cannot show.
FLOOR_NS = 1.0


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


def load_figure_class():
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


def ticker_module():
    import matplotlib.ticker  # pylint: disable=import-outside-toplevel
    return matplotlib.ticker


def line2d_class():
    from matplotlib.lines import Line2D  # pylint: disable=import-outside-toplevel
    return Line2D


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str


def env_styles(envs):
    """Environment -> Style, the same in every figure (`envs` is every environment of the
    inputs, also where a figure draws only some): colour and marker both differ, so
    environments stay apart in grey print too."""
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
    return {env: Style(palette[index % len(palette)], MARKERS[index % len(MARKERS)])
            for index, env in enumerate(envs)}


def reference_line(axis, horizontal, value, **style):
    line = (axis.axhline if horizontal else axis.axvline)(
        value, color=style.pop("color", "grey"), linewidth=style.pop("linewidth", 0.8),
        **style)
    line.set_gid(REFERENCE)
    return line


def duration_text(value_ns):
    """A duration in the unit that suits it: 850 ns, 31.6 µs, 1.52 ms."""
    magnitude = abs(value_ns)
    if magnitude >= 1e6:
        return f"{value_ns / 1e6:.3g} ms"
    if magnitude >= 1e3:
        return f"{value_ns / 1e3:.3g} µs"
    return f"{value_ns:.3g} ns"


def rate_text(rate_hz):
    """A rate as people write it: 100 Hz, 10 kHz."""
    if rate_hz >= 1e6 and rate_hz % 1e6 == 0:
        return f"{rate_hz / 1e6:g} MHz"
    if rate_hz >= 1e3 and rate_hz % 1e3 == 0:
        return f"{rate_hz / 1e3:g} kHz"
    return f"{rate_hz:g} Hz"


def raised_to_floor(value_ns, where, floored):
    """`value_ns` raised to FLOOR_NS, noting `where` in `floored` when it was below."""
    if value_ns < FLOOR_NS:
        if where not in floored:
            floored.append(where)
        return FLOOR_NS
    return value_ns


def floor_caption(floored):
    if not floored:
        return ""
    return (f" Costs under {FLOOR_NS:g} ns are drawn at {FLOOR_NS:g} ns, the floor of the "
            f"log axis (a read no slower than the empty bracket is reported as 0 ns): "
            f"{', '.join(floored)}.")


def footnote(figure, text):
    """`text` under the figure's axes, in the saved image too (bbox_inches="tight" takes
    it in), so that a PNG on its own says what its caption says."""
    if text:
        figure.text(0.0, -0.01, text.strip(), ha="left", va="top", fontsize="small",
                    wrap=True, color="#444444")


def row_offsets(count, band=0.7):
    """Offsets within a row of height 1 for `count` items, spread over `band`."""
    if count <= 1:
        return [0.0]
    step = band / (count - 1)
    return [-band / 2 + step * index for index in range(count)]


def file_part(name):
    """`name` (from a report: untrusted) made safe as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "_"


def agg_canvas(figure):
    """Give `figure` an Agg canvas, whose renderer measures text before saving."""
    from matplotlib.backends.backend_agg import \
        FigureCanvasAgg  # pylint: disable=import-outside-toplevel
    FigureCanvasAgg(figure)
