"""A scrolling column of one Rich Text that wraps and draws only the rows in view, and on a new text only what changed.

A Static inside a VerticalScroll turns its whole text into strips on every refresh (and again for its height), so a
long column costs its full length each time it changes. Here a new text is only counted into rows (where each line
breaks at the width: the cheap part of wrapping), and only the lines in view are wrapped and styled into strips, in
one pass, when they scroll into view.

Lines are kept by what they hold (text and styles), not by where they are: a new text that shares lines with the one
before (the explore screen's raw hits after a budget step, differing only in where each hit went) reuses their row
counts and strips, and only the rows in view whose line changed are repainted. Setting the rows' count is not a layout
(a layout pass repaints the whole screen) unless the scrollbar comes or goes with it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable

from rich._wrap import divide_line
from rich.text import Text
from textual.content import Content
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual


def line_key(line: Text) -> Hashable:
    """What a line draws as: its text and styles (two lines with the same key wrap into the same strips)."""
    return line.plain, line.style, tuple(line.spans)


class TextColumn(ScrollView, can_focus=True):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._lines: list[Text] = []
        self._keys: list[Hashable] = []
        self._starts: list[int] = []  # the first row of each line at the width
        self._width = 0  # the width the rows are counted at (0: not yet)
        self._rows: dict[Hashable, int] = {}  # rows a line takes at the width, by line key
        self._made: dict[Hashable, list[Strip]] = {}  # a line's strips at the width, by line key
        self._style: VisualStyle | None = None  # the style the strips were made in

    @property
    def content(self) -> Text:
        """The whole text, not only the rows in view."""
        return self._text

    def update(self, text: Text) -> None:
        before = self._sources()
        self._text = text
        self._lines = list(text.split("\n", allow_blank=True))
        self._keys = [line_key(line) for line in self._lines]
        if not self._width:  # not laid out yet: counted on the first render
            self.refresh()
            return
        kept = set(self._keys)  # what no line of this text holds goes (the text before is not coming back as it was)
        self._rows = {k: n for k, n in self._rows.items() if k in kept}
        self._made = {k: s for k, s in self._made.items() if k in kept}
        if self._set_rows():
            self.refresh()  # the scrollbar came or went: every row moved
            return
        after = self._sources()
        top = self.scroll_offset.y
        changed = [y for y, (old, new) in enumerate(zip(before, after)) if old != new]
        for start, count in _runs(changed):
            self.refresh_lines(top + start, count)

    def _sources(self) -> list[tuple[Hashable, int] | None]:
        """What each row in view shows: (line key, row within the line), or None past the text."""
        top, out = self.scroll_offset.y, []
        for row in range(top, top + self.size.height):
            i = bisect_right(self._starts, row) - 1
            out.append((self._keys[i], row - self._starts[i]) if 0 <= i < len(self._keys) and
                       row - self._starts[i] < self._rows.get(self._keys[i], 0) else None)
        return out

    def _count(self, line: Text) -> int:
        if "\t" in line.plain:  # as the strips will wrap it: tabs expanded
            return len(Content.from_rich_text(line).wrap(self._width))
        # where the strips will break the line (the same function), without making them
        return len(divide_line(line.plain, self._width, fold=True)) + 1

    def _set_rows(self) -> bool:
        """Count the rows at the width (a line already counted is not counted again) and set the virtual size; True
        when the scrollbar came or went (then a layout follows)."""
        starts, row = [], 0
        for line, key in zip(self._lines, self._keys):
            starts.append(row)
            if key not in self._rows:
                self._rows[key] = self._count(line)
            row += self._rows[key]
        self._starts = starts
        size = Size(self._width, row)
        if size == self.virtual_size:
            return False
        shown = self.show_vertical_scrollbar
        # the reactive would lay out the screen, which repaints all of it; the column's height does not depend on its
        # rows, so set the size quietly and update the scrollbar alone (Textual's own update of it, a private method)
        self.set_reactive(ScrollView.virtual_size, size)
        self._scroll_update(size)
        if self.show_vertical_scrollbar != shown:
            self.refresh(layout=True)
            return True
        return False

    def _count_rows(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        self._rows.clear()
        self._made.clear()
        self._set_rows()

    def on_resize(self, event: Resize) -> None:
        self._count_rows()

    def render_line(self, y: int) -> Strip:
        self._count_rows()
        if self.visual_style is not self._style:  # focus or theme changed the column's style: strips made again
            self._style = self.visual_style
            self._made.clear()
        return self._strip(self.scroll_offset.y + y, max(1, self.size.height - y))

    def _strip(self, row: int, ahead: int) -> Strip:
        """The strip of a row of the text (blank past it); wanting it makes those of the `ahead` rows from it on."""
        i = bisect_right(self._starts, row) - 1
        if i < 0 or row - self._starts[i] >= self._rows.get(self._keys[i], 0):
            return Strip.blank(self._width, self.visual_style.rich_style)
        if self._keys[i] not in self._made:
            self._make(row, ahead)
        return self._made[self._keys[i]][row - self._starts[i]]

    def _make(self, first: int, count: int) -> None:
        """Strips for the lines of the rows from `first` on that have none, wrapped in one go (a line or a row at a
        time costs far more)."""
        start = max(0, bisect_right(self._starts, first) - 1)
        end = bisect_right(self._starts, first + count - 1)
        todo: dict[Hashable, int] = {}
        for i in range(start, end):
            if self._keys[i] not in self._made:
                todo.setdefault(self._keys[i], i)
        lines = Content.from_rich_text(Text("\n").join(self._lines[i] for i in todo.values()))
        strips = Visual.to_strips(self, lines, self._width, None, self.visual_style)
        at = 0
        for key in todo:
            n = self._rows[key]
            self._made[key] = strips[at:at + n]
            at += n


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Consecutive rows as (first, count) runs."""
    out: list[tuple[int, int]] = []
    for y in rows:
        if out and out[-1][0] + out[-1][1] == y:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((y, 1))
    return out
