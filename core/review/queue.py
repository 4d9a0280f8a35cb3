"""The grading desk's queue: which answers a run shows, filters, keyset paging, moving between items, progress,
recheck samples and where each grader stopped (desk_state). No textual here.

An *item* is one question of a run: its raw answer beside its bundled answer at the run's primary budget
(core/review/item.py loads one). The queue is the stream of those answers in (question, method) order, read with keyset
queries (`WHERE key > last LIMIT n`) over the answers' unique index, so a store of a million answers is never loaded
whole. Grade events live in core/grading/human_grades.py.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left
import random
from dataclasses import asdict, dataclass
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.human_grades import seen_sql
from gradedesk.core.grading.vocabulary import GRADES, METHODS, verdict_sql
from gradedesk.core.review.verdict import verdict_id
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.gold import STALE_SQL
from gradedesk.core.store.runs import RunInfo

STATUSES = ("all", "graded", "ungraded", "disagreeing")

# The answers the desk shows for a run: raw, and bundled at the primary budget (:budget).
SHOWN = "a.run_id = :run AND (a.method = 'raw' OR (a.method = 'bundle' AND a.budget = :budget))"
# The person's current grade of answer `a` (the view, narrowed to one answer: it uses human_grades_answer).
_HUMAN = "(SELECT h.{col} FROM current_human_grades h WHERE h.answer_id = a.id AND h.grader = :grader)"


def answers_with_verdicts(judge_rubric: str | None) -> tuple[str, dict[str, Any]]:
    """FROM answers `a`, each with `m`: the machine verdict the desk uses for it (core/review/verdict.py), if any."""
    verdict, params = verdict_id("a.id", judge_rubric)
    return f"answers a LEFT JOIN auto_grades m ON m.id = {verdict}", params


def left_method(order_seed: int, question_pk: int) -> str:
    """Which answer sits on the left for a question: a fair coin seeded by the run, stable across sessions."""
    return "raw" if random.Random(f"{order_seed}:{question_pk}").random() < 0.5 else "bundle"


# Filters and the queue -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filters:
    category: str | None = None
    method: str | None = None          # raw | bundle
    grade: str | None = None           # the person's current grade
    judge_grade: str | None = None     # the machine grade the desk uses (core/review/verdict.py)
    max_confidence: float | None = None  # machine confidence at most this
    status: str = "all"                # all | graded | ungraded | disagreeing

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in METHODS:
            raise UserError(f"filter method: {self.method!r} is not one of {', '.join(METHODS)}")
        for name in ("grade", "judge_grade"):
            value = getattr(self, name)
            if value is not None and value not in GRADES:
                raise UserError(f"filter {name}: {value!r} is not one of {', '.join(GRADES)}")
        if self.status not in STATUSES:
            raise UserError(f"filter status: {self.status!r} is not one of {', '.join(STATUSES)}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filters:
        known = set(cls.__dataclass_fields__)
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except UserError:  # a stale saved filter is dropped rather than blocking the desk
            return cls()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def active(self) -> bool:
        return self != Filters()

    def describe(self) -> str:
        parts = []
        if self.status != "all":
            parts.append(self.status)
        for name in ("category", "method", "grade", "judge_grade"):
            if getattr(self, name) is not None:
                parts.append(f"{name.replace('_', ' ')}={getattr(self, name)}")
        if self.max_confidence is not None:
            parts.append(f"confidence<={self.max_confidence:g}")
        return ", ".join(parts) or "none"

    def where(self) -> tuple[str, dict[str, Any]]:
        """SQL conditions on answer `a` and its machine verdict `m` (from answers_with_verdicts), beyond the shown
        set, and their parameters."""
        conds: list[str] = []
        params: dict[str, Any] = {}
        human, machine = _HUMAN.format(col="grade"), verdict_sql("m")  # a grading_error neither matches nor disagrees
        if self.category is not None:
            conds.append("a.question_pk IN (SELECT id FROM questions WHERE category = :category)")
            params["category"] = self.category
        if self.method is not None:
            conds.append("a.method = :method")
            params["method"] = self.method
        if self.grade is not None:
            conds.append(f"{human} = :grade")
            params["grade"] = self.grade
        if self.judge_grade is not None:
            conds.append(f"{machine} = :judge_grade")
            params["judge_grade"] = self.judge_grade
        if self.max_confidence is not None:
            conds.append("m.confidence <= :max_confidence")
            params["max_confidence"] = self.max_confidence
        if self.status == "graded":
            conds.append(f"{human} IS NOT NULL")
        elif self.status == "ungraded":
            conds.append(f"{human} IS NULL")
        elif self.status == "disagreeing":
            conds.append(f"{human} <> {machine}")
        return " AND ".join(conds) or "1", params


@dataclass(frozen=True)
class QueueRow:
    answer_id: int
    question_pk: int
    question_id: str
    category: str
    method: str
    side: str  # "left" or "right" in the grading screen
    status: str  # pending | ok | error (the answer's)
    human_grade: str | None
    machine_grade: str | None
    machine_kind: str | None  # judge | rule
    confidence: float | None
    judge_seen: bool  # the person has seen the machine grade (graded the answer, now or before an undo)

    @property
    def key(self) -> tuple[int, str]:
        return (self.question_pk, self.method)


def queue_page(store: Store, run: RunInfo, grader: str, filters: Filters, *, after: tuple[int, str] | None = None,
               limit: int = 200, judge_rubric: str | None = None) -> list[QueueRow]:
    """The next `limit` queue rows after key `after` (question_pk, method), in queue order; machine grades are the
    desk's (under `judge_rubric` when one is chosen)."""
    cond, params = filters.where()
    answers, verdict_params = answers_with_verdicts(judge_rubric)
    params.update(verdict_params)
    params.update(run=run.id, budget=run.primary_budget, grader=grader, limit=limit)
    keyset = "1"
    if after is not None:
        keyset = "(a.question_pk, a.method) > (:after_q, :after_m)"
        params.update(after_q=after[0], after_m=after[1])
    sql = f"""
        SELECT a.id, a.question_pk, q.question_id, q.category, a.method, a.status,
               {_HUMAN.format(col='grade')} AS human_grade, m.grade AS machine_grade,
               m.grader_kind AS machine_kind, m.confidence, {seen_sql('a.id', ':grader')} AS seen
        FROM {answers}
        JOIN questions q ON q.id = a.question_pk
        WHERE {SHOWN} AND {keyset} AND {cond}
        ORDER BY a.question_pk, a.method LIMIT :limit"""
    out = []
    for r in store.conn.execute(sql, params):
        side = "left" if left_method(run.order_seed, r[1]) == r[4] else "right"
        out.append(QueueRow(r[0], r[1], r[2], r[3], r[4], side, r[5], r[6], r[7], r[8], r[9], bool(r[10])))
    return out


