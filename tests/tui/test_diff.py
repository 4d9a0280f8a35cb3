"""v: answer A against answer B word by word (tui/screens/diff.py): the words only one answer has are marked, the
texts are those the panes show (with method names hidden, citations one way), and untrusted text stays literal."""

from __future__ import annotations

import sqlite3

import pytest

from gradedesk.tui.screens.diff import DiffScreen
from gradedesk.tui.screens.grading import GradingScreen
from tests.fixtures.desk import keys, rendered_text, running, screen_text
from tests.fixtures.desk_store import HOSTILE

pytestmark = pytest.mark.anyio


def marked(screen: DiffScreen) -> dict[str, list[str]]:
    """The words the screen draws struck out (only in A) and underlined (only in B)."""
    body = screen.query_one("#diff").content
    out: dict[str, list[str]] = {"deleted": [], "inserted": []}
    for span in body.spans:
        kind = "deleted" if "strike" in str(span.style) else "inserted" if "underline" in str(span.style) else None
        if kind:
            out[kind].append(body.plain[span.start:span.end].strip())
    return out


async def test_v_shows_the_words_only_one_answer_has(fixture_store):
    with sqlite3.connect(fixture_store.path) as db:
        db.execute("UPDATE answers SET text = 'open_store opens the store; create=False raises StoreError.' "
                   "WHERE method = 'raw'")
        db.execute("UPDATE answers SET text = 'open_store opens or creates the store; create=False raises an error.' "
                   "WHERE method = 'bundle'")
    async with running(fixture_store.path, size=(100, 30)) as (app, pilot):
        left_raw = app.screen.session.item.left_method == "raw"
        await keys(pilot, "v")
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        only_raw, only_bundle = ["StoreError"], ["or creates", "an error"]
        assert marked(screen) == ({"deleted": only_raw, "inserted": only_bundle} if left_raw
                                  else {"deleted": only_bundle, "inserted": only_raw})
        header = " ".join(screen_text(app).split())  # the header wraps at 100 columns
        assert header.startswith("Answer A — ") and " against Answer B — " in header
        assert f"{1 if left_raw else 4} only in A" in header and f"{4 if left_raw else 1} only in B" in header
        await keys(pilot, "escape")
        assert isinstance(app.screen, GradingScreen)


async def test_with_methods_hidden_the_diff_shows_citations_one_way(fixture_store):
    async with running(fixture_store.path, size=(100, 30), hide_methods=True) as (app, pilot):
        await keys(pilot, "v")
        text = rendered_text(app.screen.query_one("#diff").content)
        assert "[source: core/store.py" in text and "[Evidence" not in text
        assert screen_text(app).splitlines()[0].startswith("Answer A against Answer B")


async def test_untrusted_text_is_literal(hostile_store):
    async with running(hostile_store.path, size=(100, 30)) as (app, pilot):
        await keys(pilot, "v")
        text = rendered_text(app.screen.query_one("#diff").content)
        assert HOSTILE.replace("\x1b", "\\x1b") in text and "\x1b" not in text
