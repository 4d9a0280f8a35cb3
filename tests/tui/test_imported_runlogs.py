"""The lesson's files and RAGAS rows, imported into a real store, open at the desk (a desk session and the panes it
draws, view.pane_view; no Pilot); graded there, exported in the lesson's format and imported into a new store,
nothing is lost."""

from __future__ import annotations

import json


from gradedesk.core.grading.human_grades import GradeChange

from gradedesk.core.exchange.export_formats import comparison_lines
from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import session_pane_text as pane
from tests.fixtures.session import act, opened
from tests.fixtures.lesson_files import (COMPARISON_LINES, HARNESS_LINES, RAGAS_ROWS, graded_harness_line,
                                         write_lines)





def imported(tmp_path, name: str, rows: list[dict]):
    db = tmp_path / "store.db"
    with open_store(db) as store:
        import_runlog(store, write_lines(tmp_path / name, rows))
    return db


def test_the_lessons_comparison_log_shows_its_answers_counts_and_coverage(tmp_path):
    db = imported(tmp_path, "bundle_comparison.jsonl", COMPARISON_LINES)
    with open_store(db) as store:
        session = opened(store, 1)
        both = pane(session, "left") + pane(session, "right")
    assert "The cache is cleared somewhere in utils." in both
    assert "invalidate() in cache.py clears it [Evidence 1]." in both
    assert "10 chunks, evidence not recorded" in both and "4 chunks, evidence not recorded" in both
    assert "coverage: Found definition of invalidate; no callers found" in both


def test_a_graded_harness_log_shows_its_judge(tmp_path):
    rows = [graded_harness_line(line, "wrong", "missing_evidence", "misses main", 0.8, "judge-7b")
            for line in HARNESS_LINES]
    db = imported(tmp_path, "run-graded.jsonl", rows)
    with open_store(db) as store:
        session = opened(store, 1)
        side = "left" if session.answer_at("left") is not None else "right"
        text = pane(session, side)
        assert "cache.py: invalidate() clears it." in text and "src/cache.py" in text
        assert "hidden until you save your grade" in text
        act(store, session, session.grade(session.answer_at(side), GradeChange(grade="fully_correct")))
        assert "judge (judge-7b): wrong" in pane(session, side)  # the judge is shown once the person graded


def test_ragas_rows_show_with_their_contexts(tmp_path):
    db = imported(tmp_path, "ragas.jsonl", RAGAS_ROWS)
    with open_store(db) as store:
        session = opened(store, 1)
        side = "left" if session.answer_at("left") is not None else "right"
        text = pane(session, side)
    assert "invalidate() clears the cache." in text and "self._data.clear()" in text


def test_grades_made_at_the_desk_round_trip_through_the_lessons_format(tmp_path):
    db = imported(tmp_path, "bundle_comparison.jsonl", COMPARISON_LINES)
    given = {}
    with open_store(db) as store:
        session = opened(store, 1)
        for grades in (("fully_correct", "unsupported"), ("wrong", "partially_correct")):
            left = session.item.left_method
            for side, grade in zip(("left", "right"), grades):
                act(store, session, session.grade(session.answer_at(side), GradeChange(grade=grade)))
            given[session.item.question_id] = {left: grades[0], "bundle" if left == "raw" else "raw": grades[1]}
            act(store, session, session.step(1))
    with open_store(db) as store:
        out = list(comparison_lines(store, 1))
    assert {ln["question_id"]: {"raw": ln["raw_grade"], "bundle": ln["bundle_grade"]} for ln in out} == given
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
