"""The answers table (a run's answers, one per question, method and budget; its bundles are bundles.py's).

A run's answer slots made up front (`add_pending_answers`) and their statuses (`answer_statuses`), one call's outcome
written into its slot (`record_answer`: a bundle it replaces goes), an imported answer (`add_answer`), a run's
answers with their questions (`run_answers`, what a run log or export line is made of), an answer named by what it
is (AnswerRef: run, question, method and budget), as exported scores name it, the answers machine graders read
(`answers_of_run`, `answer_row`: rows as dicts), what each answer of a run cost (`answer_outcomes`) and answers' texts
by id (`answer_texts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass, fields
from typing import Any

from gradedesk.core.store.bundles import delete_bundles
from gradedesk.core.store.connection import Store

# (question_pk, method, budget): an answer's place in its run
TRUNCATED = "length"  # the finish_reason of a reply cut at max_tokens (OpenAI, vLLM, llama.cpp, Ollama), as stored
Slot = tuple[int, str, int]


def add_pending_answers(store: Store, run_id: int, slots: list[Slot], created_at: str) -> None:
    """Create the run's answer rows that are missing, as pending."""
    with store.transaction():
        store._conn.executemany(
            "INSERT OR IGNORE INTO answers (run_id, question_pk, method, budget, status, created_at) "
            "VALUES (?, ?, ?, ?, 'pending', ?)", [(run_id, pk, m, b, created_at) for pk, m, b in slots])


def answer_statuses(store: Store, run_id: int) -> dict[Slot, str]:
    """{slot: status (pending, ok, error)} of every answer of the run."""
    rows = store._conn.execute("SELECT question_pk, method, budget, status FROM answers WHERE run_id = ?", (run_id,))
    return {(pk, m, b): s for pk, m, b, s in rows}


@dataclass(frozen=True, slots=True)
class AnswerWrite:
    """What one call gave an answer slot: the answer and its costs (status ok) or the provider's error (status error),
    with the evidence shown and the prompt version."""

    status: str  # ok | error
    evidence: str | None  # JSON list of raw hits
    evidence_files: str  # JSON list of paths
    bundle_id: int | None
    prompt_version: str
    answered_at: str
    attempts: int  # this call's, added to the slot's earlier ones
    text: str | None = None
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_counted: int | None = None  # None: left as it was (a failed call counts nothing)
    latency_ms: float | None = None
    cost_usd: float | None = None
    finish_reason: str | None = None
    reasoning: str | None = None


def record_answer(store: Store, run_id: int, slot: Slot, write: AnswerWrite) -> None:
    """Write a call's outcome into its slot; a bundle of an earlier try that this one replaces is removed."""
    with store.transaction():
        answer_id, old_bundle, attempts = store._conn.execute(
            "SELECT id, bundle_id, attempts FROM answers WHERE run_id = ? AND question_pk = ? AND method = ? "
            "AND budget = ?", (run_id, *slot)).fetchone()
        row = {f.name: getattr(write, f.name) for f in fields(write)}
        row["attempts"] = attempts + write.attempts
        if write.tokens_counted is None:
            del row["tokens_counted"]
        store._db.table("answers").update(answer_id, row)
        if old_bundle is not None and old_bundle != write.bundle_id:
            delete_bundles(store, [old_bundle])


@dataclass(frozen=True, slots=True)
class NewAnswer:
    """An answer made elsewhere (an imported run log): answered, with its evidence."""

    run_id: int
    question_pk: int
    method: str
    budget: int
    text: str | None
    evidence: str | None
    evidence_files: str
    bundle_id: int | None
    created_at: str
    answered_at: str
    tokens_in: int | None = None  # what the log says the answer cost, when it says (an eval tool's log)
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None


