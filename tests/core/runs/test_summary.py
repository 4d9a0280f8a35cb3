"""Run summary and run comparison against hand-counted stores."""

from __future__ import annotations

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.grading.retrieval_evals import grade_retrieval
from gradedesk.core.store.connection import open_store, utc_now
from gradedesk.core.runs.compare import compare
from gradedesk.core.runs.summary import summarize
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run, hit


def judge_grade(store, answer_id, grade, label=None, *, model="judge-model", repeat=0, cost=0.002,
                kind="judge", raw="{}"):
    with store.transaction():
        store._db["auto_grades"].insert({
            "answer_id": answer_id, "grader_kind": kind, "grader_model": model,
            "rubric_version": None, "repeat_index": repeat, "grade": grade,
            "failure_label": label, "confidence": 0.8, "reasoning": "r", "raw_response": raw, "tokens_in": 300,
            "tokens_out": 40, "cost_usd": cost, "created_at": utc_now()})


@pytest.fixture
def store(tmp_path):
    return open_store(tmp_path / "s.db")


def build_run(store, grades: dict[tuple[str, str], tuple[str, str | None]], *, model="answer-model"):
    """Questions q1 (lookup, labelled), q2 (lookup, unlabelled), q3 (explain, labelled); raw and bundle answers."""
    qs = {}
    for qid, cat, files in (("q1", "lookup", ["a.py"]), ("q2", "lookup", None), ("q3", "explain", ["b.py"])):
        existing = store._scalar("SELECT id FROM questions WHERE question_id = ?", (qid,))
        qs[qid] = existing or add_question(store, qid, f"question {qid}", "gold", category=cat, files=files)
    run = add_run(store, model=model)
    ids = {}
    for qid, pk in qs.items():
        ids[(qid, "raw")] = add_raw_answer(store, run, pk, "answer", [hit("a.py"), hit("x.py")])
        ids[(qid, "bundle")] = add_bundle_answer(store, run, pk, "answer", [hit("a.py")], budget=2000)
    for key, (grade, label) in grades.items():
        judge_grade(store, ids[key], grade, label)
    return run, ids


GRADES_A = {("q1", "raw"): ("partially_correct", "retrieval_miss"), ("q1", "bundle"): ("fully_correct", None),
            ("q2", "raw"): ("wrong", "hallucination"), ("q2", "bundle"): ("unsupported", "grading_error"),
            ("q3", "raw"): ("fully_correct", None), ("q3", "bundle"): ("fully_correct", None)}


def test_summary_counts_costs_and_warnings(store):
    run, ids = build_run(store, GRADES_A, model="judge-model")
    judge_grade(store, ids[("q1", "raw")], "fully_correct", repeat=1)  # a repeat: consistency, not the grade table
    grade_retrieval(store, run)
    s = summarize(store, run)
    grades = {r["method"]: r for r in s["grades"]}
    assert list(grades) == ["raw", "bundle@2000"]
    assert (grades["raw"]["n"], grades["raw"]["fully_correct"], grades["raw"]["wrong"]) == (3, 1, 1)
    assert grades["raw"]["pass_rate"] == pytest.approx(1 / 3)
    # the grading error is its own column, and the pass rate is over usable grades: 2 of 2
    assert (grades["bundle@2000"]["unsupported"], grades["bundle@2000"]["grading_error"]) == (0, 1)
    assert grades["bundle@2000"]["pass_rate"] == 1.0
    cats = {(r["category"], r["method"]): r["pass_rate"] for r in s["by_category"]}
    assert cats[("lookup", "raw")] == 0.0 and cats[("explain", "bundle@2000")] == 1.0
    assert {(r["method"], r["failure_label"]): r["n"] for r in s["failure_labels"]}[("raw", "hallucination")] == 1
    retrieval = {(r["method"], r["metric"]): r for r in s["retrieval"]}
    # raw: q1 a.py,x.py vs [a.py] -> 0.5; q3 vs [b.py] -> 0.0; q2 unlabelled
    assert retrieval[("raw", "file_precision")]["mean"] == pytest.approx(0.25)
    assert retrieval[("raw", "file_precision")]["unlabelled"] == 1
    assert retrieval[("bundle@2000", "file_recall")]["mean"] == pytest.approx(0.5)
    answers = {r["method"]: r for r in s["answers"]}
    assert answers["raw"]["tokens_in"] == 300 and answers["raw"]["cost_usd"] == pytest.approx(0.003)
    assert s["cost"]["grading"]["judge"]["calls"] == 7
    assert s["cost"]["grading"]["cost_usd"] == pytest.approx(0.014)
    assert s["cost"]["grading_to_answering"] == pytest.approx(0.014 / (0.003 + 0.0024))
    assert s["graders"][0]["self_evaluation"] is True
    assert any("self-evaluation bias" in w for w in s["warnings"])
    assert any("1 grade(s) are grading errors" in w for w in s["warnings"])
    assert s["consistency"]["answers_repeated"] == 1 and len(s["consistency"]["changed"]) == 1


