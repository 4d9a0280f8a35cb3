"""Estimates that stay honest when the desk chooses what people grade.

The desk's sampler draws the next item from the whole run with a known probability (core/review/sampler.py): draw m
picks item i with probability q_m(i), and an item drawn again is not graded again, its grade simply counts again. Each
draw is then an unbiased look at the whole run once weighted by 1 / q_m(i) (importance sampling), whatever the sampler
preferred. Every agreement measure of measures.py is a function of the confusion matrix's cell
shares, so the Hajek estimate of a measure is that measure on the weighted matrix (sum of the draws' weights per cell).
Intervals resample the draws with their weights (a seeded bootstrap), so they widen as the weights grow uneven; a
share's interval is Wilson's at the replicates' effective n (measures.score_interval), the others the replicates'
percentiles. The Kish effective sample size says how many simple random draws the sample is worth. When a first stage
chose the items drawn from (an assigned set, inclusion probability pi < 1; `assign --items` samples the run), the
draws are resampled by item, all of an item's draws together: draws meet on the same item more often than the run's
size explains, and resampling those clusters carries the first stage's variance into the interval (without it a
sampled assignment's intervals cover ~91.5%). The cluster bootstrap leaves out the finite-population correction,
erring a little wide when the sample is a large share of the run.

Prediction-powered pass rates, paired differences and win rates (Angelopoulos et al., Science 2023): the judge grades
every answer; the human-graded sample measures how far the judge's pass/fail is off (the rectifier, human minus
judge, weighted as above). The pass rate is the judge's rate on all answers plus the rectifier; the judge's rate is
the run's own, known, so the interval resamples the rectifier's draws exactly as the weighted figures resample theirs
(one definition: resampled_clusters, by item after a first stage; a sampled assignment's win rates covered ~89.5%
draw by draw). The judge's share is power-tuned (PPI++, Angelopoulos, Duchi and Zrnic 2023: `power_tuning`): lambda
* the judge's rate + the weighted mean of (human - lambda * judge), lambda chosen from the data (the regression slope
that makes the figure's variance least, clipped to [0, 1]). A question's draws (after a first stage; else each draw)
are weighed by the slope of the others (`cross_fitted_lambdas`: a slope fitted on the draws it weighs leaned the
figure and narrowed its interval), and only where that slope is further from 0 (people's grades alone) or 1 (plain
PPI) than its own noise, so a judge that tells nothing is given no weight. What the judge bought (`JudgeGain`): with n
people's grades and interval widths w_people (lambda 0, the same replicates) and w_judge, the judge is worth
n (w_people / w_judge)^2 - n more graded items. benchmarks/estimator_coverage.py measures every estimate's coverage.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gradedesk.core.errors import UserError
from gradedesk.core.stats.measures import (DEFAULT_BOOT, DEFAULT_SEED, Estimate, Measure, finish, score_interval,
                                           t_quantile)
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


def resampled_clusters(clusters: np.ndarray, boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The clusters (first_stage_clusters) resampled with replacement, `boot` times: (each draw's cluster as 0..k-1,
    a boot x k matrix of how often each replicate took each cluster). A replicate's sum of any per-draw figure is
    `taken @ (that figure summed per cluster)`: every draw of a cluster goes with it."""
    _, ids = np.unique(clusters, return_inverse=True)
    return ids, _taken(int(ids.max()) + 1, boot, seed)


@functools.lru_cache(maxsize=16)
def _taken(k: int, boot: int, seed: int) -> np.ndarray:
    """How often each of `boot` seeded replicates took each of k clusters. It depends on nothing else, so every
    figure on one set of draws (the four-level and pass/fail agreement, a pass rate with and without the judge)
    shares the replicates, drawn once: their widths compare like with like, and a report pays for them once."""
    idx = np.random.default_rng(seed).integers(0, k, size=(boot, k))
    # counts as floats: every use multiplies them by weighted sums
    taken = np.bincount((np.arange(boot)[:, None] * k + idx).ravel(), minlength=boot * k).astype(float)
    taken = taken.reshape(boot, k)
    taken.flags.writeable = False
    return taken


