"""Bias probes of a machine grader against the people on the same items, in the grades' terms: grade inflation
(pass rates side by side) and verbosity (agreement per answer-length tercile, lengths in words from the store). The
statistics are core/stats/bias.py's; here the grades (best first, fully_correct passes) and the answers' lengths.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.stats.bias import LengthItem, Tercile, inflation_figures, tercile_figures
from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.answers import answer_texts

LENGTH_UNIT = "words"
_PASS = GRADES.index(PASS_GRADE)


def grade_inflation(people: Sequence[str], judge: Sequence[str], boot: int = DEFAULT_BOOT,
                    seed: int = DEFAULT_SEED) -> dict[str, Estimate]:
    """The judge's pass rate against the people's on the same items (grades in GRADES), with intervals."""
    return inflation_figures(people, judge, GRADES, _PASS, boot, seed)


def verbosity(items: Sequence[LengthItem], boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED) -> list[Tercile]:
    """Agreement (percent, kappa, AC1) and both pass rates per answer-length tercile, with intervals."""
    return tercile_figures(items, GRADES, _PASS, boot, seed)


def answer_lengths(store: Store, answer_ids: Iterable[int]) -> dict[int, int]:
    """Each answer's length in words (whitespace-separated). Words, not tokens: a length only orders answers into
    terciles, and counting needs no tokenizer (loading one costs the desk's agreement screen a second)."""
    return {answer_id: len((text or "").split()) for answer_id, text in answer_texts(store, answer_ids)}


@dataclass
class MachineBias(Record):
    grade_inflation: dict[str, Estimate]
    verbosity: list[Tercile]
    length_unit: str


def machine_bias(store: Store, pairs: list[tuple[int, str, str]], boot: int = DEFAULT_BOOT,
                 seed: int = DEFAULT_SEED) -> MachineBias:
    """Grade inflation and verbosity of a machine grader on (answer_id, person grade, machine grade) pairs."""
    lengths = answer_lengths(store, (a for a, _, _ in pairs))
    return MachineBias(grade_inflation([p for _, p, _ in pairs], [m for _, _, m in pairs], boot, seed),
                       verbosity([LengthItem(lengths.get(a, 0), p, m) for a, p, m in pairs], boot, seed),
                       LENGTH_UNIT)
