"""The grading desk's data layer: the queue, one item, and the person's grade events. No textual here.

An *item* is one question of a run: its raw answer beside its bundled answer at the run's primary budget. The queue is
the stream of those answers in (question, method) order, read with keyset queries (`WHERE key > last LIMIT n`) over the
answers' unique index, so a store of a million answers is never loaded whole.

Human grades are append-only events. A `set` event carries the person's whole current state for an answer (grade,
failure label, four dimension scores, note), so the newest one not taken back by an `undo` event is the current grade.
Events made in a recheck pass (mode 'recheck', a blind re-grade of items graded before) measure self-consistency and
never replace the grade they re-check (the `current_human_grades` view leaves them out).
"""

from __future__ import annotations

import getpass
import json
import os
import random
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import UserError
from .grades import DIMENSIONS, FAILURE_LABELS, GRADES, METHODS, PASS_GRADE
from .store import Store, utc_now

STATUSES = ("all", "graded", "ungraded", "disagreeing")
PREFERENCES = ("raw", "bundle", "tie")
MODES = ("blind", "open", "recheck")
MACHINE_NAMES = {"judge": "judge", "rule": "rule grader", "imported": "imported grade"}  # auto_grades.grader_kind

# The answers the desk shows for a run: raw, and bundled at the primary budget (:budget).
_SHOWN = "a.run_id = :run AND (a.method = 'raw' OR (a.method = 'bundle' AND a.budget = :budget))"
# The person's current grade of answer `a` (the view, narrowed to one answer: it uses human_grades_answer).
_HUMAN = "(SELECT h.{col} FROM current_human_grades h WHERE h.answer_id = a.id AND h.grader = :grader)"
_MACHINE = "(SELECT m.{col} FROM machine_grades m WHERE m.answer_id = a.id)"


# Runs ------------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunInfo:
    id: int
    label: str | None
    provider: str
    model: str | None
    benchmark: str | None
    primary_budget: int  # the bundled answer shown beside raw
    order_seed: int
    rubric_version: str | None  # newest rubric in the store: stamped on each human grade

    @property
    def title(self) -> str:
        parts = [f"run {self.id}"]
        if self.label:
            parts.append(self.label)
        parts.append(self.model or self.provider)
        return " · ".join(parts)


def run_info(store: Store, run_id: int) -> RunInfo:
    rows = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise UserError(f"--run: no run {run_id} in {store.path}")
    r = rows[0]
    budget = r["primary_budget"]
    if budget is None:  # older or imported runs: the largest budget answered
        budget = store.scalar("SELECT max(budget) FROM answers WHERE run_id = ? AND method = 'bundle'", (run_id,)) or 0
    rubric = store.scalar("SELECT version FROM rubrics ORDER BY created_at DESC, version DESC LIMIT 1")
    return RunInfo(r["id"], r["label"], r["provider"], r["model"], r["benchmark"], int(budget), int(r["order_seed"]),
                   rubric)


def default_grader() -> str:
    name = os.environ.get("GRADEDESK_GRADER", "").strip()
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return "grader"


def left_method(order_seed: int, question_pk: int) -> str:
    """Which answer sits on the left for a question: a fair coin seeded by the run, stable across sessions."""
    return "raw" if random.Random(f"{order_seed}:{question_pk}").random() < 0.5 else "bundle"


# Filters and the queue -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filters:
    category: str | None = None
    method: str | None = None          # raw | bundle
    grade: str | None = None           # the person's current grade
    judge_grade: str | None = None     # the machine grade (judge, else rule grader)
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
        """SQL conditions on answer `a` (beyond the shown set) and their parameters."""
        conds: list[str] = []
        params: dict[str, Any] = {}
        human, machine = _HUMAN.format(col="grade"), _MACHINE.format(col="grade")
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
            conds.append(f"{_MACHINE.format(col='confidence')} <= :max_confidence")
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

    @property
    def key(self) -> tuple[int, str]:
        return (self.question_pk, self.method)


