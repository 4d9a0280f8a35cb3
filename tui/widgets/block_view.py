"""A scrollable list of Rich renderables that renders only what the screen needs, when it needs it (toolong-style).

A Static lays out its whole content twice per change (once to measure its height, once to draw), so a long answer with
many evidence snippets cost ~170 ms per item. Here each block is rendered to lines once, in order, only as far as the
visible region needs; the rest is rendered right after the first paint. Resizing re-renders at the new width.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class BlockView(ScrollView, can_focus=True):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._blocks: list[RenderableType] = []
        self._lines: list[Strip] = []
        self._starts: list[int] = []  # the first line of each block rendered so far
        self._next_block = 0
        self._width = 0
        self._style = Style()
        self._paint_width = 0

    def set_blocks(self, blocks: list[RenderableType], *, keep_scroll: bool = False) -> None:
        self._blocks = list(blocks)
        self._reset()
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False)

    def _reset(self) -> None:
        self._lines = []
        self._starts = []
        self._next_block = 0
        self._width = self.scrollable_content_region.width
        self._render_until(self.scroll_offset.y + self.size.height)
        self.call_after_refresh(self._render_rest)
        self.refresh()

    def _render_until(self, needed: int) -> None:
        width = self._width
        if width <= 0:
            return
        console = self.app.console
        options = console.options.update(width=width, height=None, highlight=False, markup=False)
        grew = False
        while len(self._lines) < needed and self._next_block < len(self._blocks):
            block = self._blocks[self._next_block]
            self._next_block += 1
            self._starts.append(len(self._lines))
            for line in console.render_lines(block, options, pad=False, new_lines=False):
                self._lines.append(Strip(line, Segment.get_line_length(line)))
            grew = True
        if grew:
            self.virtual_size = Size(width, len(self._lines))

    def block_line(self, index: int) -> int | None:
        """The first line of block `index` (the blocks before it are rendered if they were not yet)."""
        while len(self._starts) <= index and self._next_block < len(self._blocks) and self._width > 0:
            self._render_until(len(self._lines) + 1)
        return self._starts[index] if index < len(self._starts) else None

    def _render_rest(self) -> None:
        if self._next_block < len(self._blocks):
            self._render_until(10**9)

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._reset()

    def render_lines(self, crop: Region) -> list[Strip]:
        # once per paint, not per line: the style is computed from the CSS each time, the width from the geometry
        self._style = self.rich_style
        self._paint_width = self.scrollable_content_region.width
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if index >= len(self._lines):
            self._render_until(index + self.size.height)
        style = self._style
        width = self._paint_width
        if index >= len(self._lines):
            return Strip.blank(width, style)
        return self._lines[index].apply_style(style).crop_extend(scroll_x, scroll_x + width, style)
