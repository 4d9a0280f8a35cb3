"""Machine grades and scores: tables auto_grades (the judge's, the rule grader's and imported grades), answer_scores
(retrieval evals, faithfulness, relevance), answer_claims (an answer's claims, computed once), and the view
machine_grades.

What it gives: which grades are already made against the current gold (`fresh_rule_grades`, `fresh_judge_grades`),
writing one grade (`replace_auto_grade`, an AutoGrade; `add_machine_grade` for one that came with a run log), an
answer's or a run's grades as run logs and score exports read them (`answer_machine_grades`, `run_machine_grades`),
a run's grades with where each answer stands (RunMachineGrade: the judge's repeats, `judge_repeats`; every first
repeat, `machine_grade_rows`), the rubric versions the judge graded under (`judge_rubrics`), its usable verdicts under
a version and their cost (`judge_verdicts`, `verdict_cost`: judge alignment's), scores in and out
(`store_scores`, `run_scores`, `score_details`, `faithfulness_scores`, `answer_score_values`), claims in and out
(`put_claims`, `claims_detail`, `claim_counts`, `claim_counts_by_method`).

The machine verdict the desk and agreement use is defined here once, as SQL only the store builds on: `verdict_id`
(which grade the desk shows: the `machine_grades` view's, or the judge's under a chosen rubric), `verdict_sql` (a
grading_error is no verdict) and `compared_id` (which grade a person's grade is compared with: the one on the desk
when it was saved). A compared pair is a person's current grade beside a usable verdict of the kind compared
(`compared_kind`): `agree`, its screen and the desk's status line all count them so (reports.py, desk.py).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import astuple, dataclass, field, fields
from typing import Any

from gradedesk.core.store.answers import ANSWER_REF_SQL, AnswerRef
from gradedesk.core.store.connection import Store, column_list, utc_now
from gradedesk.core.store.gold import STALE_SQL

# the failure label of a machine grade whose reply could not be used: stored as grade `unsupported`, counted, never a
# NaN, and no verdict
GRADING_ERROR = "grading_error"


# the machine verdict (SQL fragments: for core/store only) ------------------------------------------------------------
def verdict_sql(grade: str) -> str:
    """SQL: the machine grade in `grade` (an auto_grades alias) as a verdict: NULL for a grading_error, which is stored
    as `unsupported` but is no verdict, so it neither agrees nor disagrees with a person and never passes or fails."""
    return f"CASE WHEN {grade}.failure_label IS '{GRADING_ERROR}' THEN NULL ELSE {grade}.grade END"


def verdict_id(answer: str, judge_rubric: str | None) -> tuple[str, dict[str, Any]]:
    """SQL for the auto_grades id of the verdict the desk uses for answer `answer` (an SQL expression: "a.id",
    ":answer"), and the named parameters it needs. Correlated and index-driven: one lookup per answer.

    By default it is the `machine_grades` view's (the judge's, first repeat, newest; else an imported grade; else the
    rule grader's). When the person has chosen a rubric version on the desk, it is the judge's verdict under that
    version (first repeat, newest), or none where the judge did not grade the answer under it."""
    if judge_rubric is None:
        return f"(SELECT dv.id FROM machine_grades dv WHERE dv.answer_id = {answer})", {}
    return (f"(SELECT dv.id FROM auto_grades dv WHERE dv.answer_id = {answer} AND dv.grader_kind = 'judge' "
            "AND dv.rubric_version = :judge_rubric AND dv.repeat_index = 0 ORDER BY dv.id DESC LIMIT 1)",
            {"judge_rubric": judge_rubric})


# the kinds of machine grader, in the order a comparison prefers them (the `machine_grades` view's order), and their
# names (auto_grades.grader_kind)
KIND_PREFERENCE = ("judge", "imported", "rule")
MACHINE_NAMES = {"judge": "judge", "rule": "rule grader", "imported": "imported grade"}


def compared_kind(kinds: Iterable[str | None]) -> str | None:
    """The kind of machine grader people's grades are compared with, of the kinds of machine grade beside them: the
    first of KIND_PREFERENCE present (a pair of another kind is left out, never mixed in)."""
    present = set(kinds)
    return next((k for k in KIND_PREFERENCE if k in present), None)


def compared_id(human: str) -> str:
    """SQL: the auto_grades id of the machine grade a person's grade (`human`, a human_grades alias) is compared with:
    the grade of the grader on the desk when it was saved (same kind, model and rubric; first repeat, newest), or the
    `machine_grades` view's pick when the grade did not record one (older stores, imports). Correlated and
    index-driven, like verdict_id."""
    return f"""CASE WHEN {human}.machine_kind IS NULL
    THEN (SELECT mg.id FROM machine_grades mg WHERE mg.answer_id = {human}.answer_id)
    ELSE (SELECT g.id FROM auto_grades g WHERE g.answer_id = {human}.answer_id AND g.grader_kind = {human}.machine_kind
          AND g.grader_model IS {human}.machine_model AND g.rubric_version IS {human}.machine_rubric
          ORDER BY g.repeat_index, g.id DESC LIMIT 1) END"""


# auto_grades ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AutoGrade:
    """A machine grade (auto_grades): the judge's, the rule grader's or one imported with a run log."""

    answer_id: int
    grader_kind: str  # judge | rule | imported (or what a run log names)
    grader_model: str | None
    rubric_version: str | None
    repeat_index: int
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    raw_response: str | None
    created_at: str
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None


_AUTO_FIELDS = tuple(f.name for f in fields(AutoGrade))


def replace_auto_grade(store: Store, g: AutoGrade) -> None:
    """Store a grade in place of the grader's earlier one for the same answer, rubric and repeat; the caller holds the
    transaction. The schema's trigger stamps the question's current gold on it."""
    store._conn.execute(
        "DELETE FROM auto_grades WHERE answer_id = ? AND grader_kind = ? AND grader_model = ? "
        "AND rubric_version IS ? AND repeat_index = ?",
        (g.answer_id, g.grader_kind, g.grader_model, g.rubric_version, g.repeat_index))
    store._insert("auto_grades", {k: getattr(g, k) for k in _AUTO_FIELDS})


def add_machine_grade(store: Store, grade: AutoGrade) -> None:
    """Store a machine grade that came with a run log; one with the same answer, grader, rubric and repeat is kept as
    it is."""
    store._conn.execute(f"INSERT OR IGNORE INTO auto_grades ({', '.join(_AUTO_FIELDS)}) "
                        f"VALUES ({', '.join('?' * len(_AUTO_FIELDS))})", astuple(grade))


def answer_machine_grades(store: Store, answer_id: int) -> list[AutoGrade]:
    """Every machine grade of the answer, by kind, repeat and age."""
    return [AutoGrade(*row) for row in store._conn.execute(
        f"SELECT {column_list('g', _AUTO_FIELDS)} FROM auto_grades g WHERE g.answer_id = ? "
        "ORDER BY g.grader_kind, g.repeat_index, g.id", (answer_id,))]


def run_machine_grades(store: Store, run_id: int) -> list[tuple[AnswerRef, AutoGrade]]:
    """Every machine grade of the run's answers, by answer and age."""
    n = len(fields(AnswerRef))
    return [(AnswerRef(*row[:n]), AutoGrade(*row[n:])) for row in store._conn.execute(
        f"SELECT {ANSWER_REF_SQL}, {column_list('g', _AUTO_FIELDS)} FROM auto_grades g "
        "JOIN answers a ON a.id = g.answer_id JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? ORDER BY g.answer_id, g.id", (run_id,))]