def queue_page(store: Store, run: RunInfo, grader: str, filters: Filters, *, after: tuple[int, str] | None = None,
               limit: int = 200) -> list[QueueRow]:
    """The next `limit` queue rows after key `after` (question_pk, method), in queue order."""
    cond, params = filters.where()
    params.update(run=run.id, budget=run.primary_budget, grader=grader, limit=limit)
    keyset = "1"
    if after is not None:
        keyset = "(a.question_pk, a.method) > (:after_q, :after_m)"
        params.update(after_q=after[0], after_m=after[1])
    sql = f"""
        SELECT a.id, a.question_pk, q.question_id, q.category, a.method, a.status,
               {_HUMAN.format(col='grade')} AS human_grade, m.grade AS machine_grade,
               m.grader_kind AS machine_kind, m.confidence
        FROM answers a
        JOIN questions q ON q.id = a.question_pk
        LEFT JOIN machine_grades m ON m.answer_id = a.id
        WHERE {_SHOWN} AND {keyset} AND {cond}
        ORDER BY a.question_pk, a.method LIMIT :limit"""
    out = []
    for r in store.conn.execute(sql, params):
        side = "left" if left_method(run.order_seed, r[1]) == r[4] else "right"
        out.append(QueueRow(r[0], r[1], r[2], r[3], r[4], side, r[5], r[6], r[7], r[8], r[9]))
    return out


def neighbour(store: Store, run: RunInfo, grader: str, filters: Filters, question_pk: int | None,
              forward: bool = True) -> int | None:
    """The question after (or before) `question_pk` with a shown answer that passes the filters; None at the end."""
    cond, params = filters.where()
    params.update(run=run.id, budget=run.primary_budget, grader=grader)
    if question_pk is None:
        keyset = "1"
    else:
        keyset = f"a.question_pk {'>' if forward else '<'} :cur"
        params["cur"] = question_pk
    sql = (f"SELECT a.question_pk FROM answers a WHERE {_SHOWN} AND {keyset} AND {cond} "
           f"ORDER BY a.question_pk {'ASC' if forward else 'DESC'} LIMIT 1")
    return store.scalar(sql, params)


def find_question(store: Store, run: RunInfo, text: str) -> int | None:
    """The question of this run whose benchmark id is `text` (or, failing that, whose row id is)."""
    text = text.strip()
    row = store.scalar(
        "SELECT a.question_pk FROM answers a JOIN questions q ON q.id = a.question_pk "
        "WHERE a.run_id = ? AND q.question_id = ? LIMIT 1", (run.id, text))
    if row is None and text.isdigit():
        row = store.scalar("SELECT question_pk FROM answers WHERE run_id = ? AND question_pk = ? LIMIT 1",
                           (run.id, int(text)))
    return row


def run_categories(store: Store, run_id: int) -> list[str]:
    return [r[0] for r in store.conn.execute(
        "SELECT DISTINCT q.category FROM questions q WHERE q.id IN (SELECT question_pk FROM answers WHERE run_id = ?) "
        "ORDER BY q.category", (run_id,))]


def most_useful_questions(store: Store, run: RunInfo, grader: str, limit: int = 1000) -> list[int] | None:
    """Questions in "most useful first" order (core/priority.py, the agreement engineer's), or None without it."""
    try:
        from .priority import most_useful_order
    except ImportError:
        return None
    answer_ids = most_useful_order(store, run.id, grader, limit)
    if not answer_ids:
        return []
    marks = ",".join("?" * len(answer_ids))
    pk_of = dict(store.conn.execute(f"SELECT id, question_pk FROM answers WHERE id IN ({marks})", list(answer_ids)))
    seen: dict[int, None] = {}
    for aid in answer_ids:
        if aid in pk_of:
            seen.setdefault(pk_of[aid], None)
    return list(seen)


# One item --------------------------------------------------------------------------------------------------------------

@dataclass
class Snippet:
    """One piece of evidence: a bundle snippet, or a raw hit normalized from the answer's evidence JSON."""
    position: int
    file_path: str | None
    start_line: int | None
    end_line: int | None
    symbol_name: str | None
    retrieval_method: str | None
    relevance_score: float | None
    retrieval_rank: int | None
    selection_reason: str | None
    evidence_role: str | None
    text: str
    token_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # any other fields the producer stored

    @property
    def location(self) -> str:
        where = self.file_path or "(no file)"
        if self.start_line is not None and self.end_line is not None:
            where += f":{self.start_line}-{self.end_line}"
        return where


