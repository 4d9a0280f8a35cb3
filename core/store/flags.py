"""People's flags on items: table item_flags. An item is a question of a run; a person flags it when its benchmark
entry needs fixing (a wrong gold answer, an ambiguous question, another reason in the note). Flags are append-only
events like grades: a `set` event is taken back by a later `undo` event naming it (undoes_uuid), and a person's
current flag on an item is their newest `set` event that no `undo` took back.

What it gives: a person's current flag on an item (`current_flag`), appending a flag (`add_flag`) and taking back a
person's current flag on an item (`undo_flag`), the person's flags among some questions (`person_flags`, the queue's
mark), the questions of a run anyone flagged (`flagged_questions`: what `agree` leaves out, its readers keeping
`unflagged_sql` items only), every current flag with its question (`flag_listing`: `gradedesk questions flags`, score
exports), and the flags people took back (`taken_back_flags`: what `export-scores --withdrawn` names). Which reasons
exist is core/grading/vocabulary.py's; this module stores what it is given.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass, fields
from typing import Any

from gradedesk.core.store.connection import Store, utc_now


def _live(f: str) -> str:
    """SQL: the item_flags row of alias `f` is a `set` event that no `undo` took back."""
    return (f"{f}.action = 'set' AND NOT EXISTS (SELECT 1 FROM item_flags {f}_u WHERE {f}_u.action = 'undo' "
            f"AND {f}_u.undoes_uuid = {f}.uuid)")


_LIVE = _live("f")
# ... and the newest such event of its (run, question, person): the current flag
_CURRENT = (f"{_LIVE} AND f.id = (SELECT max(f2.id) FROM item_flags f2 WHERE f2.run_id = f.run_id "
            f"AND f2.question_pk = f.question_pk AND f2.grader = f.grader AND {_live('f2')})")


def unflagged_sql(run: str, question: str) -> str:
    """SQL (for core/store only): nobody has a live flag on question `question` of run `run` (SQL expressions). The
    readers behind `agree` keep only such items: a flagged question's gold answer or wording is in doubt. The flagged
    items are one uncorrelated subquery, which SQLite evaluates once per query, not once an answer."""
    return f"({run}, {question}) NOT IN (SELECT flg.run_id, flg.question_pk FROM item_flags flg WHERE {_live('flg')})"


@dataclass(frozen=True, slots=True)
class ItemFlag:
    """One `set` event of item_flags: a person's flag on a question of a run."""

    uuid: str
    run_id: int
    question_pk: int
    grader: str
    reason: str  # bad_gold | ambiguous | other
    note: str | None
    judge_visible: int  # 1: a machine grade of the item was on screen when it was saved
    created_at: str


_FLAG_FIELDS = tuple(f.name for f in fields(ItemFlag))


def _flag(row: dict[str, Any]) -> ItemFlag:
    return ItemFlag(**{k: row[k] for k in _FLAG_FIELDS})


def current_flag(store: Store, run_id: int, question_pk: int, grader: str) -> ItemFlag | None:
    """The person's current flag on the question of the run, or None."""
    rows = store._query(f"SELECT f.* FROM item_flags f WHERE f.run_id = ? AND f.question_pk = ? AND f.grader = ? "
                        f"AND {_LIVE} ORDER BY f.id DESC LIMIT 1", (run_id, question_pk, grader))
    return _flag(rows[0]) if rows else None


def others_flags(store: Store, run_id: int, question_pk: int, grader: str) -> list[ItemFlag]:
    """The current flags other people hold on the question of the run (they leave it out of this person's figures
    too: the desk shows them), one per person."""
    return [_flag(r) for r in store._query(
        f"SELECT f.* FROM item_flags f WHERE f.run_id = ? AND f.question_pk = ? AND f.grader <> ? AND {_CURRENT} "
        "ORDER BY f.grader", (run_id, question_pk, grader))]


