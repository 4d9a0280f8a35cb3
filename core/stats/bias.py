"""Bias probes of a judge against people on the same items (the ones the evals lesson names). Pure functions, no store.

- Grade inflation: the judge's pass rate beside the people's on the same items, their difference (judge - people) and
  ratio ("the judge passes 31% more than people do" is a ratio of 1.31), each with a bootstrap interval that
  resamples items, so both rates always come from the same items.
- Verbosity: agreement split by answer length tercile (shortest third, middle, longest), with both pass rates per
  tercile: a judge that favours long answers agrees less, or passes more, in the longest third.
- Self-evaluation (the judge model also wrote the answers) is a fact of the run, warned about where the run is judged.

Every measure is a function of the 2x2 pass/fail matrix (person rows, judge columns) or the q x q grade matrix, so the
intervals come from measures.py like every other figure. The classes (and which one passes) come from the caller:
core/agreement/machine_bias.py gives the grades.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from gradedesk.core.stats.measures import (
    DEFAULT_BOOT, DEFAULT_SEED, NO_ITEMS, Estimate, Measure, collapse_binary, confusion_matrix, estimates,
    summary_measures,
)
from gradedesk.core.stats.records import FLAT, Record

TERCILES = ("shortest third", "middle third", "longest third")


def _share(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (a rate of no items is not defined; the Measure's reason says why)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(den) != 0, np.asarray(num, dtype=float) / np.asarray(den, dtype=float), np.nan)


def _person_rate(cm: np.ndarray) -> np.ndarray:
    return _share(cm[..., 0, :].sum(-1), cm.sum((-2, -1)))


def _judge_rate(cm: np.ndarray) -> np.ndarray:
    return _share(cm[..., :, 0].sum(-1), cm.sum((-2, -1)))


def _empty_or(reason: str) -> Callable[[np.ndarray], str]:
    return lambda cm: NO_ITEMS if cm.sum() == 0 else reason


def inflation_measures() -> list[Measure]:
    """On the 2x2 pass/fail matrix: both pass rates, judge - people, and judge / people."""
    return [
        Measure("person_pass_rate", _person_rate, _empty_or(NO_ITEMS)),
        Measure("judge_pass_rate", _judge_rate, _empty_or(NO_ITEMS)),
        Measure("pass_rate_difference", lambda cm: _judge_rate(cm) - _person_rate(cm), _empty_or(NO_ITEMS)),
        Measure("pass_rate_ratio", lambda cm: _share(_judge_rate(cm), _person_rate(cm)),
                _empty_or("the people passed no item, so the judge's pass rate has nothing to be a multiple of")),
    ]


def inflation_figures(people: Sequence[str], judge: Sequence[str], classes: Sequence[str], positive: int,
                      boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED) -> dict[str, Estimate]:
    """The judge's pass rate against the people's on the same items, with intervals (`positive`: the index in
    `classes` of the passing class)."""
    cm2 = collapse_binary(confusion_matrix(people, judge, classes), positive)
    return estimates(cm2, inflation_measures(), boot, seed)


@dataclass(frozen=True)
class LengthItem:
    length: int  # the answer's length (any unit that orders answers: the callers use words)
    person: str
    judge: str


def terciles(items: Sequence[LengthItem]) -> list[list[LengthItem]]:
    """Items by length into three groups as equal as possible (shortest first); ties keep their input order."""
    ordered = sorted(items, key=lambda i: i.length)
    sizes = [len(ordered) // 3 + (k < len(ordered) % 3) for k in range(3)]
    starts = [0, sizes[0], sizes[0] + sizes[1]]
    return [ordered[start:start + size] for start, size in zip(starts, sizes)]


@dataclass
class Tercile(Record):
    """Agreement and both pass rates on one answer-length tercile."""

    tercile: str
    n: int
    min_length: int | None
    max_length: int | None
    # percent_agreement, cohen_kappa, gwet_ac1, person_pass_rate, judge_pass_rate
    figures: dict[str, Estimate] = field(metadata=FLAT)


def tercile_figures(items: Sequence[LengthItem], classes: Sequence[str], positive: int, boot: int = DEFAULT_BOOT,
                    seed: int = DEFAULT_SEED) -> list[Tercile]:
    """Agreement (percent, kappa, AC1) and both pass rates per answer-length tercile, with intervals."""
    keep = summary_measures()
    rates = [m for m in inflation_measures() if m.name in ("person_pass_rate", "judge_pass_rate")]
    out = []
    for name, part in zip(TERCILES, terciles(items)):
        cm = confusion_matrix([i.person for i in part], [i.judge for i in part], classes)
        cm2 = collapse_binary(cm, positive)
        lengths = [i.length for i in part]
        out.append(Tercile(name, len(part), min(lengths, default=None), max(lengths, default=None),
                           {**estimates(cm, keep, boot, seed), **estimates(cm2, rates, boot, seed)}))
    return out
