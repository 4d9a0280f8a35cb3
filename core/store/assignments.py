"""Who grades what: table assignments (gradedesk assign). Append-only: an `assign` row gives an item (a question of
a run) to a person, a `withdraw` row takes one back by its uuid; what is assigned now is derived.

What it gives: a run's current assignments (`current_assignments`, Assignment records), writing a plan's rows
(`add_assignments`, `withdraw_assignments`; the caller holds the transaction), a person's assigned set as the desk
and its sampler see it (`assigned_set`; `desk_set_sql`, the condition the desk's queries put on a question), and the
assigned people's current grades (`assigned_grades`: adjudication; `overlap_grades`, those of items assigned to two or
more people: people-vs-people agreement). Which pairs to write
is core/review/assignment.py's.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gradedesk.core.store.connection import Store, utc_now


@dataclass(frozen=True, slots=True)
class Assignment:
    uuid: str
    question_pk: int
    benchmark: str  # the question named by what it is (as a run log or an exported score names it)
    question_id: str
    grader: str
    inclusion_probability: float  # of the item in the assigned set (1: every item of the run)
    overlap: int
    seed: int


_LIVE = ("SELECT a.uuid, a.question_pk, q.benchmark, q.question_id, a.grader, a.inclusion_probability, a.overlap, "
         "a.seed FROM assignments a JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND a.action = 'assign' "
         "AND NOT EXISTS (SELECT 1 FROM assignments w WHERE w.action = 'withdraw' AND w.undoes_uuid = a.uuid) "
         "ORDER BY a.question_pk, a.grader")


def current_assignments(store: Store, run_id: int) -> list[Assignment]:
    """The run's assignments that no withdrawal took back, by question then person."""
    return [Assignment(**r) for r in store._query(_LIVE, (run_id,))]


def add_assignments(store: Store, run_id: int, pairs: Iterable[tuple[int, str]], *, probability: float, overlap: int,
                    seed: int) -> None:
    """Assign each (question_pk, grader) pair; the caller holds the transaction."""
    now = utc_now()
    store._db.table("assignments").insert_all(
        {"uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": pk, "grader": grader, "action": "assign",
         "inclusion_probability": probability, "overlap": overlap, "seed": seed, "created_at": now}
        for pk, grader in pairs)


def withdraw_assignments(store: Store, run_id: int, taken_back: Iterable[Assignment]) -> None:
    """Take these assignments back (each by its uuid); the caller holds the transaction."""
    now = utc_now()
    store._db.table("assignments").insert_all(
        {"uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": a.question_pk, "grader": a.grader,
         "action": "withdraw", "undoes_uuid": a.uuid, "inclusion_probability": a.inclusion_probability,
         "overlap": a.overlap, "seed": a.seed, "created_at": now}
        for a in taken_back)


# a person's assigned set ---------------------------------------------------------------------------------------------
def _live_set(run: str, grader: str) -> str:
    return (f"SELECT s.question_pk FROM assignments s WHERE s.run_id = {run} AND s.grader = {grader} "
            "AND s.action = 'assign' AND NOT EXISTS (SELECT 1 FROM assignments w WHERE w.action = 'withdraw' "
            "AND w.undoes_uuid = s.uuid)")


def desk_set_sql(question: str, run: str = ":run", grader: str = ":grader") -> str:
    """SQL (core/store only): question `question` is in the desk's set for person `grader` in `run` (SQL expressions):
    every question when nothing in the run is assigned to them, else the ones assigned to them. Both subqueries are
    uncorrelated, so SQLite computes them once per statement."""
    live = _live_set(run, grader)
    return f"(NOT EXISTS ({live}) OR {question} IN ({live}))"


@dataclass(frozen=True, slots=True)
class AssignedSet:
    """A person's assigned items in a run, and how likely an item was to be among them."""

    items: int  # questions assigned to the person now
    pool: int  # questions assigned to anyone in the run (the assigned sample)
    sample_probability: float  # of an item of the run in the assigned sample (gradedesk assign --items: n / N)

    @property
    def inclusion_probability(self) -> float:
        """Of an item of the run in this person's set: in the sample, then given to them. The plan hands out the
        sample in a seeded random order, so each sampled item is the person's with probability items / pool."""
        return self.sample_probability * self.items / self.pool


def assigned_set(store: Store, run_id: int, grader: str) -> AssignedSet | None:
    """The person's assigned set in the run; None when nothing in it is assigned to them."""
    row = store._conn.execute(
        f"SELECT (SELECT count(DISTINCT question_pk) FROM ({_live_set('?', '?')})), count(DISTINCT a.question_pk), "
        "max(a.inclusion_probability) FROM assignments a WHERE a.run_id = ? AND a.action = 'assign' AND NOT EXISTS "
        "(SELECT 1 FROM assignments w WHERE w.action = 'withdraw' AND w.undoes_uuid = a.uuid)",
        (run_id, grader, run_id)).fetchone()
    return AssignedSet(row[0], row[1], row[2]) if row[0] else None


@dataclass(frozen=True, slots=True)
class AssignedGrade:
    """A current grade (with a grade) of a person on an answer of an item assigned to them."""

    uuid: str
    question_pk: int
    answer_id: int
    method: str
    budget: int
    grader: str
    grade: str
    failure_label: str | None
    note: str | None


def assigned_grades(store: Store, run_id: int, question_pk: int | None = None) -> list[AssignedGrade]:
    """The assigned people's current grades of the run's answers (of one question, when `question_pk` is given), by
    question, method and person. A grade of an item not assigned to its grader is left out."""
    scope = "a.run_id = :run"
    params: dict[str, object] = {"run": run_id, "q": question_pk}
    if question_pk is not None:
        scope += " AND a.question_pk = :q"
    rows: list[dict[str, Any]] = store._query(
        "SELECT h.uuid, a.question_pk, a.id AS answer_id, a.method, a.budget, h.grader, h.grade, h.failure_label, "
        "h.note FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        f"WHERE {scope} AND h.grade IS NOT NULL AND a.question_pk IN ({_live_set(':run', 'h.grader')}) "
        "ORDER BY a.question_pk, a.method, h.grader", params)
    return [AssignedGrade(**r) for r in rows]


def overlap_grades(store: Store, run_id: int) -> dict[int, list[AssignedGrade]]:
    """The assigned people's current grades of the answers of items assigned to two or more people, by answer: the
    units of people-vs-people agreement."""
    people: dict[int, int] = {}
    for a in current_assignments(store, run_id):
        people[a.question_pk] = people.get(a.question_pk, 0) + 1
    units: dict[int, list[AssignedGrade]] = {}
    for g in assigned_grades(store, run_id):
        if people.get(g.question_pk, 0) > 1:
            units.setdefault(g.answer_id, []).append(g)
    return units
