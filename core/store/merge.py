"""The cross-table copy of `gradedesk merge`: another store's people's events read, and copied into this one.

core/exchange/merge.py decides what matches what; this module reads both stores and writes the copies. It reads every
table a merge touches (runs, questions, answers, human_grades, claim_marks, human_preferences, sample_draws,
item_flags, assignments, adjudications), so it is their one owner for merging rather than a piece of each table's
module.

The other store is opened read-only (`open_other`: a gradedesk store of this schema version, else one clear error) and
gives its runs (RunIdentity), its graded answers (GradedAnswer) and its events: grade events and claim marks with their
answer's run (`answer_events`), preferences, sampler draws, item flags, assignments and adjudications with their
question (`question_events`). This store gives its runs, the answer at a place in a run (`answer_here`), the uuids it
has (`uuids_here`), a question asked in a run (`question_in_run`), whether a draw number is taken (`draw_here`), and
takes the new events (`add_events`). Event rows travel as column → value mappings: they are copied column for column,
whatever columns their table has.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store, schema_version

EventRow = dict[str, Any]  # one row of an event table, as stored (plus what matches it: see the readers)
ANSWER_EVENTS = ("human_grades", "claim_marks")  # events of one answer
QUESTION_EVENTS = ("human_preferences", "sample_draws", "item_flags", "assignments", "adjudications")  # of a question
PAIR_EVENTS = ("pairwise_verdicts",)  # the judge's replies on a pair of answers (a raw and a bundled one)


@dataclass(frozen=True, slots=True)
class RunIdentity:
    """What tells a run across stores: its configuration's key (made runs), else its fields (imports); a copy of the
    same run also has the same created_at and order_seed."""

    id: int
    key: str | None
    source: str
    benchmark: str | None
    provider: str
    model: str | None
    label: str | None
    budgets: str  # JSON text, compared as stored
    created_at: str
    order_seed: int


@dataclass(frozen=True, slots=True)
class GradedAnswer:
    """An answer of the other store that people graded or marked claims of, named by what it is."""

    id: int
    run_id: int
    benchmark: str
    question_id: str
    method: str
    budget: int
    text: str | None


_RUN_SQL = ("SELECT id, json_extract(config, '$.key') AS key, source, benchmark, provider, model, label, budgets, "
            "created_at, order_seed FROM runs")


def _placeholders(ids: list[Any]) -> str:
    return ",".join("?" * len(ids)) or "NULL"


def _table(name: str, tables: tuple[str, ...]) -> str:
    """`name`, checked to be one of `tables` before it goes into SQL."""
    if name not in tables:
        raise ValueError(f"{name}: not one of {', '.join(tables)}")
    return name


class OtherStore:
    """Another store.db, read-only (merging never changes it). Use `open_other`."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def runs(self) -> list[RunIdentity]:
        return [RunIdentity(*row) for row in self._conn.execute(_RUN_SQL)]

    def graded_answers(self, run_ids: list[int]) -> list[GradedAnswer]:
        """The answers of these runs that have grade events, claim marks or pairwise judge replies."""
        return [GradedAnswer(*row) for row in self._conn.execute(f"""
            SELECT a.id, a.run_id, q.benchmark, q.question_id, a.method, a.budget, a.text
            FROM answers a JOIN questions q ON q.id = a.question_pk
            WHERE (a.id IN (SELECT answer_id FROM human_grades) OR a.id IN (SELECT answer_id FROM claim_marks)
                   OR a.id IN (SELECT bundle_answer_id FROM pairwise_verdicts)
                   OR a.id IN (SELECT raw_answer_id FROM pairwise_verdicts))
              AND a.run_id IN ({_placeholders(run_ids)})
        """, run_ids)]

    def answer_events(self, table: str) -> list[EventRow]:
        """Every event of `table` (human_grades, claim_marks) in order, with its answer's run as `other_run`."""
        return self._rows(f"SELECT t.*, a.run_id AS other_run FROM {_table(table, ANSWER_EVENTS)} t "
                          "JOIN answers a ON a.id = t.answer_id ORDER BY t.id")

    def question_events(self, table: str) -> list[EventRow]:
        """Every event of `table` (QUESTION_EVENTS) in order, with its question's benchmark and question_id."""
        return self._rows(f"SELECT t.*, q.benchmark, q.question_id FROM {_table(table, QUESTION_EVENTS)} t "
                          "JOIN questions q ON q.id = t.question_pk ORDER BY t.id")

    def pairwise_replies(self) -> list[EventRow]:
        """Every pairwise judge reply in order, with its run as `other_run`, and its rubric's text and kind (a rubric
        this store lacks comes along)."""
        return self._rows("SELECT t.*, a.run_id AS other_run, r.text AS rubric_text, r.kind AS rubric_kind "
                          "FROM pairwise_verdicts t JOIN answers a ON a.id = t.bundle_answer_id "
                          "JOIN rubrics r ON r.version = t.rubric_version ORDER BY t.id")

    def _rows(self, sql: str) -> list[EventRow]:
        cursor = self._conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]


