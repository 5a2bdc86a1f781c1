# SPDX-License-Identifier: MIT
"""Tests of compare's tables and of the one table writer (tools/clockbench_lib/compare/table.py):
every table kind written as Markdown and parsed back, cell for cell; reasons collapsed into
one line per source and reason; the × tsc column and the trapped and warps flags, on the
real reports in tests/tools/fixtures/matrix/sample.

Run: /usr/bin/python3 -m unittest tests.tools.test_compare_tables
"""

import csv
import os
import shutil
import tempfile
import unittest

from tests.tools import FIXTURES
from tests.tools.test_compare import add_xen_hpet_as_pv_dom0, load
from clockbench_lib.compare.clocks import clock_table, compare, format_csv, format_table
from clockbench_lib.compare.inputs import Inputs, load_inputs
from clockbench_lib.compare.ostable import compare_os, format_os_table, os_table
from clockbench_lib.compare.ticks import compare_ticks, format_tick_table, tick_table
from clockbench_lib.compare.xentable import compare_xen, format_xen_table, xen_table
from clockbench_lib.compare.table import Column, Row, Table

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

SAMPLE = os.path.join(FIXTURES, "matrix", "sample")
LINUX = os.path.join(FIXTURES, "linux")


def split_markdown_row(line):
    """A Markdown table row's cells: split on the pipes no backslash escapes, then `\\|` and
    `\\\\` read back as `|` and `\\`, as GitHub's Markdown reads them."""
    if not (line.startswith("|") and line.endswith("|")):
        raise AssertionError(f"not a table row: {line!r}")
    cells, current, index = [], "", 1
    while index < len(line) - 1:
        char = line[index]
        if char == "\\" and index + 1 < len(line) - 1:
            current += line[index + 1]
            index += 2
            continue
        if char == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += char
        index += 1
    cells.append(current.strip())
    return cells


