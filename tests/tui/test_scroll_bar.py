"""The answer panes' scroll bar draws exactly the strips Textual's own ScrollBar draws, in every state it has."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar

from gradedesk.tui.widgets.block_view import BlockView
from gradedesk.tui.widgets.scroll_bar import RowsScrollBar

pytestmark = pytest.mark.anyio


class BarApp(App):
    CSS = """BlockView { height: 20; border: round red; padding: 0 1; scrollbar-size-vertical: 1; overflow-x: hidden;
    scrollbar-gutter: stable; }"""

    def compose(self) -> ComposeResult:
        yield BlockView()


def textual_strips(bar: ScrollBar, crop: Region) -> list:
    return ScrollBar.render_lines(bar, crop)


async def long_view(app: BarApp, pilot) -> tuple[BlockView, ScrollBar]:
    """The view showing 100 lines, and its bar."""
    view = app.query_one(BlockView)
    view.set_blocks([Text("\n".join(f"line {i}" for i in range(100)))])
    await pilot.pause()
    return view, view.vertical_scrollbar


async def test_the_rows_drawn_are_textuals_at_every_position_hover_grab_and_crop():
    app = BarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view, bar = await long_view(app, pilot)
        assert isinstance(bar, RowsScrollBar) and bar.display
        whole = bar.size.region
        for y in (0, 7, 50, 82):  # the top, a thumb between glyph steps, the middle, the bottom
            view.scroll_to(0, y, animate=False)
            await pilot.pause()
            for crop in (whole, Region(0, 3, 1, 5)):
                assert bar.render_lines(crop) == textual_strips(bar, crop), (y, crop)
        bar.mouse_over = True
        assert bar.render_lines(whole) == textual_strips(bar, whole)
        bar.grabbed = Offset(0, 0)
        assert bar.render_lines(whole) == textual_strips(bar, whole)
        view.set_blocks([Text("short")])  # no bar to draw
        await pilot.pause()
        assert bar.render_lines(whole) == textual_strips(bar, whole)


async def test_a_bar_with_a_tint_is_left_to_textual():
    app = BarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        _, bar = await long_view(app, pilot)
        bar.styles.tint = "red 40%"
        assert not bar._plain()
        assert bar.render_lines(bar.size.region) == textual_strips(bar, bar.size.region)