def test_summary_rule_grader_named_and_no_grades(store):
    run, ids = build_run(store, {})
    s = summarize(store, run)
    assert s["grades"] == [] and s["consistency"] is None
    judge_grade(store, ids[("q1", "raw")], "wrong", "hallucination", model="rules/1", kind="rule", cost=None)
    s = summarize(store, "latest")
    assert s["graders"] == [{"grader": "rule grader rules/1", "kind": "rule", "model": "rules/1",
                             "rubric_version": None, "self_evaluation": False}]
    assert any("not an LLM judge" in w for w in s["warnings"])
    assert [(g["method"], g["n"], g["ungraded"]) for g in s["grades"]] == [("raw", 1, 2)]
    assert s["cost"]["grading"]["cost_usd"] is None


def test_compare_per_category_and_question(store):
    run_a, _ = build_run(store, GRADES_A)
    grades_b = dict(GRADES_A)
    grades_b[("q1", "raw")] = ("fully_correct", None)                # better
    grades_b[("q3", "bundle")] = ("wrong", "reasoning_error")        # worse
    grades_b[("q2", "bundle")] = ("unsupported", "scope_confusion")  # was a grading error: changed
    run_b, _ = build_run(store, grades_b)
    c = compare(store, run_a, run_b)
    assert c["grader"] == "judge judge-model"
    assert (c["matched"], c["better"], c["worse"]) == (6, 1, 1)
    changed = {(q["question_id"], q["method"]): (q["grade_a"], q["grade_b"], q["direction"]) for q in c["changed"]}
    assert changed == {("q1", "raw"): ("partially_correct", "fully_correct", "better"),
                       ("q3", "bundle@2000"): ("fully_correct", "wrong", "worse"),
                       ("q2", "bundle@2000"): ("grading_error", "unsupported", "changed")}
    cats = {(r["category"], r["method"]): r for r in c["categories"]}
    assert cats[("lookup", "raw")]["pass_rate_a"] == 0.0 and cats[("lookup", "raw")]["pass_rate_b"] == 0.5
    assert cats[("lookup", "raw")]["delta"] == 0.5
    assert cats[("lookup", "bundle@2000")]["pass_rate_a"] == 1.0  # the grading error is left out of the rate
    assert cats[("explain", "bundle@2000")]["delta"] == -1.0
    methods = {m["method"]: m for m in c["methods"]}
    assert methods["raw"]["pass_rate_a"] == pytest.approx(1 / 3)
    assert methods["raw"]["pass_rate_b"] == pytest.approx(2 / 3)
    assert methods["bundle@2000"]["mean_tokens_in_a"] == 80


def test_compare_needs_a_common_grader(store):
    run_a, _ = build_run(store, GRADES_A)
    run_b, _ = build_run(store, {})
    with pytest.raises(UserError, match="no grader in common"):
        compare(store, run_a, run_b)
    with pytest.raises(UserError, match="no grader in common by 'rules/1'"):
        compare(store, run_a, run_a, grader="rules/1")
