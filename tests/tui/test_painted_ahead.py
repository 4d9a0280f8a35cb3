"""The answer panes' rows painted ahead (tui/widgets/painted.py) are the rows Textual paints: used after j, and left
for Textual's own once what they were painted under has changed (the focus, the scroll)."""

from __future__ import annotations

import pytest

from gradedesk.tui.screens.grading import GradingScreen
from gradedesk.tui.widgets.answer_pane import AnswerPane
from tests.fixtures.desk import keys, running

pytestmark = pytest.mark.anyio


def textual_rows(pane: AnswerPane) -> list:
    """The pane's rows, border and all (as the compositor asks for them), as Textual's styles cache paints them now
    (nothing painted ahead)."""
    painted, pane._shown.painted = pane._shown.painted, None
    pane._styles_cache.clear()
    try:
        return pane.render_lines(pane.outer_size.region)
    finally:
        pane._shown.painted = painted


def painted_ahead_used(pane: AnswerPane) -> bool:
    painted = pane._shown.painted
    return painted is not None and not pane.scroll_offset and painted.signature == pane.paint_signature(
        pane._border_title)


@pytest.mark.parametrize("highlighted", [False, True])
async def test_the_next_item_is_painted_ahead_as_textual_paints_it(fixture_store, monkeypatch, highlighted):
    if not highlighted:  # the neighbour's plain rendering, painted ahead while the item before was shown
        monkeypatch.setattr(GradingScreen, "_highlight", lambda screen, item: None)
    async with running(fixture_store.path) as (app, pilot):
        await keys(pilot, "j")
        for side in ("left", "right"):
            pane = app.screen.query_one(f"#{side}", AnswerPane)
            assert painted_ahead_used(pane), side
            assert pane.render_lines(pane.outer_size.region) == textual_rows(pane), side


async def test_rows_painted_under_another_focus_or_scrolled_are_textuals(fixture_store, monkeypatch):
    monkeypatch.setattr(GradingScreen, "_highlight", lambda screen, item: None)  # the neighbour's rendering stays
    async with running(fixture_store.path) as (app, pilot):
        await keys(pilot, "j", "tab")  # the item shown was painted ahead with the left pane focused
        panes = [app.screen.query_one(f"#{side}", AnswerPane) for side in ("left", "right")]
        assert not any(painted_ahead_used(pane) for pane in panes)
        for pane in panes:
            assert pane.render_lines(pane.outer_size.region) == textual_rows(pane)
        await keys(pilot, "j", "down")  # an item painted ahead, scrolled down a line
        pane = app.screen.query_one(f"#{app.screen.side}", AnswerPane)
        assert pane.scroll_offset.y > 0 and pane._shown.painted is not None  # painted ahead, at the top
        assert pane.render_lines(pane.outer_size.region) == textual_rows(pane)
