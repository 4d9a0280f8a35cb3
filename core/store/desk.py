"""The grading desk's queries over a run: which answers it shows, the queue's filters and keyset pages, moving between
items, the run's question order, progress, recheck samples, the sampler's usefulness (its draws are samples.py's),
where each grader stopped (table desk_state), and one item loaded whole: its question, its shown answers and their
machine verdicts (core/review/item.py puts them together with grades, scores, claims and bundles).

These are the desk's hot queries, measured by benchmarks/desk_scale.py at a million answers: keyset queries over the
answers' unique index, never the run loaded whole, with the SQL text the desk has always used. The queue, progress
and sampler queries return what the desk's code has always built on (cursor rows as tuples, counts, an array of ids)
rather than a record per row, since they may read thousands of rows per key press; core/review/queue.py and
sampler.py turn them into QueueRow, Progress and the draw. An item's few rows come as records.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from gradedesk.core.store.assignments import desk_set_sql
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.flags import unflagged_sql
from gradedesk.core.store.gold import STALE_SQL
from gradedesk.core.store.grades import seen_sql
from gradedesk.core.store.machine_grades import KIND_PREFERENCE, compared_id, compared_kind, verdict_id, verdict_sql
from gradedesk.core.store.run_records import RunInfo

# The answers the desk shows for a run: raw, and bundled at the budget it shows (RunInfo.bundle_budget: :budget).
SHOWN = "a.run_id = :run AND (a.method = 'raw' OR (a.method = 'bundle' AND a.budget = :budget))"
# The person's current grade of answer `a` (the view, narrowed to one answer: it uses human_grades_answer); NULL when
# they gave only a label, scores or a note so far.
_HUMAN = "(SELECT h.{col} FROM current_human_grades h WHERE h.answer_id = a.id AND h.grader = :grader)"
# The person's current grade `own` (a current_human_grades row of answer `a`) disagrees with the machine grade it is
# compared with (compared_id), of the kind their figures compare (:kind, compared_with): one of the pairs the status
# line counts as compared, not agreed
_DISAGREES = f"""own.grade IS NOT NULL AND EXISTS (SELECT 1 FROM auto_grades g WHERE g.id = {compared_id('own')}
    AND g.grader_kind IS :kind AND {verdict_sql('g')} <> own.grade)"""


def answers_with_verdicts(judge_rubric: str | None) -> tuple[str, dict[str, Any]]:
    """FROM answers `a`, each with `m`: the machine verdict the desk uses for it (machine_grades.verdict_id), if any."""
    verdict, params = verdict_id("a.id", judge_rubric)
    return f"answers a LEFT JOIN auto_grades m ON m.id = {verdict}", params


class QueueFilter(Protocol):
    """The queue's filters as its queries read them (core/review/queue.py Filters checks and describes them)."""

    @property
    def category(self) -> str | None: ...
    @property
    def method(self) -> str | None: ...  # raw | bundle
    @property
    def grade(self) -> str | None: ...  # the person's current grade
    @property
    def judge_grade(self) -> str | None: ...  # the machine verdict the desk uses
    @property
    def max_confidence(self) -> float | None: ...
    @property
    def status(self) -> str: ...  # all | graded | ungraded | disagreeing


def _own_graded(f: QueueFilter) -> bool:
    """Only answers with the person's own grade can pass the filters (graded, disagreeing, a grade: a confusion-matrix
    cell)."""
    return f.status in ("graded", "disagreeing") or f.grade is not None


def _source(f: QueueFilter, judge_rubric: str | None) -> tuple[str, str, str, dict[str, Any]]:
    """(FROM, a condition, the person's current grade of `a` as SQL, parameters): the answers `a` that may pass the
    filters, each with `m`, its machine verdict (answers_with_verdicts). When only the person's own grades can pass
    (_own_graded), they are driven by those grades (few, by the human_grades_grader index), each `own`, never by a
    scan of the run's answers in order (seconds at a million answers when few or none lie ahead: a queue page of
    disagreements, `d`); otherwise by the answers themselves, in the order of their index."""
    answers, params = answers_with_verdicts(judge_rubric)
    if _own_graded(f):
        return (f"current_human_grades own CROSS JOIN {answers}", "own.grader = :grader AND a.id = own.answer_id",
                "own.grade", params)
    return answers, "1", _HUMAN.format(col="grade"), params


