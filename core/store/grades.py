"""People's grades and claim marks: tables human_grades and claim_marks, and the views current_human_grades and
current_claim_marks. Both tables are append-only events; a `set` event is taken back by a later `undo` event naming it
(undoes_uuid), and what is current is derived. (Preferences, events of the same kind, are preferences.py's.)

A `set` event of human_grades carries the person's whole state for an answer; its grade may still be missing (a label,
scores or a note given before the grade, blind). Such a state is current, so the desk shows it, but it is no grade:
every reader of "graded" here, in desk.py and in reports.py asks for `grade IS NOT NULL`.

What it gives: a person's current state of an answer (`current_grade`, a HumanGrade), whether they have seen its
machine grade (`judge_seen`: they graded it, or saved something with it in view), appending a grade or a claim mark,
the newest live grade event of a run and taking it back (`newest_live_grade`, `undo_grade`), current claim marks
(`current_marks`, ClaimMark records; `run_marks` for a whole run), undoing a mark. For run logs and score exports:
people's current grades of an answer or a run (`answer_human_grades`, `run_human_grades`), every grade and claim mark
ever set in a run, undone or not (`grade_set_events`, `mark_set_events`), the answers with claim marks
(`marked_answer_refs`), and a grade that came with a run log (`add_imported_human_grade`). Every reader of a run's
current grades is here, each with the columns its caller needs: `current_grades` (agree's people figures: answer and
grade only), `person_grade_rows` (summary's and the headline's per-method counts; people's figures by budget, flagged
items left out) and `run_human_grades` (exports, every column). Validation (which grades, marks, modes exist) is
core/grading's; this module stores what it is given.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields, replace
from typing import Any

from gradedesk.core.store.answers import ANSWER_REF_SQL, AnswerRef
from gradedesk.core.store.connection import Store, column_list, event_time, utc_now
from gradedesk.core.store.flags import unflagged_sql


@dataclass(frozen=True)
class HumanGrade:
    """One `set` event of human_grades: every column but the event bookkeeping (row id, action, undoes_uuid). A run log
    carries it whole, and an imported one is stored from it."""

    uuid: str
    answer_id: int
    grader: str
    grade: str | None
    failure_label: str | None
    correctness: int | None  # the four dimensions, 1-5
    grounding: int | None
    completeness: int | None
    conciseness: int | None
    note: str | None
    judge_visible: int
    mode: str  # blind | open | recheck
    is_revision: int
    rubric_version: str | None
    created_at: str
    selection: str | None = None
    selection_probability: float | None = None
    machine_kind: str | None = None  # the machine grader on the desk when it was saved (MachineOnDesk)
    machine_model: str | None = None
    machine_rubric: str | None = None
    budget: int | None = None  # the budget of the bundled answer on the desk when it was saved (None: not recorded)

    @property
    def scores(self) -> dict[str, int | None]:
        """The four dimension scores (core/grading/vocabulary.py DIMENSIONS), by name."""
        return {"correctness": self.correctness, "grounding": self.grounding, "completeness": self.completeness,
                "conciseness": self.conciseness}


_HUMAN_FIELDS = tuple(f.name for f in fields(HumanGrade))


def _human(row: dict[str, Any]) -> HumanGrade:
    return HumanGrade(**{k: row[k] for k in _HUMAN_FIELDS})


@dataclass(frozen=True)
class MachineOnDesk:
    """The machine grader whose grade the desk had for the answer (auto_grades.grader_kind, grader_model,
    rubric_version), stored with a person's grade as machine_kind, machine_model and machine_rubric."""
    kind: str
    model: str | None
    rubric: str | None


# the newest `set` event of `table` (alias e) that no `undo` took back, of those `scope` selects (answers joined as a)
_NEWEST_LIVE = ("SELECT e.* FROM {table} e JOIN answers a ON a.id = e.answer_id WHERE {scope} AND e.action = 'set' "
                "AND NOT EXISTS (SELECT 1 FROM {table} u WHERE u.action = 'undo' AND u.undoes_uuid = e.uuid) "
                "ORDER BY e.id DESC LIMIT 1")


