"""Pilot tests: the grading screen shows the judge's verdict under a rubric version chosen in the command palette (keys
typed into the real palette), keeps blind first, records the grade on the right answer, and keeps the choice in the
desk state. The store is a real fixture store on which the judge graded the run under two rubric versions."""

from __future__ import annotations

import asyncio

import pytest

from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADE_SHORT_LABELS
from gradedesk.core.review.queue import left_method
from gradedesk.core.store.connection import open_store
from gradedesk.tui.screens.queue import QueueScreen
from textual.widgets import DataTable, Select
from tests.fixtures.agreement import add_auto, add_rubric
from tests.fixtures.desk import keys, pane_text, rows, running, screen_text, settle
from tests.fixtures.desk_store import build_fixture_store

pytestmark = pytest.mark.anyio

SIZE = (160, 50)
# a version the user named, with markup and an escape in it: shown literally, never read as markup
MINE = "mine-[bold]x[/bold]\x1b[31m/0badc0de"
MINE_SHOWN = "mine-[bold]x[/bold]\\x1b[31m/0badc0de"
HIDDEN = "hidden until you save your grade (blind first)"


@pytest.fixture
def two_rubrics(tmp_path):
    """The fixture store (the judge graded under rubric-1), then the judge again under MINE, a later rubric."""
    info = build_fixture_store(tmp_path / "store.db")
    with open_store(info.path) as store:
        add_rubric(store, MINE, "2030-01-01T00:00:00+00:00")
        for (_, method), aid in info.answer_ids.items():
            add_auto(store, aid, "wrong" if method == "raw" else "unsupported", model="gpt-4o-mini", rubric=MINE,
                     label="hallucination", reasoning=f"MINE judged answer {aid}")
    return info


def verdict(path, answer_id: int, rubric: str) -> dict:
    [row] = rows(path, "SELECT * FROM auto_grades WHERE answer_id = ? AND rubric_version = ?", (answer_id, rubric))
    return row


async def pick(pilot, query: str) -> str:
    """Open the command palette (ctrl+p), type `query`, and return the screen once the palette lists matches; Enter
    is left to the caller."""
    await pilot.press("ctrl+p", *query)
    for _ in range(200):
        await settle(pilot)
        text = screen_text(pilot.app)
        if "Judge verdict" in text:
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"the palette listed nothing for {query!r}")


async def test_a_chosen_rubric_version_shows_its_verdict_after_the_grade_and_survives_reopening(two_rubrics):
    info = two_rubrics
    pk = info.question_pks[0]
    left = info.answer_ids[(pk, left_method(7, pk))]
    right = info.answer_ids[(pk, "raw" if left_method(7, pk) == "bundle" else "bundle")]
    async with running(info.path, size=SIZE) as (app, pilot):
        screen = app.screen
        assert screen.session.item.question_pk == pk and screen.session.judge_rubric is None
        assert screen.session.item.judge_rubrics == ("rubric-1", MINE)
        for side in ("left", "right"):
            assert f"judge (gpt-4o-mini): {HIDDEN}" in pane_text(app, side)
        listed = await pick(pilot, "")  # every version, literally: the brackets and the escape stay text
        assert f"Judge verdict under rubric {MINE_SHOWN}" in listed and "Judge verdict under rubric rubric-1" in listed
        await pilot.press("escape")
        await pick(pilot, "under rubric rubric-1")
        await keys(pilot, "enter")
        assert screen.session.judge_rubric == "rubric-1" and "judge verdicts under rubric rubric-1" in screen_text(app)
        for side in ("left", "right"):  # switching never reveals the judge: blind first still holds
            text = pane_text(app, side)
            assert f"judge (gpt-4o-mini) under rubric rubric-1: {HIDDEN}" in text
            assert "· rubric" not in text and "MINE judged" not in text and "gold answer." not in text

        await keys(pilot, "2")
        [event] = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'")
        assert (event["answer_id"], event["grade"], event["mode"], event["judge_visible"]) == \
            (left, "partially_correct", "blind", 0)
        assert (event["machine_kind"], event["machine_model"], event["machine_rubric"]) == \
            ("judge", "gpt-4o-mini", "rubric-1")
        shown, old = pane_text(app, "left"), verdict(info.path, left, "rubric-1")
        assert f"judge (gpt-4o-mini): {GRADE_LABELS[old['grade']]}" in shown and "· rubric rubric-1" in shown
        assert old["reasoning"] in shown and "MINE judged" not in shown and HIDDEN not in shown
        assert f"under rubric rubric-1: {HIDDEN}" in pane_text(app, "right")
    assert rows(info.path, "SELECT settings FROM desk_state WHERE grader = 'alice'")[0]["settings"].count("rubric-1")

    async with running(info.path, size=SIZE) as (app, pilot):  # the choice is kept in the desk state
        screen = app.screen
        assert screen.session.judge_rubric == "rubric-1" and screen.session.item.question_pk == pk
        assert "· rubric rubric-1" in pane_text(app, "left") and HIDDEN in pane_text(app, "right")
        listed = await pick(pilot, "")
        assert f"Judge verdict under rubric {MINE_SHOWN}" in listed and "Judge verdict: the newest" in listed
        assert "Judge verdict under rubric rubric-1" not in listed
        await pilot.press("escape")
        await pick(pilot, "verdict newest")
        await pilot.press("enter", "tab", "3")  # a burst: the choice, the other answer, its grade
        await settle(pilot)
        assert screen.session.judge_rubric is None
        graded = rows(info.path, "SELECT answer_id, grade FROM current_human_grades WHERE grader = 'alice'")
        assert sorted((g["answer_id"], g["grade"]) for g in graded) == \
            sorted([(left, "partially_correct"), (right, "unsupported")])
        for side, aid in (("left", left), ("right", right)):  # the newest verdicts are MINE's, shown literally
            text = pane_text(app, side)
            new = verdict(info.path, aid, MINE)
            assert f"judge (gpt-4o-mini): {GRADE_LABELS[new['grade']]}" in text and new["reasoning"] in text
            assert f"· rubric {MINE_SHOWN}" in text and "\x1b" not in text


