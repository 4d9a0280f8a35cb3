"""The read-only joins behind the figures, across table families: `gradedesk agree`'s report (people's grades beside
the machine grades, every answer's verdict, grade events, judge grades per rubric version), judge alignment (people's
graded answers) and `gradedesk summary` (people's grades per method, a run's grading cost and LLM scorers' details).

It owns no table: it joins answers, questions, auto_grades and the machine_grades view, human_grades and the
current_human_grades view, answer_scores and rubrics. A query over one family lives with that family (rubric versions
and flags in rubrics.py, judge verdicts in machine_grades.py, preferences in grades.py, answer texts and costs in
answers.py). The queries `agree` runs over every answer or grade of a run keep their SQL text
(benchmarks/agree_scale.py times them at scale). Every reader behind `agree` leaves out the items someone flagged
(core/store/flags.py): a flagged question's gold answer or wording is in doubt.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import unflagged_sql
from gradedesk.core.store.machine_grades import GRADING_ERROR as UNUSABLE
from gradedesk.core.store.machine_grades import compared_id, verdict_sql

# agree's readers keep the items nobody flagged (answers joined as `a`; the note saying how many is report.py's)
_UNFLAGGED = unflagged_sql("a.run_id", "a.question_pk")

# The machine grade of auto_grades row `m` as a verdict: NULL for an unusable reply (stored as `unsupported`).
_VERDICT = verdict_sql("m")


def _chosen(answer: str) -> str:
    """The auto_grades id of the chosen grader's grade of `answer` (parameters :choice_kind, :choice_model; any model
    of the kind when :choice_model is NULL; the newest grade of the first repeat)."""
    return (f"(SELECT g.id FROM auto_grades g WHERE g.answer_id = {answer} AND g.grader_kind = :choice_kind "
            f"AND (:choice_model IS NULL OR g.grader_model IN (:choice_model, 'import:' || :choice_model)) "
            f"ORDER BY g.repeat_index, g.id DESC LIMIT 1)")


# -- agree: people beside the machine ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PairRow:
    """A person's current grade of an answer beside the compared machine grade (machine None: none, or unusable)."""

    answer_id: int
    question_pk: int
    grader: str
    human: str
    human_label: str | None
    mode: str
    rubric_version: str | None
    method: str
    budget: int
    category: str
    machine: str | None
    unusable: int  # 1: the machine grade is an unusable reply
    grader_kind: str | None
    grader_model: str | None
    confidence: float | None
    selection: str | None
    recorded: int  # 1: the grade recorded which machine grader was on the desk


def person_machine_pairs(store: Store, run_id: int, choice_kind: str | None = None,
                         choice_model: str | None = None) -> list[PairRow]:
    """Every person's current grade of the run's answers, with the machine grade it is compared with: the chosen
    grader's (`choice_kind`, optionally `choice_model`) or, without a choice, the one on the desk when it was saved."""
    pick = _chosen("h.answer_id") if choice_kind else compared_id("h")
    choice = {"choice_kind": choice_kind, "choice_model": choice_model} if choice_kind else {}
    return [PairRow(**r) for r in store._query(
        f"""
        SELECT h.answer_id, a.question_pk, h.grader, h.grade AS human, h.failure_label AS human_label, h.mode,
               h.rubric_version, a.method, a.budget, q.category,
               {_VERDICT} AS machine, {_VERDICT} IS NULL AND m.grade IS NOT NULL AS unusable,
               m.grader_kind, m.grader_model,
               m.confidence, h.selection, h.machine_kind IS NOT NULL AS recorded
        FROM current_human_grades h
        JOIN answers a ON a.id = h.answer_id
        JOIN questions q ON q.id = a.question_pk
        LEFT JOIN auto_grades m ON m.id = {pick}
        WHERE a.run_id = :run AND h.grade IS NOT NULL AND {_UNFLAGGED}
        ORDER BY h.answer_id, h.grader
        """,
        {"run": run_id, **choice},
    )]