_HIT_ALIASES = {
    "file_path": ("file_path", "path", "file"),
    "start_line": ("start_line", "start"),
    "end_line": ("end_line", "end"),
    "symbol_name": ("symbol_name", "symbol"),
    "retrieval_method": ("retrieval_method", "method", "source"),
    "relevance_score": ("relevance_score", "score", "fused_score"),
    "retrieval_rank": ("retrieval_rank", "rank"),
    "selection_reason": ("selection_reason", "reason"),
    "evidence_role": ("evidence_role", "role"),
    "text": ("text", "content", "snippet"),
    "token_count": ("token_count", "tokens"),
}
_NUMERIC = {"start_line": int, "end_line": int, "retrieval_rank": int, "token_count": int, "relevance_score": float}


def snippet_from_hit(position: int, hit: Any) -> Snippet:
    """A raw hit as a Snippet, whatever subset of fields it has; unknown fields are kept in `extra`."""
    if not isinstance(hit, dict):
        return Snippet(position, None, None, None, None, None, None, None, None, None,
                       hit if isinstance(hit, str) else json.dumps(hit, ensure_ascii=False))
    values: dict[str, Any] = {}
    used: set[str] = set()
    for name, aliases in _HIT_ALIASES.items():
        for alias in aliases:
            if alias in hit and hit[alias] is not None:
                value = hit[alias]
                if name in _NUMERIC:
                    try:
                        value = _NUMERIC[name](value)
                    except (TypeError, ValueError):
                        continue
                elif not isinstance(value, str):
                    value = json.dumps(value, ensure_ascii=False)
                values[name] = value
                used.add(alias)
                break
    extra = {k: v for k, v in hit.items() if k not in used}
    return Snippet(position, values.get("file_path"), values.get("start_line"), values.get("end_line"),
                   values.get("symbol_name"), values.get("retrieval_method"), values.get("relevance_score"),
                   values.get("retrieval_rank"), values.get("selection_reason"), values.get("evidence_role"),
                   values.get("text", ""), values.get("token_count"), extra)


def parse_evidence(evidence: str | None) -> tuple[list[Snippet], str | None]:
    """(snippets, problem): a raw answer's evidence JSON as snippets; `problem` says why it could not be read."""
    if not evidence:
        return [], None
    try:
        data = json.loads(evidence)
    except json.JSONDecodeError as exc:
        return [], f"evidence is not JSON ({exc.msg}); shown as stored"
    if isinstance(data, dict):  # {"hits": [...]} or a single hit
        data = data.get("hits", [data])
    if not isinstance(data, list):
        return [], "evidence is not a list of hits; shown as stored"
    return [snippet_from_hit(i, hit) for i, hit in enumerate(data, start=1)], None


@dataclass
class BundleInfo:
    id: int
    question_type: str
    total_tokens: int
    token_budget: int
    tokenizer: str
    compiler_version: str
    strategies: list[str]
    coverage_notes: list[str]
    warnings: list[str]
    snippets: list[Snippet]
    record: dict[str, Any]  # the bundle as stored, for the raw JSON view


def _json_list(text: str | None) -> list[str]:
    try:
        data = json.loads(text or "[]")
    except json.JSONDecodeError:
        return [text or ""]
    return [d if isinstance(d, str) else json.dumps(d, ensure_ascii=False) for d in data] if isinstance(data, list) \
        else [json.dumps(data, ensure_ascii=False)]


