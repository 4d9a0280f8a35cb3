"""A scrolling column of one Rich Text that draws only the rows in view.

A Static inside a VerticalScroll turns its whole text into strips on every refresh (and again for its height), so a
long column costs its full length each time it changes. Here the text is wrapped once per text and width, and a row
becomes a strip only when it scrolls into view (then it is kept until the text or the width changes).
"""

from __future__ import annotations

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
        self._content = Content("")
        self._rows: list[Content] = []
        self._width = 0  # the width the rows are wrapped at (0: not wrapped yet)
        self._strips: dict[int, Strip] = {}

    @property
    def content(self) -> Text:
        """The whole text, not only the rows in view."""
        return self._text

    def update(self, text: Text) -> None:
        self._text = text
        self._content = Content.from_rich_text(text)
        self._width = 0
        self._wrap()
        self.refresh()

    def _wrap(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        self._rows = self._content.wrap(width)
        self._strips.clear()
        self.virtual_size = Size(width, len(self._rows))

    def on_resize(self, event: Resize) -> None:
        self._wrap()

    def render_line(self, y: int) -> Strip:
        self._wrap()
        row = self.scroll_offset.y + y
        if row not in self._strips:
            self._render_rows(row, max(1, self.size.height - y))
        return self._strips[row]

    def _render_rows(self, first: int, count: int) -> None:
        """Strips for the rows from `first` on, in one go (a row at a time costs far more); blank past the text."""
        rows = self._rows[first:first + count]
        strips = Visual.to_strips(self, Content("\n").join(rows), self._width, len(rows), self.visual_style)
        blank = Strip.blank(self._width, self.visual_style.rich_style)
        for i in range(count):
            self._strips[first + i] = strips[i] if i < len(strips) else blank
