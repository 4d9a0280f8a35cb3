"""Grades for the agreement tests, inserted directly into a real store (runs and answers come from grading_fixtures)."""

from __future__ import annotations

import uuid as uuidlib

from core.grades import GRADES
from core.store import Store, open_store, utc_now
from grading_fixtures import add_bundle_answer, add_question, add_raw_answer, add_run


def add_rubric(store: Store, version: str, created_at: str) -> None:
    with store.transaction():
        store.db["rubrics"].insert({"version": version, "text": f"rubric {version}", "created_at": created_at})


def add_auto(store: Store, answer_id: int, grade: str, *, kind: str = "judge", model: str | None = "judge-model",
             confidence: float | None = None, rubric: str | None = None, label: str | None = None,
             repeat: int = 0) -> int:
    with store.transaction():
        return store.db["auto_grades"].insert({
            "answer_id": answer_id, "grader_kind": kind, "grader_model": model, "rubric_version": rubric,
            "repeat_index": repeat, "grade": grade, "failure_label": label, "confidence": confidence,
            "reasoning": f"reasoning for {answer_id}", "created_at": utc_now(),
        }).last_pk


def add_human(store: Store, answer_id: int, grader: str, grade: str | None, *, mode: str = "blind",
              judge_visible: int = 0, is_revision: int = 0, rubric: str | None = None, label: str | None = None,
              action: str = "set", undoes: str | None = None, note: str | None = None) -> str:
    uid = str(uuidlib.uuid4())
    with store.transaction():
        store.db["human_grades"].insert({
            "uuid": uid, "answer_id": answer_id, "grader": grader, "action": action, "undoes_uuid": undoes,
            "grade": grade, "failure_label": label, "note": note, "judge_visible": judge_visible, "mode": mode,
            "is_revision": is_revision, "rubric_version": rubric, "correctness": 4 if grade else None,
            "created_at": utc_now(),
        })
    return uid


FC, PC, UN, WR = GRADES
# question: (category, judge raw, judge bundle, alice raw, alice bundle) -- alice's blind grades
TABLE = {
    "q1": ("lookup", FC, FC, FC, FC),
    "q2": ("lookup", WR, FC, WR, PC),
    "q3": ("lookup", PC, FC, WR, FC),
    "q4": ("explain", FC, PC, FC, PC),
    "q5": ("explain", UN, FC, WR, FC),
    "q6": ("explain", WR, WR, PC, WR),
}
BOB = {("q1", "raw"): FC, ("q2", "raw"): WR, ("q3", "raw"): PC, ("q5", "bundle"): PC}
SNIPPET = {"chunk_id": "c1", "text": "def f(): pass", "file_path": "m.py", "start_line": 1, "end_line": 1,
           "symbol_name": "f"}


def build(path) -> tuple:
    """The agreement story: two people, a judge, revisions, rechecks, an undo, two rubric versions."""
    store = open_store(path)
    add_rubric(store, "r1", "2024-01-01T00:00:00+00:00")
    add_rubric(store, "r2", "2024-02-01T00:00:00+00:00")
    run = add_run(store, primary_budget=2000)
    ids = {}
    for qid, (cat, jr, jb, ar, ab) in TABLE.items():
        qpk = add_question(store, qid, f"question {qid}?", "gold", category=cat)
        raw = add_raw_answer(store, run, qpk, "raw answer", [], tokens_in=300)
        bundle = add_bundle_answer(store, run, qpk, "bundle answer", [SNIPPET], budget=2000, tokens_in=2100)
        ids[(qid, "raw")], ids[(qid, "bundle")] = raw, bundle
        add_auto(store, raw, jr, confidence=0.9, rubric="r2")
        add_auto(store, bundle, jb, confidence=0.6, rubric="r2")
        add_auto(store, raw, WR, kind="rule", model="rules/1")  # never preferred over the judge
        add_human(store, raw, "alice", ar, rubric="r1" if qid == "q4" else "r2")
        add_human(store, bundle, "alice", ab, rubric="r2")
        if qid in ("q1", "q2"):  # a third arm of the budget sweep, graded by the judge only
            small = add_bundle_answer(store, run, qpk, "small bundle", [SNIPPET], budget=1000, tokens_in=1100)
            add_auto(store, small, WR)
    # alice revises two grades after the reveal: q3 raw toward the judge, q6 raw away from it
    add_human(store, ids[("q3", "raw")], "alice", PC, mode="open", judge_visible=1, is_revision=1, rubric="r2")
    add_human(store, ids[("q6", "raw")], "alice", FC, mode="open", judge_visible=1, is_revision=1, rubric="r2")
    # rechecks: q1 raw the same again, q2 bundle different (a recheck is measured, it never replaces the current grade)
    add_human(store, ids[("q1", "raw")], "alice", FC, mode="recheck", rubric="r2")
    add_human(store, ids[("q2", "bundle")], "alice", WR, mode="recheck", rubric="r2")
    # an undone grade leaves no trace in any measure
    undone = add_human(store, ids[("q5", "bundle")], "alice", WR, rubric="r2")
    add_human(store, ids[("q5", "bundle")], "alice", None, action="undo", undoes=undone)
    for (qid, method), grade in BOB.items():
        add_human(store, ids[(qid, method)], "bob", grade, rubric="r2", label="hallucination")
    return store, run, ids
