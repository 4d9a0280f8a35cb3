"""Every interval `agree` prints covers the truth whichever way people's grades were drawn: smaller runs of
benchmarks/estimator_coverage.py (a judge of known accuracy, a run with known truth, the desk's designs)."""

from __future__ import annotations

import importlib.util
import sys

from tests.fixtures import REPO_ROOT


def _simulation():
    spec = importlib.util.spec_from_file_location("estimator_coverage", REPO_ROOT / "benchmarks/estimator_coverage.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_from_a_sampled_assignment_every_interval_covers_and_the_tuned_judge_narrows_them():
    """`assign --items 300`: two of three people on each sampled item, drawing the items the judge is unsure of; the
    intervals resample each item's draws together and weigh them by 1 / (pi q)."""
    sim = _simulation()
    cells, ratios, _ = sim.simulate(200, boot=300, judges=("good (0.9)",), designs=("sampled assignment",), sizes=(100,))
    for name in sim.ESTIMATORS:
        if name not in sim.NOT_GATED:
            cell = cells[(name, "sampled assignment", "good (0.9)", 100)]
            assert 0.9 <= cell.coverage <= 0.99, (name, cell.coverage)
            assert abs(sum(cell.errors) / len(cell.errors)) < 0.02, name
    key = ("sampled assignment", "good (0.9)", 100)
    assert sorted(ratios[("PPI++ / people", *key)])[100] < 0.8  # the good judge is worth many graded items
    assert sorted(ratios[("PPI++ / PPI", *key)])[100] <= 1.0


def test_a_poor_judge_gets_less_weight_than_a_good_one_and_never_widens_the_interval():
    sim = _simulation()
    design = "uncertainty-driven draws"
    cells, ratios, _ = sim.simulate(120, boot=300, judges=("good (0.9)", "poor (0.6)"), designs=(design,),
                                    sizes=(100,))
    good, poor = (cells[("pass rate, PPI++", design, judge, 100)] for judge in ("good (0.9)", "poor (0.6)"))
    assert sorted(poor.lams)[60] < 0.5 < sorted(good.lams)[60] and 0.9 <= poor.coverage <= 0.99
    assert sorted(ratios[("PPI++ / people", design, "poor (0.6)", 100)])[60] <= 1.0
