"""Estimates that stay honest when the desk chooses what people grade.

The desk's sampler draws the next item from the whole run with a known probability (core/review/sampler.py): draw m
picks item i with probability q_m(i), and an item drawn again is not graded again, its grade simply counts again. Each
draw is then an unbiased look at the whole run once weighted by 1 / q_m(i) (importance sampling), whatever the sampler
preferred. Every agreement measure of measures.py is a function of the confusion matrix's cell
shares, so the Hajek estimate of a measure is that measure on the weighted matrix (sum of the draws' weights per cell).
Intervals resample the draws with their weights (a seeded percentile bootstrap), so they widen as the weights grow
uneven; the Kish effective sample size says how many simple random draws the sample is worth. When a first stage
chose the items drawn from (an assigned set, inclusion probability pi < 1; `assign --items` samples the run), the
draws are resampled by item, all of an item's draws together: draws meet on the same item more often than the run's
size explains, and resampling those clusters carries the first stage's variance into the interval (without it a
sampled assignment's intervals cover ~91.5%). The cluster bootstrap leaves out the finite-population correction,
erring a little wide when the sample is a large share of the run.

Prediction-powered pass rates and win rates (Angelopoulos et al., Science 2023): the judge grades every answer; the
human-graded sample measures how far the judge's pass/fail is off (the rectifier, human minus judge, weighted as
above). The pass rate is the judge's rate on all answers plus the rectifier, and its interval resamples both, the
rectifier's draws exactly as the weighted figures resample theirs (one definition: resampled_clusters, by item after a
first stage; a sampled assignment's win rates covered ~89.5% draw by draw). The judge's share is power-tuned (PPI++,
Angelopoulos, Duchi and Zrnic 2023: `power_tuning`): lambda * the judge's rate + the weighted mean of (human - lambda
* judge), lambda chosen from the data and clipped to [0, 1], so a poor judge is given little weight and the interval
is never much wider than people's grades alone (lambda 0) would give. What the judge bought (`JudgeGain`): with n
people's grades and interval widths w_people (lambda 0, the same replicates) and w_judge, the judge is worth
n (w_people / w_judge)^2 - n more graded items. benchmarks/estimator_coverage.py measures every estimate's coverage.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gradedesk.core.errors import UserError
from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, Measure, finish, resample_means
from gradedesk.core.stats.records import Record

NO_DRAWS = "no sampled item graded by both"


def kish_effective_n(weights: np.ndarray) -> float:
    """How many equally weighted draws these weights are worth: (sum w)^2 / sum w^2."""
    weights = np.asarray(weights, dtype=float)
    return float(weights.sum() ** 2 / (weights ** 2).sum()) if weights.size else 0.0


def weighted_matrix(cells: np.ndarray, weights: np.ndarray, q: int) -> np.ndarray:
    """q x q matrix of summed weights; cells[i] = row * q + col of draw i."""
    return np.bincount(np.asarray(cells, dtype=np.int64), weights=np.asarray(weights, dtype=float),
                       minlength=q * q).reshape(q, q)


def first_stage_clusters(items: Sequence[int], inclusion_probabilities: Sequence[float]) -> np.ndarray | None:
    """The draws' clusters for the bootstrap: their items when a first stage sampled the items drawn from (some
    inclusion probability below 1, `assign --items`), else None (every draw on its own)."""
    return np.asarray(items) if any(p < 1 for p in inclusion_probabilities) else None


def resampled_clusters(clusters: np.ndarray, boot: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The clusters (first_stage_clusters) resampled with replacement, `boot` times: (each draw's cluster as 0..k-1,
    a boot x k matrix of how often each replicate took each cluster). A replicate's sum of any per-draw figure is
    `taken @ (that figure summed per cluster)`: every draw of a cluster goes with it."""
    _, ids = np.unique(clusters, return_inverse=True)
    k = int(ids.max()) + 1
    idx = rng.integers(0, k, size=(boot, k))
    # counts as floats: every use multiplies them by weighted sums
    taken = np.bincount((np.arange(boot)[:, None] * k + idx).ravel(), minlength=boot * k).astype(float)
    return ids, taken.reshape(boot, k)


