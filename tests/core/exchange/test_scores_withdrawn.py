"""export-scores --withdrawn: what an earlier export carried that the store no longer has, in each format's own ids."""

from __future__ import annotations

from gradedesk.core.exchange.scores import gradedesk_records
from gradedesk.core.exchange.scores_langfuse import langfuse_scores
from gradedesk.core.exchange.scores_phoenix import phoenix_annotations
from gradedesk.core.exchange.scores_withdrawn import withdrawn_records
from gradedesk.core.store.grades import undo_last_mark
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review import session
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store.run_records import run_info
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_auto
from tests.fixtures.claims_store import add_marked_answer
from tests.fixtures.grading import add_question, add_raw_answer, add_run

FORMATS = {"gradedesk": (gradedesk_records, lambda r: r["id"]), "langfuse": (langfuse_scores, lambda r: r["id"]),
           "phoenix": (phoenix_annotations, lambda r: (r["span_id"], r["name"], r["identifier"]))}


def exported(store, run) -> dict[str, set]:
    return {fmt: {ident(r) for r in records(store, run)} for fmt, (records, ident) in FORMATS.items()}


def withdrawn(store, run) -> dict[str, set]:
    return {fmt: {ident(r) for r in withdrawn_records(store, run, fmt)} for fmt, (_, ident) in FORMATS.items()}


def test_what_is_gone_since_an_earlier_export_is_named_as_each_format_names_it(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        q1, q2 = (add_question(store, q, "q?", "g", benchmark="bench") for q in ("q1", "q2"))
        answer, other = add_raw_answer(store, run, q1, "text", []), add_raw_answer(store, run, q2, "text", [])
        marked = add_marked_answer(store, run, add_question(store, "q3", "q?", "g", benchmark="bench"))
        add_auto(store, answer, "wrong")
        record_grade(store, answer, "alice", GradeChange(grade="wrong", failure_label="retrieval_miss",
                                                         scores={"correctness": 2, "grounding": 3}))
        record_grade(store, other, "bob", GradeChange(grade="fully_correct"))
        before = exported(store, run)
        assert withdrawn(store, run) == {fmt: set() for fmt in FORMATS}  # nothing is gone yet
        # alice's revision clears a dimension and the label; bob's grade is undone; bob takes back his only claim
        # mark, and alice her last one (her answer is no longer fully marked)
        record_grade(store, answer, "alice", GradeChange(failure_label=None, scores={"grounding": None}))
        session.undo(store, run_info(store, run), "bob", Blindness())
        undo_last_mark(store, marked, "bob")
        undo_last_mark(store, marked, "alice")
        after, gone = exported(store, run), withdrawn(store, run)
    for fmt in FORMATS:
        assert gone[fmt] == before[fmt] - after[fmt], fmt  # exactly what the new export no longer carries
        assert gone[fmt]
    assert {i.rsplit(":", 1)[1] for i in gone["gradedesk"]} == {
        "grounding", "grade", "pass", "claim_mark", "faithfulness", "citation_precision"}
    assert {name for _, name, _ in gone["phoenix"]} >= {"failure_label", "grounding", "claim_mark"}


def test_marks_on_claims_split_by_an_older_version_are_read_without_their_count(tmp_path):
    """Claims stored by another splitter version are not loaded (load_claims gives None): the marks still are."""
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        marked = add_marked_answer(store, run, add_question(store, "q1", "q?", "g", benchmark="bench"))
        store._conn.execute("UPDATE answer_claims SET splitter = 'claims/0' WHERE answer_id = ?", (marked,))
        undo_last_mark(store, marked, "bob")
        gone = list(withdrawn_records(store, run, "gradedesk"))
    assert [r["name"] for r in gone] == ["claim_mark"] and gone[0]["grader"] == "bob"
