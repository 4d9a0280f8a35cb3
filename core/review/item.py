"""One item of the grading desk, loaded whole: a question with its raw answer and its bundled answer (at the run's
primary budget), each with its evidence, bundle, machine grade, the person's grade and scores. No textual here.

Raw answers keep their evidence as a JSON list of hits whose fields depend on who produced them (`gradedesk run`,
an import); `parse_evidence` reads whatever subset of the seed field names is there and keeps the rest, so the desk shows
any run's evidence rather than failing on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gradedesk.core.grading.human_grades import HumanGrade, current_grade
from gradedesk.core.review.queue import RunInfo, SHOWN, left_method
from gradedesk.core.store.connection import Store

MACHINE_NAMES = {"judge": "judge", "rule": "rule grader", "imported": "imported grade"}  # auto_grades.grader_kind


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
    known = {alias for aliases in _HIT_ALIASES.values() for alias in aliases}
    extra = {k: v for k, v in hit.items() if k not in used and not (k in known and v is None)}
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


def machine_grade(store: Store, answer_id: int) -> MachineGrade | None:
    rows = store.query("SELECT grader_kind, grader_model, grade, failure_label, confidence, reasoning, rubric_version "
                       "FROM machine_grades WHERE answer_id = ?", (answer_id,))
    return MachineGrade(*rows[0].values()) if rows else None


def load_item(store: Store, run: RunInfo, grader: str, question_pk: int, *, recheck: bool = False) -> Item | None:
    q = store.query("SELECT * FROM questions WHERE id = ?", (question_pk,))
    if not q:
        return None
    q = q[0]
    rows = store.query(f"SELECT a.* FROM answers a WHERE {SHOWN} AND a.question_pk = :q ORDER BY a.method",
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