def _resampled_matrices(cells: np.ndarray, weights: np.ndarray, q: int, boot: int, seed: int,
                        clusters: np.ndarray | None) -> np.ndarray:
    """B weighted matrices, each from the clusters resampled with replacement, each with all its draws (weights travel
    with their draws); `clusters` None: every draw its own cluster."""
    rng = np.random.default_rng(seed)
    ids, taken = resampled_clusters(_each_draw_alone(len(cells)) if clusters is None else clusters, boot, rng)
    k = taken.shape[1]
    # each cluster's weighted matrix, times how often each replicate took the cluster
    per_cluster = np.bincount(ids * q * q + cells, weights=weights, minlength=k * q * q).reshape(k, q * q)
    matrices: np.ndarray = (taken @ per_cluster).reshape(boot, q, q)
    return matrices


def _each_draw_alone(n: int) -> np.ndarray:
    """Clusters of one draw each: resampled_clusters of these is the plain bootstrap of the draws."""
    return np.arange(n)


def weighted_estimates(cells: Sequence[int] | np.ndarray, weights: Sequence[float] | np.ndarray, q: int,
                       measures: Sequence[Measure], boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
                       clusters: Sequence[int] | np.ndarray | None = None) -> dict[str, Estimate]:
    """Each measure on the Hajek-weighted matrix of the draws, with a weighted bootstrap interval. `clusters`
    (first_stage_clusters): draws that go together when resampled; None: each draw on its own."""
    cells_a, weights_a = np.asarray(cells, dtype=np.int64), np.asarray(weights, dtype=float)
    if cells_a.size == 0:
        return {m.name: Estimate(None, 0, reason=NO_DRAWS) for m in measures}
    cm = weighted_matrix(cells_a, weights_a, q)
    boot_cms = (_resampled_matrices(cells_a, weights_a, q, boot, seed, None if clusters is None else
                                    np.asarray(clusters)) if boot else np.zeros((0, q, q)))
    out = {}
    for m in measures:
        value = float(m.fn(cm))
        boot_values = m.fn(boot_cms) if len(boot_cms) else np.array([])
        out[m.name] = finish(value, int(cells_a.size), boot_values, m.why(cm) if math.isnan(value) else "")
    return out


NOTHING_ADDED = 0.1  # lambda below this: the judge added nothing to the figure
NEAR_ZERO = 0.1  # worth fewer graded items than this share of those made: only more people's grades narrow it


def power_tuning(judge_all: np.ndarray, human: np.ndarray, judge: np.ndarray, u: np.ndarray,
                 ids: np.ndarray) -> float:
    """PPI++'s lambda (Angelopoulos, Duchi and Zrnic 2023): the weight on the judge that makes the estimate's variance
    least, clipped to [0, 1] (0: people alone; 1: plain PPI).

    ppi-python's formula for a mean, cov(Y, f) / ((1 + n/N) var(f)) (the covariance over the n draws, the variance of
    the judge's values pooled over the draws and the N judged items), with the design carried into both moments: the
    covariance is that of the draws' weighted means under the bootstrap's resampling (per-cluster sums of
    u * deviation, u the weights scaled to mean 1), and the judge's variance on the draws is multiplied by the same
    design's effect on it. With equal weights and every draw its own cluster both reduce to ppi-python's value.
    """
    n, big_n = human.size, judge_all.size
    y_bar, f_bar = (u * human).sum() / n, (u * judge).sum() / n
    k = int(ids.max()) + 1
    a = np.bincount(ids, weights=u * (human - y_bar), minlength=k)
    b = np.bincount(ids, weights=u * (judge - f_bar), minlength=k)
    plain = judge.var()
    pooled = np.concatenate([judge, judge_all]).var(ddof=1)
    if plain <= 0 or pooled <= 0:
        return 0.0  # the judge gave one value to every draw: nothing to learn from it
    design_effect = float((b * b).sum() / n / plain)
    lam = float((a * b).sum() / n / ((design_effect + n / big_n) * pooled))
    return min(max(lam, 0.0), 1.0)


@dataclass
class JudgeGain(Record):
    """What the judge bought one prediction-powered figure: its weight and the graded items it is worth."""

    lam: float  # PPI++'s weight on the judge, clipped to [0, 1] (0: people alone; 1: plain PPI)
    people_alone: Estimate  # the same draws without the judge (the weighted mean of people's values)
    worth_more: int | None  # n (w_people / w_judge)^2 - n: people's grades the judge is worth; None: no width
    line: str  # the above as one sentence, with the items still needed for +/-0.05


