# SPDX-License-Identifier: MIT
"""`clockbench compare --plot` (tools/clockbench_lib/compare/plot.py) on the real reports of
tests/tools/fixtures/matrix/sample and on copies of them given histograms: which figures
are made for which inputs, their titles, every point and error bar inside its axes, the
tick plot's x values the delivered rates, the percentile axis, the six-point fallback,
the floor of the log axes, and a sentence for each plot not written.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import copy
import importlib.util
import os
import random
import statistics
import tempfile
import unittest

from tests.tools import FIXTURES, GOOD_LOG
from tests.tools.test_histogram import encode
from clockbench_lib.model import histogram
from clockbench_lib.compare import plot, plotbase, plotcosts, plotcross
from clockbench_lib.compare.inputs import load_inputs
from clockbench_lib.compare.ticks import compare_ticks
from clockbench_lib.base.outcome import RunnerError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False
# Whole commands: its run time is far beyond what its size says (tests/tools/run).
RUNS_LONG = True

SAMPLE = os.path.join(FIXTURES, "matrix", "sample")
SMP_LOG = os.path.join(FIXTURES, "smp.log")
SAMPLE_CLOCKS = ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet", "acpi_pm", "pit", "kvm_clock",
                 "xen_pvclock"]
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def title_of(figure):
    """The figure's title: its suptitle, else its first axes' title."""
    # pylint: disable=protected-access
    if figure._suptitle is not None and figure._suptitle.get_text():
        return figure._suptitle.get_text()
    return figure.axes[0].get_title()


def outside_limits(axis):
    """The data points, error-bar ends and annotated points of `axis` that lie outside
    its limits (reference lines, drawn in axes coordinates, left out)."""
    from matplotlib.collections import LineCollection  # pylint: disable=import-outside-toplevel
    from matplotlib.text import Annotation  # pylint: disable=import-outside-toplevel
    x_low, x_high = sorted(axis.get_xlim())
    y_low, y_high = sorted(axis.get_ylim())
    points = []
    for line in axis.get_lines():
        if line.get_gid() != plotbase.REFERENCE:
            points += [tuple(point) for point in line.get_xydata()]
    for collection in axis.collections:
        if isinstance(collection, LineCollection):
            for segment in collection.get_segments():
                points += [tuple(point) for point in segment]
    points += [tuple(text.xy) for text in axis.texts if isinstance(text, Annotation)]
    return [(x, y) for x, y in points
            if not (x_low <= x <= x_high and y_low <= y <= y_high)]


def marker_points(axis):
    """(x, y, hollow) of the single-point marker lines of `axis` (not error-bar caps)."""
    return [(line.get_xdata()[0], line.get_ydata()[0], line.get_markerfacecolor() == "white")
            for line in axis.get_lines()
            if len(line.get_xdata()) == 1 and line.get_marker() not in ("|", "_")
            and line.get_gid() != plotbase.REFERENCE]


def panel(drawn, title):
    return next(axis for axis in drawn.figure.axes if axis.get_title() == title)


def with_histograms(inputs, env, count=200_000, seed=7):
    """A copy of `inputs` in which every timed clock of `env` has a histogram of `count`
    made-up read costs spread around its p50, up to its max."""
    inputs = copy.deepcopy(inputs)
    rng = random.Random(seed)
    for run in inputs.runs[env]:
        for clock in run.document["clocks"]:
            costs = clock.get("read_ns")
            if not costs:
                continue
            values = [max(costs["min"], int(rng.lognormvariate(0, 0.3) * costs["p50"]))
                      for _ in range(count - 1)] + [costs["max"]]
            costs["hist"] = encode(values)
    return inputs


@unittest.skipUnless(HAVE_MATPLOTLIB, "python3-matplotlib is not installed")
class SampleFigures(unittest.TestCase):
    """The figures of the real matrix sample (tcg-pc, tcg-q35, kvm-pc, xen-hpet, xen-tsc)."""

    @classmethod
    def setUpClass(cls):
        cls.inputs = load_inputs([SAMPLE])
        cls.ticks = compare_ticks(cls.inputs)
        cls.drawn, cls.messages = plot.build_figures(cls.inputs, cls.ticks)
        cls.by_stem = {drawn.stem: drawn for drawn in cls.drawn}

    def test_figures_made(self):
        self.assertEqual([drawn.stem for drawn in self.drawn],
                         ["read-cost"] + [f"percentiles-{name}" for name in SAMPLE_CLOCKS]
                         + ["cross-cpu", "tick-cost"])
        self.assertEqual(self.messages, [])

    def test_titles_ask_the_question(self):
        titles = {drawn.stem: title_of(drawn.figure) for drawn in self.drawn}
        self.assertEqual(titles["read-cost"],
                         "What does one read of each clock cost, typically and at worst?")
        self.assertEqual(titles["percentiles-hpet"], "hpet: how slow are the slowest reads?")
        self.assertEqual(titles["cross-cpu"], "Do the CPUs agree on the time, and does it "
                         "ever go back between them?")
        self.assertEqual(titles["tick-cost"], "What does a tick rate cost? CPU lost against "
                         "the interrupts that actually arrived")
        for drawn in self.drawn:
            self.assertEqual(title_of(drawn.figure), drawn.question)
            self.assertIn("?", drawn.question)
        # The tick figure says "CPU lost" everywhere, "stolen" nowhere.
        tick_figure = self.by_stem["tick-cost"]
        texts = [tick_figure.question, tick_figure.caption] + \
            [axis.get_ylabel() for axis in tick_figure.figure.axes]
        self.assertTrue(all("stolen" not in text for text in texts), texts)
        self.assertIn("CPU lost, %", texts)

    def test_nothing_outside_the_axes(self):
        for drawn in self.drawn:
            for axis in drawn.figure.axes:
                if axis.get_visible():
                    self.assertEqual(outside_limits(axis), [],
                                     f"{drawn.stem}: {axis.get_title()}")

    def test_the_check_finds_a_point_outside(self):
        figure = self.drawn[0].figure.__class__()
        axis = figure.subplots()
        axis.errorbar([1.0], [1.0], xerr=[5.0])
        axis.set_xlim(0, 3)
        self.assertEqual(outside_limits(axis), [(-4.0, 1.0), (6.0, 1.0)])

    def test_read_cost_is_one_panel_on_one_log_axis(self):
        figure = self.by_stem["read-cost"].figure
        self.assertEqual(len(figure.axes), 1)
        axis = figure.axes[0]
        self.assertEqual(axis.get_xscale(), "log")
        self.assertEqual([label.get_text() for label in axis.get_yticklabels()], SAMPLE_CLOCKS)
        legend = [text.get_text() for text in axis.get_legend().get_texts()]
        self.assertEqual(legend[:5], ["tcg-pc", "tcg-q35", "kvm-pc", "xen-hpet", "xen-tsc"])
        # kvm-pc's tsc: p50 11 ns (both runs), the slowest read 72 ns (run 1), a faint
        # tick.
        points = [(x, y) for x, y, _ in marker_points(axis) if y < 0.5]
        self.assertIn(11.0, [x for x, _ in points])
        ticks = [(line.get_xdata()[0], line.get_alpha()) for line in axis.get_lines()
                 if line.get_marker() == "|" and len(line.get_xdata()) == 1
                 and line.get_ydata()[0] < 0.5]
        self.assertIn((72.0, plotcosts.SLOWEST_ALPHA), ticks)
        # The axis ends a little past the largest p99.9, not at the slowest read.
        p999 = max(statistics.median(clock["read_ns"]["p999"] for clock in clocks)
                   for clocks in self.timed_clocks())
        self.assertAlmostEqual(axis.get_xlim()[1], p999 * plotcosts.READ_COST_HEADROOM)
        self.assertNotIn("under 1 ns", self.by_stem["read-cost"].caption)

    def timed_clocks(self):
        """Per clock and environment, the timed clock entries of its runs."""
        for name in SAMPLE_CLOCKS:
            for runs in self.inputs.runs.values():
                found = [clock.entry for clock in (run.report.clock(name) for run in runs)
                         if clock and clock.timed and clock.entry.get("read_ns")]
                if found:
                    yield found

    def test_percentile_axis(self):
        axis = self.by_stem["percentiles-tsc"].figure.axes[0]
        self.assertEqual((axis.get_xscale(), axis.get_yscale()), ("log", "log"))
        ticks = axis.xaxis.get_major_locator()()
        labels = axis.xaxis.get_major_formatter().format_ticks(ticks)
        # 20,000 reads: the slowest at 1 / 20,000, past 99.99 %.
        self.assertEqual(labels, ["min", "50 %", "90 %", "99 %", "99.9 %", "99.99 %"])
        self.assertEqual(list(ticks), [1.0, 0.5, 0.1, 0.01, 0.001, 0.0001])
        left, right = axis.get_xlim()
        self.assertGreater(left, right, "the tail is not to the right")

    def test_six_points_without_a_histogram(self):
        drawn = self.by_stem["percentiles-tsc"]
        axis = drawn.figure.axes[0]
        lines = [line for line in axis.get_lines() if line.get_gid() != plotbase.REFERENCE]
        self.assertEqual(len(lines), 10)  # five environments, two runs each
        for line in lines:
            self.assertEqual(list(line.get_xdata()),
                             [1.0, 0.5, 0.1, 0.01, 0.001, 1 / 20000])
            self.assertEqual(line.get_linestyle(), ":")
        # tcg-pc run 1: its tsc's min, p50, p90, p99, p99.9 and max.
        self.assertIn([41, 59, 70, 89, 253, 98643],
                      [list(line.get_ydata()) for line in lines])
        legend = [text.get_text() for text in axis.get_legend().get_texts()]
        self.assertTrue(any(text.startswith("six points only (no histogram")
                            for text in legend), legend)
        self.assertIn("tcg-pc, tcg-q35, kvm-pc, xen-hpet, xen-tsc: the report has no "
                      "histogram", drawn.caption)

    def test_tick_x_is_the_delivered_rate(self):
        axis = panel(self.by_stem["tick-cost"], "hpet")
        self.assertEqual(axis.get_xlabel(), "interrupts that arrived per second (log)")
        self.assertEqual(axis.get_ylabel(), "CPU lost, %")
        cells = [cell for (source, _), row in self.ticks if source == "hpet"
                 for cell in row if not cell.missing]
        delivered = sorted(cell.metrics["rate"].median for cell in cells)
        points = marker_points(axis)
        self.assertEqual(sorted(x for x, _, _ in points), delivered)
        # kvm-pc asked for 100 kHz and got about 20,000 a second: drawn there, hollow.
        kvm = next(cell for (source, hz), row in self.ticks if (source, hz) == ("hpet", 100000)
                   for cell in row if cell.env == "kvm-pc")
        self.assertIn((kvm.metrics["rate"].median, kvm.metrics["stolen"].median, True),
                      points)
        self.assertLess(max(x for x, _, _ in points), 30000)
        # Its 1 kHz was delivered: filled.
        kvm = next(cell for (source, hz), row in self.ticks if (source, hz) == ("hpet", 1000)
                   for cell in row if cell.env == "kvm-pc")
        self.assertIn((kvm.metrics["rate"].median, kvm.metrics["stolen"].median, False),
                      points)
        self.assertIn("asked 100 kHz", [text.get_text() for text in axis.texts])

    def test_rates_not_measured_are_listed(self):
        texts = [text.get_text() for text in
                 panel(self.by_stem["tick-cost"], "xen_periodic").texts]
        self.assertIn("xen-hpet: 10 kHz, 100 kHz unreachable, not measured\n"
                      "xen-tsc: 10 kHz, 100 kHz unreachable, not measured", texts)
        texts = [text.get_text() for text in panel(self.by_stem["tick-cost"], "lapic").texts]
        self.assertIn("absent in xen-hpet, xen-tsc", texts)

    def test_cross_cpu_holds_the_xen_finding_and_the_warps(self):
        figure = self.by_stem["cross-cpu"].figure
        offsets, drift, warps = figure.axes[:3]
        self.assertEqual((offsets.get_xscale(), drift.get_xscale()), ("symlog", "symlog"))
        low, high = offsets.get_xlim()
        # xen-hpet run 1: xen_pvclock 64 µs behind CPU 0, ± 338.5 ns.
        self.assertLess(low, -64011.5 - 338.5)
        self.assertGreater(high, 0)
        low, high = drift.get_xlim()
        self.assertLess(low, -67.36255315 - 0.9154649775)
        self.assertGreater(high, 108.0741312 + 1.009421139)
        notes = [text.get_text() for text in warps.texts]
        self.assertEqual(notes, ["59k, worst 44.3 µs", "45.8k, worst 64.7 µs"])
        counts = sorted(x for line in warps.get_lines() if line.get_gid() != plotbase.REFERENCE
                        for x in line.get_xdata() if x)
        self.assertEqual(counts, [43993, 45847, 53463, 58991])
        self.assertEqual([label.get_text() for label in offsets.get_yticklabels()],
                         [f"{name}, CPU 1" for name in SAMPLE_CLOCKS])


@unittest.skipUnless(HAVE_MATPLOTLIB, "python3-matplotlib is not installed")
class OtherInputs(unittest.TestCase):
    def test_histogram_lines(self):
        inputs = with_histograms(load_inputs([SAMPLE]), "kvm-pc")
        drawn = plotcosts.build_percentiles(plotbase.load_figure_class(),
                                       inputs, "kvm_clock")
        axis = drawn.figure.axes[0]
        lines = [line for line in axis.get_lines() if line.get_gid() != plotbase.REFERENCE]
        self.assertEqual(len(lines), 2)
        for line, run in zip(lines, inputs.runs["kvm-pc"]):
            costs = next(c for c in run.document["clocks"]
                         if c["name"] == "kvm_clock")["read_ns"]
            hist = histogram.of(costs)
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            self.assertGreater(len(xs), 100)
            self.assertEqual((xs[0], ys[0]), (1.0, costs["min"]))
            self.assertEqual((xs[-1], ys[-1]), (1 / 200_000, costs["max"]))
            for fraction, cost in zip(xs[:-1], ys[:-1]):
                self.assertEqual(cost, hist.quantile(1 - fraction))
            self.assertEqual(line.get_linestyle(), "-")
        labels = axis.xaxis.get_major_formatter().format_ticks(
            axis.xaxis.get_major_locator()())
        self.assertEqual(labels, ["min", "50 %", "90 %", "99 %", "99.9 %", "99.99 %",
                                  "99.999 %"])
        self.assertNotIn("no histogram", drawn.caption)
        legend = [text.get_text() for text in axis.get_legend().get_texts()]
        self.assertIn("from the report's histogram;\nmarker: the slowest read", legend)
        self.assertEqual(outside_limits(axis), [])

    def test_a_bad_histogram_is_one_sentence(self):
        inputs = with_histograms(load_inputs([SAMPLE]), "kvm-pc", count=100)
        run = inputs.runs["kvm-pc"][0]
        run.document["clocks"][0]["read_ns"]["hist"]["total"] = 7
        with self.assertRaisesRegex(RunnerError, r"kvm-pc/run-1\.json: clock tsc: "
                                    r"read_ns: the histogram's buckets .* not its total 7"):
            plot.build_figures(inputs, [])

    def test_absent_data_gives_no_plot_and_a_sentence(self):
        inputs = load_inputs([GOOD_LOG])
        drawn, messages = plot.build_figures(inputs, compare_ticks(inputs))
        self.assertEqual([item.stem for item in drawn],
                         ["read-cost"] + [f"percentiles-{name}" for name in
                                          ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet",
                                           "acpi_pm", "pit"]])
        self.assertEqual(messages, [
            "no report measured clocks across CPUs (a 'cross_cpu' section that applies: at "
            "least 2 CPUs), so the cross-CPU plot is not written.",
            "no report has tick measurements (a 'ticks' section that applies), so the "
            "tick-cost plot is not written."])
        inputs = load_inputs([GOOD_LOG])  # read anew: the figures above read its model
        for clock in inputs.runs["good"][0].document["clocks"]:
            clock["present"] = False
        drawn, messages = plot.build_figures(inputs, [])
        self.assertEqual(drawn, [])
        self.assertEqual(messages[0], "no report has a clock whose reads were timed, so the "
                         "read-cost and percentile plots are not written.")

    def test_costs_below_the_floor(self):
        inputs = load_inputs([GOOD_LOG])
        inputs.runs["good"][0].document["clocks"][0]["read_ns"]["p50"] = 0
        figure_class = plotbase.load_figure_class()
        drawn = plotcosts.build_read_cost(figure_class, inputs)
        self.assertIn("Costs under 1 ns are drawn at 1 ns, the floor of the log axis (a read "
                      "no slower than the empty bracket is reported as 0 ns): tsc in good.",
                      drawn.caption)
        axis = drawn.figure.axes[0]
        self.assertIn(plotbase.FLOOR_NS, [x for x, _, _ in marker_points(axis)])
        self.assertEqual(outside_limits(axis), [])
        # The footnote says it in the image too.
        self.assertIn("Costs under 1 ns", " ".join(t.get_text() for t in drawn.figure.texts))
        drawn = plotcosts.build_percentiles(figure_class, inputs, "tsc")
        self.assertIn("drawn at 1 ns", drawn.caption)  # the fixture's min is 0 ns
        self.assertEqual(min(drawn.figure.axes[0].get_lines()[0].get_ydata()), plotbase.FLOOR_NS)

    def test_write_plots(self):
        inputs = load_inputs([GOOD_LOG, SMP_LOG])
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "plots")
            written, messages = plot.write_plots(inputs, [], out)
            self.assertEqual([item.stem for item in written][:2],
                             ["read-cost", "percentiles-tsc"])
            self.assertEqual(written[-1].stem, "cross-cpu")
            self.assertEqual(len(messages), 1)
            for item in written:
                self.assertEqual((item.png, item.svg),
                                 (os.path.join(out, f"{item.stem}.png"),
                                  os.path.join(out, f"{item.stem}.svg")))
                with open(item.png, "rb") as source:
                    self.assertEqual(source.read(8), b"\x89PNG\r\n\x1a\n")
                with open(item.svg, encoding="utf-8") as source:
                    self.assertIn("<svg", source.read())
                self.assertTrue(item.title and item.question and item.caption)
            png_only = os.path.join(folder, "png")
            written, _ = plot.write_plots(inputs, [], png_only, ("png",))
            self.assertEqual(sorted(os.listdir(png_only)),
                             sorted(f"{item.stem}.png" for item in written))
            self.assertEqual({item.svg for item in written}, {None})
            blocked = os.path.join(folder, "a-file")
            with open(blocked, "w", encoding="utf-8"):
                pass
            with self.assertRaisesRegex(RunnerError, "cannot create .*a-file/plots: "):
                plot.write_plots(inputs, [], os.path.join(blocked, "plots"))

    def test_only_environments_with_data_in_a_legend(self):
        inputs = load_inputs([GOOD_LOG, SMP_LOG])
        drawn = plotcross.build_cross_cpu(plotbase.load_figure_class(),
                                     inputs)
        legend = drawn.figure.axes[2].get_legend()
        self.assertEqual([text.get_text() for text in legend.get_texts()], ["smp"])
        # smp keeps the colour it has in the figures where good comes first.
        # legend_handles from matplotlib 3.7, legendHandles before (Debian 12 has 3.6).
        handles = getattr(legend, "legend_handles", None) or legend.legendHandles
        self.assertEqual(handles[0].get_color(), "#ff7f0e")

    def test_clock_names_are_safe_in_file_names(self):
        self.assertEqual(plotbase.file_part("../x y/z"),
                         "_x_y_z")
        self.assertEqual(plotbase.file_part("tsc_ordered"),
                         "tsc_ordered")


if __name__ == "__main__":
    unittest.main()