def add_answer(store: Store, answer: NewAnswer) -> int:
    """Store an answered answer (status ok); its id."""
    names = [*(f.name for f in fields(answer)), "status"]
    cursor = store._conn.execute(f"INSERT INTO answers ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                                (*astuple(answer), "ok"))
    return int(cursor.lastrowid or 0)


@dataclass(frozen=True, slots=True)
class RunAnswer:
    """An answer of a run, with the question it answers."""

    id: int
    question_pk: int
    method: str
    budget: int
    status: str
    text: str | None
    evidence: str | None
    evidence_files: str | None
    bundle_id: int | None
    tokens_in: int | None
    tokens_out: int | None
    error: str | None
    finish_reason: str | None
    created_at: str
    answered_at: str | None
    question_id: str  # the question's id in its benchmark
    question: str
    category: str
    benchmark: str
    gold_answer: str | None


def run_answers(store: Store, run_id: int) -> list[RunAnswer]:
    """Every answer of the run with its question, by question, raw first, then by budget."""
    return [RunAnswer(*row) for row in store._conn.execute(
        "SELECT a.id, a.question_pk, a.method, a.budget, a.status, a.text, a.evidence, a.evidence_files, a.bundle_id, "
        "a.tokens_in, a.tokens_out, a.error, a.finish_reason, a.created_at, a.answered_at, "
        "q.question_id, q.question, q.category, q.benchmark, q.gold_answer "
        "FROM answers a JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? "
        "ORDER BY a.question_pk, a.method DESC, a.budget", (run_id,))]


@dataclass(frozen=True, slots=True)
class AnswerRef:
    """An answer named by what it is (its run, question, method and budget) beside its row id: how exported scores
    name the answer they are of."""

    run_id: int
    answer_id: int
    benchmark: str
    question_id: str
    method: str
    budget: int


# the columns of an AnswerRef over answers a JOIN questions q
ANSWER_REF_SQL = "a.run_id, a.id, q.benchmark, q.question_id, a.method, a.budget"


# the answers machine graders read ------------------------------------------------------------------------------------
def answers_of_run(store: Store, run_id: int, *, only_ok: bool = True) -> list[dict[str, Any]]:
    """Answer rows of a run joined with their question (question text, gold, labels, category), in a stable order.
    Rows as dicts: the evidence reader (core/evidence/stored.py) takes an answer row."""
    status = "AND a.status = 'ok'" if only_ok else ""
    return store._query(
        "SELECT a.*, q.question_id, q.benchmark, q.question, q.category, q.gold_answer, q.expected_files, "
        "q.expected_symbols "
        f"FROM answers a JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? {status} "
        "ORDER BY q.question_id, a.method DESC, a.budget", (run_id,))


def answer_row(store: Store, answer_id: int) -> dict[str, Any]:
    """One answer's row (as a dict, like `answers_of_run`'s, without the question's columns)."""
    return store._query("SELECT * FROM answers WHERE id = ?", (answer_id,))[0]


# what a run's answers cost, and their texts -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    method: str
    budget: int
    status: str
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_ms: float | None
    tokens_counted: int | None
    finish_reason: str | None


def answer_outcomes(store: Store, run_id: int) -> list[AnswerOutcome]:
    """Each answer of the run: method, status, tokens, cost, latency, finish reason."""
    return [AnswerOutcome(**r) for r in store._query(
        "SELECT method, budget, status, tokens_in, tokens_out, cost_usd, latency_ms, tokens_counted, "
        "finish_reason FROM answers WHERE run_id = ?", (run_id,))]


CHUNK = 500  # ids bound per query (SQLite's limit on bound parameters)


def answer_texts(store: Store, answer_ids: Iterable[int]) -> Iterator[tuple[int, str | None]]:
    """(id, text) of the answers, looked up by id alone (with the run in the condition SQLite scans the run)."""
    ids = sorted(set(answer_ids))
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        for r in store._query(f"SELECT id, text FROM answers WHERE id IN ({','.join('?' * len(part))})", tuple(part)):
            yield r["id"], r["text"]