def neighbour(store: Store, run: RunInfo, grader: str, filters: Filters, question_pk: int | None,
              forward: bool = True, judge_rubric: str | None = None) -> int | None:
    """The question after (or before) `question_pk` with a shown answer that passes the filters (machine grades: the
    desk's, under `judge_rubric` when one is chosen); None at the end."""
    cond, params = filters.where()
    answers, verdict_params = answers_with_verdicts(judge_rubric)
    params.update(verdict_params)
    params.update(run=run.id, budget=run.primary_budget, grader=grader)
    if question_pk is None:
        keyset = "1"
    else:
        keyset = f"a.question_pk {'>' if forward else '<'} :cur"
        params["cur"] = question_pk
    sql = (f"SELECT a.question_pk FROM {answers} WHERE {SHOWN} AND {keyset} AND {cond} "
           f"ORDER BY a.question_pk {'ASC' if forward else 'DESC'} LIMIT 1")
    return store.scalar(sql, params)


def has_question(store: Store, run: RunInfo, question_pk: int) -> bool:
    return store.scalar("SELECT 1 FROM answers WHERE run_id = ? AND question_pk = ? LIMIT 1",
                        (run.id, question_pk)) is not None


def find_question(store: Store, run: RunInfo, text: str) -> int | None:
    """The question of this run whose benchmark id is `text` (or, failing that, whose row id is)."""
    text = text.strip()
    # (benchmark, question_id) is indexed; questions of a run come from its benchmark, imports may mix: then scan
    for where, params in (("q.benchmark = ? AND q.question_id = ?", (run.benchmark, text)),
                          ("q.question_id = ?", (text,))):
        pk = store.scalar(f"SELECT q.id FROM questions q WHERE {where} AND EXISTS (SELECT 1 FROM answers a "
                          f"WHERE a.run_id = ? AND a.question_pk = q.id) LIMIT 1", (*params, run.id))
        if pk is not None:
            return pk
    if text.isdigit() and has_question(store, run, int(text)):
        return int(text)
    return None


def run_categories(store: Store, run_id: int) -> list[str]:
    return [r[0] for r in store.conn.execute(
        "SELECT DISTINCT q.category FROM questions q WHERE q.id IN (SELECT question_pk FROM answers WHERE run_id = ?) "
        "ORDER BY q.category", (run_id,))]