def _gain_line(lam: float, worth: int | None, n: int, more: int | None) -> str:
    """One sentence: what the judge bought (from lambda and the widths), then the graded items still needed."""
    if lam < NOTHING_ADDED:
        bought = "the machine grades added nothing here: only more people's grades narrow it"
    elif worth is None:
        bought = "no interval width to compare yet"
    elif worth < NEAR_ZERO * n:
        bought = f"the machine grades are worth {worth} more graded items: only more people's grades narrow it"
    else:
        bought = f"the machine grades are worth {worth} more graded items"
    needed = ("" if more is None else "; already +/-0.05" if more == 0 else f"; {more} more for +/-0.05")
    return bought + needed


def ppi_mean(judge_all: Sequence[float], human: Sequence[float], judge_on_sample: Sequence[float],
             weights: Sequence[float] | None = None, boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
             clusters: Sequence[int] | np.ndarray | None = None,
             lam: float | None = None) -> tuple[Estimate, JudgeGain | None]:
    """(mean, what the judge bought): the judge's mean on all items, corrected by the human sample, power-tuned
    (PPI++): lambda * judge's mean + the weighted mean of (human - lambda * judge) on the draws. Values lie in 0..1: a
    pass (1) or fail (0), or a preference (1 bundled, 0.5 tie, 0 raw).

    judge_all: the judge's value on every item of one kind; human and judge_on_sample: the person's and the judge's
    values on the human-labelled draws (weights: 1/(pi q) of each draw; None = a simple random sample). `lam`: the
    judge's weight (None: power_tuning's; 1: plain PPI; 0: people alone). The judge's mean is resampled exactly and
    cheaply (a multinomial over its distinct values), so a million judged items cost nothing. The draws are resampled
    as weighted_estimates resamples them: by `clusters` (first_stage_clusters), each with all its draws, or (None)
    each draw on its own. Lambda is held fixed across the replicates, as ppi-python's intervals hold it.
    The people-alone interval comes from the same replicates (lambda 0), so the two widths compare like with like.
    """
    j_all = np.asarray(judge_all, dtype=float)
    h, j = np.asarray(human, dtype=float), np.asarray(judge_on_sample, dtype=float)
    w = np.ones_like(h) if weights is None else np.asarray(weights, dtype=float)
    if j_all.size == 0:
        return Estimate(None, 0, reason="no answer of this kind has a machine grade"), None
    if h.size == 0:
        return Estimate(None, 0, reason="no answer of this kind has both a person's grade and a machine grade"), None
    n = h.size
    u = w * n / w.sum()
    rng = np.random.default_rng(seed)
    b_all = resample_means(j_all, boot, rng)
    ids, taken = resampled_clusters(_each_draw_alone(n) if clusters is None else np.asarray(clusters), boot, rng)
    if lam is None:
        lam = power_tuning(j_all, h, j, u, ids)
    k = taken.shape[1]
    b_u, b_h, b_j = (taken @ np.bincount(ids, weights=u * x, minlength=k) for x in (np.ones(n), h, j))
    value = float(lam * j_all.mean() + (u * (h - lam * j)).sum() / n)
    est = finish(min(max(value, 0.0), 1.0), n, np.clip(lam * b_all + (b_h - lam * b_j) / b_u, 0.0, 1.0), "")
    people = finish(float((u * h).sum() / n), n, b_h / b_u, "")
    return est, _judge_gain(lam, people, est)


def _judge_gain(lam: float, people: Estimate, with_judge: Estimate) -> JudgeGain:
    """What the judge bought `with_judge` over `people` (the same draws alone): n (w_people / w_judge)^2 - n."""
    width = (None if with_judge.low is None or with_judge.high is None else with_judge.high - with_judge.low)
    alone = None if people.low is None or people.high is None else people.high - people.low
    n = with_judge.n
    worth = (max(0, round(n * (alone / width) ** 2) - n) if width and alone is not None else None)
    return JudgeGain(lam, people, worth, _gain_line(lam, worth, n, with_judge.more_for_target))


def sample_items(items: Sequence[int], n: int | None, seed: int, flag: str = "--items",
                 what: str = "the run has {N} items") -> tuple[list[int], float]:
    """(the items in ascending order, each one's inclusion probability): all of them (probability 1) when n is None,
    else a seeded simple random sample of n (probability n / N). `flag` and `what` word the error for a bad n."""
    if n is None:
        return sorted(items), 1.0
    if not 0 < n <= len(items):
        raise UserError(f"{flag} {n}: {what.format(N=len(items))}; give a number from 1 to {len(items)}")
    return sorted(random.Random(f"sample:{seed}").sample(sorted(items), n)), n / len(items)
