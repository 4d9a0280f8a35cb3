"""Messages that do not outlive their moment: each key replaces the last message; n and d say when they wrap round
from the last item to the first; filters that match nothing say so and leave no item on screen as if it matched (an
empty cell of the agreement matrix says so and stays)."""

from __future__ import annotations

import pytest

from gradedesk.core.review.queue import Filters
from gradedesk.tui.screens.agreement import AgreementScreen
from gradedesk.tui.screens.grading import GradingScreen
from gradedesk.core.store.connection import open_store
from gradedesk.tui.screens.grading import view
from tests.fixtures.desk import keys, running, screen_text
from tests.fixtures.desk import session_pane_text as pane
from tests.fixtures.session import act, opened

pytestmark = pytest.mark.anyio


def status(app) -> str:
    return app.screen.query_one("#progress").render().plain


async def jump(pilot, question_id: str) -> None:
    await keys(pilot, "g", *question_id, "enter")


async def test_the_message_is_on_screen_at_80_columns_however_long_the_progress(fixture_store):
    """The message answers the key just pressed: it comes first, so a long progress line cannot push it off screen."""
    async with running(fixture_store.path, size=(80, 24)) as (app, pilot):
        await keys(pilot, "3", "right_square_bracket")
        message, figures = (line.strip() for line in screen_text(app).splitlines()[-3:-1])
        # no room for both on one line: the figures take a second line of their own, every figure there
        assert message.startswith("preference saved: Answer B")
        assert figures == "alice, raw + bundle @ 2,000: graded 1 of 12 · agreement with judge 0/1 (0%)"


def test_filters_that_match_nothing_leave_no_item_on_screen(fixture_store):
    """Through the desk session, and the question block the screen draws of it (view.question_text): no Pilot."""
    with open_store(fixture_store.path) as store:
        session = opened(store, fixture_store)
        landed = act(store, session, session.apply_filters(Filters(grade="wrong", judge_grade="fully_correct")))
    assert session.item is None and landed.show and "no item matches filters" in landed.message
    shown = view.question_text(session.item, True, None).plain + pane(session, "left") + pane(session, "right")
    assert "No item matches" in shown and "q-store-open" not in shown


async def test_each_key_replaces_the_last_message_on_one_desk(fixture_store):
    """At 100x30, one desk: a key that leaves the status line as it was does not draw it again (its repaint alone,
    landing just before the new item's panes were ready, put their paint off to the next frame:
    benchmarks/desk_scale.py); a message goes with the next key; u's message stays beside the figures it changed; Enter
    on an empty cell of the agreement matrix says so and stays."""
    async with running(fixture_store.path, size=(100, 30)) as (app, pilot):
        line = app.screen.query_one("#progress")
        render = line.render
        before = render().plain
        drawn = []

        def counted():  # what Textual calls to draw the line again
            drawn.append(1)
            return render()

        line.render = counted
        await keys(pilot, "j")
        assert app.screen.session.item.question_pk == fixture_store.question_pks[1]
        assert render().plain == before and not drawn
        await jump(pilot, "zz99")  # a message is drawn, and the next key clears it
        assert "no question 'zz99'" in render().plain and drawn
        await keys(pilot, "j")
        assert render().plain == before
        line.render = render

        await jump(pilot, "zz99")  # a message goes with the next key, a jump or a move
        assert "no question 'zz99'" in status(app)
        await jump(pilot, "q-tokens")
        assert app.screen.session.item.question_id == "q-tokens" and "zz99" not in status(app)
        await jump(pilot, "zz99")
        await keys(pilot, "j")
        assert app.screen.session.item.question_id == "q-validate" and "zz99" not in status(app)

        await keys(pilot, "3")  # u takes a grade back and the figures are counted again: its message stays beside them
        assert "graded 1 of" in status(app)
        await keys(pilot, "u")
        line_now = status(app)
        assert line_now.startswith("undone: unsupported") and "graded 0 of" in line_now
        await keys(pilot, "j")
        assert not status(app).startswith("undone")  # the next key takes it away

        shown = app.screen.session.item.question_id
        await keys(pilot, "a")
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        for _ in range(200):  # the report is computed in a worker of its own
            if screen.report is not None:
                break
            await pilot.pause(0.02)
        await keys(pilot, "enter")  # nothing graded (the one grade was taken back): every cell is empty
        assert app.screen is screen and "No graded pair in this cell" in " ".join(screen_text(app).split())
        await keys(pilot, "escape")
        assert isinstance(app.screen, GradingScreen) and app.screen.session.item.question_id == shown