def fresh_rule_grades(store: Store, run_id: int, model: str) -> set[int]:
    """The answers of the run that rule grader `model` graded against their question's current gold."""
    return {r["answer_id"] for r in store._query(
        "SELECT g.answer_id FROM auto_grades g JOIN answers a ON a.id = g.answer_id JOIN questions q "
        f"ON q.id = a.question_pk WHERE a.run_id = ? AND g.grader_kind = 'rule' AND g.grader_model = ? "
        f"AND NOT ({STALE_SQL})", (run_id, model))}


def fresh_judge_grades(store: Store, answer_ids: list[int], model: str, rubric_version: str) -> set[tuple[int, int]]:
    """(answer id, repeat index) of the judge grades made by `model` under `rubric_version` against the current gold,
    not counting calls that failed (a grading_error without a reply: tried again)."""
    marks = ",".join("?" * len(answer_ids))
    return {(r["answer_id"], r["repeat_index"]) for r in store._query(
        "SELECT g.answer_id, g.repeat_index FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "JOIN questions q ON q.id = a.question_pk WHERE g.grader_kind = 'judge' AND g.grader_model = ? "
        "AND g.rubric_version = ? AND NOT (coalesce(g.failure_label, '') = ? AND g.raw_response IS NULL) "
        f"AND NOT ({STALE_SQL}) AND g.answer_id IN ({marks})", (model, rubric_version, GRADING_ERROR, *answer_ids))}


