"""On which sample each agreement figure rests, and the figures that stay honest when the desk chose what to grade.

The desk records how a person came to each item (human_grades.selection). Items the sampler drew (sample_draws, with
their probabilities) form the *sampled* sample: its figures are inverse-probability weighted (core/stats/
weighted.py) and so estimate the whole run. A draw selected its question with probability pi * q: pi that the question
was in the set drawn from (a person's assigned set; 1 for the whole run), q its probability in the draw. Its weight is
1 / (pi * q); the Hajek estimates divide by the sum of the weights, so a factor common to all (the run's size) drops
out. Items reached in question order form a sample of the run's first
questions; items reached by a filter or a jump are a *convenience* sample: both are reported apart, unweighted, and
named as what they are, never mixed into the sampled figures. Grades saved before selections were recorded count as
"unrecorded". The pass rates of raw and of the bundled answers at each budget, and the paired difference bundled -
raw (the draws whose person graded both answers, at the primary budget), are prediction-powered (the judge on every
answer, corrected by the sampled human grades). Two biases of the people themselves: position (the side of the
screen, which the desk shuffles) and anchoring (agreement when the judge was shown before the first grade vs blind).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from gradedesk.core.agreement.grade_pairs import Pair
from gradedesk.core.agreement.pass_rates import Arm
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.stats.weighted import (JudgeGain, first_stage_clusters, kish_effective_n, ppi_mean,
                                           weighted_estimates)
from gradedesk.core.store.connection import Store
from gradedesk.core.store.preferences import live_preferences
from gradedesk.core.store.run_records import judge_sample_probability
from gradedesk.core.store.samples import SampleDraw, sample_draws

SAMPLE_NAMES = {
    "question_order": "question order (the run's first questions; not a random sample)",
    "filter": "convenience sample (reached through a filter)",
    "jump": "convenience sample (reached by a jump)",
    "recheck": "recheck sample",
    "imported": "imported grades",
    None: "unrecorded (graded before selections were recorded)",
}
_Q = len(GRADES)
_PASS = GRADES.index(PASS_GRADE)


class Bootstrap(Protocol):
    """The report's bootstrap settings (core/agreement/report.Settings)."""

    boot: int
    seed: int


def _binary_cells(cells: np.ndarray) -> np.ndarray:
    """Four-level cells (row * 4 + col) as pass/fail cells (row * 2 + col), pass first."""
    rows, cols = cells // _Q, cells % _Q
    binary: np.ndarray = (rows != _PASS).astype(np.int64) * 2 + (cols != _PASS).astype(np.int64)
    return binary


def _cell(human: str, machine: str) -> int:
    return GRADES.index(human) * _Q + GRADES.index(machine)


@dataclass
class SampledFigures(Record):
    """The sampled sample: drawn with known probabilities, inverse-probability weighted."""

    sample: str
    draws: int
    graded_draws: int
    pending_draws: int  # drawn, not graded (yet)
    pairs: int
    kish_effective_n: float
    four_level: dict[str, Estimate]
    binary: dict[str, Estimate]


def draw_weight(d: SampleDraw) -> float:
    """A draw's inverse-probability weight, 1 / (pi * q): what every sampled figure (grades, preferences) weighs it by,
    divided by a judge's own inclusion probability where the judge sampled the questions (weighted_draws)."""
    return 1.0 / (d.inclusion_probability * d.probability)


@dataclass(frozen=True)
class DrawnDifference:
    """One draw whose person graded both its raw and its bundled answer (at the primary budget): bundled - raw."""

    question_pk: int
    human: float  # the person's pass (1) or not (0) of the bundled answer minus that of the raw one: -1, 0 or 1
    machine: float  # the same by the compared machine grader
    weight: float
    inclusion_probability: float


@dataclass
class WeightedDraws:
    """The sampled sample, weighted (weighted_draws)."""

    pairs: list[tuple[Pair, float, float]]  # (pair, weight, first-stage inclusion probability)
    differences: list[DrawnDifference]  # the draws' bundled - raw at the primary budget, where the person graded both
    draws: int
    pending: int  # drawn, not graded (yet)


