# SPDX-License-Identifier: MIT
"""Tests of `clockbench compare --html FILE` on the real reports of
tests/tools/fixtures/matrix/sample: the file parses, needs nothing from elsewhere (no
script, no reference but data: URIs and in-page anchors), holds compare's tables cell for
cell and one inline image per plot written, and its findings are computed from the data
(the trapped HPET under KVM and the % of a CPU its reads would take).

Run: /usr/bin/python3 -m unittest tests.tools.test_compare_html
"""

import argparse
import base64
import json
import os
import shutil
import tempfile
import unittest
from html.parser import HTMLParser
from unittest import mock

from tests.tools import FIXTURES, GOOD_LOG, run_cli
from clockbench_lib.compare import html, plot
from clockbench_lib.compare.clocks import clock_table, compare
from clockbench_lib.compare.command import write_html_report
from clockbench_lib.compare.inputs import load_inputs
from clockbench_lib.compare.ostable import compare_os
from clockbench_lib.compare.table import Table
from clockbench_lib.compare.ticks import compare_ticks, tick_table
from clockbench_lib.base.outcome import RunnerError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False
# Whole commands: its run time is far beyond what its size says (tests/tools/run).
RUNS_LONG = True

SAMPLE = os.path.join(FIXTURES, "matrix", "sample")
LINUX = os.path.join(FIXTURES, "linux")
HAVE_MATPLOTLIB = os.path.exists("/usr/lib/python3/dist-packages/matplotlib")



class Collect(HTMLParser):
    """Every start tag with its attributes, the tables as lists of rows of cell texts, and
    the text of each list item."""

    def __init__(self):
        super().__init__()
        self.tags, self.tables, self.items = [], [], []
        self._cell = self._item = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "li":
            self._item = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell)
            self._cell = None
        elif tag == "li":
            self.items.append(self._item)
            self._item = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._item is not None:
            self._item += data


def parse(path):
    with open(path, encoding="utf-8") as source:
        text = source.read()
    parser = Collect()
    parser.feed(text)
    parser.close()
    return text, parser