# Progress --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    graded: int
    total: int
    compared: int  # graded answers that have a machine grade
    agreed: int
    judge_compared: int  # of those, graded by the LLM judge (the rest by the rule grader)
    stale: int = 0  # of those, machine grades made against a gold answer corrected since

    def describe(self) -> str:
        text = f"graded {self.graded:,} of {self.total:,}"
        if self.compared:
            others = self.compared - self.judge_compared
            vs = "judge" if not others else ("rule/imported grader" if not self.judge_compared else
                                             f"judge ({self.judge_compared}) and rule/imported graders ({others})")
            text += f" · agreement with {vs} {self.agreed}/{self.compared} ({100 * self.agreed / self.compared:.0f}%)"
        else:
            text += " · agreement: nothing to compare yet"
        if self.stale:
            text += f" · {self.stale} stale machine grade{'s' if self.stale > 1 else ''} (gold changed: grade again)"
        return text


@dataclass(frozen=True)
class QuestionOrder:
    """The run's questions in queue order (their row ids, ascending), to say where an item stands: 'question 3 of 48'.
    An array of ids, so a run of 250,000 questions costs 2 MB."""
    pks: array

    def __len__(self) -> int:
        return len(self.pks)

    def position(self, question_pk: int) -> int | None:
        """1-based place of the question in the run, None if it is not in it."""
        i = bisect_left(self.pks, question_pk)
        return i + 1 if i < len(self.pks) and self.pks[i] == question_pk else None


def question_order(store: Store, run: RunInfo) -> QuestionOrder:
    rows = store.conn.execute(f"SELECT DISTINCT a.question_pk FROM answers a WHERE {SHOWN} ORDER BY a.question_pk",
                              {"run": run.id, "budget": run.primary_budget})
    return QuestionOrder(array("q", (r[0] for r in rows)))


def count_shown(store: Store, run: RunInfo) -> int:
    """Answers the desk shows in a run (an index-only count; the desk computes it once)."""
    return store.scalar(f"SELECT count(*) FROM answers a WHERE {SHOWN}", {"run": run.id, "budget": run.primary_budget})


def progress(store: Store, run: RunInfo, grader: str, total: int, judge_rubric: str | None = None) -> Progress:
    """Counts driven by the grader's own events (small), not by the run's answers (possibly millions); agreement is
    with the desk's machine grades (under `judge_rubric` when one is chosen)."""
    verdict, params = verdict_id("h.answer_id", judge_rubric)
    row = store.conn.execute(
        f"""SELECT count(*), count(g.grade), coalesce(sum(g.grade = h.grade), 0),
                   coalesce(sum(g.grader_kind = 'judge'), 0), coalesce(sum(g.grade IS NOT NULL AND {STALE_SQL}), 0)
            FROM current_human_grades h
            JOIN answers a ON a.id = h.answer_id
            JOIN questions q ON q.id = a.question_pk
            LEFT JOIN auto_grades g ON g.id = {verdict}
            WHERE h.grader = :grader AND {SHOWN}""",
        {**params, "grader": grader, "run": run.id, "budget": run.primary_budget}).fetchone()
    return Progress(row[0], total, row[1], row[2], row[3], row[4])


# Recheck ---------------------------------------------------------------------------------------------------------------

def recheck_sample(store: Store, run: RunInfo, grader: str, share: float, seed: int | None = None) -> list[int]:
    """A seeded share of the questions this grader has graded, to be re-graded blind (self-consistency)."""
    if not 0 < share <= 1:
        raise UserError(f"--recheck: {share!r} is not a share between 0 and 1 (e.g. 0.1)")
    pks = [r[0] for r in store.conn.execute(
        f"SELECT DISTINCT a.question_pk FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        f"WHERE h.grader = :grader AND {SHOWN} ORDER BY a.question_pk",
        {"grader": grader, "run": run.id, "budget": run.primary_budget})]
    if not pks:
        return []
    rng = random.Random(f"recheck:{run.order_seed if seed is None else seed}:{grader}")
    picked = rng.sample(pks, max(1, round(share * len(pks))))
    rng.shuffle(picked)  # not in question order, so earlier grades are harder to recall
    return picked


# Desk state ------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeskState:
    question_pk: int | None
    settings: dict[str, Any]


def load_desk_state(store: Store, grader: str, run_id: int) -> DeskState | None:
    rows = store.query("SELECT question_pk, settings FROM desk_state WHERE grader = ? AND run_id = ?",
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
        store.db["desk_state"].upsert({
            "grader": grader, "run_id": run_id, "question_pk": question_pk,
            "settings": json.dumps(settings, sort_keys=True), "updated_at": utc_now()},
            pk=("grader", "run_id"))

