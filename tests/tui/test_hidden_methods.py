"""--hide-methods hides every tell of which answer is raw and which bundled until both are graded: no method word, no
budget or token figure, no roles, reasons or coverage notes, on the grading screen or in the evidence browser."""

from __future__ import annotations

import re

import pytest

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import keys, pane_text, rows, running, screen_text
from tests.fixtures.desk import session_pane_text as pane
from tests.fixtures.session import act, opened
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.modals import ReadingModal

pytestmark = pytest.mark.anyio

# what would tell the methods apart: their names, how evidence was chosen, and the budget (figures like 2,000 or 248):
# as words of the desk's own text, not inside a file path or code (the fixture's code is about bundles and tokens)
TELLS = re.compile(r"(?<![\w./(])(raw|bundle[sd]?|top-k|hits?|coverage|role|reason|strateg\w*|budget|tokens?|bm25|"
                   r"symbol|rank|score|tiktoken)(?![\w./(])|\d,\d{3}", re.IGNORECASE)


def tells(text: str) -> list[str]:
    text = text.replace("r raw JSON", "")  # the evidence browser's key for the stored record, not a method name
    return sorted({m.group(0) for m in TELLS.finditer(text)})


async def test_no_tell_on_screen_until_both_answers_are_graded(fixture_store):
    async with running(fixture_store.path, size=(160, 80), hide_methods=True) as (app, pilot):
        shown = screen_text(app)
        assert "Answer A" in shown and "Evidence" in shown
        assert tells(shown) == []
        for side in ("left", "right"):  # the whole pane, scrolled or not
            assert tells(pane_text(app, side)) == []
        await keys(pilot, "b")
        assert isinstance(app.screen, BundleScreen) and tells(screen_text(app)) == []
        await keys(pilot, "r")  # the raw JSON would name the method
        assert tells(screen_text(app)) == [] and "shown once both answers are graded" in screen_text(app)
        await keys(pilot, "escape", "1")
        assert tells(screen_text(app)) == []  # one graded: still hidden
        await keys(pilot, "right_square_bracket")
        assert app.last_status == "preference saved: Answer B"  # the side, not its method
        await keys(pilot, "tab", "2")
        shown = screen_text(app)
        assert "raw top-k" in shown and "bundle @ 2,000 tokens" in shown and "coverage" in shown


def test_citations_are_written_one_way_until_both_answers_are_graded(fixture_store):
    """A raw answer cites `File: path`, a bundled one `[Evidence 1]`: with method names hidden both show the place."""
    import sqlite3

    with sqlite3.connect(fixture_store.path) as db:  # answers as the two prompts make a model write them
        raw_id, path = db.execute("SELECT a.id, json_extract(a.evidence, '$[0].file_path') FROM answers a "
                                  "WHERE method = 'raw' ORDER BY id LIMIT 1").fetchone()
        db.execute("UPDATE answers SET text = ? WHERE id = ?", (f"It opens the store (File: {path}:3).", raw_id))
        db.execute("UPDATE answers SET text = 'It opens the store [Evidence 1].' WHERE method = 'bundle'")
    with open_store(fixture_store.path) as store:  # the desk session, and the panes the screen draws of it
        session = opened(store, fixture_store, hide_methods=True)
        left, right = pane(session, "left"), pane(session, "right")
        for text in (left, right):
            assert "File:" not in text and "store [Evidence" not in text
            assert "methods hidden: citations as [source: …]; ‹changed›: not as written (w)" in text
        assert f"It opens the store [source: {path}:3]." in left + right
        assert re.search(r"It opens the store \[source: [\w/.]+:\d+-\d+\]\.", left + right)
        for side, grade in (("left", "fully_correct"), ("right", "partially_correct")):  # both graded: as written
            act(store, session, session.grade(session.answer_at(side), GradeChange(grade=grade)))
        assert "[Evidence 1]." in pane(session, "left") + pane(session, "right")
        assert "(File: " in pane(session, "left") + pane(session, "right")


# the desk's own words that would tell raw from bundled: a count in a title, a bundle's label or symbol, how a piece
# was chosen (role, reason, score, rank, method), a retrieval score, a budget or token figure
DESK_TELLS = re.compile(r"\(\d+\)|\[Evidence \d|::|(?<![\w./(])(raw|bundle[sd]?|bm25|symbol|path|graph|vector|fused|"
                        r"hits?|role|reason|score|rank|recall|id-based|top-k|tokens?|budget|coverage|strateg\w*)"
                        r"(?![\w./(])", re.IGNORECASE)  # as words of the desk, not inside a file's path
CODE_LINE = re.compile(r"^\s*\d+ ")  # a numbered line of evidence text: the code's own words are not the desk's


def desk_words(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not CODE_LINE.match(line))


async def test_both_panes_are_one_plain_format_before_grading(fixture_store):
    """--hide-methods: neither pane's text (read whole, before any grade) has a title count, label, symbol, role,
    reason, score or method word; a line shown otherwise than written says so, and w shows the answer as written."""
    import sqlite3

    copied = ("[Evidence 2] core/tokens.py :: count_tokens (lines 41-42) [bm25, fused 0.0295]\n"
              "Reason included: Fused rank 17 as related evidence, found by BM25 rank 12.\n"
              "It counts them exactly.")
    with sqlite3.connect(fixture_store.path) as db:  # a small model copies its bundled prompt's layout
        db.execute("UPDATE answers SET text = ? WHERE method = 'bundle'", (copied,))
    async with running(fixture_store.path, size=(100, 30), hide_methods=True) as (app, pilot):
        texts = {side: pane_text(app, side) for side in ("left", "right")}
        for text in texts.values():
            assert "Evidence" in text and DESK_TELLS.findall(desk_words(text)) == []
        bundled = next(side for side, text in texts.items() if "It counts them exactly." in text)
        lines = texts[bundled].splitlines()
        assert "[source: core/tokens.py:41-42] ‹changed›" in lines
        assert "[a line copied from the prompt] ‹changed›" in lines
        assert "It counts them exactly." in lines  # unchanged, unmarked
        await keys(pilot, "h" if bundled == "left" else "l", "w")
        assert isinstance(app.screen, ReadingModal)
        assert app.screen.body.plain == copied and "may tell which method" in app.screen.title_text
        await keys(pilot, "escape")
        assert rows(fixture_store.path, "SELECT COUNT(*) AS n FROM human_grades") == [{"n": 0}]


async def test_as_written_says_so_when_methods_are_shown(fixture_store):
    async with running(fixture_store.path, size=(100, 30)) as (app, pilot):
        await keys(pilot, "w")
        assert not isinstance(app.screen, ReadingModal) and "shown as written" in app.last_status
