"""PPI++ (core/stats/weighted.py ppi_mean, power_tuning, cross_fitted_lambdas) against ppi-python's own estimator on
fixed data: the point estimate and lambda of `ppi_py.ppi_mean_pointestimate` (lambda read back from its point
estimate, which is linear in lambda) for the run's own figure, and its interval's width beside ours; how each draw's
lambda is chosen without it; then what the judge bought."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest

from gradedesk.core.stats.measures import t_quantile
from gradedesk.core.stats.weighted import cross_fitted_lambdas, first_stage_clusters, power_tuning, ppi_mean


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
    n, big_n = human.size, judge_all.size
    slope = power_tuning(np.stack([np.ones(n), human, judge]))
    assert 0 < lam and slope < 1  # tuned, not clipped: the comparison means something
    pooled = np.concatenate([judge, judge_all]).var(ddof=1)
    assert slope == pytest.approx(lam * (1 + n / big_n) * pooled / judge.var(), abs=1e-12)
    est, gain = ppi_mean(judge_all, human, judge, boot=2000, lam=slope)
    theirs = float(np.ravel(ppi_py.ppi_mean_pointestimate(human, judge, judge_all, lam=slope))[0])
    assert est.value == pytest.approx(theirs, abs=1e-12)
    # their interval is a normal approximation with lambda held, as ours holds it; ours is Wilson's at the effective n
    # from the bootstrap's variance times n / (n - 1), Student's t for n - 1 degrees of freedom: without the judged
    # items' term and with those factors the widths agree within 10%
    low, high = ppi_py.ppi_mean_ci(human, judge, judge_all, alpha=0.05, lam=slope)
    theirs_width = float(np.ravel(high)[0] - np.ravel(low)[0])
    z = 1.959964
    run_only = math.sqrt(theirs_width**2 - (2 * z * gain.lam) ** 2 * judge_all.var() / big_n)
    assert (est.high - est.low) == pytest.approx(run_only * t_quantile(n - 1) / z * math.sqrt(n / (n - 1)),
                                                 rel=0.1)
    # tuned, each draw's lambda is the slope without it (cross_fitted_lambdas): with 150 draws barely apart
    tuned, tuned_gain = ppi_mean(judge_all, human, judge, boot=2000)
    assert tuned_gain.lam == pytest.approx(slope, abs=0.01) and tuned.value == pytest.approx(est.value, abs=0.005)


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


def _rule_by_hand(sums: np.ndarray) -> np.ndarray:
    """cross_fitted_lambdas spelt out: for each cluster, power_tuning without it (the slope of all where the judge
    gave the others one value); kept when it is further from the nearer of 0 and 1 than its jackknife standard error
    over the other clusters (each left out with it, where a slope is left), else that fixed weight."""
    k = sums.shape[1]

    def slope(clusters):  # None: no slope to fit
        judged = sums[2, clusters] / sums[0, clusters]
        return power_tuning(sums[:, clusters]) if np.ptp(judged) > 0 else None

    out = []
    for i in range(k):
        others = [c for c in range(k) if c != i]
        alone = slope(others)
        alone = power_tuning(sums) if alone is None else alone
        pairs = np.array([p for j in others if (p := slope([c for c in others if c != j])) is not None])
        noise = (pairs.size - 1) / pairs.size * ((pairs - pairs.mean()) ** 2).sum() if pairs.size > 1 else 0.0
        fixed = 1.0 if alone >= 0.5 else 0.0
        out.append(alone if (alone - fixed) ** 2 > noise else fixed)
    return np.array(out)


@pytest.mark.parametrize(("seed", "accuracy", "n"), [(11, 0.8, 24), (12, 0.6, 30), (13, 0.97, 20), (16, 1.0, 6)])
def test_each_clusters_lambda_is_chosen_without_it(seed, accuracy, n):
    """A question's draws are weighed by a lambda its own draws had no part in (cross_fitted_lambdas), by clusters
    of uneven weights; the block-wise computation is the rule spelt out."""
    _, human, judge = _data(seed, accuracy, n=n, levels=(1.0, 0.5, 0.0))
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.2, 3, n)
    cluster = np.sort(rng.integers(0, n * 2 // 3, n))
    _, ids = np.unique(cluster, return_inverse=True)
    sums = np.stack([np.bincount(ids, weights=u * x) for x in (np.ones(n), human, judge)])
    assert cross_fitted_lambdas(sums) == pytest.approx(_rule_by_hand(sums), abs=1e-9)


def test_a_judge_that_tells_nothing_leaves_the_figure_to_people_alone():
    """30 draws of a judge that guesses: fitted on those draws its slope looked worth something and narrowed the
    interval below people alone's, though a guess adds only noise. Its lambda is now 0: the figure is people alone's."""
    judge_all, human, judge = _data(21, 0.0, n=30)  # wrong means a random value: right half the time by chance
    slope = power_tuning(np.stack([np.ones(30), human, judge]))
    est, gain = ppi_mean(judge_all, human, judge, boot=1000)
    alone = gain.people_alone
    assert slope > 0.1 and gain.lam == 0.0
    assert (est.value, est.low, est.high) == (alone.value, alone.low, alone.high)
    assert gain.line.startswith("the machine grades added nothing here")


def test_a_good_judge_whose_slope_cannot_be_told_from_one_is_plain_ppi():
    """20 draws, the judge wrong on two: the slope of the draws is below 1 by less than its own noise, so every draw
    takes lambda 1 (plain PPI), which costs nothing to estimate."""
    judge_all, human, judge = _data(15, 0.9, n=20)
    slope = power_tuning(np.stack([np.ones(20), human, judge]))
    est, gain = ppi_mean(judge_all, human, judge, boot=1000)
    plain, _ = ppi_mean(judge_all, human, judge, boot=1000, lam=1)
    assert 0.5 < slope < 1 and gain.lam == 1.0
    assert (est.value, est.low, est.high) == (plain.value, plain.low, plain.high)


def test_a_draw_whose_judge_value_no_other_draw_has_is_weighed_by_the_slope_of_all():
    """The judge matched six draws, five preferring the bundle and one a tie: without the tie the judge never varies
    and leaves no slope to fit, so the tie takes the slope of all (1), not 0, which pulled the figure to 0.833,
    below both the judge's 0.9 and people's 0.917."""
    human = np.array([1.0] * 5 + [0.5])
    judge_all = np.array([1.0] * 8 + [0.5] * 2)
    est, gain = ppi_mean(judge_all, human, human.copy(), boot=500)
    assert gain.lam == 1.0 and est.value == pytest.approx(0.9)
