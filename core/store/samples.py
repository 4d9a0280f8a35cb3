"""The desk sampler's draws: table sample_draws (each a question drawn for a person with a known probability).

`sample_draws` gives a run's draws as `SampleDraw` records, the sampled sample that weighted agreement rests on
(core/agreement/samples.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class SampleDraw:
    grader: str
    question_pk: int
    probability: float  # q of this question in this draw
    population: int  # how many questions the draw chose from


def sample_draws(store: Store, run_id: int) -> list[SampleDraw]:
    """The run's draws, per person in draw order."""
    return [SampleDraw(**r) for r in store._query(
        "SELECT grader, question_pk, probability, population FROM sample_draws WHERE run_id = ? "
        "ORDER BY grader, draw_index", (run_id,))]
