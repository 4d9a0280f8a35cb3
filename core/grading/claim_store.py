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
from gradedesk.core.grading.retrieval_evals import MethodLabel, method_label
from gradedesk.core.progress import Progress
from gradedesk.core.stats.records import Record
from gradedesk.core.store import machine_grades
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import ClaimCounts


def save_claims(store: Store, answer_id: int, claims: list[Claim]) -> None:
    """Replace the stored claims of an answer (one transaction, joining the caller's)."""
    counts = ClaimCounts(len(claims), sum(c.cited for c in claims), sum(len(c.citations) for c in claims),
                         sum(c.invalid for c in claims))
    machine_grades.put_claims(store, answer_id, SPLITTER, counts,
                      json.dumps([c.to_dict() for c in claims], ensure_ascii=False))


def load_claims(store: Store, answer_id: int) -> list[Claim] | None:
    """The stored claims of an answer; None when they were never computed or by another splitter version."""
    row = machine_grades.claims_detail(store, answer_id)
    if row is None or row[0] != SPLITTER:
        return None
    return [Claim.from_dict(d) for d in json.loads(row[1])]


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


@dataclass(frozen=True, slots=True)
class MethodClaimCounts(Record):
    """The claims of one answer method's answered answers (fields in `summary --json` order)."""

    method: str  # raw, bundle@<budget>
    answers: int
    not_computed: int  # answers whose claims are not computed yet
    claims: int
    cited: int
    citations: int
    invalid_citations: int
    answers_with_invalid: int  # answers with at least one invalid citation


def claim_counts(store: Store, run_id: int, label: MethodLabel = method_label) -> list[MethodClaimCounts]:
    """Per answer method (raw, bundle@budget): claims, cited claims, citations and invalid citations of the answered
    answers, how many answers have an invalid citation, and how many have no claims computed yet."""
    return [MethodClaimCounts(label(r.method, r.budget), r.answers, r.answers - r.computed, r.claims, r.cited,
                              r.citations, r.invalid, r.answers_with_invalid)
            for r in machine_grades.claim_counts_by_method(store, run_id, SPLITTER)]