def failed_judge_calls(store: Store, answer_ids: list[int], model: str,
                       rubric_version: str) -> dict[tuple[int, int], str]:
    """{(answer id, repeat index): why} of `model`'s judge calls under `rubric_version` that failed (a grading_error
    without a reply), whatever the gold."""
    marks = ",".join("?" * len(answer_ids))
    return {(r["answer_id"], r["repeat_index"]): r["reasoning"] for r in store._query(
        "SELECT answer_id, repeat_index, reasoning FROM auto_grades WHERE grader_kind = 'judge' AND grader_model = ? "
        "AND rubric_version = ? AND coalesce(failure_label, '') = ? AND raw_response IS NULL "
        f"AND answer_id IN ({marks})", (model, rubric_version, GRADING_ERROR, *answer_ids))}


def stale_judge_grades(store: Store, run_id: int, model: str) -> int:
    """How many of judge `model`'s grades of the run were made against an older gold."""
    return store._scalar(
        "SELECT count(*) FROM auto_grades g JOIN answers a ON a.id = g.answer_id JOIN questions q ON "
        f"q.id = a.question_pk WHERE a.run_id = ? AND g.grader_kind = 'judge' AND g.grader_model = ? AND {STALE_SQL}",
        (run_id, model)) or 0


@dataclass(frozen=True, slots=True)
class RunMachineGrade:
    """A machine grade of a run's answer, with where the answer stands (its question, method and budget): what the
    judge's consistency across repeats and `gradedesk summary`'s grade counts are made of."""

    answer_id: int
    grader_kind: str
    grader_model: str | None
    rubric_version: str | None
    repeat_index: int
    grade: str
    failure_label: str | None
    question_id: str
    category: str
    method: str
    budget: int


_RUN_GRADE_COLUMNS = ("g.answer_id, g.grader_kind, g.grader_model, g.rubric_version, g.repeat_index, g.grade, "
                      "g.failure_label, q.question_id, q.category, a.method, a.budget")


def judge_repeats(store: Store, run_id: int, model: str | None = None) -> list[RunMachineGrade]:
    """The judge's grades of a run (of one model when given), by answer and repeat."""
    rows = store._conn.execute(
        f"SELECT {_RUN_GRADE_COLUMNS} FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND g.grader_kind = 'judge' "
        + ("AND g.grader_model = ? " if model else "")
        + "ORDER BY g.answer_id, g.repeat_index", (run_id, *([model] if model else [])))
    return [RunMachineGrade(*r) for r in rows]


def machine_grade_rows(store: Store, run_id: int) -> list[RunMachineGrade]:
    """The run's machine grades (first repeat only) with their answer's method and question."""
    return [RunMachineGrade(*r) for r in store._conn.execute(
        f"SELECT {_RUN_GRADE_COLUMNS} FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND g.repeat_index = 0", (run_id,))]