def _difference(members: list[tuple[Pair, float, float]], primary: int | None) -> DrawnDifference | None:
    """The draw's bundled - raw pass (the bundled answer at the primary budget), when its person graded both;
    `members`: the draw's (pair, weight, inclusion probability)."""
    raw = [m for m in members if m[0].method == "raw"]
    bundled = [m for m in members if m[0].method == "bundle" and m[0].budget == primary]
    if not raw or not bundled:
        return None
    r, (b, weight, pi) = raw[0][0], bundled[0]
    return DrawnDifference(b.question_pk, float(b.human == PASS_GRADE) - float(r.human == PASS_GRADE),
                           float(b.machine == PASS_GRADE) - float(r.machine == PASS_GRADE), weight, pi)


def weighted_draws(store: Store, run_id: int, pairs: list[Pair], primary: int | None = None) -> WeightedDraws:
    """The sampled sample's pairs with their weights and first-stage inclusion probabilities, and the draws'
    bundled - raw differences at the `primary` budget.

    A pair's question reached it through every stage that sampled it: the desk's draw (probability q, within the
    set drawn from, whose inclusion probability the draw recorded: `run --sample`, `assign --items`) and, for a judge's
    grade, the judge's own sample of the run's questions (`judge --sample`; 1 when it was asked about all of
    them). The stages are independent, so the probabilities multiply, and the weight is their inverse."""
    draws = sample_draws(store, run_id)
    by_question = defaultdict(list)
    for p in pairs:
        by_question[(p.grader, p.question_pk)].append(p)
    judges = {p.machine_model for p in pairs if p.machine_kind == "judge" and p.machine_model}
    judge_pi = {m: judge_sample_probability(store, run_id, "judge", m) for m in judges}
    out = WeightedDraws([], [], len(draws), 0)
    for d in draws:
        # the draw's population: raw beside the bundled answers at its budget (a raw grade is the raw answer's own)
        members = [p for p in by_question.get((d.grader, d.question_pk), ())
                   if p.method == "raw" or d.budget is None or p.budget == d.budget]
        if not members:
            out.pending += 1  # drawn, not graded (yet): left out, and counted
            continue
        mine = []
        for p in members:
            judged = judge_pi.get(p.machine_model, 1.0) if p.machine_kind == "judge" and p.machine_model else 1.0
            mine.append((p, draw_weight(d) / judged, d.inclusion_probability * judged))
        out.pairs.extend(mine)
        if d.budget in (None, primary):
            difference = _difference(mine, primary)
            if difference is not None:
                out.differences.append(difference)
    return out


def _clusters(weighted: list[tuple[Pair, float, float]]) -> np.ndarray | None:
    """The bootstrap's clusters of (pair, weight, inclusion probability) draws: first_stage_clusters by question."""
    return first_stage_clusters([p.question_pk for p, _, _ in weighted], [pi for _, _, pi in weighted])


def _sampled(store: Store, run_id: int, pairs: list[Pair], s: Bootstrap,
             primary: int | None) -> tuple[SampledFigures, list[tuple[Pair, float, float]], list[DrawnDifference]]:
    """The sampled sample's weighted figures, its (pair, weight, the draw's first-stage inclusion probability) list
    for the pass rates, and the draws' bundled - raw differences."""
    drawn = weighted_draws(store, run_id, pairs, primary)
    weighted = drawn.pairs
    cells = np.array([_cell(p.human, p.machine) for p, _, _ in weighted], dtype=np.int64)
    weights = np.array([w for _, w, _ in weighted], dtype=float)
    # drawn from an assigned set: a question's draws (every person's, every answer's) are resampled together
    clusters = _clusters(weighted)
    four = weighted_estimates(cells, weights, _Q, agree.pair_measures(), s.boot, s.seed, clusters)
    two = weighted_estimates(_binary_cells(cells), weights, 2, agree.pair_measures() + agree.binary_rates(), s.boot,
                             s.seed, clusters)
    return SampledFigures(
        "sampled (drawn with known probabilities; inverse-probability weighted, Hajek)", drawn.draws,
        drawn.draws - drawn.pending, drawn.pending, len(weighted), round(kish_effective_n(weights), 1) if weights.size else 0,
        four, two), weighted, drawn.differences


@dataclass
class ApartSample(Record):
    """A sample other than the sampled one, unweighted and named."""

    selection: str | None  # human_grades.selection; None: not recorded
    sample: str
    pairs: int
    estimates: dict[str, Estimate] = field(metadata=FLAT)


