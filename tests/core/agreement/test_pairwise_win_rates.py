"""The prediction-powered win rate of bundled over raw: a smaller run of benchmarks/pairwise_ppi_coverage.py (a
synthetic judge of known accuracy, a known true win rate, people's preferences on the sampler's draws)."""

from __future__ import annotations

import importlib.util

from tests.fixtures import REPO_ROOT


def _simulation():
    spec = importlib.util.spec_from_file_location("pairwise_ppi_coverage",
                                                  REPO_ROOT / "benchmarks/pairwise_ppi_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ppi_interval_covers_the_true_win_rate_about_95_percent_of_the_time():
    out = _simulation().coverage(reps=150, pairs=600, draws=80, win_rate=0.65, accuracy=0.75, boot=500)
    assert 0.92 <= out["ppi_coverage"] <= 0.98, out
    assert abs(out["ppi_bias"]) < 0.01  # unbiased, while the judge alone is not
    assert abs(out["judge_only_bias"]) > 3 * abs(out["ppi_bias"])
    assert out["ppi_width"] < out["people_width"]  # the judge's verdicts on every pair add precision


def test_from_a_sampled_assignment_the_ppi_interval_resamples_by_pair_and_still_covers():
    """`assign --items`: a sample of 150 of 600 pairs, two of three people each, each drawing from their own set; the
    interval resamples each pair's draws together (core/stats/weighted.py first_stage_clusters). Draw by draw it
    covered about 89%."""
    out = _simulation().coverage(reps=300, pairs=600, draws=40, win_rate=0.65, accuracy=0.75, boot=400,
                                 team=(150, 3, 2))
    assert 0.92 <= out["ppi_coverage"] <= 0.98, out
    assert abs(out["ppi_bias"]) < 0.01, out
