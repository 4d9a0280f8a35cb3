"""A scrollable list of Rich renderables that renders only what the screen needs, when it needs it (toolong-style).

A Static lays out its whole content twice per change (once to measure its height, once to draw), so a long answer with
many evidence snippets cost ~170 ms per item. Here each block is rendered to lines once, in order, only as far as the
visible region needs; the rest is rendered right after the first paint. Resizing re-renders at the new width.

A rendering given a key (the answer pane's PaneView) is kept, per width, among the last few: showing an item again
(k after j) takes its lines as they were, and `prerender` renders an item's first screenful before it is shown (the
grading screen does so for the neighbours the desk session prepared), so the key that shows it only paints.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.content import Content
from textual.geometry import Offset, Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from gradedesk.tui.idle_work import IdleWork, Step
from gradedesk.tui.widgets.painted import Painted, content_key, title_content
from gradedesk.tui.widgets.scroll_bar import RowsScrollBar


CACHED = 12  # renderings kept per view: the item shown (plain and highlighted), its prepared neighbours (AHEAD of j and
# of n: core/review/session/state.py), the last few shown
PAINT_ROWS = 12  # rows of a view painted ahead a step (about 2 ms)
REST_AFTER = 0.25  # seconds an item stays shown before the lines past its view are rendered (keys typed in a run
# pass items by in 50 ms: their rest, tens of milliseconds of rendering, would compete with the next key for nothing;
# a scroll renders what it shows meanwhile)


class Rendering:
    """Blocks rendered to lines at one width, as far as has been needed so far."""

    def __init__(self, key: object, blocks: list[RenderableType], width: int) -> None:
        self.key = key
        self.blocks = blocks
        self.width = width
        self.lines: list[Strip] = []
        self.starts: list[int] = []  # the first line of each block rendered so far
        self.next_block = 0
        self.painted: Painted | None = None  # the view's rows at its top, painted ahead (painted.py)

    def render_next_block(self, console: Console) -> bool:
        """Render one more block; True if blocks remain after it."""
        self.render_until(len(self.lines) + 1, console)
        return not self.done

    def render_until(self, needed: int, console: Console) -> bool:
        """Render blocks until there are `needed` lines or no more blocks; True if lines were added."""
        if self.width <= 0:
            return False
        options = console.options.update(width=self.width, height=None, highlight=False, markup=False)
        grew = False
        while len(self.lines) < needed and self.next_block < len(self.blocks):
            block = self.blocks[self.next_block]
            self.next_block += 1
            self.starts.append(len(self.lines))
            for line in console.render_lines(block, options, pad=False, new_lines=False):
                self.lines.append(Strip(line, Segment.get_line_length(line)))
            grew = True
        return grew

    @property
    def done(self) -> bool:
        return self.next_block >= len(self.blocks)


class BlockView(ScrollView, can_focus=True):
    """A view whose CSS keeps the scrollbar's gutter and hides the horizontal bar (desk.tcss: the answer panes, the
    claims screen's evidence), so its own size never changes with its content: its scrollable size is set without a
    layout of the screen (a layout per key otherwise), and it renders a line past the view, so whether its scrollbar
    shows is decided at once, not when the rest comes."""

    def __init__(self, *, keys_busy: Callable[[], bool] = lambda: False, **kwargs) -> None:
        """`keys_busy`: a key is on its way (the lines past the view wait for it: tui/idle_work.py)."""
        super().__init__(**kwargs)
        self._rest = IdleWork(self, keys_busy)
        self._shown = Rendering(None, [], 0)
        self._kept: deque[Rendering] = deque(maxlen=CACHED)  # renderings with a key, newest last
        self._style = Style()
        self._paint_width = 0
        self._source = self._shown  # the rendering render_line draws (the one shown, or one painted ahead)
        self._offset = Offset()  # ...from this line and column (the scroll offset, or the top)
        # one styles cache for painting ahead, the view's own second one: Textual keeps each StylesCache ever used, with
        # its rows, in an lru_cache of up to 1,024 (StylesCache.get_inner_outer), so one a painting took 270 MB at scale
        self._ahead_cache = StylesCache()
        self._painting: Rendering | None = None  # the rendering whose rows the cache holds, while it is painted

    def set_blocks(self, blocks: list[RenderableType], *, keep_scroll: bool = False) -> None:
        self.show_keyed(None, lambda: blocks, keep_scroll=keep_scroll)

    def show_keyed(self, key: object, blocks: Callable[[], list[RenderableType]], *, keep_scroll: bool = False) -> None:
        """Show the blocks `blocks()` makes; with a key, the rendering kept under an equal key at this width instead
        (the blocks are then not made at all)."""
        width = self.scrollable_content_region.width
        kept = self._find(key, width)
        self._shown = kept if kept is not None else self._keep(Rendering(key, list(blocks()), width))
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False)
        # a line past the view: whether the scrollbar shows is decided now, not when the rest comes (a second layout)
        self._shown.render_until(self.scroll_offset.y + self.size.height + 1, self.app.console)
        self._set_virtual_size()
        if not self._shown.done:
            shown = self._shown
            self._rest.clear()  # the rest of a rendering no longer shown is rendered if it is shown again
            self.call_after_refresh(lambda: self._rest.add(lambda: self._render_rest(shown), after=REST_AFTER))
        self.refresh()

    def prerender(self, key: object, blocks: Callable[[], list[RenderableType]], title: Text | None = None) -> Step:
        """A step (tui/idle_work.py) that renders the first screenful of the blocks `blocks()` makes under `key`, a
        block a call, for a later `show_keyed` (which renders whatever it still lacks), then paints the view's rows
        with it at the top and `title` as its border title (None: the one it has), PAINT_ROWS a call (painted.py).
        True while work remains."""
        rendering: Rendering | None = None
        painting: tuple[tuple, list[Strip]] | None = None  # (the signature, the rows painted so far)
        content = title_content(title) if title is not None else None

        def step() -> bool:
            nonlocal rendering, painting
            width = self.scrollable_content_region.width
            if rendering is None:
                if key is None or width <= 0:
                    return False
                rendering = self._find(key, width) or self._keep(Rendering(key, list(blocks()), width))
            if rendering.width != width or rendering is self._shown or rendering.painted is not None:
                return False
            screenful = self.size.height + 1
            if not rendering.done and len(rendering.lines) < screenful:
                rendering.render_next_block(self.app.console)
                return True
            title = content if content is not None else self._border_title
            signature = self.paint_signature(title)
            if painting is None or painting[0] != signature or self._painting is not rendering:
                # begun, or begun again: after a focus moved or a resize, or another painting used the styles cache
                self._painting = rendering
                self._ahead_cache.clear()
                painting = (signature, [])
            _, rows = painting
            width, height = self.outer_size  # the view with its border and padding, as the compositor asks for it
            rows += self._paint_ahead(rendering, title, Region(0, len(rows), width,
                                                               min(PAINT_ROWS, height - len(rows))))
            if len(rows) < height:
                return True
            rendering.painted = Painted(signature, rows)
            self._painting = None
            self._ahead_cache.clear()  # its rows are the painted ones, before the app's filters
            return False
        return step

    def _paint_ahead(self, rendering: Rendering, title: Content | None, crop: Region) -> list[Strip]:
        """The rows in `crop` of this view showing `rendering` at its top under `title`, as Textual's styles cache
        paints them (render_line draws from `rendering` meanwhile)."""
        shown = self._source, self._offset, self._border_title
        self._source, self._offset, self._border_title = rendering, Offset(), title
        self._style, self._paint_width = self.rich_style, self.scrollable_content_region.width
        try:
            return self._ahead_cache.render_widget(self, crop)
        finally:
            self._source, self._offset, self._border_title = shown

    def paint_signature(self, title: Content | None) -> tuple:
        """Everything Textual's styles cache paints this view's rows from but its lines (textual/_styles_cache.py,
        render_widget), with `title` as its border title: rows painted under an equal signature are the rows Textual
        would paint now."""
        styles = self.styles
        base_background, background = self.background_colors
        app = self.app
        return (self.region.size, self.content_region.size, self.scrollable_content_region.width, styles.padding,
                styles.border, styles.outline, styles.hatch if styles.has_rule("hatch") else None, styles.tint,
                styles.text_opacity, self.opacity, styles.border_title_align, styles.border_subtitle_align,
                base_background, background, self._get_title_style_information(base_background),
                self._get_subtitle_style_information(base_background), content_key(title),
                content_key(self._border_subtitle), tuple(self.get_line_filters()), app.ansi_theme,
                app.native_ansi_color, self.rich_style, bool(self.auto_links and self.hover_style.link_id))

    def kept(self, key: object) -> bool:
        """A rendering under `key` is kept at the width shown now."""
        return self._find(key, self.scrollable_content_region.width) is not None

    def _find(self, key: object, width: int) -> Rendering | None:
        if key is None:
            return None
        return next((r for r in reversed(self._kept) if r.width == width and r.key == key), None)

    def _keep(self, rendering: Rendering) -> Rendering:
        if rendering.key is not None:
            self._kept.append(rendering)
        return rendering

    def _render_until(self, needed: int) -> None:
        if self._shown.render_until(needed, self.app.console):
            self._set_virtual_size()

    def _set_virtual_size(self) -> None:
        """The scrollable size of the lines rendered so far, set without a layout of the screen (only a scrollbar shown
        or hidden lays out: Textual's show_vertical_scrollbar does so) and without a repaint of the view: lines added
        past it change only the scrollbar, which repaints itself (a repaint of the whole pane cost as much as half
        an item's paint, once per item)."""
        size = Size(self._shown.width, len(self._shown.lines))
        if size == self.virtual_size:
            return
        self.set_reactive(ScrollView.virtual_size, size)
        self._scroll_update(size)

    def block_line(self, index: int) -> int | None:
        """The first line of block `index` (the blocks before it are rendered if they were not yet)."""
        shown = self._shown
        while len(shown.starts) <= index and not shown.done and shown.width > 0:
            self._render_until(len(shown.lines) + 1)
        return shown.starts[index] if index < len(shown.starts) else None

    def _render_rest(self, shown: Rendering) -> bool:
        """A block more of `shown` past the view, while it is shown; its scrollable size once all are rendered (a set
        repaints the view: once, not per block). True while blocks remain."""
        if shown is not self._shown or shown.done or shown.width <= 0:  # no width yet: a resize shows it again
            return False
        if shown.render_next_block(self.app.console):
            return True
        self._set_virtual_size()
        return False

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._shown.width:
            shown = self._shown
            self.show_keyed(shown.key, lambda: shown.blocks, keep_scroll=True)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's own property, making a RowsScrollBar (a new item moves the thumb: drawn in one pass)."""
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = RowsScrollBar(vertical=True, name="vertical",
                                                     thickness=self.scrollbar_size_vertical)
            self._vertical_scrollbar.display = False
            self.app._start_widget(self, self._vertical_scrollbar)  # noqa: SLF001  as Textual's property starts it
        return self._vertical_scrollbar

    def render_lines(self, crop: Region) -> list[Strip]:
        painted = self._shown.painted
        if painted is not None and not self.scroll_offset and painted.signature == self.paint_signature(
                self._border_title):
            return painted.rows(crop, self.outer_size.width)  # painted ahead, as Textual would paint it now
        # once per paint, not per line: the style is computed from the CSS each time, the width from the geometry
        self._style = self.rich_style
        self._paint_width = self.scrollable_content_region.width
        self._source, self._offset = self._shown, self.scroll_offset
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        source = self._source
        scroll_x, scroll_y = self._offset
        index = scroll_y + y
        lines = source.lines
        if index >= len(lines):
            if source is self._shown:
                self._render_until(index + self.size.height)
            else:  # painted ahead: not shown, so no scrollable size to set
                source.render_until(index + self.size.height, self.app.console)
        style = self._style
        width = self._paint_width
        if index >= len(lines):
            return Strip.blank(width, style)
        return lines[index].apply_style(style).crop_extend(scroll_x, scroll_x + width, style)