def _apart(pairs: list[Pair], s: Bootstrap) -> list[ApartSample]:
    """The other samples, each unweighted and named."""
    groups = defaultdict(list)
    for p in pairs:
        if p.selection != "sampled":
            groups[p.selection].append(p)
    out = []
    for selection in sorted(groups, key=lambda k: (k is None, k or "")):
        members = groups[selection]
        cm = agree.confusion_matrix([p.human for p in members], [p.machine for p in members], GRADES)
        out.append(ApartSample(selection, SAMPLE_NAMES.get(selection, selection or ""), len(members),
                               agree.estimates(cm, agree.summary_measures(), s.boot, s.seed)))
    return out


@dataclass
class PpiPassRate(Record):
    """A prediction-powered pass rate (raw; bundled at one budget), or the paired difference bundled - raw: the
    machine grader on every shown answer, corrected by the sampled human grades."""

    method: str  # raw, bundle, or "bundle - raw"
    budget: int | None  # the bundled answers' budget (None: raw, whichever budget it was shown beside)
    judged: int  # answers the machine grader graded (the difference: questions it graded both answers of)
    human_sampled: int  # human-graded draws that correct it
    ppi: Estimate  # power-tuned (PPI++)
    judge_bought: JudgeGain | None  # lambda, people's grades alone, what the judge is worth (None: no estimate)


NOT_SAMPLED = "no sampled human grade of this method: grade in 'most useful' (sampled) order"
DIFFERENCE = "bundle - raw"


def _ppi_pass_rate(method: str, budget: int | None, judge_all: list[float], sample: list[tuple[Pair, float, float]],
                   s: Bootstrap) -> PpiPassRate:
    est, gain = ppi_mean(judge_all, [p.human == PASS_GRADE for p, _, _ in sample],
                         [p.machine == PASS_GRADE for p, _, _ in sample], [w for _, w, _ in sample], s.boot, s.seed,
                         _clusters(sample))
    if est.value is None and judge_all and not sample:
        est.reason = NOT_SAMPLED
    return PpiPassRate(method, budget, len(judge_all), len(sample), est, gain)


def _pass_rates(weighted: list[tuple[Pair, float, float]], arms: list[Arm], s: Bootstrap) -> list[PpiPassRate]:
    """Prediction-powered pass rate of raw and of the bundled answers at each budget. `arms`: per method and budget,
    how many shown answers the compared machine grader graded and passed (the grader of the pairs' `machine`); a raw
    answer's grade is its own, whichever budget it was shown beside."""
    raw = [a for a in arms if a.method == "raw"]
    rows: list[tuple[int | None, int, int, str]] = [(None, sum(a.judged for a in raw), sum(a.passed for a in raw),
                                                     "raw")]
    rows += [(a.budget, a.judged, a.passed, "bundle") for a in arms if a.method == "bundle" and a.judged]
    return [_ppi_pass_rate(method, budget, [1.0] * passed + [0.0] * (judged - passed),
                           [d for d in weighted if d[0].method == method and (method == "raw" or d[0].budget == budget)],
                           s) for budget, judged, passed, method in rows]


def _bundle_minus_raw(differences: list[DrawnDifference], paired: np.ndarray, primary: int | None,
                      s: Bootstrap) -> PpiPassRate:
    """Bundled - raw pass rate on the same questions (the bundled answer at the primary budget), prediction-powered:
    the machine grader's difference on every question it graded both answers of (`paired`, as scan_answers counts
    it), corrected by the sampled draws whose person graded both. Values lie in -1..1."""
    judge_all = [1.0] * int(paired[1, 0]) + [-1.0] * int(paired[0, 1]) + [0.0] * int(paired[0, 0] + paired[1, 1])
    est, gain = ppi_mean(judge_all, [d.human for d in differences], [d.machine for d in differences],
                         [d.weight for d in differences], s.boot, s.seed,
                         first_stage_clusters([d.question_pk for d in differences],
                                              [d.inclusion_probability for d in differences]), span=(-1.0, 1.0))
    if est.value is None and judge_all and not differences:
        est.reason = ("no sampled question with a person's grade of both answers: grade raw and the bundle of the "
                      "questions drawn in 'most useful' order")
    return PpiPassRate(DIFFERENCE, primary, len(judge_all), len(differences), est, gain)


