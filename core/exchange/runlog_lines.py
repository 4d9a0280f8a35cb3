"""Checking the lines of a run log made elsewhere: every problem as (field, why); good lines as LogLine.

Two shapes are read, line by line:
- comparison lines (as core/exchange/runlog_export.py writes them): raw_answer and/or bundle_answer with their chunks,
  tokens, coverage and grades;
- harness lines: one answer a line (question_id, question, category, answer, evidence_files, grade, failure_label,
  grading_notes; optional method raw|bundle, default raw).
A chunk's fields are read with the evidence vocabulary of core/evidence/stored.py (seed names and their aliases).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradedesk.core.evidence.stored import HIT_ALIASES, evidence_from_hit
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES, GRADING_ERROR, METHODS
from gradedesk.core.jsonl import json_lines
from gradedesk.core.text.hashing import content_hash


@dataclass
class LogAnswer:
    method: str
    text: str
    chunks: list[dict]
    evidence_files: list[str]
    grade: str | None = None
    failure_label: str | None = None
    notes: str | None = None
    bundle_tokens: int | None = None
    bundle_budget: int | None = None
    bundle_coverage: list[str] = field(default_factory=list)
    graded: list[dict] = field(default_factory=list)  # a comparison file's marked grades


@dataclass
class LogLine:
    lineno: int
    question_id: str
    question: str
    category: str
    benchmark: str | None
    timestamp: str | None
    model: str | None
    answers: list[LogAnswer]
    gold_answer: str | None = None  # a new store's question gets it (an exported run carries it)


class _Problems:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, name: str, why: str) -> None:
        self.items.append((name, why))


def _text(data: dict, name: str, p: _Problems, required: bool = True, default: str | None = None) -> str | None:
    value = data.get(name)
    if value is None:
        if required:
            p.add(name, "missing")
        return default
    if isinstance(value, int) and not isinstance(value, bool) and name == "question_id":
        return str(value)
    if not isinstance(value, str):
        p.add(name, f"must be a string, got {type(value).__name__}")
        return default
    if required and not value.strip():
        p.add(name, "is empty")
    return value


def _choice(data: dict, name: str, allowed: tuple[str, ...], p: _Problems) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if value not in allowed:
        p.add(name, f"{value!r} is not one of {', '.join(allowed)}")
        return None
    return value


def _chunk_list(data: dict, name: str, p: _Problems) -> list[dict]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        p.add(name, "must be a list of chunks (objects with file_path) or file paths")
        return []
    out = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str) and item.strip():
            item = {"file_path": item}
        chunk = _hit(item, i, p, name) if isinstance(item, dict) else None
        if chunk is not None:
            out.append(chunk)
        elif not isinstance(item, dict):
            p.add(name, f"item {i} has no file_path")
    return out


def _given(item: dict, name: str) -> Any:
    """The value a hit gives for a seed field under any of its names (core/evidence/stored.HIT_ALIASES), or None."""
    return next((item[alias] for alias in HIT_ALIASES[name] if item.get(alias) is not None), None)


def _hit(item: dict, rank: int, p: _Problems, name: str) -> dict | None:
    """A chunk of a log line in the stored evidence shape, read with the one hit vocabulary; None when it has no file.

    A log is checked more strictly than stored evidence is read: a file path must be a string and line numbers whole
    numbers from 1 (`evidence_from_hit` alone would convert or skip them).
    """
    path = _given(item, "file_path")
    if not isinstance(path, str) or not path.strip():
        p.add(name, f"item {rank} has no file_path")
        return None
    for key in ("start_line", "end_line"):
        value = _given(item, key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            p.add(name, f"item {rank}: {key} must be a line number from 1")
            return None
    ev = evidence_from_hit(rank, item)
    start = ev.start_line or 1
    return {"chunk_id": ev.chunk_id or content_hash(f"{path}\n{ev.text}")[:16], "file_path": path,
            "start_line": start, "end_line": max(start, ev.end_line or start), "symbol_name": ev.symbol_name,
            "retrieval_method": ev.retrieval_method or "imported",
            "relevance_score": ev.relevance_score if ev.relevance_score is not None else 0.0,
            "retrieval_rank": ev.retrieval_rank if ev.retrieval_rank and ev.retrieval_rank >= 1 else rank,
            "text": ev.text}


def _files(data: dict, name: str, chunks: list[dict], p: _Problems) -> list[str]:
    value = data.get(name)
    if value is None:
        return list(dict.fromkeys(c["file_path"] for c in chunks))
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        p.add(name, "must be a list of file paths")
        return []
    return value


def _marked_grades(data: dict, method: str, p: _Problems) -> list[dict]:
    grades = data.get("grades")
    if grades is None:
        return []
    entries = grades.get(method, []) if isinstance(grades, dict) else None
    if not isinstance(entries, list):
        p.add("grades", "must be an object {raw: [...], bundle: [...]} of grades marked with their grader")
        return []
    out = []
    for i, g in enumerate(entries, start=1):
        where = f"grades.{method}[{i}]"
        if not isinstance(g, dict):
            p.add(where, "must be an object")
            continue
        if g.get("grader_kind") not in ("human", "judge", "rule", "imported"):
            p.add(where, "grader_kind must be human, judge, rule or imported")
        elif not isinstance(g.get("grader"), str) or not g["grader"].strip():
            p.add(where, "grader is missing")
        elif g.get("grade") not in GRADES:
            p.add(where, f"grade {g.get('grade')!r} is not one of {', '.join(GRADES)}")
        elif why := _grade_field_problem(g):
            p.add(where, why)
        else:
            out.append(g)
    return out


def _grade_field_problem(g: dict) -> str | None:
    """The first optional field of a marked grade that could not be stored as it is, or None."""
    def whole(v: Any, low: int, high: int | None = None) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= low and (high is None or v <= high)

    labels = FAILURE_LABELS + (GRADING_ERROR,)
    checks: list[tuple[str, bool, str]] = [
        ("failure_label", g.get("failure_label") in (None, *labels), f"must be one of {', '.join(labels)}"),
        ("confidence", g.get("confidence") is None or (isinstance(g["confidence"], (int, float))
                                                     and not isinstance(g["confidence"], bool)
                                                     and 0 <= g["confidence"] <= 1), "must be a number from 0 to 1"),
        ("repeat_index", g.get("repeat_index") is None or whole(g["repeat_index"], 0), "must be a whole number from 0"),
        ("mode", g.get("mode") in (None, "blind", "open", "recheck"), "must be blind, open or recheck"),
        *[(d, g.get(d) is None or whole(g[d], 1, 5), "must be a whole number from 1 to 5") for d in DIMENSIONS],
        *[(k, g.get(k) is None or isinstance(g[k], str), "must be a string")
          for k in ("uuid", "note", "reasoning", "rubric_version", "created_at")],
    ]
    return next((f"{name} {g.get(name)!r}: {why}" for name, ok, why in checks if not ok), None)


def _comparison(data: dict, p: _Problems) -> list[LogAnswer]:
    out = []
    for method in METHODS:
        if data.get(f"{method}_answer") is None:
            continue
        text = _text(data, f"{method}_answer", p, required=False, default="")
        chunks = _chunk_list(data, f"{method}_chunks", p)
        answer = LogAnswer(method, text or "", chunks, _files(data, f"{method}_evidence_files", chunks, p))
        answer.graded = _marked_grades(data, method, p)
        if not answer.graded:  # the headline grade is the log's own grader's only when no marked grades came along
            answer.grade = _choice(data, f"{method}_grade", GRADES, p)
            answer.failure_label = _choice(data, f"{method}_failure_label", FAILURE_LABELS + (GRADING_ERROR,), p)
            answer.notes = _text(data, "grading_notes", p, required=False)
        if method == "bundle":
            tokens = data.get("bundle_tokens")
            if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0):
                p.add("bundle_tokens", "must be a whole number of tokens")
            else:
                answer.bundle_tokens = tokens
            budget = data.get("bundle_budget")
            if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
                p.add("bundle_budget", "must be a whole number of tokens")
            else:
                answer.bundle_budget = budget or None  # 0: not known (an export of an imported run)
            coverage = data.get("bundle_coverage") or []
            coverage = [coverage] if isinstance(coverage, str) else coverage
            if not isinstance(coverage, list) or not all(isinstance(c, str) for c in coverage):
                p.add("bundle_coverage", "must be a list of notes")
            else:
                answer.bundle_coverage = coverage
        out.append(answer)
    if not out:
        p.add("raw_answer", "a comparison line needs raw_answer or bundle_answer")
    return out


def _harness(data: dict, p: _Problems) -> list[LogAnswer]:
    text = _text(data, "answer", p, required=False, default="")
    method = _choice(data, "method", METHODS, p) or "raw"
    chunks = _chunk_list(data, "evidence", p) if "evidence" in data else []
    answer = LogAnswer(method, text or "", chunks, _files(data, "evidence_files", chunks, p))
    answer.grade = _choice(data, "grade", GRADES, p)
    answer.failure_label = _choice(data, "failure_label", FAILURE_LABELS + (GRADING_ERROR,), p)
    answer.notes = _text(data, "grading_notes", p, required=False)
    return [answer]


def parse_line(data: Any, lineno: int) -> tuple[LogLine | None, list[tuple[str, str]]]:
    p = _Problems()
    if not isinstance(data, dict):
        return None, [("(line)", f"expected a JSON object, got {type(data).__name__}")]
    qid = _text(data, "question_id", p)
    question = _text(data, "question", p)
    category = _text(data, "category", p, required=False, default="general") or "general"
    benchmark = _text(data, "benchmark", p, required=False)
    timestamp = _text(data, "timestamp", p, required=False)
    model = _text(data, "model", p, required=False)
    gold = _text(data, "gold_answer", p, required=False)
    if "answer" in data:
        answers = _harness(data, p)
    elif "raw_answer" in data or "bundle_answer" in data:
        answers = _comparison(data, p)
    else:
        p.add("answer", "missing: a harness line needs answer, a comparison line raw_answer or bundle_answer")
        answers = []
    if p.items:
        return None, p.items
    return LogLine(lineno, qid, question, category, benchmark, timestamp, model, answers, gold), []


def parse_runlog(lines: list[str], source: str) -> tuple[list[LogLine], list[str]]:
    """(good lines, problems as `file:line: field: problem`)."""
    good: list[LogLine] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, data in json_lines(lines, source, problems):
        line, bad = parse_line(data, lineno)
        if bad:
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
