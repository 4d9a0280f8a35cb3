"""Claim mode, driven by its keys (one at a time and in bursts) on a real store: marks and undo land in claim_marks on
the claim that was in view, the cited evidence is scrolled into view and highlighted, an uncited claim gets a
suggestion, and the machine faithfulness verdicts stay hidden until every claim is marked (what the grading pane shows
of the claims before and after, through the desk session: tests/core/review/test_claim_panes.py)."""

from __future__ import annotations

import sqlite3

import pytest

from gradedesk.tui.screens.claims import ClaimScreen, EvidenceView
from gradedesk.tui.screens.grading import GradingScreen
from tests.fixtures.claims_store import build_claims_store
from tests.fixtures.desk import keys, pane_text, running, screen_text, settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def claims_store(tmp_path):
    return build_claims_store(tmp_path / "store.db")


def marks(path, grader="alice") -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT answer_id, claim_index, action, mark, scorers_visible FROM claim_marks "
                            "WHERE grader = ? ORDER BY id", (grader,)).fetchall()
    finally:
        conn.close()


def visible(app) -> str:
    """The evidence pane's lines as they are on screen now."""
    view = app.screen.query_one(EvidenceView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


def figures(app) -> str:
    return str(app.screen.query_one("#claims-figures").render())


async def open_claims(pilot, side: str) -> None:
    await keys(pilot, "h" if side == "left" else "l", "c")


async def test_marks_in_a_burst_land_on_the_claims_in_view_and_undo_is_an_event(claims_store):
    info = claims_store
    async with running(info.path) as (app, pilot):
        await open_claims(pilot, info.bundle_side)
        assert isinstance(app.screen, ClaimScreen) and app.screen.current == 0
        assert "hidden until you have marked every claim (blind first): llm:gpt-4o-mini, offline-rapidfuzz" \
            in figures(app)
        await pilot.press("s", "s", "x", "w", "s", "n")  # a burst: no waiting between keys
        await settle(pilot)
        said = app.screen.query_one("#claims-status").render().plain
        assert said.startswith("every claim marked: the machine faithfulness verdicts are shown")
        assert marks(info.path) == [(info.bundled, i, "set", m, 0) for i, m in enumerate(
            ("supported", "supported", "unsupported", "miscited", "supported", "not_claim"), start=1)]
        text = figures(app)
        assert "you 0.80" in text and "citation precision 0.50" in text  # 4 of 5 factual; 2 of 4 cited by citation
        assert "llm:gpt-4o-mini 0.60 (3 of its 5 claims supported)" in text and "offline-rapidfuzz 0.80" in text
        await keys(pilot, "u")
        assert marks(info.path)[-1] == (info.bundled, 6, "undo", None, 1)  # undone with the verdicts in view
        assert app.screen.current == 5 and "undone: claim 6 not a factual claim" in app.last_status
        assert "llm:gpt-4o-mini 0.60" in figures(app)  # seen once, not hidden again by an undo
        await keys(pilot, "n")
        assert marks(info.path)[-1] == (info.bundled, 6, "set", "not_claim", 1)
        await keys(pilot, "escape")  # the grading pane is drawn again: every claim marked, the verdicts shown
        after = pane_text(app, info.bundle_side)
        assert "faithfulness 0.60 (llm:gpt-4o-mini)" in after and "faithfulness 0.80 (offline-rapidfuzz)" in after
        assert "you marked 6 of 6: faithfulness 0.80, citation precision 0.50" in after


async def test_keys_typed_before_the_claims_load_wait_for_them(claims_store):
    info = claims_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "h" if info.bundle_side == "left" else "l")
        await pilot.press("c", "s", "j", "x", "escape")
        await settle(pilot)
        assert marks(info.path) == [(info.bundled, 1, "set", "supported", 0), (info.bundled, 3, "set", "unsupported",
                                                                               0)]
        assert isinstance(app.screen, GradingScreen)
        assert "you marked 2 of 6" in pane_text(app, info.bundle_side)


