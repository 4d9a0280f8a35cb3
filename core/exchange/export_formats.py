"""A run in other tools' formats: the evidence-bundles lesson's comparison log, and RAGAS rows.

- comparison  exactly the lesson's bundle-comparison fields, so its summarize/compare scripts read gradedesk's grades:
              question_id, question, category, raw_answer, raw_chunks, bundle_answer, bundle_chunks, bundle_tokens,
              bundle_coverage, raw_grade, bundle_grade, grading_notes, timestamp. The chunks are counts, the coverage
              notes one string ("; "-joined), and raw_grade / bundle_grade a person's current grade (the newest, when
              several people graded), else null, as in the lesson before a person fills them in; grading_notes their
              notes (one note, or "raw: ..." and "bundle: ..." lines when the two differ).
- ragas       one row per answer: user_input, retrieved_contexts (the evidence texts), response, reference (the gold
              answer), the rubric(s) an imported RAGAS row came with; plus question_id, category, method, grade,
              failure_label, grading_notes and graded_by (human:NAME, judge:MODEL, rule:NAME, imported:NAME): the
              headline grade, a person's, else the machine's.
Both read back with `gradedesk import` (core/exchange/runlog_shapes.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence, load_bundle, unrecorded_chunk_count
from gradedesk.core.exchange.runlog_export import (
    LoggedGrade, LoggedPersonGrade, graded_by, grades_of, headline, questions_of_run,
)
from gradedesk.core.store.answers import RunAnswer
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunRow, run_row

COMPARISON_FIELDS = ("question_id", "question", "category", "raw_answer", "raw_chunks", "bundle_answer",
                     "bundle_chunks", "bundle_tokens", "bundle_coverage", "raw_grade", "bundle_grade",
                     "grading_notes", "timestamp")


def _evidence(store: Store, answer: RunAnswer) -> list[Evidence]:
    return answer_evidence(store, asdict(answer))  # the reader takes the answer's columns by name


def _chunk_count(store: Store, answer: RunAnswer | None) -> int:
    if answer is None:
        return 0
    count = unrecorded_chunk_count(answer.evidence)
    return count if count is not None else len(_evidence(store, answer))


def _person(store: Store, answer: RunAnswer | None) -> LoggedGrade | None:
    """The newest current grade a person gave the answer."""
    if answer is None:
        return None
    return headline([g for g in grades_of(store, answer.id) if isinstance(g, LoggedPersonGrade)])


def comparison_lines(store: Store, run_id: int) -> Iterator[dict]:
    """One lesson comparison line per question of the run."""
    for qa in questions_of_run(store, run_row(store, run_id)):
        q, raw, bundle = qa.question, qa.raw, qa.bundle
        stored = load_bundle(store, bundle.bundle_id) if bundle and bundle.bundle_id is not None else None
        people = {"raw": _person(store, raw), "bundle": _person(store, bundle)}
        grades = {m: g.grade if g else None for m, g in people.items()}
        notes = {m: g.remark for m, g in people.items() if g and g.remark}
        note = next(iter(notes.values())) if len(set(notes.values())) == 1 else \
            "\n".join(f"{m}: {n}" for m, n in notes.items()) or None
        values: dict[str, Any] = {
            "question_id": q.question_id, "question": q.question, "category": q.category,
            "raw_answer": raw and raw.text, "raw_chunks": _chunk_count(store, raw),
            "bundle_answer": bundle and bundle.text, "bundle_chunks": _chunk_count(store, bundle),
            "bundle_tokens": stored.bundle.total_tokens if stored else None,
            "bundle_coverage": "; ".join(stored.bundle.coverage_notes) if stored else "",
            "raw_grade": grades["raw"], "bundle_grade": grades["bundle"],
            "grading_notes": note, "timestamp": qa.timestamp}
        yield {name: values[name] for name in COMPARISON_FIELDS}


def _rubric(run: RunRow, question_id: str) -> dict:
    rubric = run.config.get("rubrics", {}).get(question_id)
    if rubric is None:
        return {}
    try:
        parsed = json.loads(rubric)
    except json.JSONDecodeError:
        parsed = None
    return {"rubrics": parsed} if isinstance(parsed, dict) else {"rubric": rubric}


def ragas_rows(store: Store, run_id: int) -> Iterator[dict]:
    """One RAGAS row per answer shown at the desk (raw, and bundled at the primary budget)."""
    run = run_row(store, run_id)
    for qa in questions_of_run(store, run):
        q = qa.question
        for method, a in qa.by_method():
            head = headline(grades_of(store, a.id))
            contexts = [e.text for e in _evidence(store, a) if e.text]
            yield {"user_input": q.question, "retrieved_contexts": contexts, "response": a.text or "",
                   "reference": q.gold_answer, **_rubric(run, q.question_id),
                   "question_id": q.question_id, "category": q.category, "method": method,
                   "grade": head.grade if head else None, "failure_label": head.failure_label if head else None,
                   "grading_notes": head.remark if head else None,
                   "graded_by": graded_by(head) if head else None}
