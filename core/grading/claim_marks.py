"""People's marks on an answer's claims, as append-only events (table claim_marks), and what they add up to.

Like human grades (human_grades.py): a `set` event records a mark, undo is a new `undo` event, and the current mark of
a claim is the newest `set` no `undo` took back (view current_claim_marks). A mark names its claim by place and text;
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

import uuid
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.grading.claim_store import load_claims
from gradedesk.core.grading.claims import Claim
from gradedesk.core.store.connection import Store, utc_now

MARKS = ("supported", "miscited", "unsupported", "not_claim")
MARK_LABELS = {"supported": "supported", "miscited": "supported, not by what it cites", "unsupported": "unsupported",
               "not_claim": "not a factual claim"}
FACTUAL = ("supported", "miscited", "unsupported")


@dataclass(frozen=True)
class ClaimMark:
    id: int
    uuid: str
    answer_id: int
    grader: str
    claim_index: int
    claim_text: str
    mark: str
    scorers_visible: int
    created_at: str


_FIELDS = tuple(ClaimMark.__dataclass_fields__)


def mark_of(row: dict) -> ClaimMark:
    """A claim_marks row (extra columns ignored) as a ClaimMark."""
    return ClaimMark(**{k: row[k] for k in _FIELDS})


def current_marks(store: Store, answer_id: int, grader: str) -> dict[int, ClaimMark]:
    """The grader's current mark of each claim of an answer, by claim index (whatever its text)."""
    rows = store.query("SELECT * FROM current_claim_marks WHERE answer_id = ? AND grader = ? ORDER BY claim_index",
                       (answer_id, grader))
    return {r["claim_index"]: mark_of(r) for r in rows}


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
    row = {"uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader, "claim_index": claim.index,
           "claim_text": claim.text, "action": "set", "mark": mark, "scorers_visible": int(scorers_visible),
           "created_at": utc_now()}
    with store.transaction():
        stored = load_claims(store, answer_id) or []
        if claim.index > len(stored) or stored[claim.index - 1].text != claim.text:
            raise UserError(f"answer {answer_id} no longer makes claim {claim.index} as shown: its claims were "
                            "recomputed; open its claims again")
        store.db["claim_marks"].insert(row)
        rows = store.query("SELECT * FROM claim_marks WHERE uuid = ?", (row["uuid"],))
    return mark_of(rows[0])


def undo_last_mark(store: Store, answer_id: int, grader: str, *, scorers_visible: bool = False) -> ClaimMark | None:
    """Take back the grader's newest live mark on the answer with an `undo` event; return the mark undone.
    `scorers_visible` records whether the machine verdicts were on screen when the person undid it."""
    with store.transaction():
        rows = store.query(
            "SELECT * FROM claim_marks m WHERE m.answer_id = ? AND m.grader = ? AND m.action = 'set' AND NOT EXISTS "
            "(SELECT 1 FROM claim_marks u WHERE u.action = 'undo' AND u.undoes_uuid = m.uuid) ORDER BY m.id DESC "
            "LIMIT 1", (answer_id, grader))
        if not rows:
            return None
        target = rows[0]
        store.db["claim_marks"].insert({
            "uuid": str(uuid.uuid4()), "answer_id": answer_id, "grader": grader,
            "claim_index": target["claim_index"], "claim_text": target["claim_text"], "action": "undo",
            "undoes_uuid": target["uuid"], "scorers_visible": int(scorers_visible), "created_at": utc_now()})
    return mark_of(target)


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
