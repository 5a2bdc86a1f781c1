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
import textwrap
from dataclasses import dataclass

# What text output fits in by default (compare --wide lifts it): a terminal of 160.
TEXT_WIDTH = 160
# A cell that says nothing: a column of only these is left out of text, Markdown and HTML.
EMPTY_CELLS = ("", "-")


def wrap_text(text, width, indent=2):
    """`text` as lines of at most `width` (None: one line), the later ones indented."""
    if not width or len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=" " * indent,
                         break_on_hyphens=False, break_long_words=False)


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

    def without_empty_columns(self, keep=0):
        """This table without the columns (after the first `keep`) that say nothing: every
        cell of theirs in a row of cells is '' or '-' (a row that reads as one sentence
        counts only for its leading cells, and `keep` must hold the cell its sentence is in
        for Markdown).  CSV keeps its columns; this is for readers."""
        def says_something(index):
            return index < keep or any(
                str(self._cells(row)[index]) not in EMPTY_CELLS for row in self.rows
                if row.text is None or index < (row.lead or 0))
        kept = [index for index in range(len(self.columns)) if says_something(index)]
        rows = [Row([self._cells(row)[index] for index in kept], row.group, row.lead,
                    row.text) for row in self.rows]
        return Table(self.title, [self.columns[index] for index in kept], rows)

    def only(self, headings):
        """This table with only the columns of these `headings` (in its own order); a row
        that reads as one sentence keeps its lead, which must be among them."""
        kept = [index for index, column in enumerate(self.columns)
                if column.heading in headings]
        rows = [Row([self._cells(row)[index] for index in kept], row.group, row.lead,
                    row.text) for row in self.rows]
        return Table(self.title, [self.columns[index] for index in kept], rows)

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

    def text(self, width=None):
        """Aligned text lines: the title (when there is one), the headings, the rows; a
        blank line between groups.  With `width`, a title or a row's sentence longer
        than that is wrapped, the sentence under its own start."""
        rows = [(row, self._cells(row)) for row in self.rows]
        widths = [len(heading) for heading in self.headings]
        for row, cells in rows:
            counted = cells if row.text is None else cells[:row.lead]
            for index, cell in enumerate(counted):
                widths[index] = max(widths[index], len(cell))

        def aligned(cells):
            return "  ".join(f"{cell:<{width}}" if column.left else f"{cell:>{width}}"
                             for cell, width, column in zip(cells, widths, self.columns))

        def wrapped(text, indent=0):
            return wrap_text(text, width, indent)

        lines = wrapped(self.title) if self.title else []
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
                lines += wrapped(f"{head}  {row.text}" if head else row.text,
                                 len(head) + 2 if head else 0)
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

    def lines(self, fmt, width=None):
        """The table in `fmt`: "table" (aligned text, wrapped at `width`), "markdown" or
        "csv"."""
        if fmt == "table":
            return self.text(width)
        return {"markdown": self.markdown, "csv": self.csv}[fmt]()
