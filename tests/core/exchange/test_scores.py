"""core/exchange/scores.py: gradedesk's score records, JSONL, people and machines told apart."""

from __future__ import annotations

import io
import json

import pytest

from tests.fixtures.agreement import add_auto, add_human
from gradedesk.core.exchange.scores import export_scores
from gradedesk.core.grading.claim_marks import MARKS, record_mark
from gradedesk.core.grading.claim_store import load_claims
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.grading.retrieval_evals import grade_retrieval
from gradedesk.core.grading.scorers import score_offline_run
from tests.fixtures.claims_store import ALICE_MARKS, add_marked_answer
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_question, add_raw_answer, add_run, scored_run, stored_scores


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


def test_a_revised_grade_updates_its_scores(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        answer = add_raw_answer(store, run, add_question(store, "q1", "q?", "g", benchmark="bench"), "text", [])
        record_grade(store, answer, "alice", GradeChange(grade="wrong", scores={"correctness": 2}, note="made up"))
        first = io.StringIO()
        export_scores(store, run, first)
        record_grade(store, answer, "alice", GradeChange(grade="fully_correct", scores={"correctness": 5},
                                                         note="it is in the evidence"), mode="open")
        second = io.StringIO()
        export_scores(store, run, second)
        assert store._scalar("SELECT count(*) FROM human_grades") == 2  # the revision is a new event
    before = {r["id"]: r for r in map(json.loads, first.getvalue().splitlines())}
    after = {r["id"]: r for r in map(json.loads, second.getvalue().splitlines())}
    assert set(after) == set(before) and len(after) == 3  # grade, pass, correctness: the same scores, updated
    assert {r["name"]: r["value"] for r in after.values()} == {"grade": "fully_correct", "pass": 1, "correctness": 5}
    assert {r["name"]: r["value"] for r in before.values()} == {"grade": "wrong", "pass": 0, "correctness": 2}
    assert {r["comment"] for r in after.values()} == {"it is in the evidence"}


def test_claim_marks_are_scores_of_their_own(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        answer = add_marked_answer(store, run, add_question(store, "q1", "q?", "g", benchmark="bench"))
        out = io.StringIO()
        export_scores(store, run, out)
        records = [json.loads(line) for line in out.getvalue().splitlines()]
        assert all(r["source"] == "HUMAN" and r["answer_id"] == answer for r in records)
        assert all(r["trace_id"] == f"run{run}:bench:q1" and r["observation_id"] == f"answer:{answer}"
                   for r in records)
        alice = [r for r in records if r["grader"] == "alice"]
        marks = [r for r in alice if r["name"] == "claim_mark"]
        assert [r["value"] for r in marks] == list(ALICE_MARKS)  # her newest mark of each claim only
        assert all(r["data_type"] == "CATEGORICAL" and r["value"] in MARKS for r in marks)
        claims = load_claims(store, answer)
        assert [(r["metadata"]["claim_index"], r["metadata"]["claim_text"]) for r in marks] == \
            [(c.index, c.text) for c in claims]
        assert [r["metadata"]["scorers_visible"] for r in marks] == [False, True, False, False, False]
        shares = {r["name"]: r for r in alice if r["data_type"] == "NUMERIC"}
        assert shares["faithfulness"]["value"] == 0.75
        assert shares["citation_precision"]["value"] == pytest.approx(1 / 3)
        assert shares["faithfulness"]["metadata"]["not_claims"] == 1
        assert shares["faithfulness"]["time"] == max(r["time"] for r in marks)
        # bob marked one claim of five: his mark is exported, no faithfulness from a partly marked answer
        assert [(r["name"], r["value"]) for r in records if r["grader"] == "bob"] == [("claim_mark", "not_claim")]
        assert len({r["id"] for r in records}) == len(records)
        # a changed mark keeps its score's id, so a re-export updates it
        record_mark(store, answer, "alice", claims[4], "unsupported")
        again = io.StringIO()
        export_scores(store, run, again)
    changed = {r["id"]: r for r in map(json.loads, again.getvalue().splitlines())}
    assert set(changed) == {r["id"] for r in records}
    assert changed[marks[4]["id"]]["value"] == "unsupported"
    assert changed[shares["faithfulness"]["id"]]["value"] == 0.5


def test_machine_scores_are_exported_once_each_and_undefined_ones_as_null(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run, answer, unknown = scored_run(store)
        scored_run(store, "other")  # another run's scores stay out
        stored = stored_scores(store, run)
        out = io.StringIO()
        export_scores(store, run, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    machine = [r for r in records if r["grader"].startswith("scorer:")]
    # every stored score exactly once, under its metric's name, with the stored value (None stays None)
    assert {(r["answer_id"], r["name"], r["grader"].removeprefix("scorer:")): r["value"] for r in machine} == stored
    assert len(machine) == len(stored) == 2 * 7 + 2  # 5 retrieval evals, 2 offline scores an answer; 2 LLM
    assert all(r["data_type"] == "NUMERIC" and r["source"] == "EVAL" and r["run_id"] == run for r in machine)
    assert len({r["id"] for r in records}) == len(records)
    by = {(r["answer_id"], r["name"], r["grader"]): r for r in machine}
    recall = by[(answer, "file_recall", "scorer:id-based")]
    assert recall["value"] == 1.0 and recall["metadata"]["detail"]["found_files"] == ["src/cache.py"]
    assert recall["trace_id"] == f"run{run}:bench:q1" and recall["observation_id"] == f"answer:{answer}"
    unlabelled = by[(unknown, "file_recall", "scorer:id-based")]
    assert unlabelled["value"] is None and unlabelled["comment"] == "question has no expected_files labels"
    no_claims = by[(unknown, "faithfulness", "scorer:offline-rapidfuzz")]
    assert no_claims["value"] is None and no_claims["comment"] == "the answer makes no claims"
    assert by[(answer, "faithfulness", "scorer:llm:judge-model")]["value"] == 1.0
    failed = by[(answer, "answer_relevance", "scorer:llm:judge-model")]
    assert failed["value"] is None and failed["comment"].startswith("call_failed: 502: upstream failed")
    assert "sk-live1234567890abcdef" not in out.getvalue()  # neither in the comment nor in the detail
    assert failed["metadata"]["detail"]["why"] == "502: upstream failed for key Bearer [redacted]"


def test_rescoring_updates_the_machine_scores(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run, answer, _ = scored_run(store)
        first = io.StringIO()
        export_scores(store, run, first)
        with store.transaction():  # the labels are fixed: the retrieval evals change on the next scoring
            store._db.execute("UPDATE questions SET expected_files = ? WHERE question_id = 'q1'",
                             [json.dumps(["src/other.py"])])
        grade_retrieval(store, run)
        score_offline_run(store, run)
        second = io.StringIO()
        export_scores(store, run, second)
    before = {r["id"]: r for r in map(json.loads, first.getvalue().splitlines())}
    after = {r["id"]: r for r in map(json.loads, second.getvalue().splitlines())}
    assert set(after) == set(before)  # the same scores, updated: none added beside the old
    recall = next(i for i, r in after.items() if r["name"] == "file_recall" and r["answer_id"] == answer)
    assert (before[recall]["value"], after[recall]["value"]) == (1.0, 0.0)


def test_a_machine_graders_reasoning_goes_out_redacted(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        answer = add_raw_answer(store, run, add_question(store, "q1", "q?", "g", benchmark="bench"), "text", [])
        add_auto(store, answer, "wrong", reasoning="judge call failed: 502 for key Bearer sk-live1234567890abcdef")
        out = io.StringIO()
        export_scores(store, run, out)
    assert "sk-live1234567890abcdef" not in out.getvalue()
    comments = {json.loads(line)["comment"] for line in out.getvalue().splitlines()}
    assert comments == {"judge call failed: 502 for key Bearer [redacted]"}