def _newest_live(store: Store, table: str, scope: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    rows = store._query(_NEWEST_LIVE.format(table=table, scope=scope), params)
    return rows[0] if rows else None


def _undo_newest(store: Store, table: str, scope: str, params: tuple[Any, ...], copied: tuple[str, ...],
                 **fields: Any) -> dict[str, Any] | None:
    """Take back the newest live `set` event `scope` selects with an `undo` event (carrying the target's `copied`
    columns and `fields`); return the event taken back. One transaction."""
    with store.transaction():
        target = _newest_live(store, table, scope, params)
        if target is None:
            return None
        store._insert(table, {
            "uuid": str(uuid.uuid4()), "answer_id": target["answer_id"], "grader": target["grader"], "action": "undo",
            "undoes_uuid": target["uuid"], **{k: target[k] for k in copied}, **fields, "created_at": utc_now()})
    return target


# human_grades ---------------------------------------------------------------------------------------------------------
def seen_sql(answer: str, grader: str) -> str:
    """SQL (for core/store only): whether person `grader` has seen the machine grade of `answer` (SQL expressions for
    both): it has one, and they graded the answer outside a recheck pass (the desk then shows it, and an undo does not
    hide it again) or saved something with it in view. A label, scores or a note saved before the grade reveal
    nothing."""
    return (f"(EXISTS (SELECT 1 FROM auto_grades g WHERE g.answer_id = {answer}) AND "
            f"EXISTS (SELECT 1 FROM human_grades s WHERE s.answer_id = {answer} AND s.grader = {grader} "
            f"AND ((s.action = 'set' AND s.mode <> 'recheck' AND s.grade IS NOT NULL) OR s.judge_visible = 1)))")


def judge_seen(store: Store, answer_id: int, grader: str) -> bool:
    return bool(store._scalar(f"SELECT {seen_sql(':answer', ':grader')}", {"answer": answer_id, "grader": grader}))


def current_grade(store: Store, answer_id: int, grader: str, *, recheck: bool = False) -> HumanGrade | None:
    """The grader's current grade of an answer (or, with recheck=True, their newest live recheck event)."""
    if recheck:
        row = _newest_live(store, "human_grades", "e.answer_id = ? AND e.grader = ? AND e.mode = 'recheck'",
                           (answer_id, grader))
        return _human(row) if row else None
    rows = store._query("SELECT * FROM current_human_grades WHERE answer_id = ? AND grader = ?", (answer_id, grader))
    return _human(rows[0]) if rows else None


def add_grade(store: Store, answer_id: int, grader: str, state: Mapping[str, Any], *, judge_visible: bool, mode: str,
              is_revision: bool, rubric_version: str | None, selection: str | None,
              selection_probability: float | None, machine: MachineOnDesk | None,
              budget: int | None = None) -> HumanGrade:
    """Append a `set` event carrying the person's whole state for the answer (`state`: grade, failure_label, note and
    the four dimension scores); return it as stored. One transaction (joining the caller's)."""
    row = {
        "uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader, "action": "set", **state,
        "judge_visible": int(judge_visible), "mode": mode, "is_revision": int(is_revision),
        "rubric_version": rubric_version, "created_at": event_time(), "selection": selection,
        "selection_probability": selection_probability,
        "machine_kind": machine and machine.kind, "machine_model": machine and machine.model,
        "machine_rubric": machine and machine.rubric, "budget": budget,
    }
    with store.transaction():
        store._insert("human_grades", row)
        rows = store._query("SELECT * FROM human_grades WHERE uuid = ?", (row["uuid"],))
    return _human(rows[0])


def newest_live_grade(store: Store, run_id: int, grader: str, budget: int | None = None) -> HumanGrade | None:
    """The grader's newest `set` event in the run that no undo took back (a grade, or a label or note before one);
    with `budget`, of those saved beside the bundled answer at that budget or beside none recorded (imports): a raw
    answer's grade beside another budget is another event, left alone."""
    scope, params = "e.grader = ? AND a.run_id = ?", [grader, run_id]
    if budget is not None:
        scope += " AND (e.budget = ? OR e.budget IS NULL)"
        params.append(budget)
    row = _newest_live(store, "human_grades", scope, tuple(params))
    return _human(row) if row else None


def undo_grade(store: Store, target: HumanGrade, *, judge_visible: bool) -> None:
    """Take back `target` with an `undo` event in its mode and at its budget (the bundled answer's beside it), saved
    with the machine grade on screen or not. The caller holds the transaction."""
    store._insert("human_grades", {
        "uuid": str(uuid.uuid4()), "answer_id": target.answer_id, "grader": target.grader, "action": "undo",
        "undoes_uuid": target.uuid, "mode": target.mode, "judge_visible": int(judge_visible),
        "created_at": event_time(), "budget": target.budget})


# people's grades as run logs and score exports carry them -------------------------------------------------------------
def answer_human_grades(store: Store, answer_id: int) -> list[HumanGrade]:
    """People's current grades (with a grade) of the answer, oldest first."""
    return [HumanGrade(*row) for row in store._conn.execute(
        f"SELECT {column_list('h', _HUMAN_FIELDS)} FROM current_human_grades h WHERE h.answer_id = ? "
        "AND h.grade IS NOT NULL ORDER BY h.id",
        (answer_id,))]


def run_human_grades(store: Store, run_id: int) -> list[tuple[AnswerRef, HumanGrade]]:
    """People's current grades (with a grade) of the run's answers, by answer and person."""
    n = len(fields(AnswerRef))
    return [(AnswerRef(*row[:n]), HumanGrade(*row[n:])) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL}, {column_list('h', _HUMAN_FIELDS)} FROM current_human_grades h "
        "JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND h.grade IS NOT NULL ORDER BY h.answer_id, h.grader", (run_id,))]