def load_bundle(store: Store, bundle_id: int) -> BundleInfo | None:
    rows = store.query("SELECT * FROM bundles WHERE id = ?", (bundle_id,))
    if not rows:
        return None
    b = rows[0]
    snippet_rows = store.query("SELECT * FROM bundle_snippets WHERE bundle_id = ? ORDER BY position", (bundle_id,))
    snippets = [Snippet(s["position"], s["file_path"], s["start_line"], s["end_line"], s["symbol_name"],
                        s["retrieval_method"], s["relevance_score"], s["retrieval_rank"], s["selection_reason"],
                        s["evidence_role"], s["text"], s["token_count"]) for s in snippet_rows]
    record = {k: b[k] for k in b}
    for k in ("retrieval_strategies_used", "coverage_notes", "warnings"):
        record[k] = _json_list(b[k])
    record["snippets"] = [{k: v for k, v in s.items() if k != "bundle_id"} for s in snippet_rows]
    return BundleInfo(b["id"], b["question_type"], b["total_tokens"], b["token_budget"], b["tokenizer"],
                      b["compiler_version"], record["retrieval_strategies_used"], record["coverage_notes"],
                      record["warnings"], snippets, record)


@dataclass(frozen=True)
class MachineGrade:
    kind: str  # judge | rule
    model: str | None
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    rubric_version: str | None

    @property
    def source(self) -> str:
        """Who made it, always named: a rule grade is never presented as the judge."""
        name = MACHINE_NAMES.get(self.kind, self.kind)
        return f"{name} ({self.model})" if self.model else name


@dataclass(frozen=True)
class HumanGrade:
    id: int
    uuid: str
    answer_id: int
    grader: str
    grade: str | None
    failure_label: str | None
    correctness: int | None
    grounding: int | None
    completeness: int | None
    conciseness: int | None
    note: str | None
    judge_visible: int
    mode: str
    is_revision: int
    rubric_version: str | None
    created_at: str

    @property
    def scores(self) -> dict[str, int | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}


_HUMAN_FIELDS = tuple(HumanGrade.__dataclass_fields__)


def _human(row: dict | None) -> HumanGrade | None:
    return HumanGrade(**{k: row[k] for k in _HUMAN_FIELDS}) if row else None


@dataclass
class AnswerView:
    id: int
    method: str
    budget: int
    status: str
    text: str | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    evidence: list[Snippet]
    evidence_problem: str | None
    evidence_raw: str | None
    bundle: BundleInfo | None
    machine: MachineGrade | None
    human: HumanGrade | None  # the current grade (or, in a recheck pass, the recheck grade)
    scores: list[tuple[str, str, float | None]]  # (metric, method, value)


@dataclass
class Item:
    run_id: int
    question_pk: int
    question_id: str
    benchmark: str
    category: str
    question: str
    gold_answer: str | None
    left_method: str
    answers: dict[str, AnswerView]  # by method; a method may be missing
    preference: str | None  # raw | bundle | tie

    def at(self, side: str) -> AnswerView | None:
        method = self.left_method if side == "left" else other_method(self.left_method)
        return self.answers.get(method)

    @property
    def fully_graded(self) -> bool:
        return all(a.human is not None and a.human.grade for a in self.answers.values())


def other_method(method: str) -> str:
    return "bundle" if method == "raw" else "raw"


def current_grade(store: Store, answer_id: int, grader: str, *, recheck: bool = False) -> HumanGrade | None:
    """The grader's current grade of an answer (or, with recheck=True, their newest live recheck event)."""
    if recheck:
        rows = store.query(
            "SELECT * FROM human_grades h WHERE h.answer_id = ? AND h.grader = ? AND h.action = 'set' "
            "AND h.mode = 'recheck' AND NOT EXISTS (SELECT 1 FROM human_grades u WHERE u.action = 'undo' "
            "AND u.undoes_uuid = h.uuid) ORDER BY h.id DESC LIMIT 1", (answer_id, grader))
    else:
        rows = store.query("SELECT * FROM current_human_grades WHERE answer_id = ? AND grader = ?", (answer_id, grader))
    return _human(rows[0] if rows else None)


def machine_grade(store: Store, answer_id: int) -> MachineGrade | None:
    rows = store.query("SELECT grader_kind, grader_model, grade, failure_label, confidence, reasoning, rubric_version "
                       "FROM machine_grades WHERE answer_id = ?", (answer_id,))
    return MachineGrade(*rows[0].values()) if rows else None


