"""Importing run logs: harness and comparison files (all or nothing, file:line errors, --skip-invalid), people's grades."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.exchange.runlog_export import export_run
from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.runlogs import COMPARISON, HARNESS, write_jsonl


def test_harness_log_imports_answers_and_imported_grades(tmp_path):
    log = write_jsonl(tmp_path / "team-run.jsonl", HARNESS)
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.lines, report.answers, report.grades, report.skipped) == (2, 2, 2, [])
        run = store._query("SELECT * FROM runs WHERE id = ?", (report.run_id,))[0]
        assert run["source"] == "import" and run["benchmark"] == "team-run" and run["provider"] == "imported"
        qids = [r["question_id"] for r in store._query("SELECT question_id FROM questions ORDER BY id")]
        assert qids == ["q1", "2"]
        grades = store._query("SELECT g.* FROM machine_grades g JOIN answers a ON a.id = g.answer_id ORDER BY a.id")
        assert [(g["grader_kind"], g["grader_model"], g["grade"], g["failure_label"]) for g in grades] == [
            ("imported", "import:team-run.jsonl", "fully_correct", None),
            ("imported", "import:team-run.jsonl", "wrong", "missing_evidence")]
        files = store._scalar("SELECT evidence_files FROM answers WHERE run_id = ? ORDER BY id LIMIT 1",
                             (report.run_id,))
        assert json.loads(files) == ["core/store.py"]
        again = import_runlog(store, log)
        assert again.already_imported and again.run_id == report.run_id
        assert store._scalar("SELECT count(*) FROM answers") == 2


def test_bad_lines_are_reported_with_file_and_line_and_nothing_is_stored(tmp_path):
    rows = [HARNESS[0], "{not json", {"question_id": "q3", "question": "x", "answer": "y", "grade": "great"},
            {"question_id": "q4", "question": "x"}, {**HARNESS[0], "answer": "again"}]
    log = write_jsonl(tmp_path / "bad.jsonl", rows)
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(InputError) as info:
            import_runlog(store, log)
        problems = info.value.problems
        assert problems[0].startswith(f"{log}:2: (json): malformed JSON")
        assert f"{log}:3: grade: 'great' is not one of fully_correct" in problems[1]
        assert problems[2].startswith(f"{log}:4: answer: missing")
        assert problems[3] == f"{log}:5: question_id: 'q1' answered again (first on line 1)"
        assert store._scalar("SELECT count(*) FROM runs") == 0 and store._scalar("SELECT count(*) FROM questions") == 0
        report = import_runlog(store, log, skip_invalid=True)
        assert report.answers == 1 and len(report.skipped) == 4


def test_file_with_only_bad_lines_stores_nothing_even_when_skipping(tmp_path):
    log = write_jsonl(tmp_path / "worse.jsonl", ["[1, 2]"])
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(UserError, match="no importable lines"):
            import_runlog(store, log, skip_invalid=True)
        assert store._scalar("SELECT count(*) FROM runs") == 0


def test_human_grades_in_a_comparison_file_become_events_once(tmp_path):
    human = {"grader_kind": "human", "grader": "alice", "uuid": "u-1", "grade": "wrong",
             "failure_label": "hallucination", "correctness": 1, "note": "made up", "mode": "blind",
             "created_at": "2026-01-02T00:00:00+00:00"}
    judge = {"grader_kind": "judge", "grader": "gpt-4o-mini", "grade": "partially_correct", "repeat_index": 0}
    row = {**COMPARISON, "grades": {"raw": [human, judge], "bundle": []}}
    with open_store(tmp_path / "s.db") as store:
        import_runlog(store, write_jsonl(tmp_path / "a.jsonl", [row]))
        import_runlog(store, write_jsonl(tmp_path / "b.jsonl", [row, {**HARNESS[0], "question_id": "z"}]))
        events = store._query("SELECT grader, grade, failure_label, correctness, note FROM human_grades")
        assert events == [{"grader": "alice", "grade": "wrong", "failure_label": "hallucination",
                           "correctness": 1, "note": "made up"}]
        kinds = store._query("SELECT grader_kind, grader_model FROM auto_grades ORDER BY id")
        # the marked judge grade keeps its kind; the headline raw_grade is not imported twice beside it;
        # bundle_grade still came with the log (its marked list was empty)
        assert ("judge", "gpt-4o-mini") in [(k["grader_kind"], k["grader_model"]) for k in kinds]
        [line] = [ln for ln in export_run(store, 1)]
        assert line["raw_grade"] == "wrong" and line["raw_grade_by"] == "human:alice"
        assert "raw (human:alice): made up" in line["grading_notes"]
