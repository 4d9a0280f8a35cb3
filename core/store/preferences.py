"""People's preferences between the two answers of a question: table human_preferences, append-only events like
human_grades. A `set` event says which answer the person preferred (raw, bundle or tie), which sat on the left and
the budget of the bundled answer compared (raw against bundle @ budget: the desk shows any budget of the run); a later
`undo` event names the one it takes back (undoes_uuid), and a person's preference of a question at a budget is their
newest `set` event at it no undo took back.

What it gives: appending a preference (`add_preference`, with what was on screen and how the question was reached),
a person's newest live one (`newest_preference`: the desk's undo and item), taking one back (`undo_preference`), and
each person's live preference per question and budget of a run (`live_preferences`: the ONE reader of people's
current preferences, for adjudication, `agree`'s position bias, its preferences by budget and pairwise figures, and
the score exports; `unflagged=True` leaves out flagged items, as every reader behind `agree` does). Validation is
core/grading's; what was on screen is core/review/visibility.py's.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from gradedesk.core.store.connection import Store, event_time
from gradedesk.core.store.flags import unflagged_sql


@dataclass(frozen=True, slots=True)
class Preference:
    """One `set` event of human_preferences."""

    uuid: str
    run_id: int
    question_pk: int
    grader: str
    preferred: str  # raw | bundle | tie
    left_method: str
    judge_visible: int | None  # a machine grade of either answer was on screen (None: not recorded, older stores)
    selection: str | None
    selection_probability: float | None
    created_at: str
    budget: int | None  # the bundled answer's budget it was compared at (None: not recorded)


_FIELDS = tuple(Preference.__dataclass_fields__)


def _live(p: str) -> str:
    """SQL: row `p` of human_preferences is a `set` event that no `undo` took back."""
    return (f"{p}.action = 'set' AND NOT EXISTS (SELECT 1 FROM human_preferences u WHERE u.action = 'undo' "
            f"AND u.undoes_uuid = {p}.uuid)")


def add_preference(store: Store, run_id: int, question_pk: int, grader: str, preferred: str, left: str, *,
                   judge_visible: bool, selection: str | None, selection_probability: float | None,
                   budget: int | None) -> Preference:
    """Append a `set` event: the person preferred `preferred` with `left` on the left, raw against the bundled
    answer at `budget`; return it as stored."""
    row: dict[str, Any] = {
        "uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "grader": grader,
        "preferred": preferred, "left_method": left, "judge_visible": int(judge_visible), "selection": selection,
        "selection_probability": selection_probability, "created_at": event_time(), "action": "set", "budget": budget}
    with store.transaction():
        store._insert("human_preferences", row)
    return Preference(**{k: row[k] for k in _FIELDS})


def newest_preference(store: Store, run_id: int, grader: str, question_pk: int | None = None,
                      budget: int | None = None) -> Preference | None:
    """The person's newest live preference in the run (of one question, when `question_pk` is given; compared at
    one budget, when `budget` is)."""
    scope, params = "p.run_id = ? AND p.grader = ?", [run_id, grader]
    if question_pk is not None:
        scope += " AND p.question_pk = ?"
        params.append(question_pk)
    if budget is not None:
        scope += " AND p.budget = ?"
        params.append(budget)
    rows = store._query(f"SELECT * FROM human_preferences p WHERE {scope} AND {_live('p')} ORDER BY p.id DESC LIMIT 1",
                        tuple(params))
    return Preference(**{k: rows[0][k] for k in _FIELDS}) if rows else None


def undo_preference(store: Store, target: Preference, *, judge_visible: bool) -> None:
    """Take back `target` with an `undo` event (repeating its preferred and left_method), saved with the machine
    grades on screen or not (`judge_visible`). The caller holds the transaction."""
    row: dict[str, Any] = {
        "uuid": str(uuid.uuid4()), "run_id": target.run_id, "question_pk": target.question_pk,
        "grader": target.grader, "preferred": target.preferred, "left_method": target.left_method, "action": "undo",
        "undoes_uuid": target.uuid, "judge_visible": int(judge_visible), "created_at": event_time(),
        "budget": target.budget}
    store._insert("human_preferences", row)


def live_preferences(store: Store, run_id: int, question_pk: int | None = None, *,
                     unflagged: bool = False) -> list[Preference]:
    """Each person's live preference per question and budget of the run (of one question, with `question_pk`; of the
    items nobody flagged, with `unflagged`), by question, person and budget."""
    scope = "p.run_id = :run"
    params: dict[str, object] = {"run": run_id, "q": question_pk}
    if question_pk is not None:
        scope += " AND p.question_pk = :q"
    if unflagged:
        scope += f" AND {unflagged_sql('p.run_id', 'p.question_pk')}"
    rows = store._query(
        f"SELECT * FROM human_preferences p WHERE {scope} AND p.id = (SELECT max(p2.id) FROM human_preferences p2 "
        "WHERE p2.run_id = p.run_id AND p2.question_pk = p.question_pk AND p2.grader = p.grader "
        f"AND p2.budget IS p.budget AND {_live('p2')}) ORDER BY p.question_pk, p.grader, p.budget", params)
    return [Preference(**{k: r[k] for k in _FIELDS}) for r in rows]
