"""A scrolling column of one Rich Text that wraps and draws only the rows in view.

A Static inside a VerticalScroll turns its whole text into strips on every refresh (and again for its height), so a
long column costs its full length each time it changes. Here a new text is only counted into rows (where each line
breaks at the width: the cheap part of wrapping), and only the lines in view are wrapped and styled into strips, in
one pass, when they scroll into view (the strips are kept until the text or the width changes).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from rich._wrap import divide_line
from rich.text import Text
from textual.content import Content
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual


class TextColumn(ScrollView, can_focus=True):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._lines: list[Text] = []
        self._starts: list[int] = []  # the first row of each line at the width
        self._width = 0  # the width the rows are counted at (0: not yet)
        self._strips: dict[int, Strip] = {}

    @property
    def content(self) -> Text:
        """The whole text, not only the rows in view."""
        return self._text

    def update(self, text: Text) -> None:
        self._text = text
        self._lines = list(text.split("\n", allow_blank=True))
        self._width = 0
        self._count_rows()
        self.refresh()

    def _count_rows(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        self._strips.clear()
        starts, row = [], 0
        for line in self._lines:
            starts.append(row)
            if "\t" in line.plain:  # as the strips will wrap it: tabs expanded
                row += len(Content.from_rich_text(line).wrap(width))
            else:  # where the strips will break the line (the same function), without making them
                row += len(divide_line(line.plain, width, fold=True)) + 1
        self._starts = starts
        self.virtual_size = Size(width, row)

    def on_resize(self, event: Resize) -> None:
        self._count_rows()

    def render_line(self, y: int) -> Strip:
        self._count_rows()
        row = self.scroll_offset.y + y
        if row not in self._strips:
            self._render_rows(row, max(1, self.size.height - y))
        return self._strips[row]

    def _render_rows(self, first: int, count: int) -> None:
        """Strips for the rows from `first` on, from the lines they come from wrapped in one go (a line or a row at a
        time costs far more); blank past the text."""
        start, end = max(0, bisect_right(self._starts, first) - 1), bisect_left(self._starts, first + count)
        lines = Content.from_rich_text(Text("\n").join(self._lines[start:end]))
        skip = first - self._starts[start] if self._starts else 0
        strips = Visual.to_strips(self, lines, self._width, None, self.visual_style)[skip:skip + count]
        blank = Strip.blank(self._width, self.visual_style.rich_style)
        for i in range(count):
            self._strips[first + i] = strips[i] if i < len(strips) else blank
