"""The fields of a run log line, checked one by one: what a good line becomes (LogLine, LogAnswer) and why a bad one
is bad. Every check adds (field, why) to a Problems list instead of stopping, so a line reports all its problems.

A chunk's fields are read with the evidence vocabulary of core/evidence/stored.py (seed names and their aliases); a
log is checked more strictly than stored evidence is read (a file path must be a string, line numbers whole numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradedesk.core.evidence.stored import HIT_ALIASES, evidence_from_hit
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES, GRADING_ERROR
from gradedesk.core.limits import too_long
from gradedesk.core.text.hashing import content_hash

LABELS = FAILURE_LABELS + (GRADING_ERROR,)
GRADER_KINDS = ("human", "judge", "rule", "imported")


@dataclass(frozen=True)
class GradedBy:
    """Who made a log's headline grades: a person, a judge model, or the log's own unnamed grader ('imported').
    `name` None: the import names it (the person: --grader or the file's name; imported: import:<file name>)."""
    kind: str  # one of GRADER_KINDS
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> GradedBy | None:
        """'human', 'human:NAME', 'judge:MODEL', 'rule:NAME' or 'imported' (as `*_grade_by` and --grades-from write
        them); None when it is none of these."""
        kind, _, name = text.partition(":")
        if kind not in GRADER_KINDS or (kind in ("judge", "rule") and not name.strip()):
            return None
        return cls(kind, name.strip() or None)


@dataclass
class LogAnswer:
    method: str
    text: str
    chunks: list[dict]  # with provenance (file_path, lines, ...), in the stored evidence shape
    evidence_files: list[str]
    grade: str | None = None
    failure_label: str | None = None
    notes: str | None = None
    graded_by: GradedBy = GradedBy("imported")
    confidence: float | None = None
    chunk_count: int | None = None  # the log recorded only how many chunks the answer used
    contexts: list[str] = field(default_factory=list)  # evidence texts without provenance (RAGAS retrieved_contexts)
    bundle_tokens: int | None = None
    bundle_budget: int | None = None
    bundle_coverage: list[str] = field(default_factory=list)
    graded: list[dict] = field(default_factory=list)  # a gradedesk run log's grades, each marked with its grader
    metrics: dict[str, tuple[float | None, dict]] = field(default_factory=dict)  # retrieval metrics: (value, detail)


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
    rubric: str | None = None  # a RAGAS row's rubric(s), kept with the run
    shape: str = "gradedesk"  # which shape the line was read as (core/exchange/formats.RUNLOG_SHAPES)


class Problems:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, name: str, why: str) -> None:
        self.items.append((name, why))


def whole(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def text(data: dict, name: str, p: Problems, required: bool = True, default: str | None = None,
         limit: str | None = None) -> str | None:
    """A text field; `limit` names its size limit in core/limits.py (question, gold_answer, answer)."""
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
    long = too_long(value, limit) if limit else None
    if long:
        p.add(name, long)
        return default
    return value


def choice(data: dict, name: str, allowed: tuple[str, ...], p: Problems) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if value not in allowed:
        p.add(name, f"{value!r} is not one of {', '.join(allowed)}")
        return None
    return value


def share(data: dict, name: str, p: Problems) -> float | None:
    """A number from 0 to 1 (a confidence, a precision), or None when absent."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        p.add(name, f"{value!r}: must be a number from 0 to 1")
        return None
    return float(value)


def count(data: dict, name: str, p: Problems, why: str) -> int | None:
    value = data.get(name)
    if value is not None and not whole(value):
        p.add(name, why)
        return None
    return value


def strings(data: dict, name: str, p: Problems, what: str) -> list[str] | None:
    """A list of non-empty strings, or None when absent."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        p.add(name, f"must be a list of {what}")
        return None
    return value


def chunks(data: dict, name: str, p: Problems) -> tuple[list[dict], int | None]:
    """(chunks, count): a list of chunks (objects with file_path) or file paths, or only how many chunks were used."""
    value = data.get(name)
    if value is None:
        return [], None
    if whole(value):
        return [], value
    if not isinstance(value, list):
        p.add(name, "must be a number of chunks, or a list of chunks (objects with file_path) or file paths")
        return [], None
    out = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str) and item.strip():
            item = {"file_path": item}
        chunk = _hit(item, i, p, name) if isinstance(item, dict) else None
        if chunk is not None:
            out.append(chunk)
        elif not isinstance(item, dict):
            p.add(name, f"item {i} has no file_path")
    return out, None


