"""Exporting a run as gradedesk's run log, and reading it back (round trip)."""

from __future__ import annotations

from gradedesk.core.exchange.runlog_export import export_run
from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.runlogs import COMPARISON, write_jsonl


def test_comparison_file_round_trips_through_export(tmp_path):
    log = write_jsonl(tmp_path / "cmp.jsonl", [COMPARISON])
    with open_store(tmp_path / "s.db") as store:
        report = import_runlog(store, log)
        assert (report.answers, report.grades) == (2, 2)
        [line] = list(export_run(store, report.run_id))
    assert line["question_id"] == "c1" and line["raw_answer"] == "In a table."
    assert [c["file_path"] for c in line["raw_chunks"]] == ["core/answer.py", "core/store.py"]
    assert line["raw_evidence_files"] == ["core/answer.py", "core/store.py"]
    assert line["bundle_chunks"][0]["symbol_name"] == "store_prompts"
    assert line["bundle_tokens"] == 42 and line["bundle_coverage"] == ["definition of store_prompts found"]
    assert (line["raw_grade"], line["bundle_grade"]) == ("partially_correct", "fully_correct")
    assert line["bundle_grade_by"] == "imported:import:cmp.jsonl"
    assert line["timestamp"] == "2026-01-01T00:00:00+00:00"
    marked = line["grades"]["bundle"]
    assert marked == [{**marked[0], "grader_kind": "imported", "grader": "import:cmp.jsonl", "grade": "fully_correct"}]
