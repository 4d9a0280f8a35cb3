"""Benchmark questions: load and validate JSONL, store in store.db (core/store/questions.py).

A line is {"id", "question", "category", "gold_answer", "expected_files"?, "expected_symbols"?}. Every bad line is
reported as `file:line: field: problem`, and a file with any bad line stores nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.jsonl import json_lines, read_lines
from gradedesk.core.limits import MAX_CHARS, too_long
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.index import indexed_paths
from gradedesk.core.store.questions import QuestionRow, add_question, answered_questions, question_pk, update_question

BUNDLED_QUESTIONS = "benchmark-questions.jsonl"  # package data: gradedesk's own benchmark (the demo's questions)
REQUIRED_TEXT = ("id", "question", "category", "gold_answer")
OPTIONAL_LISTS = ("expected_files", "expected_symbols")
FITS_SHARE = 0.8  # of the bundled benchmark's expected files indexed: the repository is gradedesk


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    category: str
    gold_answer: str
    expected_files: list[str] | None = None  # None: unlabelled, not "no files expected"
    expected_symbols: list[str] | None = None


def bundled_questions_path() -> Path:
    """gradedesk's own benchmark, shipped inside the package (a symlink to the top-level file in a checkout)."""
    from importlib.resources import files

    return Path(str(files(__package__).joinpath(BUNDLED_QUESTIONS)))


def bundled_benchmark_fits(store: Store, repo_name: str) -> bool:
    """Is the indexed repository gradedesk itself (the demo's, or a checkout)? Its own benchmark asks about gradedesk's
    code: answered about any other repository it spends calls on questions nobody asked. True when at least
    FITS_SHARE of the files the benchmark expects are indexed under `repo_name`."""
    expected = sorted({f for q in load_questions(bundled_questions_path()) for f in q.expected_files or []})
    return bool(expected) and len(indexed_paths(store, repo_name, expected)) >= FITS_SHARE * len(expected)


def unindexed_expected_files(store: Store, questions: list[Question], repo_name: str, path: str) -> list[str]:
    """The files `questions` expect that the repository `repo_name` has not indexed, for a warning; when more than
    half are missing the questions are about another repository, and answering them would only spend calls: refused."""
    expected = sorted({f for q in questions for f in q.expected_files or []})
    if not expected:
        return []
    missing = sorted(set(expected) - indexed_paths(store, repo_name, expected))
    if len(missing) * 2 > len(expected):
        raise UserError(f"{path}: {len(missing)} of the {len(expected)} files its questions expect are not indexed "
                        f"in repository {repo_name!r} (e.g. {missing[0]}): these questions are about another "
                        f"repository; pass --questions with this repository's questions, or index theirs")
    return missing


def _check_line(data: object) -> list[tuple[str, str]]:
    if not isinstance(data, dict):
        return [("(line)", f"expected a JSON object, got {type(data).__name__}")]
    problems = []
    for name in REQUIRED_TEXT:
        value = data.get(name)
        if name not in data:
            problems.append((name, "missing"))
        elif not isinstance(value, str):
            problems.append((name, f"must be a string, got {type(value).__name__}"))
        elif name != "gold_answer" and not value.strip():
            problems.append((name, "is empty"))
        elif name in MAX_CHARS and (long := too_long(value, name)):
            problems.append((name, long))
    for name in OPTIONAL_LISTS:
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append((name, "must be a list of non-empty strings"))
    return problems


def parse_questions(text_lines: list[str], source: str) -> list[Question]:
    """Parse JSONL lines; raise InputError listing every bad line."""
    problems: list[str] = []
    out: list[Question] = []
    first_line: dict[str, int] = {}
    for lineno, data in json_lines(text_lines, source, problems):
        bad = _check_line(data)
        problems.extend(f"{source}:{lineno}: {name}: {why}" for name, why in bad)
        if bad or not isinstance(data, dict):  # not a dict is one of the problems _check_line reports
            continue
        qid = data["id"]
        if qid in first_line:
            problems.append(f"{source}:{lineno}: id: duplicate id {qid!r} (first on line {first_line[qid]})")
            continue
        first_line[qid] = lineno
        out.append(Question(qid, data["question"], data["category"], data["gold_answer"],
                            data.get("expected_files"), data.get("expected_symbols")))
    if problems:
        raise InputError(problems)
    if not out:
        raise UserError(f"{source}: no questions in the file")
    return out


def load_questions(path: str | Path) -> list[Question]:
    return parse_questions(read_lines(path), str(path))


def append_question(path: str | Path, question: str, category: str, gold_answer: str = "",
                    expected_files: list[str] | None = None) -> Question:
    """Add a question at the end of a benchmark file (made when missing) under the next free `explore-N` id, never
    rewriting a line: the file is read and checked first (a bad file is refused and left as it is), and the new line is
    checked as `questions check` checks every line."""
    p = Path(path)
    lines = read_lines(p) if p.exists() else []
    existing = parse_questions(lines, str(p)) if any(line.strip() for line in lines) else []
    ids = {q.id for q in existing}
    n = len(existing) + 1
    while f"explore-{n}" in ids:
        n += 1
    data: dict[str, object] = {"id": f"explore-{n}", "question": question, "category": category,
                               "gold_answer": gold_answer}
    if expected_files:
        data["expected_files"] = expected_files
    problems = _check_line(data)
    if problems:
        raise InputError([f"{p}: new question: {name}: {why}" for name, why in problems])
    newline = p.exists() and p.stat().st_size > 0 and not p.read_bytes().endswith(b"\n")
    with p.open("ab") as out:
        out.write(b"\n" if newline else b"")
        out.write((json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8"))
    return Question(str(data["id"]), question, category, gold_answer, expected_files or None)


def benchmark_name(path: str | Path) -> str:
    return Path(path).stem


def store_questions(store: Store, benchmark: str, questions: list[Question]) -> dict[str, int]:
    """Upsert questions of one benchmark in one transaction; returns {question id: questions.id}.

    The benchmark is named after the file, so two files with one name (say two repositories' questions.jsonl) meet
    here: a question that already has answers is not given a different question text, or the earlier runs would be
    graded against the other file's question and gold answer. Fixing a gold answer or labels is an update.
    """
    ids: dict[str, int] = {}
    now = utc_now()
    _refuse_rewording_answered(store, benchmark, questions)
    with store.transaction():
        for q in questions:
            row = QuestionRow(benchmark, q.id, q.question, q.category, q.gold_answer, q.expected_files,
                              q.expected_symbols)
            existing = question_pk(store, benchmark, q.id)
            if existing is None:
                ids[q.id] = add_question(store, row, now)
            else:
                update_question(store, existing, row)
                ids[q.id] = existing
    return ids


def _refuse_rewording_answered(store: Store, benchmark: str, questions: list[Question]) -> None:
    stored = answered_questions(store, benchmark)
    problems = [f"benchmark {benchmark!r}: question {q.id!r}: run(s) {stored[q.id].runs} answered a different "
                f"question under this id ({stored[q.id].question[:60]!r}); give this file another name, "
                f"or the question another id"
                for q in questions if q.id in stored and stored[q.id].question != q.question]
    if problems:
        raise InputError(problems)
