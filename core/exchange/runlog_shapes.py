"""The shapes of run log a line can have, told apart by their fields (or forced with `--format`), each read into a
LogLine: question, answers, evidence, grades and who made them.

- gradedesk   gradedesk's own run log (core/exchange/runlog_export.py): raw_answer / bundle_answer with chunk lists,
              bundle tokens, budget and coverage; `grades` marks every grade with its grader. Told by run_id,
              *_grade_by, grades or budget_sweep, or chunk lists. Headline grades without marked grades: `imported`.
- comparison  the evidence-bundles lesson's bundle-comparison log: question_id, question, category, raw_answer,
              raw_chunks, bundle_answer, bundle_chunks, bundle_tokens, bundle_coverage, raw_grade, bundle_grade,
              grading_notes, timestamp, where raw_chunks / bundle_chunks are how many chunks each answer used (kept as
              counts: "N chunks, evidence not recorded") and bundle_coverage is one note. raw_grade / bundle_grade are
              filled in by a person: a person's grades.
- harness     one answer a line: question_id, question, category, answer, evidence_files (optional method raw|bundle,
              evidence chunks); a graded log adds grade, failure_label, grading_notes, judge_confidence, judge_model
              (the judge that graded it) and the retrieval grader's retrieval_file_precision, retrieval_file_recall,
              retrieval_symbol_recall, missing_files, extra_files (kept as retrieval metrics of the answer).
- ragas       RAGAS rows: user_input, retrieved_contexts, response, reference, optional rubric(s); gradedesk's own RAGAS
              export adds question_id, category, method and a grade with graded_by.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gradedesk.core.exchange import runlog_fields as f
from gradedesk.core.exchange.runlog_fields import GradedBy, LogAnswer, LogLine, Problems
from gradedesk.core.grading.vocabulary import METHODS
from gradedesk.core.jsonl import json_lines

_GRADEDESK_MARKS = ("run_id", "raw_grade_by", "bundle_grade_by", "grades", "budget_sweep")
# the retrieval grader's fields of a graded harness log -> gradedesk's retrieval metric (and the list kept with it)
RETRIEVAL_FIELDS = {"retrieval_file_precision": ("file_precision", "extra_files"),
                    "retrieval_file_recall": ("file_recall", "missing_files"),
                    "retrieval_symbol_recall": ("symbol_recall", None)}


def detect_shape(data: dict) -> str | None:
    """The shape a line's fields say it has, or None."""
    if "user_input" in data or "retrieved_contexts" in data:
        return "ragas"
    if "answer" in data:
        return "harness"
    if "raw_answer" in data or "bundle_answer" in data:
        if any(k in data for k in _GRADEDESK_MARKS):
            return "gradedesk"
        counts = any(f.whole(data.get(f"{m}_chunks")) for m in METHODS)
        return "comparison" if counts else "gradedesk"
    return None


def _comparison(data: dict, p: Problems, people: bool) -> list[LogAnswer]:
    """gradedesk and lesson comparison lines; `people`: the headline grades were made by a person (the lesson's)."""
    out = []
    for method in METHODS:
        if data.get(f"{method}_answer") is None:
            continue
        answer_text = f.text(data, f"{method}_answer", p, required=False, default="", limit="answer")
        chunks, chunk_count = f.chunks(data, f"{method}_chunks", p)
        answer = LogAnswer(method, answer_text or "", chunks, f.files(data, f"{method}_evidence_files", chunks, p),
                           chunk_count=chunk_count, graded_by=GradedBy("human" if people else "imported"))
        answer.graded = f.marked_grades(data, method, p)
        if not answer.graded:  # the headline grade is the log's own grader's only when no marked grades came along
            f.headline_grade(data, answer, f"{method}_", p)
        if method == "bundle":
            answer.bundle_tokens = f.count(data, "bundle_tokens", p, "must be a whole number of tokens")
            budget = f.count(data, "bundle_budget", p, "must be a whole number of tokens")
            answer.bundle_budget = budget or None  # 0: not known (an export of an imported run)
            answer.bundle_coverage = f.coverage(data, "bundle_coverage", p)
        out.append(answer)
    if not out:
        p.add("raw_answer", "a comparison line needs raw_answer or bundle_answer")
    return out


def _harness(data: dict, p: Problems) -> list[LogAnswer]:
    method = f.choice(data, "method", METHODS, p) or "raw"
    chunks, chunk_count = f.chunks(data, "evidence", p)
    answer = LogAnswer(method, f.text(data, "answer", p, required=False, default="", limit="answer") or "", chunks,
                       f.files(data, "evidence_files", chunks, p), chunk_count=chunk_count)
    f.headline_grade(data, answer, "", p)
    judge = f.text(data, "judge_model", p, required=False)
    if judge and judge.strip():
        answer.graded_by = GradedBy("judge", judge.strip())
    answer.confidence = f.share(data, "judge_confidence", p)
    for name, (metric, list_name) in RETRIEVAL_FIELDS.items():
        value = f.share(data, name, p)
        listed = f.strings(data, list_name, p, "file paths") if list_name else None
        if value is not None or listed is not None:
            answer.metrics[metric] = (value, {list_name: listed} if listed is not None else {})
    return [answer]


