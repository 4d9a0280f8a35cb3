"""The pairs the agreement report compares: each (answer, person)'s current grade beside a machine grader's grade.

- The machine grader is named, never assumed. By default each person's grade is compared with the machine grader that
  was on the desk when it was saved (human_grades.machine_kind/_model/_rubric), so a judge run later does not change
  whom people are compared with; grades that did not record one (older stores, imports) are compared with the
  `machine_grades` view's pick. A `GraderChoice` (`agree --grader judge:MODEL|rules|imported:NAME`) compares every
  grade with that grader instead. Then one kind is compared: the judge when there is one, else imported grades, else
  the rule grader (core/store/machine_grades.py compared_kind, which the desk's status line counts by too); pairs of
  another kind are left out of the headline and counted in the notes. A machine reply that could not be used
  (grading_error) makes no pair.
- A pair is (answer, person): with several people, each person's current grade is one pair. The bootstrap treats pairs
  as independent, which slightly understates the interval when two people graded the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.stats import measures as agree
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import compared_kind
from gradedesk.core.store.reports import PairRow, person_machine_pairs

KIND_NAMES = {"judge": "judge", "imported": "imported grades", "rule": "rule grader"}
NO_LABEL = "(no label)"


@dataclass(frozen=True)
class Pair:
    """A person's current grade of an answer beside the machine grade of the same answer."""

    answer_id: int
    question_pk: int
    grader: str
    human: str
    machine: str
    category: str
    method: str
    budget: int
    label: str  # the person's failure label, NO_LABEL when none
    mode: str
    rubric_version: str | None
    confidence: float | None
    selection: str | None = None  # how the person came to the item (core/agreement/samples.py)
    machine_kind: str | None = None  # the machine grader's kind and model (auto_grades.grader_kind, grader_model)
    machine_model: str | None = None


def pairs_matrix(pairs: Iterable[Pair]) -> np.ndarray:
    """The person (rows) x machine (columns) confusion matrix over the four grades."""
    pairs = list(pairs)
    return agree.confusion_matrix([p.human for p in pairs], [p.machine for p in pairs], GRADES)


def machine_label(kind: str, models: Iterable[str | None]) -> str:
    """'judge (gpt-x)', 'rule grader (rules/1)': what the people were compared with."""
    names = sorted({m for m in models if m})
    return f"{KIND_NAMES.get(kind, kind)} ({', '.join(names)})" if names else KIND_NAMES.get(kind, kind)


@dataclass(frozen=True)
class GraderChoice:
    """One machine grader to compare every person's grade with: a kind and, optionally, its model (any model of the
    kind when None; the newest grade of the first repeat per answer, as the desk shows)."""

    kind: str  # judge | rule | imported (auto_grades.grader_kind)
    model: str | None = None

    NAMES = {"judge": "judge", "rules": "rule", "imported": "imported"}

    @classmethod
    def parse(cls, text: str) -> GraderChoice:
        """`judge:MODEL`, `rules` or `imported:NAME` (NAME: the imported log's file name)."""
        name, _, model = text.partition(":")
        kind = cls.NAMES.get(name.strip())
        if kind is None:
            raise UserError(f"--grader: {text!r} is not judge:MODEL, rules or imported:NAME")
        return cls(kind, model.strip() or None)

    @property
    def text(self) -> str:
        name = next(n for n, k in self.NAMES.items() if k == self.kind)
        return f"{name}:{self.model}" if self.model else name


def load_pairs(store: Store, run_id: int, choice: GraderChoice | None) -> list[PairRow]:
    """Every person's current grade of the run's answers, with the compared machine grade (None when there is none,
    and when its reply could not be used): `choice`'s, else the grader's on the desk when the grade was saved."""
    if choice is None:
        return person_machine_pairs(store, run_id)
    return person_machine_pairs(store, run_id, choice.kind, choice.model)


def choose_kind(graders: Iterable[tuple[str | None, str | None]]) -> str | None:
    """The kind of machine grader compared, of the (kind, model) `graders`."""
    return compared_kind(kind for kind, _ in graders)


def pair_from_row(r: PairRow) -> Pair:
    assert r.machine is not None  # only rows with a usable machine grade become pairs
    return Pair(r.answer_id, r.question_pk, r.grader, r.human, r.machine, r.category, r.method, r.budget,
                r.human_label or NO_LABEL, r.mode, r.rubric_version, r.confidence, r.selection, r.grader_kind,
                r.grader_model)
