"""The pairs the agreement report compares: each (answer, person)'s current grade beside a machine grader's grade.

- The machine grader is named, never assumed. By default each person's grade is compared with the machine grader that
  was on the desk when it was saved (human_grades.machine_kind/_model/_rubric), so a judge run later does not change
  whom people are compared with; grades that did not record one (older stores, imports) are compared with the
  `machine_grades` view's pick. A `GraderChoice` (`agree --grader judge:MODEL|rules|imported:NAME`) compares every
  grade with that grader instead. Then one kind is compared: the judge when there is one, else imported grades, else
  the rule grader (`choose_kind`); pairs of another kind are left out of the headline and counted in the notes.
- A pair is (answer, person): with several people, each person's current grade is one pair. The bootstrap treats pairs
  as independent, which slightly understates the interval when two people graded the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gradedesk.core.agreement import statistics as agree
from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.machine_grades import verdict_sql
from gradedesk.core.store.connection import Store

KIND_PREFERENCE = ("judge", "imported", "rule")
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

    def pick_sql(self, answer: str) -> str:
        """SQL: the auto_grades id of this grader's grade of `answer` (parameters :choice_kind, :choice_model)."""
        return (f"(SELECT g.id FROM auto_grades g WHERE g.answer_id = {answer} AND g.grader_kind = :choice_kind "
                f"AND (:choice_model IS NULL OR g.grader_model IN (:choice_model, 'import:' || :choice_model)) "
                f"ORDER BY g.repeat_index, g.id DESC LIMIT 1)")

    @property
    def params(self) -> dict:
        return {"choice_kind": self.kind, "choice_model": self.model}


# The grader on the desk when the grade was saved (same kind, model and rubric); the view's pick if none was recorded.
_ON_DESK = """CASE WHEN h.machine_kind IS NULL THEN (SELECT mg.id FROM machine_grades mg WHERE mg.answer_id = h.answer_id)
    ELSE (SELECT g.id FROM auto_grades g WHERE g.answer_id = h.answer_id AND g.grader_kind = h.machine_kind
          AND g.grader_model IS h.machine_model AND g.rubric_version IS h.machine_rubric
          ORDER BY g.repeat_index, g.id DESC LIMIT 1) END"""


def load_pairs(store: Store, run_id: int, choice: GraderChoice | None) -> list[dict]:
    """Every person's current grade of the run's answers, with the compared machine grade (None when there is none,
    and when its reply could not be used: verdict_sql)."""
    pick = choice.pick_sql("h.answer_id") if choice else _ON_DESK
    return store.query(
        f"""
        SELECT h.answer_id, a.question_pk, h.grader, h.grade AS human, h.failure_label AS human_label, h.mode,
               h.rubric_version, a.method, a.budget, q.category,
               {verdict_sql("m")} AS machine, {verdict_sql("m")} IS NULL AND m.grade IS NOT NULL AS unusable,
               m.grader_kind, m.grader_model,
               m.confidence, h.selection, h.machine_kind IS NOT NULL AS recorded
        FROM current_human_grades h
        JOIN answers a ON a.id = h.answer_id
        JOIN questions q ON q.id = a.question_pk
        LEFT JOIN auto_grades m ON m.id = {pick}
        WHERE a.run_id = :run AND h.grade IS NOT NULL
        ORDER BY h.answer_id, h.grader
        """,
        {"run": run_id, **(choice.params if choice else {})},
    )


def choose_kind(rows: list[dict]) -> str | None:
    """The kind of machine grader compared: the first of KIND_PREFERENCE among `rows`."""
    kinds = {r["grader_kind"] for r in rows if r["grader_kind"]}
    return next((k for k in KIND_PREFERENCE if k in kinds), None)


def pair_from_row(r: dict) -> Pair:
    return Pair(r["answer_id"], r["question_pk"], r["grader"], r["human"], r["machine"], r["category"], r["method"],
                r["budget"], r["human_label"] or NO_LABEL, r["mode"], r["rubric_version"], r["confidence"],
                r["selection"])
