"""People's grades as append-only events: record a grade (with its label, four dimension scores and note), and a
preference between the two answers; what may be recorded, and what a grade event says. The events are stored by
core/store/grades.py (HumanGrade, the current grade, whether the judge was seen, undo) and core/store/preferences.py.
No textual here.

A `set` event carries the person's whole current state for an answer, so the newest one not taken back by an `undo`
event is the current grade (the `current_human_grades` view). A label, scores or a note may come before the grade
(blind): that state has no grade yet, and nothing counts it as graded. Each event records whether the machine grade
was on screen (judge_visible), the mode (blind, open, recheck), whether it changed the person's mind after the reveal
(is_revision), and which machine grader the desk had for the answer (machine_kind, _model, _rubric).
Events made in a recheck pass measure self-consistency and never replace the grade they re-check.

Having seen the machine grade is a fact about the person, not a state of the screen (core/review/visibility.py):
once they have graded an answer outside a recheck pass (the desk then shows its machine grade), every later event of
theirs on it is stored as made with the judge in view, and as a revision, even after an undo took the grade back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES, PASS_GRADE
from gradedesk.core.store import grades, preferences
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import HumanGrade, MachineOnDesk
from gradedesk.core.store.run_records import run_info

PREFERENCES = ("raw", "bundle", "tie")
MODES = ("blind", "open", "recheck")
# how the person came to the item (the desk's navigation); estimates weigh 'sampled' items by their probability
SELECTIONS = ("question_order", "sampled", "filter", "jump", "recheck", "imported")


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


def record_grade(store: Store, answer_id: int, grader: str, change: GradeChange, *, mode: str = "blind",
                 judge_visible: bool = False, rubric_version: str | None = None, selection: str | None = None,
                 selection_probability: float | None = None, machine: MachineOnDesk | None = None,
                 budget: int | None = None) -> HumanGrade:
    """Append a `set` event: the grader's current state for the answer with `change` applied. One transaction.

    `judge_visible` says whether the machine grade was on screen when the person saved; outside a recheck pass it is
    also true once they have seen it before (see the module docstring). A save after an earlier event with the judge
    in view is stored as a revision (is_revision=1), so switch rates can be measured. `selection` says how the person
    came to the item; a 'sampled' one carries the probability it was drawn with. `machine`: the grader on the desk;
    `budget`: the budget of the bundled answer on the desk (a raw answer's grade is its own, beside whichever).
    """
    _check_change(change)
    _check_selection(selection, selection_probability)
    if mode not in MODES:
        raise UserError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    recheck = mode == "recheck"
    with store.transaction():
        before = grades.current_grade(store, answer_id, grader, recheck=recheck)
        seen = not recheck and grades.judge_seen(store, answer_id, grader)
        judge_visible = judge_visible or seen
        base = applied(before, change, ("grade", "failure_label", "note", *DIMENSIONS))
        return grades.add_grade(
            store, answer_id, grader, base, judge_visible=judge_visible, mode=mode,
            is_revision=(before is not None or seen) and judge_visible and not recheck, rubric_version=rubric_version,
            selection=selection, selection_probability=selection_probability, machine=machine, budget=budget)


def applied(before: Any, change: GradeChange, names: tuple[str, ...]) -> dict[str, Any]:
    """The state `names` (grade, failure_label, note, and the dimension scores a person's grade has) after `change`,
    from `before` (an event with those attributes, or None): a fully correct grade clears the label."""
    _check_change(change)
    base: dict[str, Any] = {k: getattr(before, k) if before is not None else None for k in names}
    if change.grade is not ...:
        base["grade"] = change.grade
        if change.grade == PASS_GRADE:  # a failure label cannot describe a fully correct answer
            base["failure_label"] = None
    if change.failure_label is not ...:
        base["failure_label"] = change.failure_label
    base.update({d: v for d, v in (change.scores or {}).items() if d in names})
    if change.note is not ...:
        base["note"] = change.note or None
    return base


def _check_selection(selection: str | None, probability: float | None) -> None:
    if selection is not None and selection not in SELECTIONS:
        raise UserError(f"selection: {selection!r} is not one of {', '.join(SELECTIONS)}")
    if (selection == "sampled") != (probability is not None):
        raise UserError("selection_probability: give it for a sampled item, and only then")


def record_preference(store: Store, run_id: int, question_pk: int, grader: str, preferred: str, left: str, *,
                      judge_visible: bool = False, selection: str | None = None,
                      selection_probability: float | None = None, budget: int | None = None) -> preferences.Preference:
    """Append a preference event: `judge_visible`, whether a machine grade of either answer was on screen;
    `selection`, how the person came to the question (as for grades); `budget`, the bundled answer's compared (None:
    the run's largest, which the desk shows unless another is chosen)."""
    if preferred not in PREFERENCES:
        raise UserError(f"preference: {preferred!r} is not one of {', '.join(PREFERENCES)}")
    _check_selection(selection, selection_probability)
    if budget is None:
        budget = run_info(store, run_id).primary_budget
    return preferences.add_preference(store, run_id, question_pk, grader, preferred, left,
                                      judge_visible=judge_visible, selection=selection,
                                      selection_probability=selection_probability, budget=budget)
