"""People's grades as append-only events: record a grade (with its label, four dimension scores and note), undo as a
new event, preferences between the two answers. No textual here.

A `set` event carries the person's whole current state for an answer, so the newest one not taken back by an `undo`
event is the current grade (the `current_human_grades` view). Each event records whether the machine grade was on
screen (judge_visible), the mode (blind, open, recheck), whether it changed the person's mind after the reveal
(is_revision), and which machine grader the desk had for the answer (machine_kind, _model, _rubric).
Events made in a recheck pass measure self-consistency and never replace the grade they re-check.

Having seen the machine grade is a fact about the person, not a state of the screen: once they have graded an answer
outside a recheck pass (the desk then shows its machine grade), every later grade of theirs on it is stored as made
with the judge in view, and as a revision, even after an undo took the earlier grade back.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES, PASS_GRADE
from gradedesk.core.store.connection import Store, utc_now

PREFERENCES = ("raw", "bundle", "tie")
MODES = ("blind", "open", "recheck")
# how the person came to the item (the desk's navigation); estimates weigh 'sampled' items by their probability
SELECTIONS = ("question_order", "sampled", "filter", "jump", "recheck", "imported")


@dataclass(frozen=True)
class HumanGrade:
    id: int
    uuid: str
    answer_id: int
    grader: str
    grade: str | None
    failure_label: str | None
    correctness: int | None
    grounding: int | None
    completeness: int | None
    conciseness: int | None
    note: str | None
    judge_visible: int
    mode: str
    is_revision: int
    rubric_version: str | None
    created_at: str
    selection: str | None = None
    selection_probability: float | None = None

    @property
    def scores(self) -> dict[str, int | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}


_HUMAN_FIELDS = tuple(HumanGrade.__dataclass_fields__)


def _human(row: dict | None) -> HumanGrade | None:
    return HumanGrade(**{k: row[k] for k in _HUMAN_FIELDS}) if row else None


def seen_sql(answer: str, grader: str) -> str:
    """SQL: whether person `grader` has seen the machine grade of `answer` (SQL expressions for both): it has one, and
    they graded the answer outside a recheck pass or saved something with the judge in view."""
    return (f"(EXISTS (SELECT 1 FROM auto_grades g WHERE g.answer_id = {answer}) AND "
            f"EXISTS (SELECT 1 FROM human_grades s WHERE s.answer_id = {answer} AND s.grader = {grader} "
            f"AND ((s.action = 'set' AND s.mode <> 'recheck') OR s.judge_visible = 1)))")


def judge_seen(store: Store, answer_id: int, grader: str) -> bool:
    return bool(store.scalar(f"SELECT {seen_sql(':answer', ':grader')}", {"answer": answer_id, "grader": grader}))


def current_grade(store: Store, answer_id: int, grader: str, *, recheck: bool = False) -> HumanGrade | None:
    """The grader's current grade of an answer (or, with recheck=True, their newest live recheck event)."""
    if recheck:
        rows = store.query(
            "SELECT * FROM human_grades h WHERE h.answer_id = ? AND h.grader = ? AND h.action = 'set' "
            "AND h.mode = 'recheck' AND NOT EXISTS (SELECT 1 FROM human_grades u WHERE u.action = 'undo' "
            "AND u.undoes_uuid = h.uuid) ORDER BY h.id DESC LIMIT 1", (answer_id, grader))
    else:
        rows = store.query("SELECT * FROM current_human_grades WHERE answer_id = ? AND grader = ?", (answer_id, grader))
    return _human(rows[0] if rows else None)


@dataclass(frozen=True)
class GradeChange:
    """What a key press changes; fields left as ... keep the answer's current value."""
    grade: Any = ...
    failure_label: Any = ...
    scores: dict[str, int | None] | None = None
    note: Any = ...


def _check_change(change: GradeChange) -> None:
    if change.grade is not ... and change.grade not in GRADES:
        raise UserError(f"grade: {change.grade!r} is not one of {', '.join(GRADES)}")
    if change.failure_label not in (..., None) and change.failure_label not in FAILURE_LABELS:
        raise UserError(f"failure_label: {change.failure_label!r} is not one of {', '.join(FAILURE_LABELS)}")
    for dim, value in (change.scores or {}).items():
        if dim not in DIMENSIONS:
            raise UserError(f"score: {dim!r} is not one of {', '.join(DIMENSIONS)}")
        if value is not None and (not isinstance(value, int) or not 1 <= value <= 5):
            raise UserError(f"{dim}: {value!r} is not a score from 1 to 5")