def load_item(store: Store, run: RunInfo, grader: str, question_pk: int, *, recheck: bool = False) -> Item | None:
    q = store.query("SELECT * FROM questions WHERE id = ?", (question_pk,))
    if not q:
        return None
    q = q[0]
    rows = store.query(f"SELECT a.* FROM answers a WHERE {_SHOWN} AND a.question_pk = :q ORDER BY a.method",
                       {"run": run.id, "budget": run.primary_budget, "q": question_pk})
    answers: dict[str, AnswerView] = {}
    for a in rows:
        evidence, problem = parse_evidence(a["evidence"])
        bundle = load_bundle(store, a["bundle_id"]) if a["bundle_id"] is not None else None
        scores = [(s["metric"], s["method"], s["value"]) for s in store.query(
            "SELECT metric, method, value FROM answer_scores WHERE answer_id = ? ORDER BY metric, method", (a["id"],))]
        answers[a["method"]] = AnswerView(
            a["id"], a["method"], a["budget"], a["status"], a["text"], a["error"], a["tokens_in"], a["tokens_out"],
            evidence, problem, a["evidence"] if problem else None, bundle, machine_grade(store, a["id"]),
            current_grade(store, a["id"], grader, recheck=recheck), scores)
    pref = store.scalar("SELECT preferred FROM human_preferences WHERE run_id = ? AND question_pk = ? AND grader = ? "
                        "ORDER BY id DESC LIMIT 1", (run.id, question_pk, grader))
    return Item(run.id, question_pk, q["question_id"], q["benchmark"], q["category"], q["question"], q["gold_answer"],
                left_method(run.order_seed, question_pk), answers, pref)


# Grade events ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GradeChange:
    """What a key press changes; fields left as ... keep the answer's current value."""
    grade: Any = ...
    failure_label: Any = ...
    scores: dict[str, int | None] | None = None
    note: Any = ...


def _check_change(change: GradeChange) -> None:
    if change.grade is not ... and change.grade not in GRADES:
        raise UserError(f"grade: {change.grade!r} is not one of {', '.join(GRADES)}")
    if change.failure_label not in (..., None) and change.failure_label not in FAILURE_LABELS:
        raise UserError(f"failure_label: {change.failure_label!r} is not one of {', '.join(FAILURE_LABELS)}")
    for dim, value in (change.scores or {}).items():
        if dim not in DIMENSIONS:
            raise UserError(f"score: {dim!r} is not one of {', '.join(DIMENSIONS)}")
        if value is not None and (not isinstance(value, int) or not 1 <= value <= 5):
            raise UserError(f"{dim}: {value!r} is not a score from 1 to 5")


def record_grade(store: Store, answer_id: int, grader: str, change: GradeChange, *, mode: str = "blind",
                 judge_visible: bool = False, rubric_version: str | None = None) -> HumanGrade:
    """Append a `set` event: the grader's current state for the answer with `change` applied. One transaction.

    `judge_visible` says whether the machine grade was on screen when the person saved; a save that changes an
    existing grade while the judge is visible is stored as a revision (is_revision=1), so switch rates can be measured.
    """
    _check_change(change)
    if mode not in MODES:
        raise UserError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    recheck = mode == "recheck"
    with store.transaction():
        before = current_grade(store, answer_id, grader, recheck=recheck)
        if before is None and change.grade is ...:
            raise UserError("grade the answer first (keys 1-4), then add a label, scores or a note")
        base = {"grade": None, "failure_label": None, "note": None, **{d: None for d in DIMENSIONS}}
        if before is not None:
            base.update({k: getattr(before, k) for k in base})
        if change.grade is not ...:
            base["grade"] = change.grade
            if change.grade == PASS_GRADE:  # a failure label cannot describe a fully correct answer
                base["failure_label"] = None
        if change.failure_label is not ...:
            base["failure_label"] = change.failure_label
        base.update(change.scores or {})
        if change.note is not ...:
            base["note"] = change.note or None
        row = {
            "uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader, "action": "set", **base,
            "judge_visible": int(judge_visible), "mode": mode,
            "is_revision": int(before is not None and judge_visible and not recheck),
            "rubric_version": rubric_version, "created_at": utc_now(),
        }
        store.db["human_grades"].insert(row)
        rows = store.query("SELECT * FROM human_grades WHERE uuid = ?", (row["uuid"],))
    return _human(rows[0])


