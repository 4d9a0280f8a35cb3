"""The lesson's files and RAGAS rows, imported into a real store, open at the desk (Pilot); graded there, exported in
the lesson's format and imported into a new store, nothing is lost."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.exchange.export_formats import comparison_lines
from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import keys, pane_text, running
from tests.fixtures.lesson_files import (COMPARISON_LINES, HARNESS_LINES, RAGAS_ROWS, graded_harness_line,
                                         write_lines)

pytestmark = pytest.mark.anyio


def imported(tmp_path, name: str, rows: list[dict]):
    db = tmp_path / "store.db"
    with open_store(db) as store:
        import_runlog(store, write_lines(tmp_path / name, rows))
    return db


async def test_the_lessons_comparison_log_shows_its_answers_counts_and_coverage(tmp_path):
    db = imported(tmp_path, "bundle_comparison.jsonl", COMPARISON_LINES)
    async with running(db) as (app, pilot):
        both = pane_text(app, "left") + pane_text(app, "right")
        assert "The cache is cleared somewhere in utils." in both
        assert "invalidate() in cache.py clears it [Evidence 1]." in both
        assert "10 chunks, evidence not recorded" in both and "4 chunks, evidence not recorded" in both
        assert "coverage: Found definition of invalidate; no callers found" in both


async def test_a_graded_harness_log_shows_its_judge(tmp_path):
    rows = [graded_harness_line(line, "wrong", "missing_evidence", "misses main", 0.8, "judge-7b")
            for line in HARNESS_LINES]
    db = imported(tmp_path, "run-graded.jsonl", rows)
    async with running(db) as (app, pilot):
        side = "left" if app.screen.answer_at("left") is not None else "right"
        text = pane_text(app, side)
        assert "cache.py: invalidate() clears it." in text and "src/cache.py" in text
        await keys(pilot, "tab" if side == "right" else "h", "1")  # the judge is shown once the person graded
        assert "judge (judge-7b)" in pane_text(app, side)


async def test_ragas_rows_show_with_their_contexts(tmp_path):
    db = imported(tmp_path, "ragas.jsonl", RAGAS_ROWS)
    async with running(db) as (app, pilot):
        side = "left" if app.screen.answer_at("left") is not None else "right"
        text = pane_text(app, side)
        assert "invalidate() clears the cache." in text and "self._data.clear()" in text


async def test_grades_made_at_the_desk_round_trip_through_the_lessons_format(tmp_path):
    db = imported(tmp_path, "bundle_comparison.jsonl", COMPARISON_LINES)
    given = {}
    async with running(db) as (app, pilot):
        for grades in (("1", "3"), ("4", "2")):
            left = app.screen.session.item.left_method
            await keys(pilot, "h", grades[0], "l", grades[1])
            given[app.screen.session.item.question_id] = {left: grades[0], "bundle" if left == "raw" else "raw": grades[1]}
            await keys(pilot, "j")
    names = {"1": "fully_correct", "2": "partially_correct", "3": "unsupported", "4": "wrong"}
    with open_store(db) as store:
        out = list(comparison_lines(store, 1))
    assert {ln["question_id"]: {"raw": ln["raw_grade"], "bundle": ln["bundle_grade"]} for ln in out} == \
        {q: {m: names[k] for m, k in g.items()} for q, g in given.items()}
    exported = write_lines(tmp_path / "graded.jsonl", out)
    with open_store(tmp_path / "new.db") as store:
        report = import_runlog(store, exported, grader="alice")
        assert report.human_grades == 4
        assert list(comparison_lines(store, report.run_id)) == out
        assert {r["grader"] for r in store._query("SELECT grader FROM human_grades")} == {"alice"}
    source = {ln["question_id"]: ln for ln in COMPARISON_LINES}
    for line in out:  # everything but the grades the person added is the lesson's line as it was
        assert {k: v for k, v in line.items() if not k.endswith("grade") and k != "grading_notes"} == \
            {k: v for k, v in source[line["question_id"]].items()
             if not k.endswith("grade") and k != "grading_notes"}
    assert json.loads(exported.read_text().splitlines()[0])["raw_chunks"] == 10
