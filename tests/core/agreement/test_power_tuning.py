"""PPI++ (core/stats/weighted.py ppi_mean, power_tuning) against ppi-python's own estimator on fixed data: the point
estimate and lambda of `ppi_py.ppi_mean_pointestimate` (lambda read back from its point estimate, which is linear in
lambda) for the run's own figure, and its interval's width beside ours; then what the judge bought."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest

from gradedesk.core.stats.measures import t_quantile
from gradedesk.core.stats.weighted import first_stage_clusters, power_tuning, ppi_mean


def _data(seed: int, accuracy: float, n: int = 150, big_n: int = 2000, levels=(1.0, 0.0)):
    rng = np.random.default_rng(seed)
    truth = rng.choice(levels, big_n)
    other = rng.choice(levels, big_n)
    judge = np.where(rng.random(big_n) < accuracy, truth, other)
    sample = rng.choice(big_n, n, replace=False)
    return judge, truth[sample], judge[sample]


def _their_lambda(judge_all, human, judge):
    """ppi-python's lambda: its point estimate is lam * mean(judge_all) + mean(human) - lam * mean(judge)."""
    theirs = float(np.ravel(ppi_py.ppi_mean_pointestimate(human, judge, judge_all))[0])
    return (theirs - human.mean()) / (judge_all.mean() - judge.mean()), theirs


@pytest.mark.parametrize(("seed", "accuracy", "levels"), [
    (1, 0.9, (1.0, 0.0)), (2, 0.75, (1.0, 0.0)), (3, 0.6, (1.0, 0.0)), (4, 0.85, (1.0, 0.5, 0.0))])
def test_point_estimate_and_lambda_are_ppi_pythons_for_the_runs_own_figure(seed, accuracy, levels):
    """ppi-python estimates a mean over a population the N judged items were drawn from; ours is the run's own (the
    judge graded all of it), so its lambda leaves out ppi-python's (1 + n/N) and its variance the judged items' share,
    lam^2 var(judge) / N. Its lambda divides by the judge's variance pooled over the draws and the N items; ours by
    the draws' own (the regression slope: power_tuning says why). With those terms the figures are ppi-python's."""
    judge_all, human, judge = _data(seed, accuracy, levels=levels)
    lam, _ = _their_lambda(judge_all, human, judge)
    est, gain = ppi_mean(judge_all, human, judge, boot=2000)
    n, big_n = human.size, judge_all.size
    assert 0 < lam and gain.lam < 1  # tuned, not clipped: the comparison means something
    pooled = np.concatenate([judge, judge_all]).var(ddof=1)
    assert gain.lam == pytest.approx(lam * (1 + n / big_n) * pooled / judge.var(), abs=1e-12)
    theirs = float(np.ravel(ppi_py.ppi_mean_pointestimate(human, judge, judge_all, lam=gain.lam))[0])
    assert est.value == pytest.approx(theirs, abs=1e-12)
    # their interval is a normal approximation with lambda held, as ours holds it; ours is Wilson's at the effective n
    # from the bootstrap's variance times n / (n - 1), Student's t for n - 1 degrees of freedom: without the judged
    # items' term and with those factors the widths agree within 10%
    low, high = ppi_py.ppi_mean_ci(human, judge, judge_all, alpha=0.05, lam=gain.lam)
    theirs_width = float(np.ravel(high)[0] - np.ravel(low)[0])
    z = 1.959964
    run_only = math.sqrt(theirs_width**2 - (2 * z * gain.lam) ** 2 * judge_all.var() / big_n)
    assert (est.high - est.low) == pytest.approx(run_only * t_quantile(n - 1) / z * math.sqrt(n / (n - 1)),
                                                 rel=0.1)


def test_a_judge_that_points_the_wrong_way_is_clipped_to_nothing_as_ppi_python_clips_it():
    judge_all, human, judge = _data(5, 0.9)
    human = 1 - human  # the judge now disagrees with the people on nine items in ten
    lam, theirs = _their_lambda(judge_all, human, judge)
    est, gain = ppi_mean(judge_all, human, judge, boot=500)
    assert lam == pytest.approx(0.0, abs=1e-12) and gain.lam == 0.0
    assert est.value == pytest.approx(theirs) == pytest.approx(human.mean())
    assert gain.line.startswith("the machine grades added nothing here: only more people's grades narrow it")


def test_lambda_does_not_depend_on_the_weights_scale_and_a_first_stage_keeps_it_in_range():
    judge_all, human, judge = _data(6, 0.8)
    weights = np.random.default_rng(6).uniform(1, 5, human.size)
    _, once = ppi_mean(judge_all, human, judge, weights, boot=300)
    est, scaled = ppi_mean(judge_all, human, judge, weights * 40, boot=300)
    assert once.lam == pytest.approx(scaled.lam, abs=1e-12) and 0 < once.lam <= 1
    # every draw taken twice, as two people of a team on the same item: resampled together, lambda barely moves
    twice = np.repeat(np.arange(human.size), 2)
    _, team = ppi_mean(judge_all, human[twice], judge[twice], weights[twice], boot=300,
                       clusters=first_stage_clusters(twice.tolist(), [0.5] * twice.size))
    assert team.lam == pytest.approx(once.lam, abs=0.02)


def test_what_the_judge_bought_is_the_graded_items_its_narrower_interval_is_worth():
    judge_all, human, judge = _data(7, 0.95, n=100)
    est, gain = ppi_mean(judge_all, human, judge, boot=2000)
    alone = gain.people_alone
    assert alone.value == pytest.approx(human.mean())
    expected = round(100 * ((alone.high - alone.low) / (est.high - est.low)) ** 2) - 100
    assert gain.worth_more == expected > 100
    # with the judge the interval is already +/-0.05; people alone would need more grades for it
    assert est.more_for_target == 0 and alone.more_for_target > 0
    assert gain.line == f"the machine grades are worth {expected} more graded items; already +/-0.05"


def test_lambda_is_held_on_the_replicates_where_it_makes_the_interval_narrowest():
    """The tuned interval is the one with its lambda given, and neither people alone (lambda 0), plain PPI (lambda 1)
    nor a lambda a little either side of it, on the same replicates, is narrower."""
    judge_all, human, judge = _data(9, 0.8, n=40)
    tuned, gain = ppi_mean(judge_all, human, judge, boot=2000)
    held, _ = ppi_mean(judge_all, human, judge, boot=2000, lam=gain.lam)
    assert (tuned.value, tuned.low, tuned.high) == (held.value, held.low, held.high) and 0.1 < gain.lam < 0.9
    n = human.size
    assert power_tuning(np.stack([np.ones(n), human, judge])) == pytest.approx(gain.lam, abs=1e-12)
    width = tuned.high - tuned.low
    for other in (0.0, 1.0, gain.lam - 0.1, gain.lam + 0.1):
        est, _ = ppi_mean(judge_all, human, judge, boot=2000, lam=other)
        assert est.high - est.low > width * 0.995, other