@contextmanager
def open_other(path: str | Path) -> Iterator[OtherStore]:
    """The other store, read-only, closed on leaving; a file that is not a store of this schema is one clear error."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{p}: no such store to merge")
    try:
        conn = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise UserError(f"{p}: not a gradedesk store ({exc})") from None
    try:
        if "human_grades" not in tables or "answers" not in tables:
            raise UserError(f"{p}: not a gradedesk store (no human_grades table)")
        if version != schema_version():
            raise UserError(f"{p}: store schema {version}, this gradedesk merges schema {schema_version()} only")
        yield OtherStore(conn)
    finally:
        conn.close()


# this store ------------------------------------------------------------------------------------------------------------
def run_identities(store: Store) -> list[RunIdentity]:
    return [RunIdentity(*row) for row in store._conn.execute(_RUN_SQL)]


@dataclass(frozen=True, slots=True)
class AnswerHere:
    id: int
    text: str | None


def answer_here(store: Store, run_id: int, benchmark: str, question_id: str, method: str,
                budget: int) -> AnswerHere | None:
    """The answer at this place of a run of this store, or None."""
    row = store._conn.execute("""
        SELECT a.id, a.text FROM answers a JOIN questions q ON q.id = a.question_pk
        WHERE a.run_id = ? AND q.benchmark = ? AND q.question_id = ? AND a.method = ? AND a.budget = ?
    """, (run_id, benchmark, question_id, method, budget)).fetchone()
    return AnswerHere(*row) if row else None


def uuids_here(store: Store, table: str, uuids: list[str]) -> set[str]:
    """Which of these event uuids `table` (an event table) has already."""
    _table(table, ANSWER_EVENTS + QUESTION_EVENTS + PAIR_EVENTS)
    found: set[str] = set()
    for i in range(0, len(uuids), 500):  # well under SQLite's bound-parameter limit
        part = uuids[i:i + 500]
        found |= {r[0] for r in store._conn.execute(
            f"SELECT uuid FROM {table} WHERE uuid IN ({_placeholders(part)})", tuple(part))}
    return found


def answer_question(store: Store, answer_id: int) -> int:
    """The question row id of an answer here."""
    return int(store._scalar("SELECT question_pk FROM answers WHERE id = ?", (answer_id,)))


def question_in_run(store: Store, run_id: int, benchmark: str, question_id: str) -> int | None:
    """The row id of the question, when the run answered it."""
    pk = store._scalar("SELECT q.id FROM questions q WHERE q.benchmark = ? AND q.question_id = ? "
                      "AND EXISTS (SELECT 1 FROM answers a WHERE a.run_id = ? AND a.question_pk = q.id)",
                      (benchmark, question_id, run_id))
    return None if pk is None else int(pk)


def draw_here(store: Store, run_id: int, grader: str, draw_index: int) -> bool:
    """Has this person a sampler draw with this number in this run here?"""
    return store._scalar("SELECT 1 FROM sample_draws WHERE run_id = ? AND grader = ? AND draw_index = ?",
                        (run_id, grader, draw_index)) is not None


def reply_here(store: Store, bundle_answer_id: int, raw_answer_id: int, judge_model: str, rubric_version: str,
               first_method: str, repeat_index: int) -> bool:
    """Has this store a pairwise reply for this pair, judge, rubric, order and repeat?"""
    return store._scalar(
        "SELECT 1 FROM pairwise_verdicts WHERE bundle_answer_id = ? AND raw_answer_id = ? AND judge_model = ? "
        "AND rubric_version = ? AND first_method = ? AND repeat_index = ?",
        (bundle_answer_id, raw_answer_id, judge_model, rubric_version, first_method, repeat_index)) is not None


def add_events(store: Store, new: dict[str, list[EventRow]]) -> None:
    """Copy the events, table by table, in one transaction: each row's columns that its table has, but its id."""
    with store.transaction():
        for table, rows in new.items():
            columns = {r[1] for r in store._conn.execute(
                f"PRAGMA table_info({_table(table, ANSWER_EVENTS + QUESTION_EVENTS + PAIR_EVENTS)})")} - {"id"}
            for row in rows:
                store._insert(table, {k: v for k, v in row.items() if k in columns})
