"""Krippendorff's alpha for ordinal grades among several people (the team's agreement with itself), with a bootstrap
over the graded items; pure functions, no store."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, finish, safe_div, seeded_rng


def _unit_coincidences(units: Sequence[Sequence[int]], q: int) -> np.ndarray:
    """Per-unit coincidence matrices (U x q x q) of the units with at least two values."""
    mats = []
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = np.bincount(np.asarray(values, dtype=np.int64), minlength=q).astype(float)
        mats.append((np.outer(counts, counts) - np.diag(counts)) / (m - 1))
    return np.array(mats).reshape(-1, q, q)


def _alpha_from_coincidences(o: np.ndarray) -> np.ndarray:
    """Ordinal alpha = 1 - (n-1) * sum(o * d2) / sum(n_c n_k d2), d2 the ordinal metric on the value counts n_c."""
    q = o.shape[-1]
    nc = o.sum(-1)
    n = nc.sum(-1)
    cum = np.cumsum(nc, -1)
    r = np.arange(q)
    lo, hi = np.minimum.outer(r, r), np.maximum.outer(r, r)
    span = cum[..., hi] - cum[..., lo] + nc[..., lo]
    d2 = (span - (nc[..., :, None] + nc[..., None, :]) / 2) ** 2
    observed = (o * d2).sum((-2, -1))
    expected = (nc[..., :, None] * nc[..., None, :] * d2).sum((-2, -1))
    return 1 - safe_div((n - 1) * observed, expected)


def _resample_units(mats: np.ndarray, boot: int, seed: int, chunk: int = 64) -> np.ndarray:
    """B coincidence matrices, each the sum over U units drawn with replacement (in chunks, to bound memory)."""
    u, q = mats.shape[0], mats.shape[-1]
    flat = mats.reshape(u, q * q)
    rng = seeded_rng(seed)
    out = np.empty((boot, q * q))
    for start in range(0, boot, chunk):
        n = min(chunk, boot - start)
        picks = rng.integers(0, u, size=(n, u)) + np.arange(n)[:, None] * u
        counts = np.bincount(picks.ravel(), minlength=n * u).reshape(n, u)
        out[start:start + n] = counts @ flat
    return out.reshape(boot, q, q)


def krippendorff_alpha_ordinal(units: Sequence[Sequence[int]], q: int, boot: int = DEFAULT_BOOT,
                               seed: int = DEFAULT_SEED) -> Estimate:
    """Ordinal alpha over units (each a list of the class indices the people gave it; missing people left out).

    The interval resamples units (items), not single grades. Only units graded by two or more people count.
    """
    mats = _unit_coincidences(units, q)
    u = len(mats)
    if u == 0:
        return Estimate(None, 0, reason="no item was graded by two or more people")
    value = float(_alpha_from_coincidences(mats.sum(0)))
    if math.isnan(value):
        return Estimate(None, u, reason="every grade given is the same, so there is no variation to agree on")
    boot_values = _alpha_from_coincidences(_resample_units(mats, boot, seed)) if boot else np.array([])
    return finish(value, u, boot_values, "")


# -- judge-corrected pass rates (Rogan-Gladen) --------------------------------------------------------------------------
