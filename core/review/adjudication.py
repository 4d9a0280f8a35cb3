"""Adjudication: where the people assigned to an item disagree, a lead decides (gradedesk grade --adjudicate).

An item is disputed when two or more of its assigned people gave one of its answers different current grades, or
gave different preferences between its two answers. The queue (`adjudication_queue`) is the run's disputed items in
question order, leaving out, for a lead who is also one of an item's people, the items they have not graded yet: no
desk shows a person another's grade, label or note on an item before they have graded it. The desk shows the people's
grades, labels and notes side by side (`people_on_item`), and the lead's decision is stored as its own kind of grade
(core/store/adjudications.py: never in human_grades, so no figure of people's grades counts it). The desk shows raw
beside the bundled answer at one budget (RunInfo.bundle_budget): what is disputed and decided there is the raw
answer, the bundled answer at that budget and the preference between the two; people's grades and preferences at
another budget are another comparison, never a dispute with these. No textual here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gradedesk.core.grading.human_grades import PREFERENCES, GradeChange, applied
from gradedesk.core.errors import UserError
from gradedesk.core.store import adjudications
from gradedesk.core.store.adjudications import Decision
from gradedesk.core.store.assignments import AssignedGrade, assigned_grades, current_assignments
from gradedesk.core.store.connection import Store
from gradedesk.core.store.preferences import Preference, live_preferences
from gradedesk.core.store.run_records import RunInfo

DECIDED = ("grade", "failure_label", "note")  # what a decision on an answer holds


@dataclass(frozen=True)
class PeopleOnItem:
    """What the people assigned to an item said of it, and what was decided."""

    grades: dict[str, list[AssignedGrade]]  # by method
    preferences: list[Preference]  # the assigned people's live preferences
    decisions: dict[str | None, Decision]  # by method; None: the preference

    def seen(self, method: str | None) -> list[str]:
        """The uuids of the people's events on screen for a decision on `method` (None: the preference)."""
        if method is None:
            return [p.uuid for p in self.preferences]
        return [g.uuid for g in self.grades.get(method, [])]

    @property
    def disputed(self) -> bool:
        return (any(len({g.grade for g in gs}) > 1 for gs in self.grades.values())
                or len({p.preferred for p in self.preferences}) > 1)


def _people(store: Store, run_id: int) -> dict[int, set[str]]:
    people: dict[int, set[str]] = defaultdict(set)
    for a in current_assignments(store, run_id):
        people[a.question_pk].add(a.grader)
    return people


def _at(budget: int | None, method: str | None, at: int | None) -> bool:
    """An event on `method` (None: the preference) recorded at budget `at` belongs to the desk showing the bundled
    answer at `budget` (None: every budget). A raw answer's grade is its own, beside any budget; an event that
    recorded no budget was made beside the only one there was."""
    return budget is None or method == "raw" or at is None or at == budget


def _on_items(store: Store, run_id: int, budget: int | None,
              question_pk: int | None = None) -> dict[int, PeopleOnItem]:
    people = _people(store, run_id)
    grades: dict[int, dict[str, list[AssignedGrade]]] = defaultdict(lambda: defaultdict(list))
    for g in assigned_grades(store, run_id, question_pk):
        if _at(budget, g.method, g.budget):
            grades[g.question_pk][g.method].append(g)
    prefs: dict[int, list[Preference]] = defaultdict(list)
    for p in live_preferences(store, run_id, question_pk):
        if p.grader in people.get(p.question_pk, ()) and _at(budget, None, p.budget):
            prefs[p.question_pk].append(p)
    decisions: dict[int, dict[str | None, Decision]] = defaultdict(dict)
    for d in adjudications.current_decisions(store, run_id, question_pk):
        if _at(budget, d.method, d.budget):
            decisions[d.question_pk][d.method] = d
    pks = set(grades) | set(prefs) if question_pk is None else {question_pk}
    return {pk: PeopleOnItem({m: list(gs) for m, gs in grades[pk].items()}, prefs[pk], decisions[pk])
            for pk in sorted(pks)}


def people_on_item(store: Store, run_id: int, question_pk: int, budget: int | None = None) -> PeopleOnItem:
    """What the item's people said of raw and of the bundled answer at `budget`, and the preference between them
    (None: at every budget)."""
    return _on_items(store, run_id, budget, question_pk)[question_pk]


def adjudication_queue(store: Store, run: RunInfo, lead: str) -> list[int]:
    """The run's disputed items in question order (raw beside the bundled answer the desk shows), without those
    assigned to `lead` that `lead` has not graded."""
    people = _people(store, run.id)
    out = []
    for pk, on in _on_items(store, run.id, run.bundle_budget).items():
        if not on.disputed:
            continue
        if lead in people.get(pk, ()) and not any(g.grader == lead for gs in on.grades.values() for g in gs):
            continue  # theirs to grade first: the others' grades stay unseen until then
        out.append(pk)
    return out


def decide_grade(store: Store, run: RunInfo, question_pk: int, method: str, budget: int, lead: str,
                 change: GradeChange, *, judge_visible: bool) -> Decision:
    """Store the lead's decision on one answer of an item: the current decision with `change` applied (scores are
    not decided: people's scores stay theirs). One transaction; it records the people's grades it was made beside."""
    if change.scores:
        raise UserError("adjudication decides a grade, a label and a note; scores stay each person's")
    with store.transaction():
        on = people_on_item(store, run.id, question_pk, run.bundle_budget)
        state = applied(on.decisions.get(method), change, DECIDED)
        return adjudications.add_decision(store, run.id, question_pk, lead, method=method, budget=budget,
                                          state=state, seen=on.seen(method), judge_visible=judge_visible)


def decide_preference(store: Store, run: RunInfo, question_pk: int, lead: str, preferred: str, *,
                      judge_visible: bool) -> Decision:
    """Store the lead's decision between the item's two answers (raw, bundle or tie), raw beside the bundled answer at
    the budget the desk shows."""
    if preferred not in PREFERENCES:
        raise UserError(f"preference: {preferred!r} is not one of {', '.join(PREFERENCES)}")
    with store.transaction():
        on = people_on_item(store, run.id, question_pk, run.bundle_budget)
        return adjudications.add_decision(store, run.id, question_pk, lead, method=None, budget=run.bundle_budget,
                                          state={"preferred": preferred}, seen=on.seen(None),
                                          judge_visible=judge_visible)


def undo_decision(store: Store, run: RunInfo, lead: str, *, judge_visible: bool) -> Decision | None:
    """Take back the lead's newest decision in the run at the budget the desk shows (an undo row); None when there is
    none."""
    with store.transaction():
        target = adjudications.newest_live_decision(store, run.id, lead, run.bundle_budget)
        if target is not None:
            adjudications.undo_decision(store, target, judge_visible=judge_visible)
    return target