def _where(f: QueueFilter, store: Store, run: RunInfo, grader: str, kind: str | None, judge_rubric: str | None,
           human: str) -> tuple[str, dict[str, Any]]:
    """SQL conditions on answer `a` and its machine verdict `m` (from _source), beyond the shown set, and their
    parameters. The first: the question is in the person's set (their assigned items, when they have any). `human`:
    the person's current grade of `a` (_source's). `kind`: the kind of machine grader the person's figures compare
    (compared_with), when the caller counted it. A disagreement is one of the pairs the person's figures compare; with
    a judge rubric version chosen on the desk, a disagreement with that version's verdict, as the desk shows it."""
    conds: list[str] = [desk_set_sql("a.question_pk")]
    params: dict[str, Any] = {}
    machine = verdict_sql("m")  # a grading_error neither matches nor disagrees
    if f.category is not None:
        conds.append("a.question_pk IN (SELECT id FROM questions WHERE category = :category)")
        params["category"] = f.category
    if f.method is not None:
        conds.append("a.method = :method")
        params["method"] = f.method
    if f.grade is not None:
        conds.append(f"{human} = :grade")
        params["grade"] = f.grade
    if f.judge_grade is not None:
        conds.append(f"{machine} = :judge_grade")
        params["judge_grade"] = f.judge_grade
    if f.max_confidence is not None:
        conds.append("m.confidence <= :max_confidence")
        params["max_confidence"] = f.max_confidence
    if f.status == "graded":
        conds.append(f"{human} IS NOT NULL")
    elif f.status == "ungraded":
        conds.append(f"{human} IS NULL")
    elif f.status == "disagreeing" and judge_rubric is not None:
        conds.append(f"{human} <> {machine}")
    elif f.status == "disagreeing":  # the person's figures' disagreements (compared - agreed), pair for pair
        conds.append(_DISAGREES)
        params["kind"] = kind or compared_with(store, run, grader)[2]
    if f.status == "disagreeing" or (f.grade is not None and f.judge_grade is not None):
        # a disagreement, or a confusion-matrix cell: a compared pair, which a flagged item never is (the same rule
        # as the person's figures and agree's: compared_counts, unflagged_sql)
        conds.append(unflagged_sql("a.run_id", "a.question_pk"))
    return " AND ".join(conds) or "1", params


# the queue ------------------------------------------------------------------------------------------------------------
def queue_rows(store: Store, run: RunInfo, grader: str, filters: QueueFilter, *, after: tuple[int, str] | None = None,
               limit: int = 200, judge_rubric: str | None = None, kind: str | None = None) -> list[tuple[Any, ...]]:
    """The next `limit` shown answers after key `after` (question_pk, method) that pass the filters, in queue order,
    as rows (answer id, question_pk, question_id, category, method, status, human grade, machine grade, machine kind,
    confidence, seen: the person has seen the machine grade, usable: the machine grade is a verdict, not an unusable
    reply); machine grades are the desk's (under `judge_rubric` when one is chosen); `kind`: see _where."""
    source, own, human, params = _source(filters, judge_rubric)
    cond, where_params = _where(filters, store, run, grader, kind, judge_rubric, human)
    params.update(where_params)
    params.update(run=run.id, budget=run.bundle_budget, grader=grader, limit=limit)
    keyset = "1"
    if after is not None:
        keyset = "(a.question_pk, a.method) > (:after_q, :after_m)"
        params.update(after_q=after[0], after_m=after[1])
    sql = f"""
        SELECT a.id, a.question_pk, q.question_id, q.category, a.method, a.status,
               {human} AS human_grade, m.grade AS machine_grade,
               m.grader_kind AS machine_kind, m.confidence, {seen_sql('a.id', ':grader')} AS seen,
               {verdict_sql('m')} IS NOT NULL AS usable
        FROM {source}
        JOIN questions q ON q.id = a.question_pk
        WHERE {own} AND {SHOWN} AND {keyset} AND {cond}
        ORDER BY a.question_pk, a.method LIMIT :limit"""
    return store._conn.execute(sql, params).fetchall()