def judge_rubrics(store: Store, answer_ids: list[int]) -> tuple[str, ...]:
    """The rubric versions the judge graded any of these answers under, oldest rubric first."""
    marks = ",".join("?" * len(answer_ids)) or "NULL"
    return tuple(r["rubric_version"] for r in store._query(
        "SELECT g.rubric_version FROM auto_grades g LEFT JOIN rubrics r ON r.version = g.rubric_version "
        f"WHERE g.grader_kind = 'judge' AND g.rubric_version IS NOT NULL AND g.answer_id IN ({marks}) "
        "GROUP BY g.rubric_version ORDER BY min(r.created_at), g.rubric_version", tuple(answer_ids)))


def _in(ids: Collection[int]) -> tuple[str, tuple[int, ...]]:
    ordered = tuple(sorted(ids))
    return ",".join("?" * len(ordered)) or "NULL", ordered


def judge_verdicts(store: Store, model: str, version: str, answer_ids: Collection[int]) -> dict[int, str]:
    """answer_id -> the judge's grade (first repeat) under rubric `version`, for answers whose verdict is usable."""
    marks, ids = _in(answer_ids)
    rows = store._query(
        "SELECT answer_id, grade FROM auto_grades WHERE grader_kind = 'judge' AND grader_model = ? "
        f"AND rubric_version = ? AND repeat_index = 0 AND coalesce(failure_label, '') != ? AND answer_id IN ({marks})",
        (model, version, GRADING_ERROR, *ids))
    return {r["answer_id"]: r["grade"] for r in rows}


def verdict_cost(store: Store, model: str, parts: list[tuple[str, Collection[int]]]) -> tuple[float | None, int]:
    """Total cost (USD) of the judge's verdicts under each (rubric version, answer ids), every repeat, and how many of
    them have no known cost (None: no cost known at all)."""
    total, unknown, known = 0.0, 0, 0
    for version, answer_ids in parts:
        marks, ids = _in(answer_ids)
        row = store._query(
            "SELECT sum(cost_usd) AS cost, count(cost_usd) AS known, count(*) AS n FROM auto_grades "
            f"WHERE grader_kind = 'judge' AND grader_model = ? AND rubric_version = ? AND answer_id IN ({marks})",
            (model, version, *ids))[0]
        total += row["cost"] or 0.0
        known += row["known"]
        unknown += row["n"] - row["known"]
    return (total if known else None), unknown


# answer_scores --------------------------------------------------------------------------------------------------------
@dataclass
class Score:
    """One metric's value for an answer (None when not defined; `detail` says why), as a scorer made it."""

    metric: str
    value: float | None
    detail: dict[str, Any] = field(default_factory=dict)


def store_scores(store: Store, answer_id: int, scores: list[Score], method: str, created_at: str | None = None) -> None:
    """Write scores of one answer (replacing older values of the same metric and method), made now or at `created_at`
    (an imported run log's); the caller holds the transaction."""
    now = created_at or utc_now()
    store._db.table("answer_scores").upsert_all(
        [{"answer_id": answer_id, "metric": s.metric, "method": method, "value": s.value,
          "detail": json.dumps(s.detail, ensure_ascii=False), "created_at": now} for s in scores],
        pk=("answer_id", "metric", "method"))


