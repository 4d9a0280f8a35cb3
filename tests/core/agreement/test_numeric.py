"""Agreement of two numeric scores: Pearson r, mean absolute and mean difference against numpy's own, seeded bootstrap
intervals, and the reasons when a figure is not defined."""

from __future__ import annotations

import numpy as np
import pytest

from gradedesk.core.stats.numeric import NO_PAIRS, numeric_agreement

PERSON = [1.0, 0.5, 0.75, 0.0, 1.0, 0.6, 0.8, 0.25]
SCORER = [0.9, 0.6, 0.5, 0.2, 1.0, 0.4, 1.0, 0.5]


def test_values_match_numpy_and_intervals_hold_them():
    est = numeric_agreement(PERSON, SCORER, boot=500, seed=3)
    x, y = np.array(PERSON), np.array(SCORER)
    assert est["pearson"].value == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert est["mean_abs_diff"].value == pytest.approx(np.abs(y - x).mean())
    assert est["mean_difference"].value == pytest.approx((y - x).mean())
    for e in est.values():
        assert e.n == 8 and e.low <= e.value <= e.high
    assert numeric_agreement(PERSON, SCORER, boot=500, seed=3) == est  # seeded: the same intervals again
    assert numeric_agreement(PERSON, SCORER, boot=500, seed=4)["pearson"].low != est["pearson"].low


def test_large_bootstraps_run_in_chunks_with_the_same_result_shape(monkeypatch):
    import gradedesk.core.stats.numeric as numeric

    whole = numeric_agreement(PERSON, SCORER, boot=300, seed=1)
    monkeypatch.setattr(numeric, "MAX_DRAWS", 16)  # two resamples a chunk
    chunked = numeric_agreement(PERSON, SCORER, boot=300, seed=1)
    assert chunked["pearson"].value == whole["pearson"].value and chunked["pearson"].low is not None


def test_undefined_figures_say_why():
    none = numeric_agreement([], [])
    assert all(e.value is None and e.reason == NO_PAIRS for e in none.values())
    flat = numeric_agreement([1.0, 1.0, 1.0], [0.5, 1.0, 0.7], boot=100, names=("person", "offline-rapidfuzz"))
    assert flat["pearson"].value is None
    assert flat["pearson"].reason == "the person gives every answer the same faithfulness (1.00), so there is " \
                                      "nothing to correlate"
    assert flat["mean_abs_diff"].value == pytest.approx((0.5 + 0.3) / 3)
    one = numeric_agreement([0.5], [0.7], boot=100)
    assert one["pearson"].reason == "fewer than two answers to correlate" and one["mean_difference"].value == \
        pytest.approx(0.2)
    assert numeric_agreement(PERSON, SCORER, boot=0)["pearson"].low is None  # no resamples, no interval
