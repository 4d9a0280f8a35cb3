"""Pilot tests: a rubric version chosen in the command palette (keys typed into the real palette) reaches the desk, and
the queue screen lists that version's verdicts. The store is a real fixture store on which the judge graded the run
under two rubric versions. (What the panes show under a chosen version, the grade's record, the choice kept for the
next desk, the figures, the disagreement key, the filters and the queue's rows: through the desk session,
tests/core/review/test_session_rubric.py.)"""

from __future__ import annotations

import asyncio

import pytest

from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADE_SHORT_LABELS
from gradedesk.core.review.queue import left_method
from gradedesk.tui.screens.queue import QueueScreen
from textual.command import CommandList
from textual.widgets import DataTable
from tests.fixtures.desk import keys, palette, pane_text, rows, running, screen_text, settle
from tests.fixtures.rubrics import HIDDEN, MINE_SHOWN, build_two_rubrics, verdict

pytestmark = pytest.mark.anyio

SIZE = (160, 50)


@pytest.fixture
def two_rubrics(tmp_path):
    return build_two_rubrics(tmp_path / "store.db")


async def pick(pilot, query: str) -> str:
    """Open the command palette (ctrl+p), type `query`, and return the screen once the palette lists matches; Enter
    is left to the caller."""
    await keys(pilot, "ctrl+p")
    await pilot.press(*query)  # typed as a burst: the palette's search for each character is not waited for
    for _ in range(200):
        await settle(pilot)
        listed = pilot.app.screen.query(CommandList)
        if listed and any("Judge verdict" in str(o.prompt) for o in listed.first().options):
            return screen_text(pilot.app)
        await asyncio.sleep(0.02)
    raise AssertionError(f"the palette listed nothing for {query!r}")


async def test_the_palette_chooses_a_rubric_version_and_keys_typed_after_it_reach_the_desk(two_rubrics):
    """The palette lists every version literally and not the one chosen; Enter on one sets the desk's rubric (the top
    bar names it), a grade key after it lands, the queue lists that version's verdicts blind first, and a burst typed
    through the palette (the choice, the other answer, its grade) lands in order. One desk for all of it."""
    info = two_rubrics
    pk = info.question_pks[0]
    left = info.answer_ids[(pk, left_method(7, pk))]
    right = info.answer_ids[(pk, "raw" if left_method(7, pk) == "bundle" else "bundle")]
    async with running(info.path, size=SIZE) as (app, pilot):
        screen = app.screen
        assert screen.session.item.question_pk == pk and screen.session.judge_rubric is None
        assert {f"Judge verdict under rubric {MINE_SHOWN}", "Judge verdict under rubric rubric-1"} <= set(
            await palette(screen))  # every version, the escape shown as text
        await pick(pilot, "rubric-1")
        await keys(pilot, "enter")
        assert screen.session.judge_rubric == "rubric-1" and "judge verdicts under rubric rubric-1" in screen_text(app)
        assert f"judge (gpt-4o-mini) under rubric rubric-1: {HIDDEN}" in pane_text(app, "left")  # drawn: still blind

        await keys(pilot, "2")
        old = verdict(info.path, left, "rubric-1")
        assert rows(info.path, "SELECT answer_id, grade, machine_rubric FROM human_grades WHERE grader = 'alice'") \
            == [{"answer_id": left, "grade": "partially_correct", "machine_rubric": "rubric-1"}]
        assert "· rubric rubric-1" in pane_text(app, "left")  # redrawn after the grade: the version's verdict
        await keys(pilot, "q")  # the queue lists rubric-1's verdicts, blind first still
        assert isinstance(app.screen, QueueScreen) and "judge under rubric rubric-1" in screen_text(app)
        table = app.screen.query_one(DataTable)
        machine = next(i for i, c in enumerate(table.columns.values()) if str(c.label).startswith("machine"))
        assert str(table.get_row(str(left))[machine]) in (GRADE_LABELS[old["grade"]], GRADE_SHORT_LABELS[old["grade"]])
        assert str(table.get_row(str(right))[machine]) == "hidden"
        await keys(pilot, "escape")

        listed = await pick(pilot, "")  # the brackets and the escape of a version stay text
        assert f"Judge verdict under rubric {MINE_SHOWN}" in listed and "Judge verdict: the newest" in listed
        assert "Judge verdict under rubric rubric-1" not in listed
        await pilot.press("escape")
        await pick(pilot, "newest")
        await pilot.press("enter", "tab", "3")  # a burst: the choice, the other answer, its grade
        await settle(pilot)
        assert screen.session.judge_rubric is None
        graded = rows(info.path, "SELECT answer_id, grade FROM current_human_grades WHERE grader = 'alice'")
        assert sorted((g["answer_id"], g["grade"]) for g in graded) == \
            sorted([(left, "partially_correct"), (right, "unsupported")])
        assert f"· rubric {MINE_SHOWN}" in pane_text(app, "right") and "\x1b" not in pane_text(app, "right")
