"""A table of figures that fits the width it is drawn at without breaking a figure's interval over two lines.

A cell such as `0.712 [0.601, 0.805]` reads only on one line. Rich's own table shrinks wide columns until their words
wrap, so at 80 columns every interval broke after its comma. Here the column widths are chosen before Rich sees them,
trying in turn, until the table fits:
  1. each figure with its interval on one line, one table;
  2. the interval on a line under its value (a column as wide as the interval), one table;
  3. as 2, the columns after the first shared out between two tables or more, each repeating the first column (the
     row names), as posting and harlequin drop columns rather than squeeze them.
Text cells (labels, "not defined: <reason>") wrap inside the width their column's figures and longest word give it.
Every cell is literal text, never markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table as RichTable
from rich.text import Text

from gradedesk.tui.widgets.literal import clean, literal

FIGURE = re.compile(r"(\S+) (\[[^\]\s]*,? [^\]\s]*\])")  # a value and its interval: `0.712 [0.601, 0.805]`
GAP = 2  # cells between two columns (a padding of 1 either side, none at the table's edges)
TEXT_WIDTH = 30  # a column of text alone (no figure) wraps at this width


def cell_text(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


class FigureTable:
    """`title` over a table of `headers` and `rows` (plain values), fitted to the width at render time."""

    def __init__(self, title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.title = title
        # measured as drawn: controls in outside text (names, categories) are shown as visible escapes
        self.headers = [clean(h) for h in headers]
        self.rows = [[clean(cell_text(row[j])) if j < len(row) else "" for j in range(len(self.headers))]
                     for row in rows]

    def _cells(self, stacked: bool) -> list[list[str]]:
        """The rows' cells, a figure's interval under its value when `stacked`."""
        if not stacked:
            return self.rows
        return [[FIGURE.sub(r"\1\n\2", c) if FIGURE.fullmatch(c) else c for c in row] for row in self.rows]

    def _widths(self, stacked: bool) -> tuple[list[int], list[int]]:
        """Each column's least width (its widest figure line, its longest word up to TEXT_WIDTH) and the width its
        text and header would take on one line."""
        least, natural = [], []
        for j, header in enumerate(self.headers):
            figures = words = text = 0
            for plain, cell in zip(self.rows, self._cells(stacked)):
                lines = max(cell_len(line) for line in cell[j].split("\n"))
                if FIGURE.fullmatch(plain[j]):
                    figures = max(figures, lines)
                else:
                    text = max(text, lines)
                words = max(words, min(_longest_word(cell[j]), TEXT_WIDTH))
            words = max(words, min(_longest_word(header), TEXT_WIDTH))
            least.append(max(figures, words))
            natural.append(max(least[-1], text, cell_len(header)))
        return least, natural

    def _layout(self, width: int) -> tuple[bool, list[list[int]], list[int]]:
        """Whether figures are stacked, the columns of each table (the first column in every one) and the widths:
        the fewest tables that fit, figures on one line rather than stacked when as few tables fit either way."""
        rest = list(range(1, len(self.headers)))
        for count in range(1, max(1, len(rest)) + 1):
            size = -(-len(rest) // count) or 1  # groups as even as contiguous ones go
            groups = [[0, *rest[i:i + size]] for i in range(0, len(rest), size)] or [[0]]
            for stacked in (False, True):
                least, natural = self._widths(stacked)
                used = max(sum(least[j] for j in g) + GAP * (len(g) - 1) for g in groups)
                if used <= width or count == len(rest) and stacked:  # else the narrowest it goes, wrapped by Rich
                    return stacked, groups, _widen(groups, least, natural, width)
        raise AssertionError("unreachable: the last layout is always taken")

    def _table(self, columns: list[int], cells: list[list[str]], widths: list[int]) -> RichTable:
        out = RichTable(box=None, pad_edge=False, show_edge=False, header_style="bold")
        for j in columns:
            out.add_column(literal(self.headers[j]), width=widths[j], overflow="fold")
        for row in cells:
            out.add_row(*(literal(row[j]) for j in columns))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        stacked, groups, widths = self._layout(options.max_width)
        cells = self._cells(stacked)
        yield literal(self.title, "bold")
        for i, columns in enumerate(groups):
            if i:
                yield Text("")
            yield self._table(columns, cells, widths)


def _widen(groups: list[list[int]], least: list[int], natural: list[int], width: int) -> list[int]:
    """Widths from the least toward the natural ones: the widest table's columns into the room it leaves, then each
    other table's columns but the first (as wide in every table, so they line up) into the room its own row leaves."""
    def used(widths: list[int], group: list[int]) -> int:
        return sum(widths[j] for j in group) + GAP * (len(group) - 1)
    widths = list(least)
    widest = max(groups, key=lambda g: used(least, g))
    for g in (widest, *(g for g in groups if g is not widest)):
        columns = g if g is widest else g[1:]
        more = _spread([widths[j] for j in columns], [natural[j] for j in columns], width - used(widths, g))
        for j, w in zip(columns, more):
            widths[j] = w
    return widths


def _spread(least: list[int], natural: list[int], room: int) -> list[int]:
    """`least` widened toward `natural` by up to `room` cells in all, a share at a time to each column that wants it."""
    widths = list(least)
    wanting = [j for j in range(len(widths)) if natural[j] > widths[j]]
    while room > 0 and wanting:
        share = max(1, room // len(wanting))
        for j in list(wanting):
            add = min(share, natural[j] - widths[j], room)
            widths[j] += add
            room -= add
            if widths[j] >= natural[j]:
                wanting.remove(j)
            if not room:
                break
    return widths