NEWER = "rubric-2"


@pytest.fixture
def disagreeing_rubrics(tmp_path):
    """The fixture store (the judge under rubric-1 on questions 0, 1, 3 and 4, the rule grader on 2 and 5), then the
    judge under a later rubric-2 on every answer: fully correct, but for question 1's raw answer (partially correct)
    and question 2's bundled one (unsupported). Question 0's raw answer gets a second rubric-1 repeat saying fully
    correct: only the first repeat counts."""
    info = build_fixture_store(tmp_path / "store.db")
    with open_store(info.path) as store:
        add_rubric(store, NEWER, "2030-01-01T00:00:00+00:00")
        q = info.question_pks
        odd = {(q[1], "raw"): "partially_correct", (q[2], "bundle"): "unsupported"}
        for key, aid in info.answer_ids.items():
            add_auto(store, aid, odd.get(key, "fully_correct"), model="gpt-4o-mini", rubric=NEWER)
        add_auto(store, info.answer_ids[(q[0], "raw")], "fully_correct", model="gpt-4o-mini", rubric="rubric-1",
                 repeat=1)
    return info


def judge_verdicts(path, rubric: str) -> dict[int, str]:
    """answer id -> the judge's grade under `rubric` (first repeat, newest), read from the raw rows."""
    out: dict[int, str] = {}
    for r in rows(path, "SELECT answer_id, grade FROM auto_grades WHERE grader_kind = 'judge' AND rubric_version = ? "
                        "AND repeat_index = 0 ORDER BY id", (rubric,)):
        out[r["answer_id"]] = r["grade"]
    return out


def people(path) -> dict[int, str]:
    return {r["answer_id"]: r["grade"] for r in rows(
        path, "SELECT answer_id, grade FROM current_human_grades WHERE grader = 'alice'")}


def disagreeing(info, verdicts: dict[int, str]) -> list[int]:
    """The questions where alice's grade of an answer differs from the verdict in `verdicts`, in question order."""
    mine = people(info.path)
    return [pk for pk in info.question_pks if any(
        aid in mine and aid in verdicts and mine[aid] != verdicts[aid]
        for (q, _), aid in info.answer_ids.items() if q == pk)]


def side_of(info, pk: int, side: str) -> int:
    method = left_method(7, pk) if side == "left" else ("raw" if left_method(7, pk) == "bundle" else "bundle")
    return info.answer_ids[(pk, method)]


async def walk(pilot, key: str, times: int) -> list[int]:
    """Press `key` `times` times, one at a time, and return the questions reached."""
    out = []
    for _ in range(times):
        await keys(pilot, key)
        out.append(pilot.app.screen.session.item.question_pk)
    return out


async def filter_to(pilot, **values) -> list[int]:
    """Apply filters through the filters dialog, then step with j to the end; the questions reached."""
    await keys(pilot, "slash")
    dialog = pilot.app.screen
    for name, value in values.items():
        dialog.query_one(f"#{name}", Select).value = Select.NULL if value is None else value
    await keys(pilot, "ctrl+s")
    reached = [pilot.app.screen.session.item.question_pk]
    while True:
        await keys(pilot, "j")
        if pilot.app.screen.session.item.question_pk == reached[-1]:
            assert "no more items" in pilot.app.last_status
            return reached
        reached.append(pilot.app.screen.session.item.question_pk)