def add_flag(store: Store, run_id: int, question_pk: int, grader: str, reason: str, note: str | None, *,
             judge_visible: bool) -> ItemFlag:
    """Append a `set` event flagging the question of the run; return it as stored. One transaction."""
    row = {"uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "grader": grader,
           "action": "set", "reason": reason, "note": note, "judge_visible": int(judge_visible),
           "created_at": utc_now()}
    with store.transaction():
        store._insert("item_flags", row)
        return _flag(store._query("SELECT * FROM item_flags WHERE uuid = ?", (row["uuid"],))[0])


def undo_flag(store: Store, run_id: int, question_pk: int, grader: str, *, judge_visible: bool) -> ItemFlag | None:
    """Take back the person's flag on the question: an `undo` event for each of their live flags on it (one, but for
    merged copies), so the item is no longer flagged by them; return the current flag taken back (None: there was
    none). One transaction."""
    with store.transaction():
        live = [_flag(r) for r in store._query(
            f"SELECT f.* FROM item_flags f WHERE f.run_id = ? AND f.question_pk = ? AND f.grader = ? AND {_LIVE} "
            "ORDER BY f.id DESC", (run_id, question_pk, grader))]
        for target in live:
            store._insert("item_flags", {
                "uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "grader": grader,
                "action": "undo", "undoes_uuid": target.uuid, "reason": target.reason, "note": None,
                "judge_visible": int(judge_visible), "created_at": utc_now()})
    return live[0] if live else None


def person_flags(store: Store, run_id: int, grader: str, question_pks: Collection[int]) -> dict[int, str]:
    """{question_pk: reason} of the person's current flags among these questions of the run."""
    pks = list(question_pks)
    out: dict[int, str] = {}
    for i in range(0, len(pks), 500):  # well under SQLite's bound-parameter limit
        part = pks[i:i + 500]
        out.update((r["question_pk"], r["reason"]) for r in store._query(
            f"SELECT f.question_pk, f.reason FROM item_flags f WHERE f.run_id = ? AND f.grader = ? "
            f"AND f.question_pk IN ({','.join('?' * len(part))}) AND {_CURRENT}", (run_id, grader, *part)))
    return out


def flagged_questions(store: Store, run_id: int) -> frozenset[int]:
    """The questions of the run that anyone flagged (a live flag), by row id."""
    return frozenset(r["question_pk"] for r in store._query(
        f"SELECT DISTINCT f.question_pk FROM item_flags f WHERE f.run_id = ? AND {_LIVE}", (run_id,)))


@dataclass(frozen=True, slots=True)
class FlagListing:
    """A current flag with its question, named as the benchmark names it."""

    flag: ItemFlag
    benchmark: str
    question_id: str
    question: str


@dataclass(frozen=True, slots=True)
class TakenBack:
    """A person's flag on a question of the run that they took back (they have no live flag on it now)."""

    benchmark: str
    question_id: str
    grader: str


def taken_back_flags(store: Store, run_id: int) -> list[TakenBack]:
    """Each (question, person) of the run with a flag set once and none live now: what an earlier export may hold."""
    return [TakenBack(**r) for r in store._query(
        "SELECT DISTINCT q.benchmark, q.question_id, f.grader FROM item_flags f "
        "JOIN questions q ON q.id = f.question_pk WHERE f.run_id = ? AND f.action = 'set' "
        "AND NOT EXISTS (SELECT 1 FROM item_flags g WHERE g.run_id = f.run_id "
        f"AND g.question_pk = f.question_pk AND g.grader = f.grader AND {_live('g')}) "
        "ORDER BY q.benchmark, q.question_id, f.grader", (run_id,))]


def flag_listing(store: Store, run_id: int | None = None) -> list[FlagListing]:
    """Every current flag (of one run, or of every run), by run, benchmark, question and person."""
    scope, params = ("AND f.run_id = ?", (run_id,)) if run_id is not None else ("", ())
    rows = store._query(
        f"SELECT f.*, q.benchmark, q.question_id AS qid, q.question FROM item_flags f "
        f"JOIN questions q ON q.id = f.question_pk WHERE {_CURRENT} {scope} "
        "ORDER BY f.run_id, q.benchmark, q.question_id, f.grader", params)
    return [FlagListing(_flag(r), r["benchmark"], r["qid"], r["question"]) for r in rows]
