"""People's marks on an answer's claims, as append-only events (table claim_marks), and what they add up to.

Like human grades (human_grades.py): a `set` event records a mark, undo is a new `undo` event, and the current mark of
a claim is the newest `set` no `undo` took back (view current_claim_marks; the events are stored by
core/store/grades.py: ClaimMark, current_marks, undo_last_mark). A mark names its claim by place and text;
it counts only while the answer's claim at that place still has that text (a claim that changed is marked again).

The marks, for a person checking a claim against the evidence the desk shows beside it:

- supported:   what the claim cites supports it (a claim that cites nothing: the evidence supports it);
- miscited:    the evidence supports it, but not what it cites (only for a claim that cites something);
- unsupported: the evidence does not support it;
- not_claim:   not a factual claim (a lead-in, a hedge, "the evidence is insufficient").

What they add up to, per answer and person (`figures`): human faithfulness = (supported + miscited) / factual claims,
the RAGAS/RAGChecker measure the scorers estimate; citation precision = claims supported by a valid citation / factual
claims that cite something. Each is None, with the reason, when it has nothing to count.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.grading.claim_store import load_claims
from gradedesk.core.grading.claims import Claim
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import ClaimMark, add_mark

MARKS = ("supported", "miscited", "unsupported", "not_claim")
MARK_LABELS = {"supported": "supported", "miscited": "supported, not by what it cites", "unsupported": "unsupported",
               "not_claim": "not a factual claim"}
FACTUAL = ("supported", "miscited", "unsupported")


def _check(claim: Claim, mark: str) -> None:
    if mark not in MARKS:
        raise UserError(f"mark: {mark!r} is not one of {', '.join(MARKS)}")
    if mark == "miscited" and not claim.cited:
        raise UserError(f"claim {claim.index} cites nothing, so it cannot be miscited: mark it supported, "
                        "unsupported or not a claim")
    if mark == "supported" and claim.cited and not claim.evidence:
        raise UserError(f"claim {claim.index} cites only what is not in the evidence: mark it miscited if other "
                        "evidence supports it, else unsupported")


def record_mark(store: Store, answer_id: int, grader: str, claim: Claim, mark: str, *,
                scorers_visible: bool = False) -> ClaimMark:
    """Append a `set` event marking `claim` of the answer. One transaction."""
    _check(claim, mark)
    with store.transaction():
        stored = load_claims(store, answer_id) or []
        if claim.index > len(stored) or stored[claim.index - 1].text != claim.text:
            raise UserError(f"answer {answer_id} no longer makes claim {claim.index} as shown: its claims were "
                            "recomputed; open its claims again")
        return add_mark(store, answer_id, grader, claim.index, claim.text, mark, scorers_visible=scorers_visible)


# what the marks add up to ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimFigures:
    claims: int
    marked: int
    supported: int = 0
    miscited: int = 0
    unsupported: int = 0
    not_claims: int = 0
    cited_factual: int = 0  # factual claims that cite something (valid or not)
    supported_by_citation: int = 0  # of those, marked supported (so a valid citation supports them)

    @property
    def complete(self) -> bool:
        """Every claim of the answer has a current mark (an answer without claims is complete)."""
        return self.marked == self.claims

    @property
    def factual(self) -> int:
        return self.supported + self.miscited + self.unsupported

    @property
    def faithfulness(self) -> float | None:
        return (self.supported + self.miscited) / self.factual if self.factual else None

    @property
    def citation_precision(self) -> float | None:
        return self.supported_by_citation / self.cited_factual if self.cited_factual else None

    def why_undefined(self) -> str | None:
        if self.faithfulness is not None:
            return None
        return "the answer makes no claims" if not self.claims else "no claim is marked as a factual claim yet"


def live_marks(claims: list[Claim], marks: dict[int, ClaimMark]) -> dict[int, str]:
    """The marks that still apply: by claim index, for claims whose text is the text that was marked."""
    texts = {c.index: c.text for c in claims}
    return {i: m.mark for i, m in marks.items() if texts.get(i) == m.claim_text}


def figures(claims: list[Claim], marks: dict[int, str]) -> ClaimFigures:
    """What a person's marks (claim index -> mark, as `live_marks` gives) say about an answer's claims."""
    counts = dict.fromkeys(MARKS, 0)
    cited = supported_cited = 0
    for c in claims:
        mark = marks.get(c.index)
        if mark is None:
            continue
        counts[mark] += 1
        if mark in FACTUAL and c.cited:
            cited += 1
            supported_cited += mark == "supported"
    return ClaimFigures(len(claims), sum(counts.values()), counts["supported"], counts["miscited"],
                        counts["unsupported"], counts["not_claim"], cited, supported_cited)
