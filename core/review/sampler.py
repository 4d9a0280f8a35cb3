"""The "most useful next item" as a draw with a known probability, so that estimates can undo the preference.

Usefulness is the judge's uncertainty about an item (1 - confidence; 0.5 when the judge gave none) plus a bonus for
items whose confusion-matrix cell few people have graded, and a bonus for questions whose pairwise judge verdict
(raw vs bundled) is inconsistent across orders or unstable across repeats (core/grading/pairwise_verdicts.py). The
draw mixes it with a uniform floor, so every item keeps a probability of at least FLOOR / N: q(i) = FLOOR / N +
(1 - FLOOR) * u(i) / sum(u). Draws are made from the whole run (an item drawn again counts again without being graded
again), which is what makes the inverse-probability weights of core/stats/weighted.py exact.
The run is the desk's view of it: its questions shown with the bundled answer at the
budget the desk shows (RunInfo.bundle_budget), so a draw's probability is within that budget's population, and the
draw records that budget.

A person with assigned items (gradedesk assign) draws from their set instead: N is its size, and each draw also
records pi, the probability that the question was in the set at all (core/store/assignments.py AssignedSet). A draw
then selected the question with probability pi * q(i), and weighing it by 1 / (pi * q(i)) keeps the estimates exact
over the whole run (two-phase sampling: the set is the first phase, the draw the second). The set is of questions,
whatever the budget, so within a budget's population the set is the same first phase and pi stays the same.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from gradedesk.core.grading.pairwise_verdicts import doubtful_questions
from gradedesk.core.store import desk, samples
from gradedesk.core.store.assignments import assigned_set
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunInfo, sample_probability

FLOOR = 0.2  # share of each draw spread evenly over all items
PAIRWISE_DOUBT = 0.5  # added for a question whose pairwise judge verdict is inconsistent or unstable


def draw_probabilities(usefulness: Sequence[float], floor: float = FLOOR) -> list[float]:
    """q(i) for every item: the floor spread evenly plus the rest in proportion to usefulness."""
    n = len(usefulness)
    if n == 0:
        return []
    useful = [max(0.0, float(u)) for u in usefulness]
    total = sum(useful)
    if total <= 0:
        return [1.0 / n] * n
    return [floor / n + (1 - floor) * u / total for u in useful]


def draw(rng: random.Random, probabilities: Sequence[float]) -> int:
    """The index of one item drawn with the given probabilities."""
    return rng.choices(range(len(probabilities)), weights=probabilities, k=1)[0]


def uncertainty(confidence: float | None) -> float:
    """How unsure the judge was: 1 - confidence, 0.5 when it gave no confidence."""
    return 0.5 if confidence is None else min(1.0, max(0.0, 1.0 - float(confidence)))


# -- draws in the store --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Draw:
    question_pk: int
    probability: float
    population: int
    draw_index: int
    inclusion_probability: float = 1.0  # of the question in the set drawn from (the person's assigned set)


def question_usefulness(store: Store, run: RunInfo, judge_rubric: str | None = None,
                        grader: str | None = None) -> tuple[list[int], list[float]]:
    """(question pks, usefulness): per question (of `grader`'s set, when given: their assigned items if they have
    any), its most useful shown answer (judge uncertainty plus a bonus for a confusion-matrix column few people have
    graded; 0.5 for an answer without a machine grade), plus PAIRWISE_DOUBT when the pairwise judge's verdict on the
    question at the budget the desk shows is inconsistent or unstable. `judge_rubric`: the judge's verdicts under
    that rubric version, as the desk shows them, instead of the newest."""
    best: dict[int, float] = {}
    for pk, confidence, judged, column_grades in desk.usefulness_rows(store, run, judge_rubric, grader):
        u = uncertainty(confidence) + (1.0 / (1 + column_grades) if judged else 0.0)
        best[pk] = max(best.get(pk, 0.0), u)
    # a person's preference settles what the judge could not
    for pk in doubtful_questions(store, run.id, run.bundle_budget) & best.keys():
        best[pk] += PAIRWISE_DOUBT
    pks = list(best)
    return pks, [best[pk] for pk in pks]


def draw_next(store: Store, run: RunInfo, grader: str, max_draws: int = 500,
              judge_rubric: str | None = None) -> Draw | None:
    """Draw until a question this grader has not graded comes up; every draw is stored (a graded one counts again).

    Draw k of a grader uses Random(f"{run seed}:{grader}:{k}"), so the sequence is reproducible from the store.
    A grader with assigned items draws from them; each draw is stored with the probability that its question was in
    the set drawn from (the run's sample of the benchmark times the assigned set's). None when
    every question is graded (or `max_draws` draws found only graded ones). `judge_rubric`: usefulness from the
    judge's verdicts under that rubric version (the one the desk shows).
    """
    pks, usefulness = question_usefulness(store, run, judge_rubric, grader)
    if not pks:
        return None
    probabilities = draw_probabilities(usefulness)
    assigned = assigned_set(store, run.id, grader)
    # the question's probability of being in the set drawn from: in the run's sample of the benchmark (run --sample),
    # times in the person's assigned sample of the run (assign --items)
    pi = sample_probability(store, run.id) * (assigned.inclusion_probability if assigned else 1.0)
    with store.transaction():
        index = samples.next_draw_index(store, run.id, grader)
        for k in range(index, index + max_draws):
            i = draw(random.Random(f"{run.order_seed}:{grader}:{k}"), probabilities)
            samples.add_draw(store, run.id, grader, k, pks[i], probabilities[i], len(pks), run.bundle_budget, pi)
            if not desk.question_graded_by(store, run, grader, pks[i]):
                return Draw(pks[i], probabilities[i], len(pks), k, pi)
    return None
