"""The judge's pairwise verdicts: table pairwise_verdicts (one row a reply of the judge to "which of these two answers is
better", in one order and one repeat; or a failed call).

What it gives: storing a reply in place of an earlier one for the same pair, order and repeat (`replace_reply`), which
replies are already made (`done_replies`: each with the error of a failed call, which the judge decides to ask again
or not), and a run's replies with
where each pair stands (`run_replies`: question, category, budget, whether the question has a gold answer; for the
figures, the desk's routing and the score export; `unflagged=True` leaves out flagged items, as every reader behind
`agree` does). What the replies add up to (consistent or not, stable or not) is core/grading/pairwise_verdicts.py's.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, fields

from gradedesk.core.store.connection import Store, column_list
from gradedesk.core.store.flags import unflagged_sql


@dataclass(frozen=True, slots=True)
class PairwiseReply:
    """One reply of the judge to one pair in one order (first_method: the answer shown as Answer 1) and repeat."""

    question_pk: int
    budget: int
    bundle_answer_id: int
    raw_answer_id: int
    judge_model: str
    rubric_version: str
    first_method: str  # raw | bundle
    repeat_index: int
    winner: str | None  # "1" | "2" | "tie" as replied; None: no usable reply
    preferred: str | None  # raw | bundle | tie: the winner mapped back
    reasoning: str | None
    raw_response: str | None  # None: the call failed
    error: str | None
    created_at: str
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None


_FIELDS = tuple(f.name for f in fields(PairwiseReply))
_KEY = ("bundle_answer_id", "raw_answer_id", "judge_model", "rubric_version", "first_method", "repeat_index")


def replace_reply(store: Store, reply: PairwiseReply) -> None:
    """Store a reply in place of the earlier one for the same pair, judge, rubric, order and repeat (a failed call
    asked again); the caller holds the transaction."""
    store._conn.execute(f"DELETE FROM pairwise_verdicts WHERE {' AND '.join(f'{k} = ?' for k in _KEY)}",
                        tuple(getattr(reply, k) for k in _KEY))
    store._insert("pairwise_verdicts", {"uuid": str(uuid.uuid4()),
                                                 **{k: getattr(reply, k) for k in _FIELDS}})


def done_replies(store: Store, run_id: int, model: str,
                 rubric_version: str) -> dict[tuple[int, int, str, int], str | None]:
    """{(bundle answer id, raw answer id, first method, repeat): None for a reply, the error of a failed call (no
    reply)} of the run's replies by `model` under `rubric_version`."""
    return {(r[0], r[1], r[2], r[3]): None if r[4] is not None else r[5] for r in store._conn.execute(
        "SELECT p.bundle_answer_id, p.raw_answer_id, p.first_method, p.repeat_index, p.raw_response, p.error "
        "FROM pairwise_verdicts p JOIN answers a ON a.id = p.bundle_answer_id WHERE a.run_id = ? "
        "AND p.judge_model = ? AND p.rubric_version = ?", (run_id, model, rubric_version))}


@dataclass(frozen=True, slots=True)
class RunReply:
    """A stored reply with where its pair stands in the run."""

    reply: PairwiseReply
    question_id: str
    benchmark: str
    category: str
    has_gold: bool  # the question has a gold answer now (else its pairs are judged reference-free)


def run_replies(store: Store, run_id: int, model: str | None = None, *, unflagged: bool = False) -> list[RunReply]:
    """The run's pairwise replies (of one judge model when given; of the items nobody flagged, with `unflagged`), by
    pair, order and repeat."""
    n = len(_FIELDS)
    rows = store._conn.execute(
        f"SELECT {column_list('p', _FIELDS)}, q.question_id, q.benchmark, q.category, "
        "q.gold_answer FROM pairwise_verdicts p "
        "JOIN answers a ON a.id = p.bundle_answer_id JOIN questions q ON q.id = p.question_pk WHERE a.run_id = ? "
        + ("AND p.judge_model = ? " if model else "")
        + (f"AND {unflagged_sql('a.run_id', 'p.question_pk')} " if unflagged else "")
        + "ORDER BY q.question_id, p.budget, p.judge_model, p.rubric_version, p.first_method DESC, p.repeat_index",
        (run_id, *([model] if model else [])))
    return [RunReply(PairwiseReply(*r[:n]), r[n], r[n + 1], r[n + 2], bool((r[n + 3] or "").strip())) for r in rows]