def current_grades(store: Store, run_id: int) -> list[tuple[int, str]]:
    """(answer_id, grade) of every person's current grade of the run's answers; flagged items left out, as from
    every reader behind `agree`."""
    return [(r["answer_id"], r["grade"]) for r in store._query(
        "SELECT h.answer_id, h.grade FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        f"WHERE a.run_id = ? AND h.grade IS NOT NULL AND {unflagged_sql('a.run_id', 'a.question_pk')}", (run_id,))]


@dataclass(frozen=True, slots=True)
class PersonGradeRow:
    grader: str
    grade: str
    failure_label: str | None
    method: str
    budget: int
    beside: int | None = None  # the budget of the bundled answer on the desk when it was saved (None: not recorded)


def person_grade_rows(store: Store, run_id: int, *, unflagged: bool = False) -> list[PersonGradeRow]:
    """Every person's current grade of the run's answered answers (of the items nobody flagged, with `unflagged`: as
    every reader behind `agree`), with the answer's method and budget and the bundled answer's budget it was saved
    beside."""
    scope = f" AND {unflagged_sql('a.run_id', 'a.question_pk')}" if unflagged else ""
    return [PersonGradeRow(**r) for r in store._query(
        "SELECT h.grader, h.grade, h.failure_label, a.method, a.budget, h.budget AS beside FROM current_human_grades h "
        f"JOIN answers a ON a.id = h.answer_id WHERE a.run_id = ? AND a.status = 'ok' AND h.grade IS NOT NULL{scope} "
        "ORDER BY h.grader", (run_id,))]


@dataclass(frozen=True, slots=True)
class GradeSetEvent:
    """A grade a person set on an answer of the run (whether undone or revised since)."""

    answer: AnswerRef
    grader: str
    failure_label: str | None
    correctness: int | None
    grounding: int | None
    completeness: int | None
    conciseness: int | None


def grade_set_events(store: Store, run_id: int) -> list[GradeSetEvent]:
    """Every grade a person set on the run's answers (action 'set' with a grade), undone or not."""
    return [GradeSetEvent(AnswerRef(run, answer, benchmark, question, method, budget), grader, label, *dims)
            for answer, grader, label, *dims, run, method, budget, benchmark, question in store._conn.execute(
                "SELECT h.answer_id, h.grader, h.failure_label, h.correctness, h.grounding, h.completeness, "
                "h.conciseness, a.run_id, a.method, a.budget, q.benchmark, q.question_id "
                "FROM human_grades h JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk "
                "WHERE a.run_id = ? AND h.action = 'set' AND h.grade IS NOT NULL", (run_id,))]


def add_imported_human_grade(store: Store, grade: HumanGrade) -> int:
    """Store a person's grade that came with a run log (a 'set' event, selection 'imported': someone else's process
    chose the item, so it is never weighed as a sample); 0 when its uuid is here already, else 1."""
    names = [*_HUMAN_FIELDS, "action"]
    return int(store._conn.execute(
        f"INSERT OR IGNORE INTO human_grades ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        (*astuple(replace(grade, selection="imported", selection_probability=None)), "set")).rowcount)


# claim_marks ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimMark:
    """One `set` event of claim_marks."""

    id: int
    uuid: str
    answer_id: int
    grader: str
    claim_index: int
    claim_text: str
    mark: str
    scorers_visible: int
    created_at: str


_MARK_FIELDS = tuple(ClaimMark.__dataclass_fields__)


def _mark(row: dict[str, Any]) -> ClaimMark:
    return ClaimMark(**{k: row[k] for k in _MARK_FIELDS})


def current_marks(store: Store, answer_id: int, grader: str) -> dict[int, ClaimMark]:
    """The grader's current mark of each claim of an answer, by claim index (whatever its text)."""
    rows = store._query("SELECT * FROM current_claim_marks WHERE answer_id = ? AND grader = ? ORDER BY claim_index",
                       (answer_id, grader))
    return {r["claim_index"]: _mark(r) for r in rows}


def add_mark(store: Store, answer_id: int, grader: str, claim_index: int, claim_text: str, mark: str, *,
             scorers_visible: bool) -> ClaimMark:
    """Append a `set` event marking claim `claim_index` (whose text is `claim_text`); return it as stored. The caller
    holds the transaction."""
    row = {"uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader, "claim_index": claim_index,
           "claim_text": claim_text, "action": "set", "mark": mark, "scorers_visible": int(scorers_visible),
           "created_at": utc_now()}
    store._insert("claim_marks", row)
    return _mark(store._query("SELECT * FROM claim_marks WHERE uuid = ?", (row["uuid"],))[0])


def undo_last_mark(store: Store, answer_id: int, grader: str, *, scorers_visible: bool = False) -> ClaimMark | None:
    """Take back the grader's newest live mark on the answer with an `undo` event; return the mark undone.
    `scorers_visible` records whether the machine verdicts were on screen when the person undid it."""
    target = _undo_newest(store, "claim_marks", "e.answer_id = ? AND e.grader = ?", (answer_id, grader),
                          ("claim_index", "claim_text"), scorers_visible=int(scorers_visible))
    return _mark(target) if target else None


def scorers_seen(store: Store, answer_id: int, grader: str) -> bool:
    """Whether the person saved a mark on the answer with the machine faithfulness verdicts on screen."""
    return bool(store._scalar("SELECT 1 FROM claim_marks WHERE answer_id = ? AND grader = ? AND scorers_visible = 1 "
                             "LIMIT 1", (answer_id, grader)))


@dataclass(frozen=True, slots=True)
class RunMark:
    """A current claim mark of a run, with its answer's method, budget and question."""

    mark: ClaimMark
    method: str
    budget: int
    question_pk: int


def run_marks(store: Store, run_id: int) -> list[RunMark]:
    """Every current claim mark of the run's answers, by answer, grader and claim."""
    rows = store._query(
        "SELECT m.*, a.method, a.budget, a.question_pk FROM current_claim_marks m JOIN answers a "
        "ON a.id = m.answer_id WHERE a.run_id = ? ORDER BY m.answer_id, m.grader, m.claim_index", (run_id,))
    return [RunMark(_mark(r), r["method"], r["budget"], r["question_pk"]) for r in rows]


def marked_answer_refs(store: Store, run_id: int) -> dict[int, AnswerRef]:
    """{answer id: the answer} for the run's answers that have claim marks."""
    refs = [AnswerRef(*row) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL} FROM answers a JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND a.id IN (SELECT answer_id FROM claim_marks)", (run_id,))]
    return {r.answer_id: r for r in refs}


@dataclass(frozen=True, slots=True)
class MarkSetEvent:
    """A claim a person marked on an answer of the run (whether taken back since)."""

    answer: AnswerRef
    grader: str
    claim_index: int


def mark_set_events(store: Store, run_id: int) -> list[MarkSetEvent]:
    """Each (answer, person, claim) a person ever set a mark on in the run, once."""
    return [MarkSetEvent(AnswerRef(run, answer, benchmark, question, method, budget), grader, claim)
            for answer, grader, claim, run, method, budget, benchmark, question in store._conn.execute(
                "SELECT DISTINCT m.answer_id, m.grader, m.claim_index, a.run_id, a.method, a.budget, q.benchmark, "
                "q.question_id FROM claim_marks m JOIN answers a ON a.id = m.answer_id "
                "JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND m.action = 'set'", (run_id,))]