async def test_the_disagreement_key_filters_progress_and_queue_use_the_chosen_rubric_version(disagreeing_rubrics):
    info = disagreeing_rubrics
    q = info.question_pks
    old, new = judge_verdicts(info.path, "rubric-1"), judge_verdicts(info.path, NEWER)
    async with running(info.path, size=SIZE) as (app, pilot):
        screen = app.screen
        await pick(pilot, "under rubric rubric-1")
        await keys(pilot, "enter")
        assert screen.session.judge_rubric == "rubric-1"
        # a burst: both answers of questions 0-3 graded fully correct, blind
        await pilot.press(*["h", "1", "l", "1", "j"] * 4)
        await settle(pilot)
        graded = [info.answer_ids[(pk, m)] for pk in q[:4] for m in ("raw", "bundle")]
        assert people(info.path) == {aid: "fully_correct" for aid in graded}
        for e in rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'"):
            assert (e["mode"], e["judge_visible"]) == ("blind", 0)
            on_desk = ("judge", "rubric-1") if e["answer_id"] in old else (None, None)  # question 2: no rubric-1 verdict
            assert (e["machine_kind"], e["machine_rubric"]) == on_desk
        assert screen.session.item.question_pk == q[4]
        # the status line counts as agree does: each grade beside the verdict on the desk when it was saved, and
        # question 2's (no rubric-1 verdict on the desk) beside the newest judge verdict
        beside = {a: old.get(a, new[a]) for a in graded}
        agreed = sum(v == "fully_correct" for v in beside.values())
        assert f"agreement with judge {agreed}/{len(graded)}" in screen.progress_text

        expected = disagreeing(info, old)
        assert expected != disagreeing(info, new)  # the two versions really lead to different items
        assert expected == [q[0], q[1], q[3]]
        assert await walk(pilot, "d", 4) == [q[0], q[1], q[3], q[0]]
        for side in ("left", "right"):  # the pane and the key agree: the verdict shown is rubric-1's
            a = screen.answer_at(side)
            assert a.machine.rubric_version == "rubric-1" and a.machine.grade == old[a.id]
            assert "· rubric rubric-1" in pane_text(app, side)

        # a burst: to the next disagreement, grade its left answer, to the next, grade its right answer
        before = len(rows(info.path, "SELECT id FROM human_grades WHERE grader = 'alice'"))
        await pilot.press("d", "h", "3", "d", "l", "4")
        await settle(pilot)
        latest = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice' ORDER BY id")[before:]
        assert [(e["answer_id"], e["grade"], e["machine_rubric"]) for e in latest] == [
            (side_of(info, q[1], "left"), "unsupported", "rubric-1"), (side_of(info, q[3], "right"), "wrong", "rubric-1")]

        unsupported = sorted({pk for (pk, _), aid in info.answer_ids.items() if old.get(aid) == "unsupported"})
        assert await filter_to(pilot, judge_grade="unsupported") == unsupported == [q[3]]
        assert await filter_to(pilot, status="disagreeing", judge_grade=None) == disagreeing(info, old)

        await keys(pilot, "slash", "ctrl+r", "q")  # the queue lists rubric-1's verdicts (blind first still)
        queue = app.screen
        assert isinstance(queue, QueueScreen) and "judge under rubric rubric-1" in screen_text(app)
        table = queue.query_one(DataTable)
        mine = people(info.path)
        assert table.row_count == len(info.answer_ids)
        headers = [str(c.label) for c in table.columns.values()]  # the queue's columns at this width
        machine_col = next(i for i, h in enumerate(headers) if h.startswith("machine"))
        by_col = headers.index("by") if "by" in headers else None
        for aid in info.answer_ids.values():
            cells = [str(c) for c in table.get_row(str(aid))]
            machine = cells[machine_col]
            if aid not in old:
                assert machine == "—"
            elif aid not in mine:
                assert machine == "hidden"
            else:
                assert machine in (GRADE_LABELS[old[aid]], GRADE_SHORT_LABELS[old[aid]])
                assert by_col is None or cells[by_col] == "judge"
            assert cells[0].startswith("≠") == (aid in mine and aid in old and mine[aid] != old[aid])
        await keys(pilot, "escape")

        await pick(pilot, "verdict newest")  # back to the newest: the filter follows
        await keys(pilot, "enter")
        assert screen.session.judge_rubric is None
        assert await filter_to(pilot, judge_grade="unsupported") == [q[2]]