def _ragas(data: dict, p: Problems) -> list[LogAnswer]:
    method = f.choice(data, "method", METHODS, p) or "raw"
    contexts = data.get("retrieved_contexts")
    if contexts is None:
        contexts = []
    elif not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
        p.add("retrieved_contexts", "must be a list of strings (the texts the answer was given)")
        contexts = []
    if "response" not in data:
        p.add("response", "missing")
    response = f.text(data, "response", p, required=False, default="", limit="answer") or ""  # an answer may be empty (it failed)
    answer = LogAnswer(method, response, [], [], contexts=contexts)
    f.headline_grade(data, answer, "", p)
    by = f.text(data, "graded_by", p, required=False)
    if by is not None:
        parsed = GradedBy.parse(by)
        if parsed is None:
            p.add("graded_by", f"{by!r}: must be human:NAME, judge:MODEL, rule:NAME or imported")
        else:
            answer.graded_by = parsed
    return [answer]


def _rubric(data: dict, p: Problems) -> str | None:
    """A RAGAS row's rubric: one text (`rubric`) or RAGAS's `rubrics` object of score descriptions, kept as text."""
    if isinstance(data.get("rubrics"), dict):
        return json.dumps(data["rubrics"], ensure_ascii=False)
    if data.get("rubrics") is not None:
        p.add("rubrics", "must be an object of score descriptions")
    return f.text(data, "rubric", p, required=False)


def parse_line(data: Any, lineno: int, shape: str | None = None,
               graded_by: GradedBy | None = None) -> tuple[LogLine | None, list[tuple[str, str]]]:
    """One line as a LogLine, or its problems as (field, why). `shape` forces a shape; `graded_by` says who made the
    headline grades (instead of what the shape says)."""
    p = Problems()
    if not isinstance(data, dict):
        return None, [("(line)", f"expected a JSON object, got {type(data).__name__}")]
    shape = shape or detect_shape(data)
    qid: str | None
    if shape == "ragas":
        question = f.text(data, "user_input", p, limit="question")
        qid = f.text(data, "question_id", p, required=False) or \
            hashlib.sha256((question or "").strip().encode()).hexdigest()[:12]  # the same question, the same id
        gold = f.text(data, "reference", p, required=False, limit="gold_answer")
    else:
        qid, question = f.text(data, "question_id", p), f.text(data, "question", p, limit="question")
        gold = f.text(data, "gold_answer", p, required=False, limit="gold_answer")
    category = f.text(data, "category", p, required=False, default="general") or "general"
    benchmark = f.text(data, "benchmark", p, required=False)
    timestamp = f.text(data, "timestamp", p, required=False)
    model = f.text(data, "model", p, required=False)
    rubric = None
    if shape in ("gradedesk", "comparison"):
        answers = _comparison(data, p, people=shape == "comparison")
    elif shape == "harness":
        answers = _harness(data, p)
    elif shape == "ragas":
        answers = _ragas(data, p)
        rubric = _rubric(data, p)
    else:
        p.add("answer", "missing: a harness line needs answer, a comparison line raw_answer or bundle_answer")
        answers = []
    if p.items:
        return None, p.items
    # a required text missing or not a string, and a line of no shape, are problems, returned above
    assert qid is not None and question is not None and shape is not None
    for a in answers:
        a.graded_by = graded_by or a.graded_by
    return LogLine(lineno, qid, question, category, benchmark, timestamp, model, answers, gold, rubric, shape), []


def parse_runlog(lines: list[str], source: str, shape: str | None = None,
                 graded_by: GradedBy | None = None) -> tuple[list[LogLine], list[str]]:
    """(good lines, problems as `file:line: field: problem`)."""
    good: list[LogLine] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, data in json_lines(lines, source, problems):
        line, bad = parse_line(data, lineno, shape, graded_by)
        if line is None:  # no line exactly when it has problems
            problems.extend(f"{source}:{lineno}: {name}: {why}" for name, why in bad)
            continue
        dup = next((seen[(line.question_id, a.method)] for a in line.answers
                    if (line.question_id, a.method) in seen), None)
        if dup is not None:
            problems.append(f"{source}:{lineno}: question_id: {line.question_id!r} answered again "
                            f"(first on line {dup})")
            continue
        for a in line.answers:
            seen[(line.question_id, a.method)] = lineno
        good.append(line)
    return good, problems
