# SPDX-License-Identifier: MIT
"""One table writer for `clockbench compare`: aligned text, Markdown and CSV from the same
headings and rows, so that alignment and escaping are done once.

A Table has a title, its columns (a heading and whether the text is aligned left) and
rows.  A row is its cells, one per column or fewer (the rest are empty), a group (text
output puts a blank line between groups) and, for a row whose cells after the first few
say one thing (a clock missing in an environment, and why), `lead` and `text`: aligned text
output then shows the first `lead` cells in their columns and `text` after them, while
Markdown and CSV keep the cells, so that every Markdown row has the table's columns.
"""

import csv
import io
from dataclasses import dataclass


@dataclass
class Column:
    """A column: its heading and whether aligned text output aligns it left."""

    heading: str
    left: bool = False


@dataclass
class Row:
    """One row: `cells` (strings, or raw values for CSV), `group` (rows of different groups
    are set apart in text output), and for a row that reads as one sentence after its first
    `lead` cells, that sentence as `text`."""

    cells: list
    group: object = None
    lead: int = None
    text: str = None


def _markdown_cell(value):
    """A cell's text for a Markdown table: one line, backslashes and pipes escaped so that
    neither ends the cell nor vanishes (GFM reads `\\|` as a pipe, `\\\\` as a backslash)."""
    text = " ".join(str(value).split())
    return text.replace("\\", "\\\\").replace("|", "\\|") or " "


class Table:
    """Headings and rows, written as aligned text, a Markdown table or CSV."""

    def __init__(self, title, columns, rows=()):
        self.title = title
        self.columns = [column if isinstance(column, Column) else Column(column)
                        for column in columns]
        self.rows = [row if isinstance(row, Row) else Row(list(row)) for row in rows]

    @property
    def headings(self):
        return [column.heading for column in self.columns]

    def _cells(self, row):
        """The row's cells as strings, padded to the table's columns."""
        cells = ["" if value is None else str(value) for value in row.cells]
        if len(cells) > len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells in a table of "
                             f"{len(self.columns)} columns ({self.title!r})")
        return cells + [""] * (len(self.columns) - len(cells))

    def text(self):
        """Aligned text lines: the title (when there is one), the headings, the rows; a
        blank line between groups."""
        rows = [(row, self._cells(row)) for row in self.rows]
        widths = [len(heading) for heading in self.headings]
        for row, cells in rows:
            counted = cells if row.text is None else cells[:row.lead]
            for index, cell in enumerate(counted):
                widths[index] = max(widths[index], len(cell))

        def aligned(cells):
            return "  ".join(f"{cell:<{width}}" if column.left else f"{cell:>{width}}"
                             for cell, width, column in zip(cells, widths, self.columns))

        lines = [self.title] if self.title else []
        lines.append(aligned(self.headings).rstrip())
        previous = None
        for number, (row, cells) in enumerate(rows):
            if number and row.group != previous:
                lines.append("")
            previous = row.group
            if row.text is None:
                lines.append(aligned(cells).rstrip())
            else:
                head = aligned(cells[:row.lead]) if row.lead else ""
                lines.append(f"{head}  {row.text}" if head else row.text)
        return lines

    def markdown(self):
        """A GitHub-flavoured Markdown table (the title, a blank line, then the table):
        every row has the table's columns, pipes in headings and cells escaped."""
        def line(cells):
            return "| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |"

        lines = [self.title, ""] if self.title else []
        lines.append(line(self.headings))
        lines.append("|" + "|".join(" :--- " if column.left else " ---: "
                                    for column in self.columns) + "|")
        lines += [line(self._cells(row)) for row in self.rows]
        return lines

    def csv(self):
        """CSV lines: the headings, then every row's cells as given (numbers unformatted),
        quoted by the csv module where needed."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.headings)
        for row in self.rows:
            cells = ["" if value is None else value for value in row.cells]
            writer.writerow(cells + [""] * (len(self.columns) - len(cells)))
        return out.getvalue().splitlines()

    def lines(self, fmt):
        """The table in `fmt`: "table" (aligned text), "markdown" or "csv"."""
        return {"table": self.text, "markdown": self.markdown, "csv": self.csv}[fmt]()