def run_scores(store: Store, run_id: int, metrics: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """Every stored score of a run's answers (all metrics, or those named): the score's columns (`method` is the
    scorer's, `detail` still JSON text) with its answer's run_id, answer_method, budget, benchmark and question_id.
    Rows as dicts: the score export spreads them into its records."""
    only = f"AND s.metric IN ({','.join('?' * len(metrics))})" if metrics else ""
    return store._query(
        "SELECT s.*, a.run_id, a.method AS answer_method, a.budget, q.benchmark, q.question_id FROM answer_scores s "
        "JOIN answers a ON a.id = s.answer_id JOIN questions q ON q.id = a.question_pk "
        f"WHERE a.run_id = ? {only} ORDER BY s.answer_id, s.method, s.metric", (run_id, *(metrics or ())))


def score_details(store: Store, answer_ids: list[int], method: str) -> list[tuple[int, str, str | None]]:
    """(answer id, metric, detail JSON) of the scores scorer `method` stored for these answers."""
    marks = ",".join("?" * len(answer_ids))
    return [(r[0], r[1], r[2]) for r in store._conn.execute(
        f"SELECT answer_id, metric, detail FROM answer_scores WHERE method = ? AND answer_id IN ({marks})",
        (method, *answer_ids))]


def faithfulness_scores(store: Store, answer_id: int) -> list[tuple[str, float | None, str | None]]:
    """(scorer method, value, detail JSON) of every faithfulness score of an answer, by method."""
    return [(r["method"], r["value"], r["detail"]) for r in store._query(
        "SELECT method, value, detail FROM answer_scores WHERE answer_id = ? AND metric = "
        "'faithfulness' ORDER BY method", (answer_id,))]


def answer_score_values(store: Store, answer_id: int) -> list[tuple[str, str, float | None]]:
    """(metric, method, value) of every score of an answer, by metric and method."""
    return [(s["metric"], s["method"], s["value"]) for s in store._query(
        "SELECT metric, method, value FROM answer_scores WHERE answer_id = ? ORDER BY metric, method", (answer_id,))]


# answer_claims --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ClaimCounts:
    """What an answer's stored claims add up to."""

    claims: int
    cited: int  # claims with at least one citation
    citations: int
    invalid: int  # citations that resolve to nothing


def put_claims(store: Store, answer_id: int, splitter: str, counts: ClaimCounts, detail: str) -> None:
    """Replace the stored claims of an answer (`detail`: the claims as JSON) (one transaction, joining the caller's)."""
    with store.transaction():
        store._upsert("answer_claims", {
            "answer_id": answer_id, "splitter": splitter, "claims": counts.claims, "cited": counts.cited,
            "citations": counts.citations, "invalid": counts.invalid, "detail": detail, "computed_at": utc_now(),
        }, key=("answer_id",))


def claims_detail(store: Store, answer_id: int) -> tuple[str, str] | None:
    """(splitter version, claims JSON) of an answer's stored claims; None when never computed."""
    row = store._query("SELECT splitter, detail FROM answer_claims WHERE answer_id = ?", (answer_id,))
    return (row[0]["splitter"], row[0]["detail"]) if row else None


def claim_counts(store: Store, answer_id: int) -> ClaimCounts | None:
    """The counts of an answer's stored claims (whatever splitter made them); None when never computed."""
    row = store._query("SELECT claims, cited, citations, invalid FROM answer_claims WHERE answer_id = ?", (answer_id,))
    return ClaimCounts(**row[0]) if row else None


@dataclass(frozen=True, slots=True)
class MethodClaimCounts:
    """Claim counts of a run's answered answers of one method (raw, or bundle at one budget)."""

    method: str
    budget: int
    answers: int
    computed: int  # of them, with claims stored by the splitter asked for
    claims: int
    cited: int
    citations: int
    invalid: int
    answers_with_invalid: int


def claim_counts_by_method(store: Store, run_id: int, splitter: str) -> list[MethodClaimCounts]:
    """Per answer method and budget: the claim counts of the run's answered answers (claims by `splitter` only)."""
    rows = store._conn.execute(
        "SELECT a.method, a.budget, count(*) AS answers, count(c.answer_id) AS computed, "
        "coalesce(sum(c.claims), 0) AS claims, coalesce(sum(c.cited), 0) AS cited, "
        "coalesce(sum(c.citations), 0) AS citations, coalesce(sum(c.invalid), 0) AS invalid, "
        "coalesce(sum(c.invalid > 0), 0) AS answers_with_invalid "
        "FROM answers a LEFT JOIN answer_claims c ON c.answer_id = a.id AND c.splitter = ? "
        "WHERE a.run_id = ? AND a.status = 'ok' GROUP BY a.method, a.budget ORDER BY a.method DESC, a.budget",
        (splitter, run_id))
    return [MethodClaimCounts(*r) for r in rows]
