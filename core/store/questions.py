"""The questions table: benchmark questions as stored, one row per (benchmark, question id).

`question_pk` finds a question's row, `add_question` and `update_question` write one (the benchmark loader upserts, an
imported run log adds what is missing), `answered_questions` gives the text each answered question was asked with and
the runs that answered it, and `indexed_paths` says which of a benchmark's expected files a repository has indexed
(does the benchmark ask about that repository?). Expected files and symbols are JSON text in the table and lists here
(None: unlabelled, not "no files expected").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """A question as stored (without its row id and creation time)."""

    benchmark: str
    question_id: str
    question: str
    category: str
    gold_answer: str | None
    expected_files: list[str] | None = None
    expected_symbols: list[str] | None = None

    def columns(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "question_id": self.question_id, "question": self.question,
                "category": self.category, "gold_answer": self.gold_answer,
                "expected_files": _json_or_null(self.expected_files),
                "expected_symbols": _json_or_null(self.expected_symbols)}


def _json_or_null(values: list[str] | None) -> str | None:
    return None if values is None else json.dumps(values)


def question_pk(store: Store, benchmark: str, question_id: str) -> int | None:
    """The row id of a benchmark's question, or None when it is not stored."""
    pk = store._scalar("SELECT id FROM questions WHERE benchmark = ? AND question_id = ?", (benchmark, question_id))
    return None if pk is None else int(pk)


def add_question(store: Store, question: QuestionRow, created_at: str) -> int:
    """Store a new question; its row id."""
    row = {**question.columns(), "created_at": created_at}
    cursor = store._conn.execute(f"INSERT INTO questions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                                tuple(row.values()))
    return int(cursor.lastrowid or 0)


def update_question(store: Store, pk: int, question: QuestionRow) -> None:
    """Rewrite a stored question (a corrected gold answer or labels keep its row, so its answers stay its own)."""
    store._db.table("questions").update(pk, question.columns())


@dataclass(frozen=True, slots=True)
class AnsweredQuestion:
    question: str  # the text the runs answered
    runs: str  # the ids of the runs that answered it, comma-separated


def answered_questions(store: Store, benchmark: str) -> dict[str, AnsweredQuestion]:
    """{question id: its text and the runs that answered it} for the benchmark's questions that have answers."""
    return {r["question_id"]: AnsweredQuestion(r["question"], r["runs"]) for r in store._query(
        "SELECT q.question_id, q.question, group_concat(DISTINCT a.run_id) AS runs FROM questions q "
        "JOIN answers a ON a.question_pk = q.id WHERE q.benchmark = ? GROUP BY q.id", (benchmark,))}


def indexed_paths(store: Store, repo_name: str, paths: list[str]) -> set[str]:
    """Which of `paths` (a benchmark's expected files) the repository named `repo_name` has indexed."""
    marks = ",".join("?" * len(paths))
    return {str(r["path"]) for r in store._query(f"SELECT f.path FROM files f JOIN repos r ON r.id = f.repo_id "
                                                  f"WHERE r.name = ? AND f.path IN ({marks})", (repo_name, *paths))}
