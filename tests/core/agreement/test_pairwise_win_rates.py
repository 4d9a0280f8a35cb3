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
