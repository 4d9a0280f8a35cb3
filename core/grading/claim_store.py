"""Claims computed once and kept: table answer_claims, one row an answer (its counts, and its claims as JSON).

`grade-offline` computes them for a whole run (cheap and deterministic, so always recomputed, like the offline
scores); the desk computes an answer's claims the first time it needs them. A row made by another splitter version
is recomputed when read. Summaries read the counts; they never split text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.grading.claims import SPLITTER, Claim, split_claims
from gradedesk.core.grading.retrieval_evals import answers_of_run, method_label
from gradedesk.core.progress import Progress
from gradedesk.core.store.connection import Store, utc_now


def save_claims(store: Store, answer_id: int, claims: list[Claim]) -> None:
    """Replace the stored claims of an answer (one transaction, joining the caller's)."""
    with store.transaction():
        store.db["answer_claims"].upsert({
            "answer_id": answer_id, "splitter": SPLITTER, "claims": len(claims),
            "cited": sum(c.cited for c in claims), "citations": sum(len(c.citations) for c in claims),
            "invalid": sum(c.invalid for c in claims),
            "detail": json.dumps([c.to_dict() for c in claims], ensure_ascii=False), "computed_at": utc_now(),
        }, pk="answer_id")


def load_claims(store: Store, answer_id: int) -> list[Claim] | None:
    """The stored claims of an answer; None when they were never computed or by another splitter version."""
    row = store.query("SELECT splitter, detail FROM answer_claims WHERE answer_id = ?", (answer_id,))
    if not row or row[0]["splitter"] != SPLITTER:
        return None
    return [Claim.from_dict(d) for d in json.loads(row[0]["detail"])]


@dataclass
class AnswerClaims:
    """An answer's claims and the evidence they were resolved against (positions match the citations)."""

    answer_id: int
    claims: list[Claim]
    evidence: list[Evidence]


def claims_of(store: Store, answer: dict) -> AnswerClaims:
    """The claims of an answer row (stored, or computed now and stored) with its evidence."""
    evidence = answer_evidence(store, answer)
    claims = load_claims(store, answer["id"])
    if claims is None:
        claims = split_claims(answer.get("text"), evidence)
        save_claims(store, answer["id"], claims)
    return AnswerClaims(answer["id"], claims, evidence)


def compute_run_claims(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Split and resolve the claims of every answered answer of a run; returns how many answers."""
    answers = answers_of_run(store, run_id)
    with store.transaction():
        for n, a in enumerate(answers, start=1):
            save_claims(store, a["id"], split_claims(a["text"], answer_evidence(store, a)))
            if progress:
                progress("claims", n, len(answers), 0)
    return len(answers)


def claim_counts(store: Store, run_id: int) -> list[dict]:
    """Per answer method (raw, bundle@budget): claims, cited claims, citations and invalid citations of the answered
    answers, how many answers have an invalid citation, and how many have no claims computed yet."""
    rows = store.query(
        "SELECT a.method, a.budget, count(*) AS answers, count(c.answer_id) AS computed, "
        "coalesce(sum(c.claims), 0) AS claims, coalesce(sum(c.cited), 0) AS cited, "
        "coalesce(sum(c.citations), 0) AS citations, coalesce(sum(c.invalid), 0) AS invalid, "
        "coalesce(sum(c.invalid > 0), 0) AS answers_with_invalid "
        "FROM answers a LEFT JOIN answer_claims c ON c.answer_id = a.id AND c.splitter = ? "
        "WHERE a.run_id = ? AND a.status = 'ok' GROUP BY a.method, a.budget ORDER BY a.method DESC, a.budget",
        (SPLITTER, run_id))
    return [{"method": method_label(r["method"], r["budget"]), "answers": r["answers"],
             "not_computed": r["answers"] - r["computed"], "claims": r["claims"], "cited": r["cited"],
             "citations": r["citations"], "invalid_citations": r["invalid"],
             "answers_with_invalid": r["answers_with_invalid"]} for r in rows]
