"""Importing the lesson's files and RAGAS rows as their scripts write them, into real stores; and writing them back."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.errors import InputError
from gradedesk.core.evidence.stored import answer_evidence, parse_hits
from gradedesk.core.exchange.export_formats import COMPARISON_FIELDS, comparison_lines, ragas_rows
from gradedesk.core.exchange.runlog_export import export_run
from gradedesk.core.exchange.runlog_fields import GradedBy
from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.lesson_files import (COMPARISON_LINES, HARNESS_LINES, RAGAS_ROWS, graded_harness_line,
                                         hand_graded, retrieval_graded_line, write_lines)


def answers(store, run_id):
    return store._query("SELECT a.*, q.question_id FROM answers a JOIN questions q ON q.id = a.question_pk "
                       "WHERE run_id = ? ORDER BY q.question_id, a.method DESC", (run_id,))


def test_the_lessons_comparison_log_imports_with_counts_and_coverage(tmp_path):
    log = write_lines(tmp_path / "bundle_comparison.jsonl", COMPARISON_LINES)
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.lines, report.answers, report.grades, report.human_grades) == (2, 4, 0, 0)
        assert report.shapes == {"comparison": 2}
        rows = answers(store, report.run_id)
        raw, bundle = rows[0], rows[1]
        assert parse_hits(raw["evidence"]) == ([], "10 chunks, evidence not recorded")
        assert parse_hits(bundle["evidence"]) == ([], "4 chunks, evidence not recorded")
        b = store._query("SELECT * FROM bundles WHERE id = ?", (bundle["bundle_id"],))[0]
        assert b["total_tokens"] == 812
        assert json.loads(b["coverage_notes"]) == ["Found definition of invalidate; no callers found"]
        [line] = [ln for ln in comparison_lines(store, report.run_id) if ln["question_id"] == "q1"]
    source = COMPARISON_LINES[0]
    assert list(line) == list(COMPARISON_FIELDS) == list(source)
    assert {k: line[k] for k in COMPARISON_FIELDS if k != "grading_notes"} == \
        {k: source[k] for k in COMPARISON_FIELDS if k != "grading_notes"}
    assert line["grading_notes"] is None  # "" in the lesson's log: not filled in


def test_hand_filled_grades_are_a_persons_or_a_named_judges(tmp_path):
    graded = [hand_graded(COMPARISON_LINES[0], "partially_correct", "fully_correct", "bundle names the method"),
              hand_graded(COMPARISON_LINES[1], None, "wrong")]
    log = write_lines(tmp_path / "graded.jsonl", graded)
    with open_store(tmp_path / "a.db") as store:
        report = import_runlog(store, log)
        assert (report.grades, report.human_grades) == (0, 3)
        events = store._query("SELECT grader, grade, note, mode, judge_visible FROM human_grades ORDER BY id")
        assert events[0] == {"grader": "graded.jsonl", "grade": "partially_correct",
                             "note": "bundle names the method", "mode": "blind", "judge_visible": 0}
        assert import_runlog(store, log).already_imported
    with open_store(tmp_path / "b.db") as store:
        import_runlog(store, log, grader="carol")
        assert {r["grader"] for r in store._query("SELECT grader FROM human_grades")} == {"carol"}
    with open_store(tmp_path / "c.db") as store:
        report = import_runlog(store, log, grades_from=GradedBy.parse("judge:gpt-4o-mini"))
        assert (report.grades, report.human_grades) == (3, 0)
        kinds = store._query("SELECT DISTINCT grader_kind, grader_model FROM auto_grades")
        assert kinds == [{"grader_kind": "judge", "grader_model": "gpt-4o-mini"}]


def test_a_graded_harness_log_keeps_its_judge_and_the_retrieval_graders_metrics(tmp_path):
    lines = [retrieval_graded_line(graded_harness_line(HARNESS_LINES[0], "fully_correct", None, "cites cache.py",
                                                       0.9, "gpt-4o-2024-08-06"),
                                   0.5, 1.0, 0.0, [], ["src/utils.py"]),
             graded_harness_line(HARNESS_LINES[1], "wrong", "missing_evidence", "main calls it", 0.75,
                                 "gpt-4o-2024-08-06")]
    log = write_lines(tmp_path / "run-graded.jsonl", lines)
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.grades, report.human_grades, report.metrics) == (2, 0, 3)
        grades = store._query("SELECT grader_kind, grader_model, grade, failure_label, confidence, reasoning "
                             "FROM machine_grades ORDER BY answer_id")
        assert grades[1] == {"grader_kind": "judge", "grader_model": "gpt-4o-2024-08-06", "grade": "wrong",
                             "failure_label": "missing_evidence", "confidence": 0.75, "reasoning": "main calls it"}
        scores = {r["metric"]: (r["method"], r["value"], json.loads(r["detail"]))
                  for r in store._query("SELECT * FROM answer_scores")}
        assert scores == {"file_precision": ("import:run-graded.jsonl", 0.5, {"extra_files": ["src/utils.py"]}),
                          "file_recall": ("import:run-graded.jsonl", 1.0, {"missing_files": []}),
                          "symbol_recall": ("import:run-graded.jsonl", 0.0, {})}


def test_a_plain_harness_log_imports_without_grades(tmp_path):
    log = write_lines(tmp_path / "run.jsonl", HARNESS_LINES)
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.answers, report.grades, report.shapes) == (2, 0, {"harness": 2})
        assert [e.file_path for e in answer_evidence(store, answers(store, report.run_id)[0])] == ["src/cache.py"]


def test_ragas_rows_are_answers_with_evidence_and_round_trip(tmp_path):
    log = write_lines(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.answers, report.shapes) == (2, {"ragas": 2})
        rows = answers(store, report.run_id)
        texts = {r["text"]: [e.text for e in answer_evidence(store, r)] for r in rows}
        assert texts["invalidate() clears the cache."] == ["def invalidate(self):\n    self._data.clear()"]
        golds = {r["question"]: r["gold_answer"] for r in store._query("SELECT * FROM questions")}
        assert golds["What calls parse_config?"] == "main and load_settings"
        out = list(ragas_rows(store, report.run_id))
    by_input = {r["user_input"]: r for r in out}
    for row in RAGAS_ROWS:
        assert {k: by_input[row["user_input"]][k] for k in row} == row  # the four columns and the rubric, as given
    again = write_lines(tmp_path / "again.jsonl", out)
    with open_store(tmp_path / "t.db") as store:
        report = import_runlog(store, again)
        assert sorted(r["user_input"] for r in ragas_rows(store, report.run_id)) == sorted(by_input)


def test_people_grades_survive_an_export_in_the_lessons_format(tmp_path):
    graded = [hand_graded(COMPARISON_LINES[0], "partially_correct", "fully_correct", "bundle cites"),
              hand_graded(COMPARISON_LINES[1], "wrong", None, "")]
    log = write_lines(tmp_path / "graded.jsonl", graded)
    with open_store(tmp_path / "a.db") as store:
        out = list(comparison_lines(store, import_runlog(store, log).run_id))
    for line, source in zip(out, graded):
        assert {k: line[k] for k in COMPARISON_FIELDS if k != "grading_notes"} == \
            {k: source[k] for k in COMPARISON_FIELDS if k != "grading_notes"}
    assert [ln["grading_notes"] for ln in out] == ["bundle cites", None]
    again = write_lines(tmp_path / "again.jsonl", out)
    with open_store(tmp_path / "b.db") as store:
        assert list(comparison_lines(store, import_runlog(store, again).run_id)) == out


def test_counts_survive_gradedesks_own_run_log(tmp_path):
    log = write_lines(tmp_path / "bundle_comparison.jsonl", COMPARISON_LINES)
    with open_store(tmp_path / "a.db") as store:
        lines = list(export_run(store, import_runlog(store, log).run_id))
    assert [(ln["raw_chunks"], ln["bundle_chunks"]) for ln in lines] == [(10, 4), (10, 3)]
    again = write_lines(tmp_path / "again.jsonl", lines)
    with open_store(tmp_path / "b.db") as store:
        report = import_runlog(store, again)
        assert report.shapes == {"gradedesk": 2}
        assert [(ln["raw_chunks"], ln["bundle_chunks"]) for ln in export_run(store, report.run_id)] == \
            [(10, 4), (10, 3)]


@pytest.mark.parametrize("change,problem", [
    ({"raw_chunks": "ten"}, "raw_chunks: must be a number of chunks, or a list of chunks"),
    ({"raw_grade": "good"}, "raw_grade: 'good' is not one of fully_correct"),
    ({"bundle_coverage": 3}, "bundle_coverage: must be a note or a list of notes"),
])
def test_a_bad_comparison_line_names_its_field_and_stores_nothing(tmp_path, change, problem):
    log = write_lines(tmp_path / "bad.jsonl", [COMPARISON_LINES[0], {**COMPARISON_LINES[1], **change}])
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(InputError) as info:
            import_runlog(store, log)
        assert info.value.problems[0].startswith(f"{log}:2: {problem}")
        assert store._scalar("SELECT count(*) FROM runs") == 0


@pytest.mark.parametrize("change,problem", [
    ({"judge_confidence": 7}, "judge_confidence: 7: must be a number from 0 to 1"),
    ({"missing_files": "src/a.py"}, "missing_files: must be a list of file paths"),
    ({"judge_model": 4}, "judge_model: must be a string, got int"),
])
def test_a_bad_graded_harness_line_names_its_field(tmp_path, change, problem):
    line = graded_harness_line(HARNESS_LINES[0], "wrong", None, "x", 0.5, "m")
    log = write_lines(tmp_path / "bad.jsonl", [{**line, **change}])
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(InputError) as info:
            import_runlog(store, log)
        assert info.value.problems == [f"{log}:1: {problem}"]


def test_a_forced_format_reads_every_line_as_that_shape(tmp_path):
    line = {k: v for k, v in COMPARISON_LINES[0].items() if k not in ("raw_chunks", "bundle_chunks")}
    log = write_lines(tmp_path / "log.jsonl", [hand_graded(line, "wrong", None)])
    with open_store(tmp_path / "s.db") as store:
        assert import_runlog(store, log).grades == 1  # told as gradedesk's: the grade is the log's (imported)
    with open_store(tmp_path / "t.db") as store:
        report = import_runlog(store, log, shape="comparison")
        assert (report.grades, report.human_grades) == (0, 1)
