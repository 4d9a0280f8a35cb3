"""Two machine graders on the same items against the same people: each one's agreement and the paired difference
(B - A), all with intervals from one paired bootstrap over the items. Pure functions, no store.

The items' (person, A, B) grades are counted in a q x q x q table. Resampling items with replacement is a multinomial
draw from that table (the same draw measures.py makes for one confusion matrix), and each draw gives
both confusion matrices, so A and B are always measured on the same resampled items. The difference's interval thus
reflects how the two graders differ item by item; it is narrower than two independent intervals suggest whenever A
and B are right or wrong on the same items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gradedesk.core.stats.measures import (
    DEFAULT_BOOT, DEFAULT_SEED, Estimate, Measure, collapse_binary, estimate, finish, resample_matrices,
)


@dataclass
class PairedEstimate:
    a: Estimate
    b: Estimate
    difference: Estimate  # b - a


def paired_table(people: Sequence[str], a: Sequence[str], b: Sequence[str], classes: Sequence[str]) -> np.ndarray:
    """Counts of (person, A, B) grade triples: table[p][a][b], classes in the given order."""
    if not len(people) == len(a) == len(b):
        raise ValueError("people, a and b must have the same length")
    index = {c: i for i, c in enumerate(classes)}
    table = np.zeros((len(classes),) * 3, dtype=np.int64)
    for p, x, y in zip(people, a, b):
        table[index[p], index[x], index[y]] += 1
    return table


def _matrices(tables: np.ndarray, positive: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The person-vs-A and person-vs-B confusion matrices of (..., q, q, q) tables, collapsed to pass/fail if asked."""
    cm_a, cm_b = tables.sum(-1), tables.sum(-2)
    if positive is not None:
        cm_a, cm_b = collapse_binary(cm_a, positive), collapse_binary(cm_b, positive)
    return cm_a, cm_b


def paired_grader_estimates(table: np.ndarray, measures: Sequence[Measure], boot: int = DEFAULT_BOOT,
                            seed: int = DEFAULT_SEED, positive: int | None = None,
                            names: tuple[str, str] = ("A", "B")) -> dict[str, PairedEstimate]:
    """Each measure for A and for B, and B - A, on the items of `table` (see paired_table).

    `positive` (the pass class's index) measures on the pass/fail collapse, e.g. for TPR and TNR. The same seed gives
    the same resampled items whatever the measures, so calls for four-level and pass/fail measures agree. `names` name
    A and B in the reason a difference is not defined.
    """
    n = int(table.sum())
    cm_a, cm_b = _matrices(table, positive)
    boot_a = boot_b = None
    if boot:
        boot_a, boot_b = _matrices(resample_matrices(table, boot, seed), positive)
    out: dict[str, PairedEstimate] = {}
    for m in measures:
        ea, eb = estimate(cm_a, m, boot_a), estimate(cm_b, m, boot_b)
        if ea.value is None or eb.value is None:
            if ea.reason == eb.reason:
                reason = ea.reason
            else:
                reason = "; ".join(f"{side}: {e.reason}" for side, e in zip(names, (ea, eb)) if e.value is None)
            diff = Estimate(None, n, reason=reason)
        else:
            values = m.fn(boot_b) - m.fn(boot_a) if boot_a is not None and boot_b is not None and len(boot_a) \
                else np.array([])
            diff = finish(eb.value - ea.value, n, values, "")
        out[m.name] = PairedEstimate(ea, eb, diff)
    return out
