"""A lead's decisions where the people assigned to an item disagree: table adjudications (gradedesk grade --adjudicate).

Append-only like people's events: a `set` row decides a grade of one answer of an item (named by its method and
budget, as the desk showed it) or, with no method, the preference between raw and the bundled answer at `budget`
(None: recorded before decisions named it); an `undo` row takes one back by its uuid. The decision on an answer (or on the preference) is the newest live `set` row of anyone for it.
Kept apart from human_grades, so no figure of people's grades ever counts it.

What it gives: appending a decision (`add_decision`), the decisions of a run or an item (`current_decisions`), a
lead's newest live decision and taking it back (`newest_live_decision`, `undo_decision`). What to decide is
core/review/adjudication.py's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gradedesk.core.store.connection import Store, event_time


@dataclass(frozen=True, slots=True)
class Decision:
    """One `set` row of adjudications."""

    uuid: str
    run_id: int
    question_pk: int
    method: str | None  # raw | bundle; None: the preference
    budget: int | None
    grader: str  # the lead
    grade: str | None
    failure_label: str | None
    note: str | None
    preferred: str | None
    seen: tuple[str, ...]  # the people's events on screen (uuids)
    judge_visible: int
    created_at: str


_LIVE = ("d.action = 'set' AND NOT EXISTS (SELECT 1 FROM adjudications u WHERE u.action = 'undo' "
         "AND u.undoes_uuid = d.uuid)")
_FIELDS = tuple(Decision.__dataclass_fields__)


def _decision(row: dict[str, Any]) -> Decision:
    return Decision(**{**{k: row[k] for k in _FIELDS}, "seen": tuple(json.loads(row["seen"] or "[]"))})


def add_decision(store: Store, run_id: int, question_pk: int, grader: str, *, method: str | None,
                 budget: int | None, state: dict[str, Any], seen: Sequence[str], judge_visible: bool) -> Decision:
    """Append a `set` row (`state`: grade, failure_label and note, or preferred); return it as stored."""
    row = {"uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "method": method,
           "budget": budget, "grader": grader, "action": "set", "grade": None, "failure_label": None, "note": None,
           "preferred": None, **state, "seen": json.dumps(list(seen)), "judge_visible": int(judge_visible),
           "created_at": event_time()}
    with store.transaction():
        store._insert("adjudications", row)
    return _decision(row)


def current_decisions(store: Store, run_id: int, question_pk: int | None = None) -> list[Decision]:
    """The live decision on each answer (and on each preference) of the run's items (of one, with `question_pk`):
    the newest live `set` row, whoever made it; by question, preference first, then method."""
    scope = "d.run_id = :run"
    params: dict[str, object] = {"run": run_id, "q": question_pk}
    if question_pk is not None:
        scope += " AND d.question_pk = :q"
    rows = store._query(
        f"SELECT d.* FROM adjudications d WHERE {scope} AND {_LIVE} AND d.id = (SELECT max(d2.id) FROM "
        "adjudications d2 WHERE d2.run_id = d.run_id AND d2.question_pk = d.question_pk AND d2.method IS d.method "
        "AND d2.budget IS d.budget AND d2.action = 'set' AND NOT EXISTS (SELECT 1 FROM adjudications u2 WHERE "
        "u2.action = 'undo' AND u2.undoes_uuid = d2.uuid)) ORDER BY d.question_pk, d.method IS NOT NULL, d.method",
        params)
    return [_decision(r) for r in rows]


def newest_live_decision(store: Store, run_id: int, grader: str, budget: int) -> Decision | None:
    """The lead's newest decision in the run that no undo took back, of those made beside the bundled answer at
    `budget` or beside none recorded (a decision beside another budget is another item on another desk)."""
    rows = store._query(f"SELECT d.* FROM adjudications d WHERE d.run_id = ? AND d.grader = ? "
                        f"AND (d.budget = ? OR d.budget IS NULL) AND {_LIVE} ORDER BY d.id DESC LIMIT 1",
                        (run_id, grader, budget))
    return _decision(rows[0]) if rows else None


def undo_decision(store: Store, target: Decision, *, judge_visible: bool) -> None:
    """Take back `target` with an `undo` row; the caller holds the transaction."""
    store._insert("adjudications", {
        "uuid": str(uuid.uuid4()), "run_id": target.run_id, "question_pk": target.question_pk,
        "method": target.method, "budget": target.budget, "grader": target.grader, "action": "undo",
        "undoes_uuid": target.uuid, "judge_visible": int(judge_visible), "created_at": event_time()})
