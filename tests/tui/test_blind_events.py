"""An unusable judge reply counted alike by the status line, the agreement screen and `agree --json` (Pilot). What
each event records as seen (a label, scores or a note before the grade, a grade after `u`, preferences) is tested
through the desk session: tests/core/review/test_session_events.py."""

from __future__ import annotations

import asyncio
import json

import pytest

from gradedesk.core.review.queue import left_method
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.machine_grades import GRADING_ERROR
from gradedesk.tui.screens.agreement import AgreementScreen
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, running

pytestmark = pytest.mark.anyio


def left_answer_id(info, pk):
    return info.answer_ids[(pk, left_method(7, pk))]


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