def neighbour(store: Store, run: RunInfo, grader: str, filters: QueueFilter, question_pk: int | None,
              forward: bool = True, judge_rubric: str | None = None, *, kind: str | None = None) -> int | None:
    """The question after (or before) `question_pk` with a shown answer that passes the filters (machine grades: the
    desk's, under `judge_rubric` when one is chosen; `kind`: see _where); None at the end."""
    source, own, human, params = _source(filters, judge_rubric)
    cond, where_params = _where(filters, store, run, grader, kind, judge_rubric, human)
    params.update(where_params)
    params.update(run=run.id, budget=run.bundle_budget, grader=grader)
    if question_pk is None:
        keyset = "1"
    else:
        keyset = f"a.question_pk {'>' if forward else '<'} :cur"
        params["cur"] = question_pk
    if _own_graded(filters):  # driven by the person's grades: the nearest that passes, not the first in index order
        sql = (f"SELECT {'min' if forward else 'max'}(a.question_pk) FROM {source} "
               f"WHERE {own} AND {SHOWN} AND {keyset} AND {cond}")
    else:
        sql = (f"SELECT a.question_pk FROM {source} WHERE {SHOWN} AND {keyset} AND {cond} "
               f"ORDER BY a.question_pk {'ASC' if forward else 'DESC'} LIMIT 1")
    pk: int | None = store._scalar(sql, params)
    return pk


def has_question(store: Store, run: RunInfo, question_pk: int) -> bool:
    return store._scalar("SELECT 1 FROM answers WHERE run_id = ? AND question_pk = ? LIMIT 1",
                        (run.id, question_pk)) is not None


def find_question(store: Store, run: RunInfo, text: str) -> int | None:
    """The question of this run whose benchmark id is `text` (or, failing that, whose row id is)."""
    text = text.strip()
    # (benchmark, question_id) is indexed; questions of a run come from its benchmark, imports may mix: then scan
    for where, params in (("q.benchmark = ? AND q.question_id = ?", (run.benchmark, text)),
                          ("q.question_id = ?", (text,))):
        pk: int | None = store._scalar(f"SELECT q.id FROM questions q WHERE {where} AND EXISTS (SELECT 1 FROM answers a "
                                      f"WHERE a.run_id = ? AND a.question_pk = q.id) LIMIT 1", (*params, run.id))
        if pk is not None:
            return pk
    if text.isdigit() and has_question(store, run, int(text)):
        return int(text)
    return None


def run_categories(store: Store, run_id: int) -> list[str]:
    return [r[0] for r in store._conn.execute(
        "SELECT DISTINCT q.category FROM questions q WHERE q.id IN (SELECT question_pk FROM answers WHERE run_id = ?) "
        "ORDER BY q.category", (run_id,))]


# order and progress ---------------------------------------------------------------------------------------------------
def _in_set(grader: str | None) -> str:
    """The condition on answer `a` for the desk of `grader` (their set: desk_set_sql); none for the whole run."""
    return "1" if grader is None else desk_set_sql("a.question_pk")


def shown_question_pks(store: Store, run: RunInfo, grader: str | None = None) -> array[int]:
    """The run's questions with a shown answer (of `grader`'s set, when given), ascending, as an array of ids
    (250,000 questions cost 2 MB)."""
    rows = store._conn.execute(f"SELECT DISTINCT a.question_pk FROM answers a WHERE {SHOWN} AND {_in_set(grader)} "
                              "ORDER BY a.question_pk", {"run": run.id, "budget": run.bundle_budget, "grader": grader})
    return array("q", (r[0] for r in rows))


def count_shown(store: Store, run: RunInfo, grader: str | None = None) -> int:
    """Answers the desk shows in a run (of `grader`'s set, when given; an index-only count without one; the desk
    computes it once)."""
    n: int = store._scalar(f"SELECT count(*) FROM answers a WHERE {SHOWN} AND {_in_set(grader)}",
                          {"run": run.id, "budget": run.bundle_budget, "grader": grader})
    return n


@dataclass(frozen=True, slots=True)
class ComparedCounts:
    """A grader's current grades of a run beside one kind of machine grader (the grade each is compared with:
    machine_grades.compared_id), as `agree` counts them."""

    kind: str | None  # judge | imported | rule; None: no machine grade beside them
    compared: int  # the grader's current grades beside a usable verdict of this kind: compared pairs
    agreed: int
    unusable: int  # beside an unusable reply (grading_error): not compared
    stale: int  # beside a machine grade made against a gold answer corrected since
    flagged: int = 0  # on items someone flagged: not compared (kind None)


