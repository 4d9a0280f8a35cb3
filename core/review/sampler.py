"""The "most useful next item" as a draw with a known probability, so that estimates can undo the preference.

Usefulness is the judge's uncertainty about an item (1 - confidence; 0.5 when the judge gave none) plus a bonus for
items whose confusion-matrix cell few people have graded. The draw mixes it with a uniform floor, so every item keeps
a probability of at least FLOOR / N: q(i) = FLOOR / N + (1 - FLOOR) * u(i) / sum(u). Draws are made from the whole run
(an item drawn again counts again without being graded again), which is what makes the inverse-probability weights of
core/agreement/weighted.py exact.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

FLOOR = 0.2  # share of each draw spread evenly over all items


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
