"""A vertical scroll bar whose rows are drawn straight from Textual's own bar glyphs (ScrollBarRender).

A new item in an answer pane moves its bar's thumb, and Textual draws a bar the way it draws any Rich renderable:
through its generic Visual path, then its per-line styles cache (border, padding, tint: none of which a bar has).
That cost about 3 ms a pane, a tenth of an item's paint at scale. `RowsScrollBar` makes the same strips in one pass
(tests/tui/test_scroll_bar.py compares them with Textual's, state by state), and leaves anything it does not cover
(a horizontal bar, tint, opacity, a border or padding, aligned content) to Textual.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip


class RowsScrollBar(ScrollBar):
    def _plain(self) -> bool:
        """Only what a bar has: nothing Textual's styles cache would add to its rows."""
        styles = self.styles
        return (self.vertical and not styles.gutter and not styles.outline and not styles.tint.a
                and self.opacity == 1.0 and styles.text_opacity == 1.0 and styles.content_align == ("left", "top")
                and self.text_selection is None)

    def render_lines(self, crop: Region) -> list[Strip]:
        width, height = self.size
        if not (width and height and self._plain()):
            return super().render_lines(crop)
        console = self.app.console
        options = self.app.console_options.update(highlight=False, width=width, height=height)
        segments = console.render(self.post_render(self.render(), self.visual_style.rich_style), options)
        _, background = self.background_colors
        filters = self.get_line_filters()
        made: dict[tuple[Segment, ...], Strip] = {}  # a bar's rows are a few kinds (track above, thumb, below)
        strips = []
        for _, segments_of_row in zip(range(crop.bottom), Segment.split_lines(segments)):
            row = tuple(segments_of_row)
            strip = made.get(row)
            if strip is None:
                strip = made[row] = Strip(row, width)  # each row `width` wide (the bar's thickness)
                for line_filter in filters:
                    strip = made[row] = strip.apply_filter(line_filter, background)
            strips.append(strip)
        strips = strips[crop.y:]
        if crop.column_span != (0, width):
            strips = [strip.crop(crop.x, crop.right) for strip in strips]
        return strips
