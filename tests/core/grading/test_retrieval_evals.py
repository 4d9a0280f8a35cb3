"""Retrieval evals against hand-computed cases, pure and through a real store (raw hits and bundle snippets)."""

from __future__ import annotations

import pytest

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.retrieval_evals import average_precision, grade_retrieval, retrieval_scores
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run, hit, scores_of


def by_metric(scores):
    return {s.metric: s for s in scores}


def items(*pairs):
    return [Evidence(f, s, chunk_id=f"{f}:{s}:{i}") for i, (f, s) in enumerate(pairs)]


def test_average_precision_hand_computed():
    # relevant at ranks 1 and 3: (1/1 + 2/3) / 2
    assert average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    # relevant only at rank 2: (1/2) / 1
    assert average_precision([False, True, False]) == pytest.approx(0.5)
    assert average_precision([False, False]) == 0.0
    assert average_precision([]) is None


def test_precision_recall_and_missing_extra_files():
    ev = items(("a.py", "A.f"), ("x.py", "X"), ("b.py", "g"), ("a.py", "A.h"))
    s = by_metric(retrieval_scores(ev, ["a.py", "b.py", "c.py"], ["A.f", "g", "Z"]))
    # distinct evidence files a, x, b: 2 of 3 are expected; 2 of 3 expected files found
    assert s["file_precision"].value == pytest.approx(2 / 3)
    assert s["file_recall"].value == pytest.approx(2 / 3)
    assert s["file_recall"].detail["missing_files"] == ["c.py"]
    assert s["file_precision"].detail["extra_files"] == ["x.py"]
    # symbols A.f and g found (g matches the bare label), Z missing
    assert s["symbol_recall"].value == pytest.approx(2 / 3)
    assert s["symbol_recall"].detail["missing_symbols"] == ["Z"]
    # relevance by rank: a.py(1) x.py(0) b.py(1) a.py(1) -> (1/1 + 2/3 + 3/4) / 3
    assert s["context_precision"].value == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    # reference ids: 3 files + 3 symbols; found a.py, b.py, A.f, g
    assert s["context_recall"].value == pytest.approx(4 / 6)
    assert s["context_recall"].detail["missing_ids"] == ["file:c.py", "symbol:Z"]


def test_symbol_recall_uses_evidence_symbols_not_file_names():
    ev = [Evidence("core/store.py", None, chunk_id="w1", text="def transaction(self): ...")]
    s = by_metric(retrieval_scores(ev, None, ["Store.transaction"]))
    assert s["symbol_recall"].value == 0.0
    assert s["file_precision"].value is None and s["file_precision"].detail["unlabelled"]


def test_empty_evidence_precision_undefined_recall_zero():
    s = by_metric(retrieval_scores([], ["a.py"], ["f"]))
    assert s["file_precision"].value is None
    assert s["file_precision"].detail["reason"] == "no evidence"
    assert s["file_recall"].value == 0.0
    assert s["symbol_recall"].value == 0.0
    assert s["context_precision"].value is None
    assert s["context_recall"].value == 0.0


def test_unlabelled_is_reported_as_unlabelled_never_zero():
    s = by_metric(retrieval_scores(items(("a.py", "f")), None, None))
    for metric in ("file_precision", "file_recall", "symbol_recall", "context_precision", "context_recall"):
        assert s[metric].value is None, metric
        assert s[metric].detail["unlabelled"] is True


def test_empty_label_lists_are_not_divisions_by_zero():
    s = by_metric(retrieval_scores(items(("a.py", "f")), [], []))
    assert s["file_precision"].value == 0.0  # one evidence file, none expected
    assert s["file_recall"].value is None and s["file_recall"].detail["reason"] == "no files expected"
    assert s["symbol_recall"].value is None
    assert s["context_recall"].value is None


def test_duplicates_count_once():
    dup = Evidence("a.py", "f", chunk_id="c1")
    ev = [dup, Evidence("x.py", None, chunk_id="c2"), dup, Evidence("a.py", "f", chunk_id="c1")]
    s = by_metric(retrieval_scores(ev, ["a.py", "a.py"], ["f"]))
    # ranked after de-duplication: c1 (relevant), c2 (not) -> AP = 1/1 / 1
    assert s["context_precision"].value == 1.0
    assert s["context_precision"].detail["relevance"] == [1, 0]
    assert s["file_precision"].value == 0.5
    assert s["file_recall"].value == 1.0  # duplicate label counted once
    assert s["context_recall"].value == 1.0


def test_grade_retrieval_raw_and_bundle_from_store(tmp_path):
    store = open_store(tmp_path / "s.db")
    q = add_question(store, "q1", "Where is X?", "In a.py", files=["a.py"], symbols=["X"])
    unl = add_question(store, "q2", "Explain", "It is so")
    run = add_run(store)
    raw = add_raw_answer(store, run, q, "X is in a.py", [hit("b.py", "Y"), hit("a.py", "X")])
    bundle = add_bundle_answer(store, run, q, "X is in a.py", [hit("a.py", "X"), hit("b.py", "Y")])
    raw_unl = add_raw_answer(store, run, unl, "text", [hit("a.py")])
    failed = add_raw_answer(store, run, add_question(store, "q3", "?", "g", files=["a.py"]), None, [],
                            status="error")
    assert grade_retrieval(store, run) == 3
    r, b = scores_of(store, raw, "id-based"), scores_of(store, bundle, "id-based")
    assert r["context_precision"]["value"] == pytest.approx(0.5)  # relevant at rank 2 only
    assert b["context_precision"]["value"] == 1.0  # bundle snippet order: relevant first
    assert r["file_recall"]["value"] == b["file_recall"]["value"] == 1.0
    assert scores_of(store, raw_unl, "id-based")["file_recall"]["value"] is None
    assert scores_of(store, failed, "id-based") == {}
    # idempotent: a second pass replaces, never duplicates
    grade_retrieval(store, run)
    assert store._scalar("SELECT count(*) FROM answer_scores WHERE answer_id = ?", (raw,)) == 5
