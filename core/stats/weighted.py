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
rectifier's draws by item after a first stage as above (a sampled assignment's win rates cover ~89.5% without it). It
is worth as many human grades as a human-only estimate of the same precision would need.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, Measure, finish, resample_means

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
    taken = np.bincount((np.arange(boot)[:, None] * k + idx).ravel(), minlength=boot * k).reshape(boot, k)
    return ids, taken


def _resampled_matrices(cells: np.ndarray, weights: np.ndarray, q: int, boot: int, seed: int,
                        clusters: np.ndarray | None) -> np.ndarray:
    """B weighted matrices, each from the draws resampled with replacement (weights travel with their draws), or with
    `clusters` from the clusters resampled with replacement, each with all its draws."""
    rng = np.random.default_rng(seed)
    if clusters is None:
        n = len(cells)
        idx = rng.integers(0, n, size=(boot, n))
        flat = (np.arange(boot)[:, None] * q * q + cells[idx]).ravel()
        return np.bincount(flat, weights=weights[idx].ravel(), minlength=boot * q * q).reshape(boot, q, q)
    ids, taken = resampled_clusters(clusters, boot, rng)
    k = taken.shape[1]
    # each cluster's weighted matrix, times how often each replicate took the cluster
    per_cluster = np.bincount(ids * q * q + cells, weights=weights, minlength=k * q * q).reshape(k, q * q)
    matrices: np.ndarray = (taken @ per_cluster).reshape(boot, q, q)
    return matrices


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


def ppi_mean(judge_all: Sequence[float], human: Sequence[float], judge_on_sample: Sequence[float],
             weights: Sequence[float] | None = None, boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
             clusters: Sequence[int] | np.ndarray | None = None) -> tuple[Estimate, float | None]:
    """(mean, effective human labels): the judge's mean on all items, corrected by the human sample. Values lie in
    0..1: a pass (1) or fail (0), or a preference (1 bundled, 0.5 tie, 0 raw).

    judge_all: the judge's value on every item of one kind; human and judge_on_sample: the person's and the judge's
    values on the human-labelled draws (weights: 1/q of each draw; None = a simple random sample). The second value is
    how many simple random human labels a human-only estimate would need for the same precision. The judge's mean is
    resampled exactly and cheaply (a multinomial over its distinct values), so a million judged items cost nothing.
    `clusters` (first_stage_clusters of the draws): the rectifier resamples them, each with all its draws, as
    weighted_estimates does; None: each draw on its own.
    """
    j_all = np.asarray(judge_all, dtype=float)
    h, j = np.asarray(human, dtype=float), np.asarray(judge_on_sample, dtype=float)
    w = np.ones_like(h) if weights is None else np.asarray(weights, dtype=float)
    if j_all.size == 0:
        return Estimate(None, 0, reason="no answer of this kind has a machine grade"), None
    if h.size == 0:
        return Estimate(None, 0, reason="no answer of this kind has both a person's grade and a machine grade"), None
    rect = h - j
    value = float(j_all.mean() + (w * rect).sum() / w.sum())
    rng = np.random.default_rng(seed)
    b_all = resample_means(j_all, boot, rng)
    if clusters is None:
        idx = rng.integers(0, h.size, size=(boot, h.size))
        b_rect = (w[idx] * rect[idx]).sum(1) / w[idx].sum(1)
    else:
        ids, taken = resampled_clusters(np.asarray(clusters), boot, rng)
        k = taken.shape[1]
        b_rect = ((taken @ np.bincount(ids, weights=w * rect, minlength=k))
                  / (taken @ np.bincount(ids, weights=w, minlength=k)))
    boot_values = np.clip(b_all + b_rect, 0.0, 1.0)
    est = finish(min(max(value, 0.0), 1.0), int(h.size), boot_values, "")
    variance = float(boot_values.var()) if boot_values.size else 0.0
    p = est.value if est.value is not None else 0.0
    worth = p * (1 - p) / variance if variance > 0 else None
    return est, worth
