"""The grade tables as run logs and score exports read and write them: human_grades (and its view
current_human_grades), auto_grades, claim_marks, answer_scores, and whether a rubric version is stored.

Out (core/exchange/runlog_export.py, scores.py, scores_withdrawn.py): an answer's current grades, people's and
machines' (`answer_human_grades`, `answer_machine_grades`); a run's grades named by their answer (`run_human_grades`,
`run_machine_grades`); the answers people marked claims of (`marked_answer_refs`); every grade and claim mark a person
set in a run, undone or not (`grade_set_events`, `mark_set_events`). In (core/exchange/runlog_import.py): a person's
grade that came with a run log (`add_imported_human_grade`), a machine's (`add_machine_grade`), the log's retrieval
metrics (`add_answer_scores`).
"""

from __future__ import annotations

import json
from dataclasses import astuple, dataclass, fields
from typing import Any

from gradedesk.core.store.answers import ANSWER_REF_SQL, AnswerRef
from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class HumanGrade:
    """A person's grade event as a run log carries it (every column but the desk's bookkeeping)."""

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
    machine_kind: str | None  # the machine grader on the desk when it was saved
    machine_model: str | None
    machine_rubric: str | None


@dataclass(frozen=True, slots=True)
class MachineGrade:
    """A machine grade (auto_grades): the judge's, the rule grader's or one imported with a run log."""

    answer_id: int
    grader_kind: str  # judge | rule | imported
    grader_model: str | None
    rubric_version: str | None
    repeat_index: int
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    created_at: str


_HUMAN = [f.name for f in fields(HumanGrade)]
_MACHINE = [f.name for f in fields(MachineGrade)]


def _columns(alias: str, names: list[str]) -> str:
    return ", ".join(f"{alias}.{n}" for n in names)


# out -------------------------------------------------------------------------------------------------------------------
def answer_human_grades(store: Store, answer_id: int) -> list[HumanGrade]:
    """People's current grades of the answer, oldest first."""
    return [HumanGrade(*row) for row in store._conn.execute(
        f"SELECT {_columns('h', _HUMAN)} FROM current_human_grades h WHERE h.answer_id = ? ORDER BY h.id",
        (answer_id,))]


def answer_machine_grades(store: Store, answer_id: int) -> list[MachineGrade]:
    """Every machine grade of the answer, by kind, repeat and age."""
    return [MachineGrade(*row) for row in store._conn.execute(
        f"SELECT {_columns('g', _MACHINE)} FROM auto_grades g WHERE g.answer_id = ? "
        "ORDER BY g.grader_kind, g.repeat_index, g.id", (answer_id,))]


def run_human_grades(store: Store, run_id: int) -> list[tuple[AnswerRef, HumanGrade]]:
    """People's current grades (with a grade) of the run's answers, by answer and person."""
    n = len(fields(AnswerRef))
    return [(AnswerRef(*row[:n]), HumanGrade(*row[n:])) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL}, {_columns('h', _HUMAN)} FROM current_human_grades h "
        "JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND h.grade IS NOT NULL ORDER BY h.answer_id, h.grader", (run_id,))]


def run_machine_grades(store: Store, run_id: int) -> list[tuple[AnswerRef, MachineGrade]]:
    """Every machine grade of the run's answers, by answer and age."""
    n = len(fields(AnswerRef))
    return [(AnswerRef(*row[:n]), MachineGrade(*row[n:])) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL}, {_columns('g', _MACHINE)} FROM auto_grades g "
        "JOIN answers a ON a.id = g.answer_id JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? ORDER BY g.answer_id, g.id", (run_id,))]


def marked_answer_refs(store: Store, run_id: int) -> dict[int, AnswerRef]:
    """{answer id: the answer} for the run's answers that have claim marks."""
    refs = [AnswerRef(*row) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL} FROM answers a JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND a.id IN (SELECT answer_id FROM claim_marks)", (run_id,))]
    return {r.answer_id: r for r in refs}


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


# in --------------------------------------------------------------------------------------------------------------------
def add_imported_human_grade(store: Store, grade: HumanGrade) -> int:
    """Store a person's grade that came with a run log (a 'set' event, selection 'imported': someone else's process
    chose the item, so it is never weighed as a sample); 0 when its uuid is here already, else 1."""
    names = [*_HUMAN, "action", "selection"]
    return int(store._conn.execute(
        f"INSERT OR IGNORE INTO human_grades ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        (*astuple(grade), "set", "imported")).rowcount)


def add_machine_grade(store: Store, grade: MachineGrade) -> None:
    """Store a machine grade; one with the same answer, grader, rubric and repeat is kept as it is."""
    store._conn.execute(f"INSERT OR IGNORE INTO auto_grades ({', '.join(_MACHINE)}) "
                       f"VALUES ({', '.join('?' * len(_MACHINE))})", astuple(grade))


def rubric_stored(store: Store, version: str) -> bool:
    return store._scalar("SELECT 1 FROM rubrics WHERE version = ?", (version,)) is not None


def add_answer_scores(store: Store, answer_id: int, method: str, metrics: dict[str, tuple[float | None, Any]],
                      created_at: str) -> None:
    """Store (or replace) the answer's value of each metric by `method`, with its detail (kept as JSON)."""
    store._db.table("answer_scores").insert_all(
        [{"answer_id": answer_id, "metric": metric, "method": method, "value": value,
          "detail": json.dumps(detail, ensure_ascii=False), "created_at": created_at}
         for metric, (value, detail) in metrics.items()], replace=True)