def _given(item: dict, name: str) -> Any:
    """The value a hit gives for a seed field under any of its names (core/evidence/stored.HIT_ALIASES), or None."""
    return next((item[alias] for alias in HIT_ALIASES[name] if item.get(alias) is not None), None)


def _hit(item: dict, rank: int, p: Problems, name: str) -> dict | None:
    """A chunk of a log line in the stored evidence shape; None when it has no file or impossible line numbers."""
    path = _given(item, "file_path")
    if not isinstance(path, str) or not path.strip():
        p.add(name, f"item {rank} has no file_path")
        return None
    for key in ("start_line", "end_line"):
        value = _given(item, key)
        if value is not None and not whole(value, 1):
            p.add(name, f"item {rank}: {key} must be a line number from 1")
            return None
    ev = evidence_from_hit(rank, item)
    long = too_long(ev.text, "snippet")
    if long:
        p.add(name, f"item {rank}: text: {long}")
        return None
    start = ev.start_line or 1
    out = {"chunk_id": ev.chunk_id or content_hash(f"{path}\n{ev.text}")[:16], "file_path": path,
           "start_line": start, "end_line": max(start, ev.end_line or start), "symbol_name": ev.symbol_name,
           "retrieval_method": ev.retrieval_method or "imported",
           "relevance_score": ev.relevance_score if ev.relevance_score is not None else 0.0,
           "retrieval_rank": ev.retrieval_rank if ev.retrieval_rank and ev.retrieval_rank >= 1 else rank,
           "text": ev.text}
    # why a bundle snippet was kept and what it is for: kept, so a round trip loses neither
    out.update({k: getattr(ev, k) for k in ("selection_reason", "evidence_role") if getattr(ev, k)})
    return out


def files(data: dict, name: str, found: list[dict], p: Problems) -> list[str]:
    """The answer's evidence files: as given, else those of its chunks."""
    value = strings(data, name, p, "file paths")
    return value if value is not None else list(dict.fromkeys(c["file_path"] for c in found))


def coverage(data: dict, name: str, p: Problems) -> list[str]:
    """Coverage notes: a list of notes, or one note as a string (the lesson's bundles and logs write a string)."""
    value = data.get(name) or []
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        p.add(name, "must be a note or a list of notes")
        return []
    return value


def marked_grades(data: dict, method: str, p: Problems) -> list[dict]:
    """A gradedesk run log's `grades` of one answer, each marked with its grader."""
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
        if g.get("grader_kind") not in GRADER_KINDS:
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
    checks: list[tuple[str, bool, str]] = [
        ("failure_label", g.get("failure_label") in (None, *LABELS), f"must be one of {', '.join(LABELS)}"),
        ("confidence", g.get("confidence") is None or (isinstance(g["confidence"], (int, float))
                                                     and not isinstance(g["confidence"], bool)
                                                     and 0 <= g["confidence"] <= 1), "must be a number from 0 to 1"),
        ("repeat_index", g.get("repeat_index") is None or whole(g["repeat_index"]), "must be a whole number from 0"),
        ("mode", g.get("mode") in (None, "blind", "open", "recheck"), "must be blind, open or recheck"),
        *[(d, g.get(d) is None or (whole(g[d], 1) and g[d] <= 5), "must be a whole number from 1 to 5")
          for d in DIMENSIONS],
        *[(k, g.get(k) is None or isinstance(g[k], str), "must be a string")
          for k in ("uuid", "note", "reasoning", "rubric_version", "created_at", "machine_kind", "machine_model",
                    "machine_rubric")],
    ]
    return next((f"{name} {g.get(name)!r}: {why}" for name, ok, why in checks if not ok), None)


def headline_grade(data: dict, answer: LogAnswer, prefix: str, p: Problems) -> None:
    """The grade a line leads with (`grade` or `raw_grade`, its failure label, the grading notes) onto `answer`."""
    answer.grade = choice(data, f"{prefix}grade", GRADES, p)
    answer.failure_label = choice(data, f"{prefix}failure_label", LABELS, p)
    answer.notes = text(data, "grading_notes", p, required=False) or None  # "": not filled in
