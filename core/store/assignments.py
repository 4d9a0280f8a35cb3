"""Who grades what: table assignments (gradedesk assign). Append-only: an `assign` row gives an item (a question of
a run) to a person, a `withdraw` row takes one back by its uuid; what is assigned now is derived.

What it gives: a run's current assignments (`current_assignments`, Assignment records), and writing a plan's rows
(`add_assignments`, `withdraw_assignments`; the caller holds the transaction). Which pairs to write is
core/review/assignment.py's.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

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
