"""Agreement between two numeric scores of the same items (a person's faithfulness beside a scorer's): Pearson
correlation, mean absolute difference and mean difference, each with a seeded percentile-bootstrap interval over the
items (measures.py's `finish`); and the mean of one score over items with the same kind of interval (`mean_estimate`:
recall or prompt tokens per answer). Pure: no store.

Undefined is not zero: with fewer than two items, or when one side gives every item the same score, the correlation
has value None and a reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, finish

NO_PAIRS = "no answer has both a person's complete claim marks and this scorer's value"
MAX_DRAWS = 2_000_000  # resampled values held at once; larger bootstraps run in chunks


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r along the last axis; NaN where either side does not vary."""
    dx = x - x.mean(-1, keepdims=True)
    dy = y - y.mean(-1, keepdims=True)
    den = np.sqrt((dx * dx).sum(-1) * (dy * dy).sum(-1))
    out = np.full(den.shape, np.nan)
    np.divide((dx * dy).sum(-1), den, out=out, where=den > 1e-12)
    return out


STATISTICS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "pearson": _pearson,
    "mean_abs_diff": lambda x, y: np.abs(y - x).mean(-1),
    "mean_difference": lambda x, y: (y - x).mean(-1),  # scorer minus person: > 0, the scorer is more generous
}


def _why_no_correlation(x: np.ndarray, y: np.ndarray, names: tuple[str, str]) -> str:
    if len(x) < 2:
        return "fewer than two answers to correlate"
    side = names[0] if np.ptp(x) == 0 else names[1]
    value = x[0] if side == names[0] else y[0]
    return f"the {side} gives every answer the same faithfulness ({value:.2f}), so there is nothing to correlate"


def numeric_agreement(person: Sequence[float], scorer: Sequence[float], boot: int = DEFAULT_BOOT,
                      seed: int = DEFAULT_SEED, names: tuple[str, str] = ("person", "scorer")) -> dict[str, Estimate]:
    """Each statistic of STATISTICS on the (person, scorer) score pairs, with an interval from resampling the pairs
    (one set of draws)."""
    x, y = np.asarray(person, dtype=float), np.asarray(scorer, dtype=float)
    n = len(x)
    if n == 0:
        return {name: Estimate(None, 0, reason=NO_PAIRS) for name in STATISTICS}
    rng = np.random.default_rng(seed)
    draws: dict[str, list[np.ndarray]] = {name: [] for name in STATISTICS}
    chunk = max(1, MAX_DRAWS // n)
    for start in range(0, boot, chunk):
        idx = rng.integers(0, n, size=(min(chunk, boot - start), n))
        for name, fn in STATISTICS.items():
            draws[name].append(fn(x[idx], y[idx]))
    out: dict[str, Estimate] = {}
    for name, fn in STATISTICS.items():
        value = float(fn(x, y))
        boot_values = np.concatenate(draws[name]) if draws[name] else np.array([])
        out[name] = finish(value, n, boot_values, _why_no_correlation(x, y, names) if np.isnan(value) else "")
    return out


def mean_estimate(values: Sequence[float], empty_reason: str, boot: int = DEFAULT_BOOT,
                  seed: int = DEFAULT_SEED) -> Estimate:
    """The mean of `values` with a percentile-bootstrap interval (resampling the items); None and `empty_reason` when
    there is no value."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return Estimate(None, 0, reason=empty_reason)
    rng = np.random.default_rng(seed)
    chunk = max(1, MAX_DRAWS // n)
    draws = [x[rng.integers(0, n, size=(min(chunk, boot - start), n))].mean(-1) for start in range(0, boot, chunk)]
    return finish(float(x.mean()), n, np.concatenate(draws) if draws else np.array([]), "")