def compared_counts(store: Store, run: RunInfo, grader: str) -> tuple[int, list[ComparedCounts]]:
    """(the grader's current grades of shown answers, their counts per kind of machine grader beside them): every
    figure over the answers shown at the desk's budget (raw, and bundled at RunInfo.bundle_budget), the points `agree`'s
    by_budget counts for that budget, so a grade beside another budget's bundled answer counts in none. Driven by the
    grader's own events (small), not by the run's answers (possibly millions)."""
    verdict = verdict_sql("g")  # g: STALE_SQL's name for the machine grade
    rows = store._conn.execute(
        f"""SELECT g.grader_kind, count({verdict}), coalesce(sum({verdict} = h.grade), 0),
                   coalesce(sum(g.id IS NOT NULL AND {verdict} IS NULL), 0),
                   coalesce(sum(g.id IS NOT NULL AND {STALE_SQL}), 0),
                   coalesce(sum(NOT {unflagged_sql("a.run_id", "a.question_pk")}), 0), count(*)
            FROM current_human_grades h
            JOIN answers a ON a.id = h.answer_id
            JOIN questions q ON q.id = a.question_pk
            LEFT JOIN auto_grades g ON g.id = {compared_id('h')} AND {unflagged_sql("a.run_id", "a.question_pk")}
            WHERE h.grader = :grader AND {SHOWN} AND h.grade IS NOT NULL
            GROUP BY g.grader_kind""",
        {"grader": grader, "run": run.id, "budget": run.bundle_budget}).fetchall()
    return sum(r[6] for r in rows), [ComparedCounts(*r[:6]) for r in rows]


def compared_with(store: Store, run: RunInfo, grader: str) -> tuple[int, list[ComparedCounts], str | None]:
    """(the grader's current grades of shown answers, their counts per kind of machine grader, the kind compared). The
    kind is `agree`'s: the grader's own best kind, unless someone's grades sit beside a kind `agree` prefers (looked
    up only then: with a judge beside the grader's grades, never). The status line's figures and the queue's
    disagreements both count the pairs of this kind."""
    graded, rows = compared_counts(store, run, grader)
    kind = compared_kind(r.kind for r in rows)
    for better in KIND_PREFERENCE[:KIND_PREFERENCE.index(kind)] if kind else ():
        if anyone_compared_with(store, run, better):
            return graded, rows, better
    return graded, rows, kind


def anyone_compared_with(store: Store, run: RunInfo, kind: str) -> bool:
    """Whether some person's current grade in the run has a machine grade of `kind` beside it (which makes it the
    kind `agree` compares when it is preferred). Stops at the first; scans people's grades when there is none."""
    return bool(store._scalar(
        f"""SELECT EXISTS (SELECT 1 FROM current_human_grades h JOIN answers a ON a.id = h.answer_id
                           JOIN auto_grades g ON g.id = {compared_id('h')}
                           WHERE a.run_id = :run AND h.grade IS NOT NULL AND g.grader_kind = :kind)""",
        {"run": run.id, "kind": kind}))


def graded_question_pks(store: Store, run: RunInfo, grader: str) -> list[int]:
    """The questions with a shown answer the grader has a current grade of, ascending."""
    return [r[0] for r in store._conn.execute(
        f"SELECT DISTINCT a.question_pk FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        f"WHERE h.grader = :grader AND h.grade IS NOT NULL AND {SHOWN} ORDER BY a.question_pk",
        {"grader": grader, "run": run.id, "budget": run.bundle_budget})]


# the sampler ----------------------------------------------------------------------------------------------------------
def _usefulness_sql(judge_rubric: str | None, grader: str | None) -> tuple[str, dict[str, Any]]:
    answers, params = answers_with_verdicts(judge_rubric)
    sql = f"""
WITH verdicts AS (SELECT a.id AS answer_id, a.question_pk, m.confidence, {verdict_sql("m")} AS grade
                  FROM {answers} WHERE {SHOWN} AND {_in_set(grader)}),
cols AS (
    SELECT v.grade AS machine, count(*) AS n
    FROM current_human_grades h JOIN verdicts v ON v.answer_id = h.answer_id
    WHERE v.grade IS NOT NULL AND h.grade IS NOT NULL GROUP BY v.grade
)
SELECT v.question_pk, v.confidence, v.grade IS NOT NULL AS judged, coalesce(c.n, 0) AS column_grades
FROM verdicts v LEFT JOIN cols c ON c.machine = v.grade
ORDER BY v.question_pk
"""
    return sql, params


def usefulness_rows(store: Store, run: RunInfo, judge_rubric: str | None = None,
                    grader: str | None = None) -> Iterator[tuple[int, Any, int, int]]:
    """Per shown answer (of `grader`'s set, when given), in question order: (question_pk, the machine confidence,
    whether it has a machine verdict, how many current human grades of those answers sit in that verdict's
    confusion-matrix column). The verdict is the one the desk uses (the newest, or the judge's under `judge_rubric`)."""
    sql, params = _usefulness_sql(judge_rubric, grader)
    return store._conn.execute(sql, {"run": run.id, "budget": run.bundle_budget, "grader": grader, **params})