async def test_cited_evidence_is_scrolled_into_view_and_raw_file_citations_point_at_hits_and_lines(claims_store):
    """The bundled answer's claims: the cited lines come into view with the note on what the claim cites above them
    when both fit from the top (claim 1, on opening as after j and k), else with the cited snippet's header at the
    top (claim 4), and an uncited claim gets a suggestion. Then, on the same desk, the raw answer's: its file
    citations point at hits and lines, and a claim citing only what is not in the evidence cannot be supported."""
    info = claims_store
    raw_side = "right" if info.bundle_side == "left" else "left"
    async with running(info.path, size=(100, 30)) as (app, pilot):
        await open_claims(pilot, info.bundle_side)
        assert app.screen.query_one(EvidenceView).scroll_offset.y == 0
        assert "▶ cited  [Evidence 1] core/store.py:21-27" in visible(app)
        assert "Claim 1 cites Evidence 1 (highlighted)" in visible(app)
        await keys(pilot, "j", "j", "j")  # claim 4 cites Evidence 3 (and Evidence 5, which is not there)
        view = app.screen.query_one(EvidenceView)
        assert view.scroll_offset.y > 0 and "▶ cited  [Evidence 3] core/bundle.py:61-67" in visible(app)
        await keys(pilot, "j")  # claim 5 cites nothing
        shown = visible(app)
        assert "◆ suggested  [Evidence 1]" in shown and 'raise StoreError(f"{p}: no such store")' in shown
        await keys(pilot, "k", "k", "k", "k")
        assert app.screen.current == 0 and "▶ cited  [Evidence 1]" in visible(app)
        assert "Claim 1 cites Evidence 1 (highlighted)" in visible(app)
        await keys(pilot, "escape")

        await open_claims(pilot, raw_side)
        screen = app.screen
        assert [c.evidence for c in screen.sheet.claims] == [(1,), (2,), ()]
        assert screen.sheet.claims[2].citations[0].problem == "core/cache.py is not in the evidence"
        await keys(pilot, "j")
        assert "▶ cited  [Hit 2] core/tokens.py:11-12" in visible(app)
        await keys(pilot, "j", "s")  # what it cites is not there: supported is refused, nothing stored
        assert marks(info.path) == [] and "cites only what is not in the evidence" in app.last_status
        await keys(pilot, "w")
        assert marks(info.path) == [(info.raw, 3, "set", "miscited", 0)]


async def test_claim_mode_is_not_part_of_a_recheck_pass(claims_store):
    from gradedesk.core.grading import human_grades
    from gradedesk.core.store.connection import open_store

    info = claims_store
    with open_store(info.path) as store:
        human_grades.record_grade(store, info.bundled, "alice", human_grades.GradeChange(grade="wrong"))
    async with running(info.path, recheck=1.0) as (app, pilot):
        await keys(pilot, "c")
        assert isinstance(app.screen, GradingScreen) and "not part of a recheck pass" in app.last_status


async def test_claims_and_evidence_from_outside_are_shown_literally(tmp_path):
    from gradedesk.core.review.queue import left_method
    from tests.fixtures.desk_store import build_fixture_store

    info = build_fixture_store(tmp_path / "store.db", hostile=True)
    side = "left" if left_method(7, info.question_pks[0]) == "bundle" else "right"
    async with running(info.path) as (app, pilot):
        await open_claims(pilot, side)
        options = app.screen.query_one("#claims-list")
        prompt = options.get_option_at_index(len(app.screen.sheet.claims) - 1).prompt
        assert "[bold]not bold[/]" in prompt.plain and "\\x1b[31mnot red" in prompt.plain
        shown = visible(app)  # the first snippet's selection reason carries the hostile text
        assert "[bold]not bold[/]" in shown and "[link=https://example.invalid]" in shown and "\\x1b[31m" in shown


async def test_with_method_names_hidden_claim_mode_writes_citations_one_way(claims_store):
    """The raw answer cites `File: core/store.py`, the bundled one `[Evidence 1]`: under --hide-methods claim mode shows
    both as `[source: …]`, labels every piece of evidence alike and names no problem's detail."""
    info = claims_store
    async with running(info.path, size=(160, 50), hide_methods=True) as (app, pilot):
        for side in ("left", "right"):
            await open_claims(pilot, side)
            assert isinstance(app.screen, ClaimScreen)
            shown = screen_text(app)
            assert "[source: " in shown
            assert "File:" not in shown and "[Hit" not in shown and "[Evidence 1]." not in shown
            await keys(pilot, "escape")