@dataclass(frozen=True)
class MachineOnDesk:
    """The machine grader whose grade the desk had for the answer (auto_grades.grader_kind, grader_model,
    rubric_version)."""
    kind: str
    model: str | None
    rubric: str | None


def record_grade(store: Store, answer_id: int, grader: str, change: GradeChange, *, mode: str = "blind",
                 judge_visible: bool = False, rubric_version: str | None = None, selection: str | None = None,
                 selection_probability: float | None = None, machine: MachineOnDesk | None = None) -> HumanGrade:
    """Append a `set` event: the grader's current state for the answer with `change` applied. One transaction.

    `judge_visible` says whether the machine grade was on screen when the person saved; outside a recheck pass it is
    also true once they have seen it before (see the module docstring). A save after an earlier grade with the judge in
    view is stored as a revision (is_revision=1), so switch rates can be measured. `selection` says how the person came
    to the item; a 'sampled' one carries the probability it was drawn with. `machine`: the grader on the desk.
    """
    _check_change(change)
    if selection is not None and selection not in SELECTIONS:
        raise UserError(f"selection: {selection!r} is not one of {', '.join(SELECTIONS)}")
    if (selection == "sampled") != (selection_probability is not None):
        raise UserError("selection_probability: give it for a sampled item, and only then")
    if mode not in MODES:
        raise UserError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    recheck = mode == "recheck"
    with store.transaction():
        before = current_grade(store, answer_id, grader, recheck=recheck)
        seen = not recheck and judge_seen(store, answer_id, grader)
        judge_visible = judge_visible or seen
        if before is None and change.grade is ...:
            raise UserError("grade the answer first (keys 1-4), then add a label, scores or a note")
        base = {"grade": None, "failure_label": None, "note": None, **{d: None for d in DIMENSIONS}}
        if before is not None:
            base.update({k: getattr(before, k) for k in base})
        if change.grade is not ...:
            base["grade"] = change.grade
            if change.grade == PASS_GRADE:  # a failure label cannot describe a fully correct answer
                base["failure_label"] = None
        if change.failure_label is not ...:
            base["failure_label"] = change.failure_label
        base.update(change.scores or {})
        if change.note is not ...:
            base["note"] = change.note or None
        row = {
            "uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader, "action": "set", **base,
            "judge_visible": int(judge_visible), "mode": mode,
            "is_revision": int((before is not None or seen) and judge_visible and not recheck),
            "rubric_version": rubric_version, "created_at": utc_now(), "selection": selection,
            "selection_probability": selection_probability,
            "machine_kind": machine and machine.kind, "machine_model": machine and machine.model,
            "machine_rubric": machine and machine.rubric,
        }
        store.db["human_grades"].insert(row)
        rows = store.query("SELECT * FROM human_grades WHERE uuid = ?", (row["uuid"],))
    return _human(rows[0])


def undo_last(store: Store, run_id: int, grader: str) -> HumanGrade | None:
    """Take back the grader's newest live `set` event in the run with an `undo` event; return the event undone."""
    with store.transaction():
        rows = store.query(
            "SELECT h.* FROM human_grades h JOIN answers a ON a.id = h.answer_id "
            "WHERE h.grader = ? AND a.run_id = ? AND h.action = 'set' AND NOT EXISTS "
            "(SELECT 1 FROM human_grades u WHERE u.action = 'undo' AND u.undoes_uuid = h.uuid) "
            "ORDER BY h.id DESC LIMIT 1", (grader, run_id))
        if not rows:
            return None
        target = rows[0]
        store.db["human_grades"].insert({
            "uuid": str(uuid.uuid4()), "answer_id": target["answer_id"], "grader": grader, "action": "undo",
            "undoes_uuid": target["uuid"], "judge_visible": target["judge_visible"], "mode": target["mode"],
            "created_at": utc_now(),
        })
    return _human(target)


def record_preference(store: Store, run_id: int, question_pk: int, grader: str, preferred: str,
                      left: str) -> None:
    if preferred not in PREFERENCES:
        raise UserError(f"preference: {preferred!r} is not one of {', '.join(PREFERENCES)}")
    with store.transaction():
        store.db["human_preferences"].insert({
            "uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "grader": grader,
            "preferred": preferred, "left_method": left, "created_at": utc_now()})
