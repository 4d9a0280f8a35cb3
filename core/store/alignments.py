"""Judge alignments: tables alignments (one row per `gradedesk align`, with its report as JSON) and alignment_items
(both sides of its split: each answer, its side, the people's grade, whether it became an example).

`record_alignment` keeps an alignment with its items in one transaction; `stored_alignments` gives every alignment
with its report, oldest first (the rubric history reads them).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gradedesk.core.store.connection import Store, utc_now


@dataclass(frozen=True, slots=True)
class AlignmentItem:
    answer_id: int
    question_pk: int
    side: str  # train | test
    grade: str  # the people's grade the judge was compared with
    example: bool  # an example of the new rubric (train only)


@dataclass(frozen=True, slots=True)
class StoredAlignment:
    id: int
    run_id: int
    base_version: str
    new_version: str
    judge_model: str
    report: dict[str, Any]  # the figures `gradedesk align` printed, as JSON
    created_at: str


def record_alignment(store: Store, *, run_id: int, base_version: str, new_version: str, judge_model: str,
                     grader: str | None, seed: int, test_share: float, items: Sequence[AlignmentItem],
                     report: Callable[[int], dict[str, Any]]) -> int:
    """Keep an alignment and its items (one transaction); `report(alignment_id)` gives the report to keep once the
    alignment has its id (the report names it). Returns the id."""
    with store.transaction():
        alignment_id = store._insert("alignments", {
            "run_id": run_id, "base_version": base_version, "new_version": new_version, "judge_model": judge_model,
            "grader": grader, "seed": seed, "test_share": test_share, "report": "{}", "created_at": utc_now(),
        })
        store._conn.execute("UPDATE alignments SET report = ? WHERE id = ?",
                           (json.dumps(report(alignment_id), ensure_ascii=False), alignment_id))
        store._db.table("alignment_items").insert_all(
            [{"alignment_id": alignment_id, "answer_id": i.answer_id, "question_pk": i.question_pk, "side": i.side,
              "grade": i.grade, "example": int(i.example)} for i in items])
    return alignment_id


def stored_alignments(store: Store) -> list[StoredAlignment]:
    """Every alignment with its report, oldest first."""
    return [StoredAlignment(r["id"], r["run_id"], r["base_version"], r["new_version"], r["judge_model"],
                            json.loads(r["report"]), r["created_at"])
            for r in store._query("SELECT id, run_id, base_version, new_version, judge_model, report, created_at "
                                 "FROM alignments ORDER BY id")]