def _resampled_matrices(cells: np.ndarray, weights: np.ndarray, q: int, boot: int, seed: int,
                        clusters: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B weighted matrices, each from the clusters resampled with replacement, each with all its draws (weights travel
    with their draws); `clusters` None: every draw its own cluster. Also each draw's cluster and the clusters'
    summed weights (for score_interval's units and fallback)."""
    ids, taken = resampled_clusters(_each_draw_alone(len(cells)) if clusters is None else clusters, boot, seed)
    k = taken.shape[1]
    # each cluster's weighted matrix, times how often each replicate took the cluster
    per_cluster = np.bincount(ids * q * q + cells, weights=weights, minlength=k * q * q).reshape(k, q * q)
    matrices: np.ndarray = (taken @ per_cluster).reshape(boot, q, q)
    return matrices, ids, np.bincount(ids, weights=weights, minlength=k)


def _each_draw_alone(n: int) -> np.ndarray:
    """Clusters of one draw each: resampled_clusters of these is the plain bootstrap of the draws."""
    return np.arange(n)


def _share_estimate(value: float, n: int, boot_values: np.ndarray, cluster_weights: np.ndarray,
                    span: tuple[float, float] = (0.0, 1.0), least_var: float = 0.0) -> Estimate:
    """A weighted mean of values in `span` with score_interval's interval (units: the clusters resampled)."""
    if math.isnan(value):
        return finish(value, n, boot_values, "")
    value = min(max(value, span[0]), span[1])
    bounds = (score_interval(value, boot_values, cluster_weights.size, kish_effective_n(cluster_weights), span,
                             least_var) if boot_values.size else (None, None))
    return finish(value, n, boot_values, "", bounds)


def _unseen_errors_var(units: float) -> float:
    """The variance of a prediction-powered figure whose judge matched every draw: the judge's errors the draws
    could have missed. Such a sample leaves a rectifier of zeros (no variance, a zero-width interval), yet the judge's
    error rate is only known to be small: as Agresti and Coull add z^2 / 2 pseudo-counts to a share, count z^2 / 2
    of the (units + z^2) draws as one-level disagreements, a rectifier variance of (z^2 / 2) / (units + z^2) / units.
    Only then: once a disagreement is seen the replicates measure the spread (a floor under every figure made the
    good judge's intervals cover 99% at 30 draws)."""
    z2 = t_quantile(units - 1) ** 2
    return z2 / 2 / (units + z2) / units


def weighted_estimates(cells: Sequence[int] | np.ndarray, weights: Sequence[float] | np.ndarray, q: int,
                       measures: Sequence[Measure], boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
                       clusters: Sequence[int] | np.ndarray | None = None) -> dict[str, Estimate]:
    """Each measure on the Hajek-weighted matrix of the draws, with a weighted bootstrap interval. `clusters`
    (first_stage_clusters): draws that go together when resampled; None: each draw on its own."""
    cells_a, weights_a = np.asarray(cells, dtype=np.int64), np.asarray(weights, dtype=float)
    if cells_a.size == 0:
        return {m.name: Estimate(None, 0, reason=NO_DRAWS) for m in measures}
    cm = weighted_matrix(cells_a, weights_a, q)
    boot_cms, _, cluster_weights = (_resampled_matrices(cells_a, weights_a, q, boot, seed, None if clusters is None
                                                        else np.asarray(clusters)) if boot else
                                    (np.zeros((0, q, q)), None, np.zeros(0)))
    out = {}
    for m in measures:
        value = float(m.fn(cm))
        boot_values = m.fn(boot_cms) if len(boot_cms) else np.array([])
        if m.share and not math.isnan(value):
            # score_interval needs the replicates where the share is defined (a recall needs a row to recall)
            out[m.name] = _share_estimate(value, int(cells_a.size), boot_values, cluster_weights)
        else:
            out[m.name] = finish(value, int(cells_a.size), boot_values, m.why(cm) if math.isnan(value) else "")
    return out


NOTHING_ADDED = 0.1  # lambda below this: the judge added nothing to the figure
NEAR_ZERO = 0.1  # worth fewer graded items than this share of those made: only more people's grades narrow it


def _moments(sums: np.ndarray) -> np.ndarray:
    """Per cluster, the sums power_tuning's slope is made of: u, u * human, u * judge and their products two by two
    (u u, judge judge, human judge, u judge, u human); summed over any set of clusters they give that set's slope."""
    u, y, f = sums
    return np.stack([u, y, f, u * u, f * f, y * f, u * f, u * y])


def _slope(m: np.ndarray) -> np.ndarray:
    """power_tuning's lambda from summed moments (_moments summed over the clusters used; any trailing shape):
    Cov(mean human, mean judge) / Var(mean judge) about the weighted means, clipped to [0, 1]; NaN where there is no
    slope to fit (the judge gave one value to every cluster used, or none is left)."""
    u, y, f, uu, ff, yf, uf, uy = m
    with np.errstate(divide="ignore", invalid="ignore"):
        y_bar, f_bar = y / u, f / u
        spread = ff - 2 * f_bar * uf + f_bar**2 * uu
        covariance = yf - f_bar * uy - y_bar * uf + y_bar * f_bar * uu
        # the expanded spread keeps a rounding error of the size of ff where the judge never varies
        tuned = np.where((u > 0) & (spread > 1e-9 * np.abs(ff)), covariance / spread, np.nan)
    clipped: np.ndarray = np.clip(tuned, 0.0, 1.0)
    return clipped


def power_tuning(sums: np.ndarray) -> float:
    """PPI++'s lambda (Angelopoulos, Duchi and Zrnic 2023), the weight on the judge that makes the estimate's variance
    least, clipped to [0, 1] (0: people alone; 1: plain PPI). `sums`: per cluster (first_stage_clusters; a draw on its
    own when None), the sums of u, u * human and u * judge (u the weights scaled to mean 1).

    The figure is the run's own and the judge graded all of it, so the judge's mean is known and the variance to make
    least is that of the draws' weighted mean of (human - lambda * judge): lambda = Cov(mean human, mean judge) /
    Var(mean judge) under the design, both moments from per-cluster sums of u * deviation from the weighted mean (to
    first order the bootstrap's own moments). It is the slope of the survey sampler's regression estimator; with equal
    weights and every draw its own cluster, cov(Y, f) / var(f) on the draws. ppi_mean does not use it on the draws
    it was fitted on (cross_fitted_lambdas says why).

    ppi-python's lambda is cov(Y, f) / ((1 + n/N) var(f)) with var(f) pooled over the draws and the N judged items
    (its (1 + n/N): the variance of a judge's mean over N items drawn from a larger population, 0 here). Its pooled
    variance is far less noisy, but it leaves lambda moving with the draws' judge mean through cov(Y, f), and that
    leans the figure: a judge that passes 20 points too often, 30 draws from a sampled assignment, 800 simulated runs:
    bias +0.020, coverage 93.1%; with the draws' own variance, which moves with cov(Y, f) and cancels it, +0.003 and
    94.0% (benchmarks/estimator_coverage.py). tests/core/agreement/test_power_tuning.py pins
    the two to each other on fixed data.
    """
    slope = float(_slope(_moments(sums).sum(axis=1)))
    return 0.0 if math.isnan(slope) else slope  # the judge gave one value to every draw: nothing to learn from it


_PAIRS_AT_ONCE = 250_000  # leave-two-out slopes computed per block of rows: memory stays a few MB at any k


def cross_fitted_lambdas(sums: np.ndarray) -> np.ndarray:
    """Each cluster's weight on the judge, chosen without that cluster's draws (`sums` as power_tuning's).

    Fitted on the draws it then weighs, lambda leans the figure and narrows its interval: the slope follows the
    draws' own chance agreement with the judge, so the residuals it leaves are smaller than a new draw's would be,
    and the figure's error moves with the judge's error on those draws (bundled - raw, a judge passing 20 points too
    often, 30 draws, the designs that prefer the items the judge is unsure of: bias -0.005 to -0.008 and coverage
    90.9% to 92.7%, where people alone on the same draws were within 0.001 of the truth; docs/trusting-the-judge.md).
    So cluster i's residual takes lambda_-i, power_tuning on the other clusters (leave one out: the residuals are out
    of sample, their spread honest, and nothing of cluster i chose its weight).

    A fitted lambda is also noisy, and with few clusters its noise can cost more than it saves: against a fixed
    weight a (0, people alone; 1, plain PPI) it saves (lambda - a)^2 Var(judge's mean) and costs its own variance
    s^2 times the same. So lambda_-i is kept only when (lambda_-i - a)^2 > s_-i^2, a the nearer fixed weight and
    s_-i^2 the jackknife variance of lambda over the clusters other than i (from the slopes leaving out i and one
    more); otherwise cluster i takes a. Every choice about cluster i is made without it, but one: where the other
    clusters leave no slope to fit (the judge gave them all one value; a judge that matched 6 draws, 5 of them
    preferring the bundle), cluster i takes the slope of all (with 0 there, that draw alone pulled the figure below
    both the judge's and the people's), and the jackknife counts only the slopes there are. A judge that tells nothing
    then gets 0 at 30 draws (left out of sample and kept, its interval came out wider than people alone's), and a good
    judge 1 where its slope cannot be told from 1. The leave-two-out slopes cost k^2: about a second at 2,000
    clusters.
    """
    m = _moments(sums)
    k = m.shape[1]
    total = m.sum(axis=1)
    alone = _slope(total[:, None] - m)  # lambda_-i
    alone = np.where(np.isnan(alone), power_tuning(sums), alone)
    noise = np.zeros(k)
    rows = max(1, _PAIRS_AT_ONCE // k)
    others = ~np.eye(k, dtype=bool)
    for start in range(0, k, rows):
        block = slice(start, min(start + rows, k))
        pairs = _slope(total[:, None, None] - m[:, block, None] - m[:, None, :])  # leave i and j out
        mine = others[block] & ~np.isnan(pairs)
        count = mine.sum(axis=1)
        mean = np.where(mine, pairs, 0.0).sum(axis=1) / np.maximum(count, 1)
        spread = np.where(mine, (pairs - mean[:, None]) ** 2, 0.0).sum(axis=1)
        noise[block] = np.where(count > 1, (count - 1) / np.maximum(count, 1) * spread, 0.0)
    fixed = np.where(alone >= 0.5, 1.0, 0.0)
    chosen: np.ndarray = np.where((alone - fixed) ** 2 > noise, alone, fixed)
    return chosen


@dataclass
class JudgeGain(Record):
    """What the judge bought one prediction-powered figure: its weight and the graded items it is worth."""

    lam: float  # the judge's weight: the draws' weighted mean of their cross_fitted_lambdas (0: people alone; 1: plain PPI)
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
             clusters: Sequence[int] | np.ndarray | None = None, lam: float | None = None,
             span: tuple[float, float] = (0.0, 1.0)) -> tuple[Estimate, JudgeGain | None]:
    """(mean, what the judge bought): the judge's mean on all items, corrected by the human sample, power-tuned
    (PPI++): lambda * judge's mean + the weighted mean of (human - lambda * judge) on the draws. Values lie in `span`:
    0..1 for a pass (1) or fail (0), or a preference (1 bundled, 0.5 tie, 0 raw); -1..1 for a paired difference
    (bundled - raw on one question).

    judge_all: the judge's value on every item of one kind; human and judge_on_sample: the person's and the judge's
    values on the human-labelled draws (weights: 1/(pi q) of each draw; None = a simple random sample). `lam`: the
    judge's weight (None: each cluster's cross_fitted_lambdas, reported as their weighted mean; 1: plain PPI; 0:
    people alone). The figure is the run's own (people's grades of all its items), and the judge graded all of them,
    so the judge's mean is known, not sampled: only the draws are resampled (ppi-python, which estimates a mean over a
    population the judged items were drawn from, adds their sampling variance too), as weighted_estimates resamples
    them: by `clusters` (first_stage_clusters), each with all its draws, or (None) each draw on its own. Each
    cluster's lambda is held on the replicates, as ppi-python holds its one lambda: the replicates resample the
    clusters' residuals, human - lambda * (judge - the judge's mean). Choosing lambda again on each replicate (tried:
    it carried the lean a pooled variance gave lambda, see power_tuning) added lambda's own noise: with 30 draws a
    poor judge's interval came out wider than people's alone (median width ratio 1.001). One slope of all the draws,
    held, left residuals fitted to those draws (cross_fitted_lambdas says what that cost). The
    interval is score_interval's, as a share's (people alone get the same); a judge that matched every draw adds the
    errors the draws could have missed (_unseen_errors_var). Tried on 300 simulated runs of 30 draws and set aside:
    the replicates' percentiles expanded to Student's t (a good judge's few disagreements make them lumpy: 83%) and
    Hall's skewness term (noisy where errors are rare: 73%). The people-alone interval comes from the same replicates
    (lambda 0), so the two widths compare like with like.
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
    ids, taken = resampled_clusters(_each_draw_alone(n) if clusters is None else np.asarray(clusters), boot, seed)
    k = taken.shape[1]
    sums = np.stack([np.bincount(ids, weights=u * x, minlength=k) for x in (np.ones(n), h, j)])
    per_cluster, b_u = sums[0], taken @ sums[0]
    lams = cross_fitted_lambdas(sums) if lam is None else np.full(k, float(lam))
    judge_mean = float(j_all.mean())
    # each cluster's sum of u * (human - lambda * (judge - the judge's mean)): its share of the figure times n
    residuals = sums[1] - lams * (sums[2] - judge_mean * per_cluster)
    value = min(max(float(residuals.sum() / per_cluster.sum()), span[0]), span[1])
    boot_values = (taken @ residuals) / b_u
    lam = float(np.average(lams, weights=per_cluster))  # the judge's weight over the draws, as reported
    # a judge that matched every draw: the replicates cannot show its errors
    unseen = _unseen_errors_var(kish_effective_n(per_cluster)) if lam > 0 and (h == j).all() else 0.0
    est = _share_estimate(value, n, boot_values, per_cluster, span, unseen)
    people = _share_estimate(float((u * h).sum() / n), n, (taken @ sums[1]) / b_u, per_cluster, span)
    return est, _judge_gain(lam, people, est)


def weighted_mean(values: Sequence[float], empty_reason: str, weights: Sequence[float] | None = None,
                  boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
                  clusters: Sequence[int] | np.ndarray | None = None) -> Estimate:
    """The (weighted) mean of values in 0..1 with score_interval's interval, the draws resampled by `clusters` (values
    that go together: one question's preferences by several people) or each on its own (None)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return Estimate(None, 0, reason=empty_reason)
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=float)
    ids, taken = resampled_clusters(_each_draw_alone(v.size) if clusters is None else np.asarray(clusters), boot,
                                    seed)
    k = taken.shape[1]
    per_cluster = np.bincount(ids, weights=w, minlength=k)
    boot_values = (taken @ np.bincount(ids, weights=w * v, minlength=k)) / (taken @ per_cluster)
    return _share_estimate(float((w * v).sum() / w.sum()), int(v.size), boot_values, per_cluster)


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
