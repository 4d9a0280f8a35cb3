"""Pilot tests of what each event records as seen (core/review/visibility.py): a label, scores or a note before the
grade (blind, never counted as graded), a grade after `u` (post-reveal: a revision, counted in agree's switch rate),
preferences (what was on screen, how the item was reached, undone by `u`), and an unusable judge reply counted alike
by the status line, the agreement screen and `agree --json`."""

from __future__ import annotations

import asyncio
import json

import pytest

from gradedesk.core.grading.vocabulary import FAILURE_LABELS
from gradedesk.core.review.queue import left_method
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.machine_grades import GRADING_ERROR
from gradedesk.tui.screens.agreement import AgreementScreen
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, pane_text, rows, running

pytestmark = pytest.mark.anyio


def events(path, grader="alice"):
    return rows(path, "SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def preferences(path):
    return rows(path, "SELECT * FROM human_preferences ORDER BY id")


def left_answer_id(info, pk):
    return info.answer_ids[(pk, left_method(7, pk))]


async def test_a_label_before_the_grade_is_blind_and_not_graded(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        assert "graded 0 of 12" in app.screen.progress_text
        await keys(pilot, "f", "2")  # a failure label, before any grade
        [label] = events(info.path)
        assert (label["grade"], label["failure_label"], label["judge_visible"], label["is_revision"], label["mode"]) \
            == (None, FAILURE_LABELS[1], 0, 0, "blind")
        assert "graded 0 of 12" in app.screen.progress_text  # a label is no grade
        assert "hidden until you save your grade" in pane_text(app, "left")  # nor does it reveal the judge
        await keys(pilot, "3")  # the grade, still blind: the label stays
        graded = events(info.path)[-1]
        assert (graded["grade"], graded["failure_label"], graded["judge_visible"], graded["is_revision"]) == \
            ("unsupported", FAILURE_LABELS[1], 0, 0)
        assert "graded 1 of 12" in app.screen.progress_text
        await keys(pilot, "f", "3")  # after the reveal a label is a revision made in view of the machine grade
        after = events(info.path)[-1]
        assert (after["grade"], after["failure_label"], after["judge_visible"], after["is_revision"]) == \
            ("unsupported", FAILURE_LABELS[2], 1, 1)


async def test_undo_takes_back_a_label_given_before_the_grade(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "e", *"check", "enter")
        await keys(pilot, "u")
        noted, undo = events(info.path)
        assert (noted["grade"], noted["note"]) == (None, "check")
        assert (undo["action"], undo["undoes_uuid"], undo["judge_visible"]) == ("undo", noted["uuid"], 0)
        assert app.screen.answer_at("left").human is None and not app.screen.judge_visible(app.screen.answer_at("left"))
        assert rows(info.path, "SELECT * FROM current_human_grades") == []


async def test_a_grade_after_undo_is_a_revision_and_agree_counts_the_switch(fixture_store, capsys):
    info = fixture_store
    pk = info.question_pks[0]
    async with running(info.path) as (app, pilot):
        await keys(pilot, "2")  # blind: partially correct; the judge is revealed
        await keys(pilot, "u")
        await keys(pilot, "4")  # after the reveal, however it was reached
    blind, undo, again = events(info.path)
    assert (blind["grade"], blind["judge_visible"], blind["is_revision"]) == ("partially_correct", 0, 0)
    assert (undo["action"], undo["judge_visible"]) == ("undo", 1)  # the judge was in view as it was taken back
    assert (again["grade"], again["judge_visible"], again["is_revision"]) == ("wrong", 1, 1)
    assert again["answer_id"] == left_answer_id(info, pk)
    code, out, _ = cli(capsys, "agree", "1", "--store", info.path, "--json", "--bootstrap", "50")
    switch = json.loads(out)["switch_rate"]
    assert code == 0 and (switch["eligible"], switch["switched"]) == (1, 1)


def make_unusable(info, answer_id: int) -> None:
    """The judge's reply for this answer could not be used: stored as `unsupported` with label grading_error."""
    with open_store(info.path) as store, store.transaction():
        store._conn.execute("UPDATE auto_grades SET grade = 'unsupported', failure_label = ? WHERE answer_id = ?",
                            (GRADING_ERROR, answer_id))


async def agreement_top(app, pilot) -> str:
    await keys(pilot, "a")
    screen = app.screen
    assert isinstance(screen, AgreementScreen)
    for _ in range(500):
        await pilot.pause()
        if screen.report is not None:
            break
        await asyncio.sleep(0.02)
    top = str(screen.query_one("#agreement-top").render())
    await keys(pilot, "escape")
    return top


def agree_json(capsys, info) -> dict:
    code, out, _ = cli(capsys, "agree", "1", "--store", info.path, "--json", "--bootstrap", "50")
    assert code == 0
    return json.loads(out)


async def test_an_unusable_judge_reply_is_no_pair_on_the_status_line_the_screen_and_agree(fixture_store, capsys):
    info = fixture_store
    pk = info.question_pks[0]
    make_unusable(info, left_answer_id(info, pk))
    async with running(info.path) as (app, pilot):
        await keys(pilot, "3")  # the left answer: its judge reply is unusable
        status = app.screen.progress_text
        top = await agreement_top(app, pilot)
    assert "graded 1 of 12" in status and "nothing compared yet" in status and "0/1" not in status
    assert "1 not compared (machine reply unusable)" in status
    assert "0 graded pair(s), alice vs judge" in top and "nobody" not in top  # the person who graded is named
    report = agree_json(capsys, info)
    assert report["pairs"] == 0 and report["people"] == ["alice"]

    async with running(info.path) as (app, pilot):
        await keys(pilot, "tab", "1")  # the right answer has a usable verdict: one pair, everywhere
        status = app.screen.progress_text
        top = await agreement_top(app, pilot)
    assert "graded 2 of 12" in status and "agreement with judge" in status and "/1 (" in status
    assert "1 graded pair(s), alice vs judge" in top
    assert agree_json(capsys, info)["pairs"] == 1


async def test_a_preference_before_the_grade_records_what_was_on_screen_and_how_the_item_was_reached(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "right_square_bracket")  # before any grade: both machine grades hidden
        await keys(pilot, "1")  # grade the left answer: its machine grade is shown now
        await keys(pilot, "equals_sign")
        [target] = rows(info.path, "SELECT question_id FROM questions WHERE id = ?", (info.question_pks[3],))
        await keys(pilot, "g", *target["question_id"], "enter", "left_square_bracket")
    first, second, jumped = preferences(info.path)
    assert (first["action"], first["judge_visible"], first["selection"], first["selection_probability"]) == \
        ("set", 0, "question_order", None)
    assert (second["preferred"], second["judge_visible"]) == ("tie", 1)
    assert (jumped["judge_visible"], jumped["selection"]) == (0, "jump")
    assert events(info.path)[0]["grade"] == "fully_correct"


async def test_u_takes_back_a_preference_given_after_a_grade_then_the_grade(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "4", "right_square_bracket")
        assert app.screen.session.item.preference is not None
        await keys(pilot, "u")  # the newest event: the preference
        chosen, undo = preferences(info.path)
        assert (undo["action"], undo["undoes_uuid"], undo["judge_visible"]) == ("undo", chosen["uuid"], 1)
        assert app.screen.session.item.preference is None
        assert [e["action"] for e in events(info.path)] == ["set"]  # the grade stays
        assert "undone: preference" in app.last_status
        await keys(pilot, "u")  # then the grade
        assert [e["action"] for e in events(info.path)] == ["set", "undo"]
        assert len(preferences(info.path)) == 2