@dataclass
class PositionBias(Record):
    preferred_left: Estimate  # share of preferences for the left answer (fair: 0.5)
    preferences: int


def _position_bias(store: Store, run_id: int, s: Bootstrap) -> PositionBias:
    """Preferences for the left answer (the desk shuffles sides, so about half would be fair)."""
    rows = [p for p in live_preferences(store, run_id, unflagged=True) if p.preferred != "tie"]
    left = sum(p.preferred == p.left_method for p in rows)
    return PositionBias(agree.proportion(left, len(rows), "no preference between two answers yet", s.boot, s.seed),
                        len(rows))


@dataclass
class Anchoring(Record):
    """Agreement with the judge when it was in view before the person's grade (open) vs blind, and the difference."""

    open: Estimate
    blind: Estimate
    difference: Estimate


def _anchoring(pairs: list[Pair], s: Bootstrap) -> Anchoring:
    """Agreement when the judge was in view before the person's grade (mode open) vs blind, and the difference."""
    groups = {mode: [p.human == p.machine for p in pairs if p.mode == mode] for mode in ("open", "blind")}
    shares = {mode: agree.proportion(sum(v), len(v), f"no {mode} grade", s.boot, s.seed) for mode, v in groups.items()}
    if groups["open"] and groups["blind"]:
        rng = np.random.default_rng(s.seed)
        o, b = np.array(groups["open"], dtype=float), np.array(groups["blind"], dtype=float)
        boot = (rng.choice(o, (s.boot, o.size)).mean(1) - rng.choice(b, (s.boot, b.size)).mean(1))
        difference = agree.finish(float(o.mean() - b.mean()), int(o.size + b.size), boot, "")
    else:
        difference = agree.Estimate(None, 0, reason="needs both revealed and blind grades")
    return Anchoring(shares["open"], shares["blind"], difference)


@dataclass
class SampleReport(Record):
    """The samples section of `agree`: on which sample each figure rests."""

    headline_sample: str
    sampled: SampledFigures
    apart: list[ApartSample]
    pass_rates: list[PpiPassRate]  # raw, then bundled per budget
    bundle_minus_raw: PpiPassRate | None  # paired, at the primary budget (None: no machine grader)
    position_bias: PositionBias
    anchoring: Anchoring


def sample_report(store: Store, run_id: int, pairs: list[Pair], judged: tuple[list[Arm], np.ndarray] | None,
                  s: Bootstrap, primary: int | None = None) -> SampleReport:
    """The samples section of `agree`. `pairs` compare each person with one machine grader; `judged`: that same
    grader's grades and passes on every shown answer per method and budget, and its paired raw-vs-bundled table at
    the `primary` budget (pass_rates.scan_answers; None: no machine grader, no pass rates)."""
    sampled, weighted, differences = _sampled(store, run_id, pairs, s, primary)
    rates = _ppi(weighted, differences, judged, s, primary)
    return SampleReport("all graded items, unweighted (see sampled and apart for the samples they mix)", sampled,
                        _apart(pairs, s), rates[:-1], rates[-1] if rates else None,
                        _position_bias(store, run_id, s), _anchoring(pairs, s))


def ppi_pass_rates(store: Store, run_id: int, pairs: list[Pair], judged: tuple[list[Arm], np.ndarray], s: Bootstrap,
                   primary: int | None = None) -> list[PpiPassRate]:
    """The prediction-powered pass rates of sample_report alone: raw, bundled per budget, then bundle - raw."""
    _, weighted, differences = _sampled(store, run_id, pairs, s, primary)
    return _ppi(weighted, differences, judged, s, primary)


def _ppi(weighted: list[tuple[Pair, float, float]], differences: list[DrawnDifference],
         judged: tuple[list[Arm], np.ndarray] | None, s: Bootstrap, primary: int | None) -> list[PpiPassRate]:
    """Raw, bundled per budget, then bundle - raw (empty: no machine grader)."""
    if judged is None:
        return []
    return [*_pass_rates(weighted, judged[0], s), _bundle_minus_raw(differences, judged[1], primary, s)]
