"""Help that teaches: the page opens on the workflow, then the desk's own keys by task (claim mode and the agreement
screen included), without Textual's scroll keys or its ctrl+c copy; the top bar fits one line at 80 columns; the
popups say how to leave them and name `^q quit` (and `? help` where keys are not typed into a field)."""

from __future__ import annotations

import re

import pytest

from gradedesk.tui.screens.grading.keys import KEYS
from gradedesk.tui.screens.help import HelpScreen
from tests.fixtures.desk import keys, rendered_text, running, screen_text

pytestmark = pytest.mark.anyio

TASKS = ["grade", "label, scores, note, preference", "move between answers and items", "open and inspect",
         "claim mode (c)", "agreement (a)", "everywhere"]


def help_text(app) -> str:
    assert isinstance(app.screen, HelpScreen)
    return rendered_text(app.screen.query_one("Static").content, width=100)


async def test_help_opens_on_the_workflow_then_keys_by_task_and_pgdn_reads_on(fixture_store):
    from textual.containers import VerticalScroll

    async with running(fixture_store.path, size=(80, 24)) as (app, pilot):
        await keys(pilot, "question_mark")
        page = help_text(app)
        lines = page.splitlines()
        assert lines[0].strip() == "How the desk works" and lines[1].startswith("1. Blind first.")
        flat = " ".join(page.split())
        assert "2. Methods hidden." in flat and "3. Order." in flat and "how many snippets each answer has" in flat
        at = [page.index("\n" + task) for task in TASKS]
        assert at == sorted(at)  # every heading, in this order
        for key in KEYS:
            assert " ".join((key.help or key.description).split()) in flat
        assert "mark the claim: supported, and go to the next" in flat  # claim mode's
        assert not re.search(r"\bdesk\.\w|claims\.\w|agreement\.\w", page)  # no action ids
        for noise in ("Copy selected text", "Scroll", "pageup", "Page Up"):
            assert noise not in page
        shown = screen_text(app)
        assert "How the desk works" in shown.splitlines()[2]  # what a person sees first
        assert "esc close help" in shown.splitlines()[-1] and "^q quit" in shown.splitlines()[-1]

        # it says how to read on, and pgdn does
        assert "pgdn more" in screen_text(app).splitlines()[-1]
        scroll = app.screen.query_one(VerticalScroll)
        await keys(pilot, "pagedown")
        first = scroll.scroll_y
        await keys(pilot, "pagedown")
        assert 0 < first < scroll.scroll_y and "How the desk works" not in screen_text(app)
        await keys(pilot, "pageup")
        assert scroll.scroll_y < first * 2


async def test_top_bar_fits_one_line_at_80_columns(fixture_store):
    async with running(fixture_store.path, size=(80, 24), hide_methods=True) as (app, pilot):
        top, question = screen_text(app).splitlines()[:2]
        assert "blind │ methods hidden │ question order" in top and len(top) <= 80
        assert question.startswith("q-store-open")


POPUPS = {"label": ("f", ["esc cancel", "^q quit", "? help"]), "scores": ("s", ["esc cancel", "^q quit", "? help"]),
          "note": ("e", ["esc cancel", "^q quit"]), "jump": ("g", ["esc cancel", "^q quit"]),
          "filters": ("slash", ["esc cancel", "^q quit", "? help"])}


async def test_popups_say_how_to_leave_them(fixture_store):
    """Each popup opened from the grading screen in turn, on one desk (escape leads back)."""
    async with running(fixture_store.path, size=(80, 24)) as (app, pilot):
        grading = app.screen
        for what, (key, footer) in POPUPS.items():
            await keys(pilot, key)
            assert app.screen is not grading, what
            last = screen_text(app).splitlines()[-1]
            for word in footer:
                assert word in last, what
            await keys(pilot, "escape")
            assert app.screen is grading, what