def parse_markdown_table(lines):
    """(headings, rows) of the one Markdown table in `lines` (lines before it, such as a
    title, are skipped; the table ends at the first line that is not a row)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    headings = split_markdown_row(table[0])
    rule = split_markdown_row(table[1])
    if len(rule) != len(headings) or not all(set(cell) <= set(":-") and "---" in cell
                                             for cell in rule):
        raise AssertionError(f"the second line is not a delimiter row: {table[1]!r}")
    return headings, [split_markdown_row(line) for line in table[2:]]


class MarkdownRoundTrip(unittest.TestCase):
    """Each table written as Markdown parses back into its headings and cells."""

    def assert_round_trip(self, table, lines):
        headings, rows = parse_markdown_table(lines)
        self.assertEqual(headings, table.headings)
        self.assertEqual(len(rows), len(table.rows))
        for row, parsed in zip(table.rows, rows):
            self.assertEqual(len(parsed), len(table.columns), parsed)
            expected = [str(cell) for cell in row.cells]
            expected += [""] * (len(table.columns) - len(expected))
            self.assertEqual(parsed, [" ".join(cell.split()) for cell in expected])

    def test_escaping(self):
        table = Table("t", [Column("a|b", True), "max |drift| ppm", "c\\"],
                      [["x|y", "back\\slash", "\\|"], ["a \\| b", "", "end\\"], ["two\nlines"]])
        lines = table.markdown()
        self.assertIn("| a\\|b | max \\|drift\\| ppm | c\\\\ |", lines)
        self.assert_round_trip(table, lines)

    def test_every_compare_table(self):
        inputs = load_inputs([SAMPLE])
        clocks = compare(inputs, "tcg-pc")
        ticks = compare_ticks(inputs, "tcg-pc")
        table = clock_table(clocks, inputs, "tcg-pc")
        self.assertIn("max |drift| ppm", table.headings)
        # --wide: every column but those all '-' (the sample has no tsc_rdtscp... none).
        self.assert_round_trip(table.without_empty_columns(keep=4),
                               format_table(clocks, inputs, "tcg-pc", markdown=True,
                                            wide=True))
        narrow = clock_table(clocks, inputs, "tcg-pc", wide=False)
        self.assertNotIn("max |drift| ppm", narrow.headings)
        self.assert_round_trip(narrow.without_empty_columns(keep=4),
                               format_table(clocks, inputs, "tcg-pc", markdown=True))
        self.assert_round_trip(tick_table(ticks, "tcg-pc", wide=True).without_empty_columns(
            keep=5), format_tick_table(ticks, "tcg-pc", markdown=True, wide=True))
        xen = Inputs()
        add_xen_hpet_as_pv_dom0(xen)
        rows = compare_xen(xen)
        self.assert_round_trip(xen_table(rows),
                               format_xen_table(rows, markdown=True))
        with tempfile.TemporaryDirectory() as scratch:
            paths = [os.path.join(scratch, "tcg-pc.json"), os.path.join(scratch, "tcg-pc.os.log")]
            shutil.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"), paths[0])
            shutil.copy(os.path.join(LINUX, "linux-pc.log"), paths[1])
            os_inputs = load_inputs(paths)
        rows = compare_os(os_inputs)
        table = os_table(rows)
        self.assertIn("clock_gettime(CLOCK_MONOTONIC) p50 ns", table.headings)
        self.assert_round_trip(table, format_os_table(rows, os_inputs, markdown=True))

    def test_text_and_csv_of_the_writer(self):
        table = Table("title", [Column("name", True), "value"],
                      [Row(["a", "1"], "g1"), Row(["bb", "22"], "g1"),
                       Row(["c", "x, y"], "g2", lead=1, text="missing: why")])
        self.assertEqual(table.text(), ["title", "name  value", "a         1", "bb       22", "",
                                        "c     missing: why"])
        self.assertEqual(list(csv.reader(table.csv())),
                         [["name", "value"], ["a", "1"], ["bb", "22"], ["c", "x, y"]])
        with self.assertRaises(ValueError):
            Table("", ["one"], [["a", "b"]]).text()


class CollapsedReasons(unittest.TestCase):
    """A reason shared by environments, or by every rate of a tick source, is one line."""

    def setUp(self):
        self.inputs = load_inputs([SAMPLE])

    def test_tick_reasons_once_per_source(self):
        ticks = compare_ticks(self.inputs, "tcg-pc")
        lines = format_tick_table(ticks, "tcg-pc", wide=True)  # a reason a line, unwrapped
        reasons = {}  # (source, reason) -> how many cells had it
        for (source, _), cells in ticks:
            for cell in cells:
                if cell.missing:
                    reasons.setdefault((source, cell.missing_reason), 0)
                    reasons[(source, cell.missing_reason)] += 1
        self.assertTrue(any(count >= 8 for count in reasons.values()), reasons)
        for (source, reason), count in reasons.items():
            with self.subTest(source=source, reason=reason):
                lines_of = [line for line in lines
                            if line.startswith(f"{source} ") and f"missing: {reason}" in line]
                self.assertEqual(len(lines_of), 1, lines_of)
        (line,) = [line for line in lines if line.startswith("tsc_deadline ") and "missing" in line]
        self.assertRegex(line, r"^tsc_deadline +all +tcg-pc, tcg-q35, xen-hpet, xen-tsc "
                               r"\(2 runs each\): missing: absent: not offered")
        # xen_periodic's unreachable rates differ in their reason, so each is its line.
        self.assertEqual(len([line for line in lines if line.startswith("xen_periodic ")
                              and "unreachable" in line]), 2)
        rows = [row for row in tick_table(ticks, "tcg-pc").rows if row.text]
        # One row per source and reason, where there was one per cell.
        self.assertEqual(len(rows), len(reasons))
        self.assertGreater(sum(reasons.values()), 4 * len(rows))

    def test_clock_reasons_once_per_clock(self):
        table = compare(self.inputs, "tcg-pc")
        lines = format_table(table, self.inputs, "tcg-pc")
        for clock_name, cells in table:
            for reason in {cell.missing_reason for cell in cells if cell.missing}:
                with self.subTest(clock=clock_name, reason=reason):
                    self.assertEqual(len([line for line in lines
                                          if line.startswith(f"{clock_name} ")
                                          and f"missing: {reason}" in line]), 1)


class TscColumnAndFlags(unittest.TestCase):
    """`× tsc` is a clock's p50 over the tsc p50 of the same environment; trapped and warps
    are flagged as such."""

    @classmethod
    def setUpClass(cls):
        cls.inputs = load_inputs([SAMPLE])
        cls.table = compare(cls.inputs, "tcg-pc")
        cls.clocks = clock_table(cls.table, cls.inputs, "tcg-pc")

    def row(self, clock_name, env):
        return dict(zip(self.clocks.headings, next(
            row.cells for row in self.clocks.rows if row.cells[:2] == [clock_name, env])))

    @staticmethod
    def median_p50(env, clock_name):
        values = sorted(next(c for c in load(env, n)["clocks"] if c["name"] == clock_name)
                        ["read_ns"]["p50"] for n in (1, 2))
        return sum(values) / 2

    def test_times_tsc(self):
        for env in ("kvm-pc", "tcg-pc"):
            with self.subTest(env=env):
                expected = self.median_p50(env, "hpet") / self.median_p50(env, "tsc")
                self.assertEqual(self.row("hpet", env)["× tsc"], f"{expected:.2f}x")
                self.assertEqual(self.row("tsc", env)["× tsc"], "1.00x")
        # An environment's ratio is against its own tsc, not the baseline's.
        expected = self.median_p50("xen-hpet", "xen_pvclock") / self.median_p50("xen-hpet", "tsc")
        self.assertEqual(self.row("xen_pvclock", "xen-hpet")["× tsc"], f"{expected:.2f}x")
        rows = list(csv.DictReader(format_csv(self.table, "tcg-pc", self.inputs)))
        row = next(r for r in rows if (r["clock"], r["env"]) == ("hpet", "kvm-pc"))
        # CSV at the table's precision: the ratio to two decimals, as the × tsc column.
        self.assertEqual(float(row["p50_over_tsc"]),
                         round(self.median_p50("kvm-pc", "hpet")
                               / self.median_p50("kvm-pc", "tsc"), 2))
        self.assertEqual(row["flags"], "trapped")

    def test_flags(self):
        def trapped(env, clock_name):
            return [next(c for c in load(env, n)["clocks"] if c["name"] == clock_name)["trapped"]
                    for n in (1, 2)]
        self.assertEqual(trapped("kvm-pc", "hpet"), [True, True])
        self.assertEqual(self.row("hpet", "kvm-pc")["flags"], "trapped")
        self.assertEqual(trapped("kvm-pc", "tsc"), [False, False])
        self.assertEqual(self.row("tsc", "kvm-pc")["flags"], "")
        self.assertEqual(trapped("xen-tsc", "tsc_ordered"), [True, False])
        self.assertEqual(self.row("tsc_ordered", "xen-tsc")["flags"], "trapped in 1 of 2")
        worst = max(next(e for e in load("xen-hpet", n)["cross_cpu"]["clocks"]
                         if e["clock"] == "xen_pvclock")["worst_warp_ns"] for n in (1, 2))
        self.assertEqual(self.row("xen_pvclock", "xen-hpet")["flags"],
                         f"trapped, warps (worst {worst} ns)")
        text = "\n".join(format_table(self.table, self.inputs, "tcg-pc"))
        self.assertRegex(text, r"\nxen_pvclock +xen-hpet .*trapped, warps \(worst \d+ ns\)\n")


if __name__ == "__main__":
    unittest.main()
