"""A run as gradedesk's own run log: JSONL, one line per question (`gradedesk export --jsonl`).

Each line has the seed field names: question_id, question, category, raw_answer, raw_chunks, raw_evidence_files,
bundle_answer, bundle_chunks, bundle_evidence_files, bundle_tokens, bundle_budget, bundle_coverage, raw_grade,
bundle_grade, grading_notes, timestamp; plus run_id, benchmark, provider, model, the budget sweep and the question's
gold_answer (which import gives a question it creates). raw_grade / bundle_grade are the headline grades (a person's
current grade, else the machine grade), each named by `*_grade_by`; once grades exist, `grades` carries every human,
judge, rule and imported grade of both answers, each marked with its grader. `raw_claims` / `bundle_claims` carry the
answer's claim counts and invalid citations and each person's faithfulness and citation precision from their claim
marks (null until the claims are computed). An answer cut at the run's max_tokens carries `*_truncated: true` and its
`*_finish_reason`; an error text is redacted again on the way out (a store made before redaction may hold a key a
server echoed). core/exchange/runlog_import.py reads it back.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from gradedesk.core.evidence.stored import load_bundle, unrecorded_chunk_count
from gradedesk.core.grading.claim_figures import MarkedAnswer, answer_claim_record, marked_answers
from gradedesk.core.grading.vocabulary import METHODS
from gradedesk.core.providers import TRUNCATED
from gradedesk.core.stats.records import Record, json_form
from gradedesk.core.store.answers import RunAnswer, run_answers
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import answer_human_grades
from gradedesk.core.store.machine_grades import answer_machine_grades
from gradedesk.core.store.run_records import RunRow, run_row
from gradedesk.core.text.redact import redact


@dataclass(frozen=True, slots=True)
class LoggedPersonGrade(Record):
    """A person's current grade as a log line carries it (fields in the line's order)."""

    grader_kind: str  # human
    grader: str
    uuid: str
    grade: str | None
    failure_label: str | None
    correctness: int | None  # the four dimensions (core/grading/vocabulary.DIMENSIONS), 1-5
    grounding: int | None
    completeness: int | None
    conciseness: int | None
    note: str | None
    judge_visible: int
    mode: str
    is_revision: int
    rubric_version: str | None
    created_at: str
    machine_kind: str | None  # the machine grader on the desk when it was saved
    machine_model: str | None
    machine_rubric: str | None

    @property
    def remark(self) -> str | None:
        """What the grade says in words (its note)."""
        return self.note or None


@dataclass(frozen=True, slots=True)
class LoggedMachineGrade(Record):
    """A machine grade as a log line carries it (fields in the line's order)."""

    grader_kind: str  # judge | rule | imported
    grader: str | None  # the judge model or the grader's name
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    rubric_version: str | None
    repeat_index: int
    created_at: str

    @property
    def remark(self) -> str | None:
        """What the grade says in words (its reasoning)."""
        return self.reasoning


LoggedGrade = LoggedPersonGrade | LoggedMachineGrade

# the fields of a person's grade that a log line carries (and import stores back as a human_grades event)
HUMAN_FIELDS = tuple(f.name for f in fields(LoggedPersonGrade) if f.name not in ("grader_kind", "grader", "uuid"))


def grades_of(store: Store, answer_id: int) -> list[LoggedGrade]:
    """Every current grade of an answer, each marked with its grader: people's current grades, then machine grades."""
    out: list[LoggedGrade] = []
    for h in answer_human_grades(store, answer_id):
        out.append(LoggedPersonGrade("human", h.grader, h.uuid, **{k: getattr(h, k) for k in HUMAN_FIELDS}))
    for g in answer_machine_grades(store, answer_id):
        out.append(LoggedMachineGrade(g.grader_kind, g.grader_model, g.grade, g.failure_label, g.confidence,
                                      g.reasoning, g.rubric_version, g.repeat_index, g.created_at))
    return out


def headline(grades: list[LoggedGrade]) -> LoggedGrade | None:
    """The grade a log line leads with: the newest person's grade, else the machine grade (judge > imported > rule)."""
    humans = [g for g in grades if isinstance(g, LoggedPersonGrade)]
    if humans:
        return max(humans, key=lambda g: g.created_at)
    rank = {"judge": 0, "imported": 1, "rule": 2}
    machine = [g for g in grades if isinstance(g, LoggedMachineGrade) and g.grader_kind in rank]
    return min(machine, key=lambda g: (rank[g.grader_kind], g.repeat_index)) if machine else None


def graded_by(grade: LoggedGrade) -> str:
    """Who made a grade, as `*_grade_by` and `graded_by` name it: human:NAME, judge:MODEL, rule:NAME, imported:NAME."""
    return f"{grade.grader_kind}:{grade.grader}"


def chunks_of(store: Store, answer: RunAnswer | None) -> list[dict] | int:
    """An answer's chunks as a log line carries them, or how many there were when only that was recorded."""
    if answer is None:
        return []
    count = unrecorded_chunk_count(answer.evidence)
    if count is not None:
        return count
    if answer.bundle_id is not None:
        stored = load_bundle(store, answer.bundle_id)
        return [s.__dict__ | {"position": i} for i, s in enumerate(stored.bundle.snippets, start=1)] if stored else []
    return json.loads(answer.evidence or "[]")


@dataclass
class QuestionAnswers:
    """One question of a run with the answers a log line shows: raw, and bundled at the run's primary budget."""
    rows: list[RunAnswer]  # every answer of the question (the budget sweep included), with its question
    raw: RunAnswer | None
    bundle: RunAnswer | None
    bundles: list[RunAnswer]

    @property
    def question(self) -> RunAnswer:
        return self.rows[0]

    @property
    def timestamp(self) -> str | None:
        return max((a.answered_at or a.created_at for a in self.rows), default=None)

    def by_method(self) -> list[tuple[str, RunAnswer]]:
        return [(m, a) for m, a in (("raw", self.raw), ("bundle", self.bundle)) if a is not None]


def questions_of_run(store: Store, run: RunRow) -> Iterator[QuestionAnswers]:
    """Every question of the run that has answers, in question order."""
    primary = run.primary_budget or 0
    by_question: dict[int, list[RunAnswer]] = {}
    for a in run_answers(store, run.id):
        by_question.setdefault(a.question_pk, []).append(a)
    for rows in by_question.values():
        raw = next((a for a in rows if a.method == "raw"), None)
        bundles = [a for a in rows if a.method == "bundle"]
        bundle = next((a for a in bundles if a.budget == primary), bundles[-1] if bundles else None)
        yield QuestionAnswers(rows, raw, bundle, bundles)


def export_run(store: Store, run_id: int) -> Iterator[dict]:
    """One dict per question of the run (in question order)."""
    run = run_row(store, run_id)
    marked: dict[int, list[MarkedAnswer]] = defaultdict(list)  # people's claim marks, by answer
    for m in marked_answers(store, run_id):
        marked[m.answer_id].append(m)
    for qa in questions_of_run(store, run):
        raw, bundle, bundles, first = qa.raw, qa.bundle, qa.bundles, qa.question
        line: dict[str, Any] = {
            "run_id": run_id, "benchmark": first.benchmark, "provider": run.provider, "model": run.model,
            "question_id": first.question_id, "question": first.question, "category": first.category,
            "gold_answer": first.gold_answer, "raw_answer": raw and raw.text, "raw_chunks": chunks_of(store, raw),
            "raw_evidence_files": json.loads(raw.evidence_files or "[]") if raw else [],
            "bundle_answer": bundle and bundle.text, "bundle_chunks": chunks_of(store, bundle),
            "bundle_evidence_files": json.loads(bundle.evidence_files or "[]") if bundle else [],
            "bundle_budget": bundle and bundle.budget,
        }
        stored = load_bundle(store, bundle.bundle_id) if bundle and bundle.bundle_id else None
        info = stored.bundle if stored else None
        line["bundle_tokens"] = info.total_tokens if info else None
        line["bundle_coverage"] = info.coverage_notes if info else []
        grades = {m: grades_of(store, a.id) for m, a in qa.by_method()}
        notes = []
        for method in METHODS:
            head = headline(grades.get(method, []))
            line[f"{method}_grade"] = head.grade if head else None
            by = graded_by(head) if head else None
            line[f"{method}_grade_by"] = by
            text = head.remark if head else None
            if text:
                notes.append(f"{method} ({by}): {text}")
        line["grading_notes"] = "\n".join(notes) or None
        line["timestamp"] = qa.timestamp
        for method, a in qa.by_method():
            if a.status != "ok":
                line[f"{method}_error"] = redact(a.error) or a.status
            if a.finish_reason:
                line[f"{method}_finish_reason"] = a.finish_reason
                line[f"{method}_truncated"] = a.finish_reason == TRUNCATED
        line["budget_sweep"] = [{"budget": a.budget, "answer": a.text, "status": a.status,
                                 "tokens_in": a.tokens_in, "tokens_out": a.tokens_out,
                                 **({"finish_reason": a.finish_reason, "truncated": a.finish_reason == TRUNCATED}
                                    if a.finish_reason else {})} for a in bundles]
        if any(grades.values()):
            line["grades"] = json_form(grades)
        for method, a in qa.by_method():
            claims = answer_claim_record(store, a.id, marked[a.id])
            line[f"{method}_claims"] = claims.to_dict() if claims else None
        yield line
