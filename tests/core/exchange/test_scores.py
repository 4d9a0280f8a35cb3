"""core/exchange/scores.py: gradedesk's score records, JSONL, people and machines told apart."""

from __future__ import annotations

import io
import json

from tests.fixtures.agreement import add_auto, add_human
from gradedesk.core.exchange.scores import export_scores
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_question, add_raw_answer, add_run


def test_score_records(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        other_run = add_run(store, model="other")
        qpk = add_question(store, "q1", "q?", "g", benchmark="bench")
        answer = add_raw_answer(store, run, qpk, "text", [])
        add_raw_answer(store, other_run, qpk, "text", [])
        add_auto(store, answer, "partially_correct", confidence=0.4, label="retrieval_miss")
        add_auto(store, answer, "wrong", kind="rule", model="rules/1")
        first = add_human(store, answer, "alice", "wrong", note="[bold]not markup[/]")
        add_human(store, answer, "alice", "fully_correct", mode="open", judge_visible=1, is_revision=1,
                  note="changed my mind")
        out = io.StringIO()
        count = export_scores(store, run, out)
        again = io.StringIO()
        export_scores(store, run, again)
    lines = out.getvalue().splitlines()
    assert count == len(lines) == 3 + 2 + 2  # person: grade, pass, correctness; judge and rule: grade, pass
    records = [json.loads(line) for line in lines]
    assert out.getvalue() == again.getvalue()  # ids are stable
    human = [r for r in records if r["source"] == "HUMAN"]
    assert {r["name"]: r["value"] for r in human} == {"grade": "fully_correct", "pass": 1, "correctness": 4}
    assert all(r["grader"] == "alice" and r["comment"] == "changed my mind" for r in human)
    assert not any(r["id"].startswith(first) for r in human)  # only the current grade is exported
    assert human[0]["metadata"]["judge_visible"] is True
    machine = [r for r in records if r["source"] == "EVAL"]
    assert {r["grader"] for r in machine} == {"judge:judge-model", "rule:rules/1"}
    judge_grade = next(r for r in machine if r["grader"] == "judge:judge-model" and r["name"] == "grade")
    assert judge_grade["data_type"] == "CATEGORICAL" and judge_grade["metadata"]["confidence"] == 0.4
    assert judge_grade["trace_id"] == f"run{run}:bench:q1" and judge_grade["observation_id"] == f"answer:{answer}"
    assert len({r["id"] for r in records}) == len(records)
    for r in records:
        assert {"name", "value", "source", "comment", "grader", "time", "run_id", "answer_id"} <= set(r)