def undo_last(store: Store, run_id: int, grader: str) -> HumanGrade | None:
    """Take back the grader's newest live `set` event in the run with an `undo` event; return the event undone."""
    with store.transaction():
        rows = store.query(
            "SELECT h.* FROM human_grades h JOIN answers a ON a.id = h.answer_id "
            "WHERE h.grader = ? AND a.run_id = ? AND h.action = 'set' AND NOT EXISTS "
            "(SELECT 1 FROM human_grades u WHERE u.action = 'undo' AND u.undoes_uuid = h.uuid) "
            "ORDER BY h.id DESC LIMIT 1", (grader, run_id))
        if not rows:
            return None
        target = rows[0]
        store.db["human_grades"].insert({
            "uuid": str(uuid.uuid4()), "answer_id": target["answer_id"], "grader": grader, "action": "undo",
            "undoes_uuid": target["uuid"], "judge_visible": target["judge_visible"], "mode": target["mode"],
            "created_at": utc_now(),
        })
    return _human(target)


def record_preference(store: Store, run_id: int, question_pk: int, grader: str, preferred: str,
                      left: str) -> None:
    if preferred not in PREFERENCES:
        raise UserError(f"preference: {preferred!r} is not one of {', '.join(PREFERENCES)}")
    with store.transaction():
        store.db["human_preferences"].insert({
            "uuid": str(uuid.uuid4()), "run_id": run_id, "question_pk": question_pk, "grader": grader,
            "preferred": preferred, "left_method": left, "created_at": utc_now()})


# Progress --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    graded: int
    total: int
    compared: int  # graded answers that have a machine grade
    agreed: int
    judge_compared: int  # of those, graded by the LLM judge (the rest by the rule grader)

    def describe(self) -> str:
        text = f"graded {self.graded:,} of {self.total:,}"
        if self.compared:
            others = self.compared - self.judge_compared
            vs = "judge" if not others else ("rule/imported grader" if not self.judge_compared else
                                             f"judge ({self.judge_compared}) and rule/imported graders ({others})")
            text += f" · agreement with {vs} {self.agreed}/{self.compared} ({100 * self.agreed / self.compared:.0f}%)"
        else:
            text += " · agreement: nothing to compare yet"
        return text


def count_shown(store: Store, run: RunInfo) -> int:
    """Answers the desk shows in a run (an index-only count; the desk computes it once)."""
    return store.scalar(f"SELECT count(*) FROM answers a WHERE {_SHOWN}", {"run": run.id, "budget": run.primary_budget})


def progress(store: Store, run: RunInfo, grader: str, total: int) -> Progress:
    """Counts driven by the grader's own events (small), not by the run's answers (possibly millions)."""
    row = store.conn.execute(
        f"""SELECT count(*), count(m.grade), coalesce(sum(m.grade = h.grade), 0),
                   coalesce(sum(m.grader_kind = 'judge'), 0)
            FROM current_human_grades h
            JOIN answers a ON a.id = h.answer_id
            LEFT JOIN machine_grades m ON m.answer_id = h.answer_id
            WHERE h.grader = :grader AND {_SHOWN}""",
        {"grader": grader, "run": run.id, "budget": run.primary_budget}).fetchone()
    return Progress(row[0], total, row[1], row[2], row[3])


# Recheck ---------------------------------------------------------------------------------------------------------------

def recheck_sample(store: Store, run: RunInfo, grader: str, share: float, seed: int | None = None) -> list[int]:
    """A seeded share of the questions this grader has graded, to be re-graded blind (self-consistency)."""
    if not 0 < share <= 1:
        raise UserError(f"--recheck: {share!r} is not a share between 0 and 1 (e.g. 0.1)")
    pks = [r[0] for r in store.conn.execute(
        f"SELECT DISTINCT a.question_pk FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        f"WHERE h.grader = :grader AND {_SHOWN} ORDER BY a.question_pk",
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

