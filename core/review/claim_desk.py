"""What the desk's claim mode asks of the store, one call per user action, and what the grading panes show of an
answer's claims. No textual here.

`open_claims` loads one answer's claims (computing and storing them the first time), the evidence they were resolved
against, where each claim points the person (claims.focus_lines: the cited lines, or best-matching lines as a
suggestion), the person's live marks, and the machine faithfulness verdicts, which stay hidden until every claim is
marked (blind.scorers_visible). `mark` and `undo` write one event each and return the marks as they now are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.claim_marks import ClaimFigures, figures, live_marks, record_mark
from gradedesk.core.grading.claim_store import claims_of, load_claims
from gradedesk.core.grading.claims import Claim, Focus, LineIndex, focus_lines
from gradedesk.core.store.answers import answer_row
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import ClaimMark, current_marks, scorers_seen, undo_last_mark
from gradedesk.core.store.machine_grades import faithfulness_scores


@dataclass(frozen=True)
class ScorerVerdict:
    """A faithfulness scorer's value for the answer, and its own claim verdicts when it lists them."""

    method: str
    value: float | None
    supported: int | None = None  # of its claims
    claims: int | None = None


@dataclass(frozen=True)
class ClaimState:
    """An answer's claims as the person stands with them: how many, invalid citations, their marks added up."""

    claims: int
    invalid: int
    figures: ClaimFigures
    seen: bool  # the machine faithfulness verdicts were on screen for this person before (kept after an undo)

    @property
    def scorers_due(self) -> bool:
        """The person has marked every claim (or seen the verdicts already): blind first is over."""
        return self.figures.complete or self.seen


@dataclass
class ClaimSheet:
    answer_id: int
    claims: list[Claim]
    evidence: list[Evidence]
    focus: list[Focus]  # per claim, in claim order
    marks: dict[int, str]  # claim index -> live mark
    scorers: list[ScorerVerdict] = field(default_factory=list)
    seen: bool = False

    @property
    def state(self) -> ClaimState:
        return ClaimState(len(self.claims), sum(c.invalid for c in self.claims), figures(self.claims, self.marks),
                          self.seen)


def _scorers(store: Store, answer_id: int) -> list[ScorerVerdict]:
    out = []
    for method, value, raw in faithfulness_scores(store, answer_id):
        detail = json.loads(raw or "{}")
        verdicts = detail.get("claims") if isinstance(detail.get("claims"), list) else None
        supported = sum(bool(v.get("supported")) for v in verdicts if isinstance(v, dict)) if verdicts else None
        out.append(ScorerVerdict(method, value, supported, len(verdicts) if verdicts else None))
    return out


def open_claims(store: Store, answer_id: int, grader: str) -> ClaimSheet:
    """Everything claim mode shows of one answer."""
    got = claims_of(store, answer_row(store, answer_id))
    index = LineIndex(got.evidence)
    return ClaimSheet(answer_id, got.claims, got.evidence, [focus_lines(c, index) for c in got.claims],
                      live_marks(got.claims, current_marks(store, answer_id, grader)), _scorers(store, answer_id),
                      scorers_seen(store, answer_id, grader))


def _live(store: Store, answer_id: int, grader: str, claims: list[Claim]) -> dict[int, str]:
    return live_marks(claims, current_marks(store, answer_id, grader))


def mark(store: Store, answer_id: int, grader: str, claims: list[Claim], claim: Claim, what: str, *,
         scorers_visible: bool) -> dict[int, str]:
    """Record a mark on one claim; the answer's live marks after it."""
    record_mark(store, answer_id, grader, claim, what, scorers_visible=scorers_visible)
    return _live(store, answer_id, grader, claims)


def undo(store: Store, answer_id: int, grader: str, claims: list[Claim], *,
         scorers_visible: bool) -> tuple[ClaimMark | None, dict[int, str]]:
    """Take back the grader's newest mark on the answer: (the mark undone or None, the live marks after)."""
    undone = undo_last_mark(store, answer_id, grader, scorers_visible=scorers_visible)
    return undone, _live(store, answer_id, grader, claims)


def claim_state(store: Store, answer_id: int, grader: str) -> ClaimState | None:
    """What the grading pane shows of an answer's claims; None while they were never computed."""
    claims = load_claims(store, answer_id)
    if claims is None:
        return None
    return ClaimState(len(claims), sum(c.invalid for c in claims),
                      figures(claims, _live(store, answer_id, grader, claims)), scorers_seen(store, answer_id, grader))
