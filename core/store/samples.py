"""The desk sampler's draws: table sample_draws (each a question drawn for a person with a known probability).

The sampler (core/review/sampler.py) numbers a person's draws (`next_draw_index`) and stores each (`add_draw`);
`sample_draws` gives a run's draws as `SampleDraw` records, the sampled sample that weighted agreement rests on
(core/agreement/samples.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.flags import unflagged_sql


@dataclass(frozen=True, slots=True)
class SampleDraw:
    grader: str
    question_pk: int
    probability: float  # q of this question in this draw
    population: int  # how many questions the draw chose from
    budget: int | None  # the bundled answers' budget of that population (raw beside bundle @ budget)
    inclusion_probability: float = 1.0  # of the question in the set drawn from (a person's assigned set; 1: the run)


def sample_draws(store: Store, run_id: int) -> list[SampleDraw]:
    """The run's draws, per person in draw order; draws of flagged items left out, as from every reader behind
    `agree`."""
    return [SampleDraw(**r) for r in store._query(
        "SELECT grader, question_pk, probability, population, budget, inclusion_probability FROM sample_draws "
        f"WHERE run_id = ? AND {unflagged_sql('run_id', 'question_pk')} ORDER BY grader, draw_index", (run_id,))]


def next_draw_index(store: Store, run_id: int, grader: str) -> int:
    """The index of the grader's next draw in the run (0 for the first)."""
    index: int = store._scalar("SELECT coalesce(max(draw_index) + 1, 0) FROM sample_draws WHERE run_id = ? AND "
                              "grader = ?", (run_id, grader))
    return index


def add_draw(store: Store, run_id: int, grader: str, draw_index: int, question_pk: int, probability: float,
             population: int, budget: int | None, inclusion_probability: float = 1.0) -> None:
    """Store one draw of the sampler from the questions shown with the bundled answer at `budget`
    (`inclusion_probability`: of the question in the set drawn from); the caller holds the transaction."""
    store._insert("sample_draws", {
        "uuid": str(uuid.uuid4()), "run_id": run_id, "grader": grader, "draw_index": draw_index,
        "question_pk": question_pk, "probability": probability, "population": population, "budget": budget,
        "inclusion_probability": inclusion_probability, "created_at": utc_now()})