@unittest.skipUnless(HAVE_MATPLOTLIB, "python3-matplotlib is not installed")
class HtmlReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.scratch.name, "report.html")
        cls.plots = os.path.join(cls.scratch.name, "plots")
        cls.result = run_cli("compare", SAMPLE, "--table", "clocks", "--html", cls.path,
                              "--plot", cls.plots)
        cls.text, cls.parsed = parse(cls.path)
        cls.inputs = load_inputs([SAMPLE])

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_written(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertIn(f"clockbench compare: wrote {self.path}", self.result.stderr)
        self.assertTrue(self.text.startswith("<!DOCTYPE html>"))

    def test_self_contained(self):
        tags = [tag for tag, _ in self.parsed.tags]
        for forbidden in ("script", "link", "iframe", "object", "embed", "base"):
            self.assertNotIn(forbidden, tags)
        for tag, attrs in self.parsed.tags:
            for name, value in attrs.items():
                self.assertFalse(name.startswith("on"), (tag, name))
                if name in ("src", "href", "srcset", "action", "data", "poster"):
                    self.assertTrue(value.startswith(("data:", "#")), (tag, name, value[:60]))
        style = self.text[self.text.index("<style>"):self.text.index("</style>")]
        self.assertNotIn("url(", style)
        self.assertNotIn("@import", style)

    def test_one_inline_image_per_plot(self):
        pngs = sorted(name for name in os.listdir(self.plots) if name.endswith(".png"))
        self.assertGreaterEqual(len(pngs), 3, pngs)  # read costs, cross-CPU, tick costs
        images = [attrs["src"] for tag, attrs in self.parsed.tags if tag == "img"]
        self.assertEqual(len(images), len(pngs))
        inline = set()
        for src in images:
            self.assertTrue(src.startswith("data:image/png;base64,"), src[:40])
            inline.add(base64.b64decode(src.split(",", 1)[1]))
        for name in pngs:
            with open(os.path.join(self.plots, name), "rb") as source:
                self.assertIn(source.read(), inline, name)

    def test_the_plot_folder_keeps_both_formats(self):
        stems = {os.path.splitext(name) for name in os.listdir(self.plots)}
        self.assertEqual({ext for _, ext in stems}, {".png", ".svg"})
        self.assertEqual({(stem, ".svg") for stem, ext in stems if ext == ".png"},
                         {pair for pair in stems if pair[1] == ".svg"})

    def test_the_tables_cell_for_cell(self):
        """Every table, not only the one --table chose for the terminal."""
        table = compare(self.inputs, "tcg-pc")
        ticks = compare_ticks(self.inputs, "tcg-pc")
        expected = [clock_table(table, self.inputs, "tcg-pc"),
                    tick_table(ticks, "tcg-pc")]
        found = {tuple(rows[0]): rows[1:] for rows in self.parsed.tables if rows}
        for want in expected:
            with self.subTest(table=want.headings[0]):
                rows = found[tuple(want.headings)]
                self.assertEqual(len(rows), len(want.rows))
                for row, cells in zip(want.rows, rows):
                    texts = [str(cell) for cell in row.cells]
                    if row.text is not None:
                        texts = texts[:row.lead] + [row.text]
                    self.assertEqual(cells, texts)

    def test_inputs(self):
        text = "\n".join(" ".join(cell for cell in row) for rows in self.parsed.tables
                         for row in rows)
        for env in self.inputs.runs:
            self.assertIn(os.path.join(SAMPLE, env, "run-1.json"), text)
        self.assertIn("hypervisor: KVM", text)

    def test_where_each_ran_from_the_runner_record(self):
        """A clockbench/2 report's runner record is summed up per row (host, accelerator,
        QEMU's version...); the sample's clockbench/1 reports say they have none."""
        amd = os.path.join(FIXTURES, "matrix", "amd")
        inputs = load_inputs([amd], include_failed=True)  # tcg-pc's two runs are FAILs
        report_ = html.Report("t", [amd], inputs, [], [], [])
        text = html.inputs_html(report_)
        runner = inputs.runs["tcg-pc"][0].document["runner"]
        self.assertIn(f"host: {runner['host']['name']} ({runner['host']['cpu']['model']})",
                      text)
        self.assertIn(f"QEMU: {html.html.escape(runner['qemu_version'])}", text)
        self.assertIn("accelerator: tcg", text)
        self.assertIn("<details>", text)
        self.assertIn("they have no runner record", html.inputs_html(
            html.Report("t", [SAMPLE], self.inputs, [], [], [])))

    def test_trapped_finding_from_the_figures(self):
        """kvm-pc's HPET is trapped; at a million reads a second its median p50 (over the
        two runs) would take p50 / 10 % of a CPU."""
        values = []
        for number in (1, 2):
            with open(os.path.join(SAMPLE, "kvm-pc", f"run-{number}.json"),
                      encoding="utf-8") as source:
                hpet = next(c for c in json.load(source)["clocks"] if c["name"] == "hpet")
            self.assertTrue(hpet["trapped"])
            values.append(hpet["read_ns"]["p50"])
        share_pct = (sum(values) / 2) * 1e6 / 1e9 * 100
        (line,) = [item for item in self.parsed.items if item.startswith("kvm-pc: hpet's")]
        self.assertIn("trapped", line)
        self.assertIn(f"at 1 M reads a second they would take {share_pct:.0f} % of a CPU", line)
        self.assertIn(f"one CPU does at most {1e9 / (sum(values) / 2):.0f} such reads", line)

    def test_other_findings(self):
        items = "\n".join(self.parsed.items)
        self.assertRegex(items, r"xen-hpet: xen_pvclock went backwards between CPUs in 2 of 2 "
                                r"runs \(58991, 53463 times")
        self.assertRegex(items, r"xen-hpet: xen_pvclock on CPU 1 reads apart from CPU 0 by "
                                r"more than the bracket's uncertainty in 2 of 2 runs")
        # One finding per environment and source, naming its rates, not one per rate.
        # (xen_periodic's two rates were refused for reasons of their own: two lines.)
        self.assertIn("xen-hpet, xen-tsc: xen_periodic at 10000 Hz was not delivered at all: "
                      "unreachable", items)
        self.assertRegex(items, r"kvm-pc: lapic delivered fewer than 90% of the interrupts "
                                r"asked for at 2 rates: \d+ a second at 10000 Hz \(\d+ %\), "
                                r"\d+ a second at 100000 Hz")
        self.assertEqual(items.count("kvm-pc: lapic delivered"), 1)
        self.assertRegex(items, r"xen-hpet: a xen_pvclock read costs [\d.]+× a tsc read")
        # Not a finding: kvm-pc's tsc is not trapped.
        self.assertNotIn("kvm-pc: tsc's reads are trapped", items)


class HtmlUnitTest(unittest.TestCase):
    def test_cpu_share(self):
        self.assertAlmostEqual(html.cpu_share_pct(53.0), 5.3)
        self.assertAlmostEqual(html.cpu_share_pct(82095.0), 8209.5)

    def test_a_bad_file_is_one_sentence(self):
        result = run_cli("compare", GOOD_LOG, "--html", "/nonexistent-folder/report.html")
        self.assertEqual(result.returncode, 2)
        self.assertIn("cannot write /nonexistent-folder/report.html: No such file or directory.",
                      result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_escaped(self):
        table = Table("a <b> & c", ["x"], [["<script>alert(1)</script>"]])
        text = html.table_html(table)
        self.assertNotIn("<script>", text)
        self.assertIn("&lt;script&gt;", text)
        self.assertIn("<caption>a &lt;b&gt; &amp; c</caption>", text)


    def test_plots_as_plot_py_returns_them(self):
        """plot.write_plots's (PlotFile list, messages) becomes one Plot per figure, with
        its title, question, files and caption, and the messages kept."""
        item = plot.PlotFile(stem="a", title="T", question="Q?", caption="how to read it",
                             png="/y/a.png", svg="/y/a.svg")
        with mock.patch.object(plot, "write_plots", return_value=([item], ["not drawn: z"])):
            plots, messages = html.written_plots(None, [], "/y")
        self.assertEqual(plots, [html.Plot("T", "Q?", "/y/a.png", "/y/a.svg", "how to read it")])
        self.assertEqual(messages, ["not drawn: z"])

    def test_formats_asked_with_and_without_a_plot_folder(self):
        """With --plot DIR PNG and SVG are asked for; without, the page's scratch plots are
        PNG only (the page embeds the PNG), and an SVG-less PlotFile still becomes a
        Plot."""
        inputs = load_inputs([GOOD_LOG])
        for plot_dir, formats in ((None, ("png",)), ("/y", ("png", "svg"))):
            with tempfile.TemporaryDirectory() as scratch:
                png = os.path.join(scratch, "a.png")
                with open(png, "wb") as image:
                    image.write(b"\x89PNG\r\n\x1a\n")
                item = plot.PlotFile(stem="a", title="T", question="Q?", caption="", png=png,
                                     svg=None)
                with mock.patch.object(plot, "write_plots", return_value=([item], [])) as asked:
                    args = argparse.Namespace(html=os.path.join(scratch, "r.html"),
                                              plot=plot_dir, baseline="tcg-pc",
                                              results=[GOOD_LOG])
                    write_html_report(args, inputs)
                _, parsed = parse(args.html)
            self.assertEqual(asked.call_args.args[3], formats, plot_dir)
            self.assertEqual(len([tag for tag, _ in parsed.tags if tag == "img"]), 1)

    def test_without_plots_the_page_says_why(self):
        inputs = load_inputs([GOOD_LOG])
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "r.html")
            args = argparse.Namespace(html=path, plot=None, baseline="tcg-pc",
                                      results=[GOOD_LOG])
            failure = RunnerError("--plot needs matplotlib: install the Debian package "
                                  "python3-matplotlib (`make deps` installs it).")
            with mock.patch.object(plot, "write_plots", side_effect=failure):
                messages = write_html_report(args, inputs)
            _, parsed = parse(path)
        self.assertIn(f"no plots: {failure}", messages)
        self.assertIn(f"no plots: {failure}", parsed.items)
        self.assertNotIn("img", [tag for tag, _ in parsed.tags])

    def test_os_findings_from_real_captures(self):
        """tcg-pc's and xen-hpet's reports beside the Linux captures of the same kind of
        guest: the vDSO answers on tsc, the system call on Xen's clocksource."""
        with tempfile.TemporaryDirectory() as scratch:
            paths = []
            for env, capture in (("tcg-pc", "linux-pc.log"), ("xen-hpet", "xen-linux-dom0.log")):
                paths.append(os.path.join(scratch, f"{env}.json"))
                shutil.copy(os.path.join(SAMPLE, env, "run-1.json"), paths[-1])
                paths.append(os.path.join(scratch, f"{env}.os.log"))
                shutil.copy(os.path.join(LINUX, capture), paths[-1])
            rows = compare_os(load_inputs(paths))
        lines = {(row.env, row.clocksource): finding.text
                 for row, finding in zip(rows, html.os_findings(rows))}
        xen = next(row for row in rows if (row.env, row.clocksource) == ("xen-hpet", "xen"))
        self.assertEqual(xen.via, "syscall")
        self.assertIn(f"took {xen.libc.median:.0f} ns, answered by the system call: no vDSO "
                      f"fast path", lines["xen-hpet", "xen"])
        self.assertIn(f"the OS adds {xen.added:.0f} ns to the raw xen_pvclock read",
                      lines["xen-hpet", "xen"])
        self.assertIn("answered by the vDSO", lines["tcg-pc", "tsc"])


if __name__ == "__main__":
    unittest.main()
