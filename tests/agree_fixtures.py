"""Grades for the agreement tests, inserted directly into a real store (runs and answers come from grading_fixtures)."""

from __future__ import annotations

import uuid as uuidlib

from core.store import Store, utc_now


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