def machine_graders(store: Store, run_id: int) -> list[tuple[str, str | None]]:
    """(kind, model) of every machine grader that graded an answer of the run."""
    return [(r["grader_kind"], r["grader_model"]) for r in store._query(
        "SELECT DISTINCT g.grader_kind, g.grader_model FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "WHERE a.run_id = ?", (run_id,))]


def answer_verdicts(store: Store, run_id: int, choice_kind: str | None = None, choice_model: str | None = None
                    ) -> Iterator[tuple[int, str, int, int | None, str | None, str | None]]:
    """(question_pk, method, budget, tokens_in, verdict, grader_kind) of every answered answer of the run, with the
    chosen grader's grade, else the `machine_grades` view's pick (verdict None: no grade, or an unusable one).

    A cursor of plain tuples: `agree` reads every answer of the run once (a million at scale)."""
    machine = (f"auto_grades m ON m.id = {_chosen('a.id')}" if choice_kind
               else "machine_grades m ON m.answer_id = a.id")
    choice = {"choice_kind": choice_kind, "choice_model": choice_model} if choice_kind else {}
    return store._conn.execute(
        f"SELECT a.question_pk, a.method, a.budget, a.tokens_in, {_VERDICT}, m.grader_kind "
        f"FROM answers a LEFT JOIN {machine} WHERE a.run_id = :run AND a.status = 'ok' AND {_UNFLAGGED}",
        {"run": run_id, **choice})


def human_pass_rates(store: Store, run_id: int, pass_grade: str) -> dict[tuple[str, int], float]:
    """(method, budget) -> the share of people's current grades of the run's answered answers that are `pass_grade`."""
    return {(r["method"], r["budget"]): r["rate"] for r in store._query(
        "SELECT a.method, a.budget, avg(h.grade = ?) AS rate FROM current_human_grades h "
        "JOIN answers a ON a.id = h.answer_id WHERE a.run_id = ? AND a.status = 'ok' AND h.grade IS NOT NULL "
        f"AND {_UNFLAGGED} "
        "GROUP BY a.method, a.budget",
        (pass_grade, run_id))}


@dataclass(frozen=True, slots=True)
class GradeEvent:
    """A person's 'set' event with a grade."""

    answer_id: int
    grader: str
    grade: str
    mode: str
    judge_visible: int  # 1: the machine grade was in view
    is_revision: int  # 1: a change of an earlier grade
    live: int  # 1: no undo took it back


def grade_events(store: Store, run_id: int) -> list[GradeEvent]:
    """The run's grade events, undone ones too (a blind grade taken back was still seen before the reveal), oldest
    first."""
    return [GradeEvent(**r) for r in store._query(
        f"""
        SELECT h.answer_id, h.grader, h.grade, h.mode, h.judge_visible, h.is_revision,
               NOT EXISTS (SELECT 1 FROM human_grades u WHERE u.action = 'undo' AND u.undoes_uuid = h.uuid) AS live
        FROM human_grades h JOIN answers a ON a.id = h.answer_id
        WHERE a.run_id = ? AND h.action = 'set' AND h.grade IS NOT NULL AND {_UNFLAGGED}
        ORDER BY h.id
        """,
        (run_id,),
    )]


@dataclass(frozen=True, slots=True)
class JudgeBesidePerson:
    answer_id: int
    grader: str
    person: str
    grader_model: str | None
    rubric_version: str | None
    judge: str


def judge_grades_beside_people(store: Store, run_id: int) -> list[JudgeBesidePerson]:
    """Each usable first-repeat judge grade beside each person's current grade of the same answer, oldest rubric
    version first."""
    return [JudgeBesidePerson(**r) for r in store._query(
        f"""
        SELECT h.answer_id, h.grader, h.grade AS person, g.grader_model, g.rubric_version, g.grade AS judge
        FROM current_human_grades h
        JOIN answers a ON a.id = h.answer_id
        JOIN auto_grades g ON g.answer_id = h.answer_id AND g.grader_kind = 'judge' AND g.repeat_index = 0
             AND coalesce(g.failure_label, '') != ?
        LEFT JOIN rubrics r ON r.version = g.rubric_version
        WHERE a.run_id = ? AND h.grade IS NOT NULL AND {_UNFLAGGED}
        ORDER BY r.created_at, r.rowid, g.grader_model, h.answer_id, h.grader
        """,
        (UNUSABLE, run_id),
    )]


# -- judge alignment: people's grades, the judge's verdicts ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PersonGradedAnswer:
    """A person's current grade of an answered answer, with the answer and its question."""

    answer_id: int
    grader: str
    grade: str
    failure_label: str | None
    note: str | None
    question_pk: int
    method: str
    budget: int
    text: str | None
    benchmark: str
    question_id: str
    question: str
    gold_answer: str | None


def people_graded_answers(store: Store, run_id: int, grader: str | None = None) -> list[PersonGradedAnswer]:
    """People's (or one person's) current grades of the run's answered answers, by answer then person."""
    return [PersonGradedAnswer(**r) for r in store._query(
        "SELECT h.answer_id, h.grader, h.grade, h.failure_label, h.note, a.question_pk, a.method, a.budget, a.text, "
        "q.benchmark, q.question_id, q.question, q.gold_answer FROM current_human_grades h "
        "JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND a.status = 'ok' AND h.grade IS NOT NULL" + (" AND h.grader = ?" if grader else "")
        + " ORDER BY h.answer_id, h.grader", (run_id, grader) if grader else (run_id,))]


# -- summary: people's grades, a run's grading cost ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CallCost:
    """What some model calls cost: tokens, dollars (None: no price known) and how many calls."""

    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    calls: int


def judge_cost(store: Store, run_id: int) -> CallCost:
    """Tokens, cost and calls of every judge grade of the run (every repeat)."""
    return CallCost(**store._query(
        "SELECT coalesce(sum(g.tokens_in), 0) AS tokens_in, coalesce(sum(g.tokens_out), 0) AS tokens_out, "
        "sum(g.cost_usd) AS cost_usd, count(*) AS calls FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "WHERE a.run_id = ? AND g.grader_kind = 'judge'", (run_id,))[0])


def llm_score_details(store: Store, run_id: int) -> list[str | None]:
    """The detail (JSON text) of every score an LLM scorer gave an answer of the run."""
    return [r["detail"] for r in store._query(
        "SELECT s.detail FROM answer_scores s JOIN answers a ON a.id = s.answer_id "
        "WHERE a.run_id = ? AND s.method LIKE 'llm:%'", (run_id,))]