def question_graded_by(store: Store, run: RunInfo, grader: str, question_pk: int) -> bool:
    """Every shown answer of the question has this grader's current grade (a label alone is none)."""
    return not store._scalar(
        f"SELECT count(*) FROM answers a WHERE {SHOWN} AND a.question_pk = :pk AND NOT EXISTS "
        "(SELECT 1 FROM current_human_grades h WHERE h.answer_id = a.id AND h.grader = :grader "
        "AND h.grade IS NOT NULL)",
        {"run": run.id, "pk": question_pk, "budget": run.bundle_budget, "grader": grader})


# one item loaded whole (one indexed lookup each) ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ItemQuestion:
    question_id: str
    benchmark: str
    category: str
    question: str
    gold_answer: str | None


def item_question(store: Store, question_pk: int) -> ItemQuestion | None:
    q = store._query("SELECT * FROM questions WHERE id = ?", (question_pk,))
    if not q:
        return None
    r = q[0]
    return ItemQuestion(r["question_id"], r["benchmark"], r["category"], r["question"], r["gold_answer"])


@dataclass(frozen=True, slots=True)
class ShownAnswer:
    """An answer of an item as stored: its text and outcome, and its evidence as stored (hits JSON, a bundle id, or
    the files an imported log named)."""

    id: int
    method: str
    budget: int
    status: str
    text: str | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    evidence: str | None
    evidence_files: str | None
    bundle_id: int | None
    finish_reason: str | None
    reasoning: str | None


_ANSWER_FIELDS = tuple(ShownAnswer.__dataclass_fields__)


def shown_answers(store: Store, run: RunInfo, question_pk: int) -> list[ShownAnswer]:
    """The question's answers the desk shows, by method."""
    rows = store._query(f"SELECT a.* FROM answers a WHERE {SHOWN} AND a.question_pk = :q ORDER BY a.method",
                       {"run": run.id, "budget": run.bundle_budget, "q": question_pk})
    return [ShownAnswer(**{k: r[k] for k in _ANSWER_FIELDS}) for r in rows]


class DeskVerdict(NamedTuple):
    """The machine grade the desk uses for an answer, and whether it is stale (made against a gold answer that has
    been corrected since)."""

    grader_kind: str  # judge | rule | imported
    grader_model: str | None
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    rubric_version: str | None
    stale: bool


def desk_verdict(store: Store, answer_id: int, judge_rubric: str | None = None) -> DeskVerdict | None:
    """The machine grade the desk shows (machine_grades.verdict_id): the `machine_grades` view's, or the judge's
    verdict under `judge_rubric` when one is asked for (None when the judge did not grade the answer under it)."""
    verdict, params = verdict_id(":answer", judge_rubric)
    row = store._conn.execute(
        "SELECT g.grader_kind, g.grader_model, g.grade, g.failure_label, g.confidence, g.reasoning, "
        f"g.rubric_version, {STALE_SQL} AS stale FROM auto_grades g "
        "JOIN answers a ON a.id = g.answer_id JOIN questions q ON q.id = a.question_pk "
        f"WHERE g.id = {verdict}",
        {**params, "answer": answer_id}).fetchone()
    return None if row is None else DeskVerdict(row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]))


# desk_state -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DeskState:
    question_pk: int | None
    settings: dict[str, Any]


def load_desk_state(store: Store, grader: str, run_id: int) -> DeskState | None:
    rows = store._query("SELECT question_pk, settings FROM desk_state WHERE grader = ? AND run_id = ?",
                       (grader, run_id))
    if not rows:
        return None
    try:
        settings = json.loads(rows[0]["settings"] or "{}")
    except json.JSONDecodeError:
        settings = {}
    return DeskState(rows[0]["question_pk"], settings if isinstance(settings, dict) else {})


def save_desk_state(store: Store, grader: str, run_id: int, question_pk: int | None,
                    settings: dict[str, Any]) -> None:
    with store.transaction():
        store._upsert("desk_state", {
            "grader": grader, "run_id": run_id, "question_pk": question_pk,
            "settings": json.dumps(settings, sort_keys=True), "updated_at": utc_now()},
            key=("grader", "run_id"))
