"""What the pairwise judge's stored replies add up to, per pair of answers (a question's raw and bundled answer at one
budget, for one judge model and pairwise rubric version).

Each order (raw shown first, bundle shown first) gives its verdict: the answer (raw, bundle or tie) that a strict
majority of its usable replies names once mapped back (with one repeat, the one reply). The pair's verdict counts only
when both orders have one and they agree (status "consistent"); when they differ the pair is "inconsistent" (the
judge followed the position, not the content) and has no verdict; when an order has no majority or no usable reply it
is "undecided". Stability (with repeats) is how often the judge says the same thing again: per order, the share of its
usable repeats that give that order's most common answer, averaged over the two orders (None: no order has two usable
repeats). A reply that could not be used is an error, never a verdict.

Whose verdicts count (`PairJudge`): one judge model, and for each pair the rubric its question calls for now: the
rubric of the pairs with a gold answer, or, for a question without one (a run read from traces), the reference-free
rubric it was judged under. So each pair counts once, under one rubric, and a pair judged reference-free is never
read as if judged against a gold answer (a question given a gold answer later waits for a verdict under the rubric
with gold). By default the figures read the newest judge: the newest reply's model, with its newest rubric of each
kind.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from gradedesk.core.grading.pairwise_judge import ORDERS
from gradedesk.core.store.connection import Store
from gradedesk.core.store.pairwise import PairwiseReply, RunReply, run_replies

CONSISTENT, INCONSISTENT, UNDECIDED = "consistent", "inconsistent", "undecided"


@dataclass(frozen=True)
class PairVerdict:
    question_pk: int
    question_id: str
    benchmark: str
    category: str
    budget: int
    raw_answer_id: int
    bundle_answer_id: int
    judge_model: str
    rubric_version: str
    by_order: dict[str, str | None]  # first method -> that order's verdict (raw | bundle | tie), None: none
    status: str  # consistent | inconsistent | undecided
    stability: float | None
    replies: tuple[PairwiseReply, ...]
    reference_free: bool = False  # the question has no gold answer: judged under the reference-free rubric

    @property
    def verdict(self) -> str | None:
        """raw | bundle | tie when both orders agree; None otherwise."""
        return self.by_order["raw"] if self.status == CONSISTENT else None

    @property
    def doubtful(self) -> bool:
        """Worth a person's look: the judge contradicted itself across orders or repeats."""
        return self.status == INCONSISTENT or (self.stability is not None and self.stability < 1)


def _order_verdict(answers: list[str]) -> str | None:
    """The strict-majority answer among an order's usable replies, or None."""
    if not answers:
        return None
    top, n = Counter(answers).most_common(1)[0]
    return top if 2 * n > len(answers) else None


def _stability(groups: dict[str, list[str]]) -> float | None:
    shares = [Counter(a).most_common(1)[0][1] / len(a) for a in groups.values() if len(a) >= 2]
    return sum(shares) / len(shares) if shares else None


def verdicts_of(replies: list[RunReply]) -> list[PairVerdict]:
    """Each pair's verdict from its stored replies (grouped by pair, judge model and rubric version)."""
    groups: dict[tuple[int, int, str, str], list[RunReply]] = defaultdict(list)
    for r in replies:
        p = r.reply
        groups[(p.bundle_answer_id, p.raw_answer_id, p.judge_model, p.rubric_version)].append(r)
    out = []
    for members in groups.values():
        first, p = members[0], members[0].reply
        answers: dict[str, list[str]] = {order: [m.reply.preferred for m in members if m.reply.first_method == order
                           and m.reply.preferred is not None] for order in ORDERS}
        by_order = {order: _order_verdict(a) for order, a in answers.items()}
        a, b = by_order["raw"], by_order["bundle"]
        status = UNDECIDED if a is None or b is None else CONSISTENT if a == b else INCONSISTENT
        out.append(PairVerdict(p.question_pk, first.question_id, first.benchmark, first.category, p.budget,
                               p.raw_answer_id, p.bundle_answer_id, p.judge_model, p.rubric_version,
                               by_order, status, _stability(answers),
                               tuple(m.reply for m in members), not first.has_gold))
    return out


@dataclass(frozen=True)
class PairJudge:
    """Whose pairwise verdicts a figure reads: a judge model, the rubric of the pairs with a gold answer and the
    reference-free rubric of the pairs without one (None: no such rubric)."""

    model: str
    rubric_version: str | None
    reference_free_version: str | None = None

    def reads(self, r: RunReply) -> bool:
        """The reply is this judge's, under the rubric its question calls for now."""
        return r.reply.judge_model == self.model and r.reply.rubric_version == (
            self.rubric_version if r.has_gold else self.reference_free_version)


def newest_judge(replies: list[RunReply]) -> PairJudge | None:
    """The judge of the newest pairwise reply, with its newest rubric for pairs with a gold answer and its newest
    for pairs without: whose verdicts the figures use."""
    if not replies:
        return None
    model = max(replies, key=lambda r: r.reply.created_at).reply.judge_model

    def newest(gold: bool) -> str | None:
        mine = [r for r in replies if r.reply.judge_model == model and r.has_gold == gold]
        return max(mine, key=lambda r: r.reply.created_at).reply.rubric_version if mine else None

    return PairJudge(model, newest(True), newest(False))


def pair_verdicts(store: Store, run_id: int, judge: PairJudge | None = None, *,
                  unflagged: bool = False) -> list[PairVerdict]:
    """The run's pair verdicts by one judge (default: the newest pairwise judge's; of the items nobody flagged, with
    `unflagged`: `agree`)."""
    replies = run_replies(store, run_id, judge.model if judge else None, unflagged=unflagged)
    chosen = judge or newest_judge(replies)
    if chosen is None:
        return []
    return verdicts_of([r for r in replies if chosen.reads(r)])


def doubtful_questions(store: Store, run_id: int, budget: int) -> set[int]:
    """Question pks whose pairwise verdict (newest judge) at `budget` is inconsistent or unstable."""
    return {v.question_pk for v in pair_verdicts(store, run_id) if v.doubtful and v.budget == budget}
