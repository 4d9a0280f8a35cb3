"""core/stats/weighted.py: inverse-probability weighted agreement and prediction-powered pass rates."""

from __future__ import annotations

import numpy as np
import pytest

from gradedesk.core.stats.measures import estimates, finish, pair_measures, score_interval, t_quantile
from gradedesk.core.stats.weighted import (_resampled_matrices, first_stage_clusters, kish_effective_n, ppi_mean,
                                           weighted_estimates, weighted_matrix, weighted_mean)
from gradedesk.core.review.sampler import draw_probabilities


def test_weighted_matrix_sums_weights_per_cell():
    cm = weighted_matrix(np.array([0, 0, 3, 1]), np.array([1.0, 2.0, 0.5, 4.0]), 2)
    assert cm.tolist() == [[3.0, 4.0], [0.0, 0.5]]


def test_equal_weights_give_the_unweighted_values():
    cells = np.array([0, 0, 0, 3, 3, 1, 2, 0])
    cm = np.bincount(cells, minlength=4).reshape(2, 2)
    plain = estimates(cm, pair_measures(), boot=0)
    weighted = weighted_estimates(cells, np.full(cells.size, 7.0), 2, pair_measures(), boot=0)
    for name, est in plain.items():
        assert weighted[name].value == pytest.approx(est.value)


def test_hand_computed_weighted_agreement():
    # two agreeing draws of weight 1 and one disagreeing draw of weight 2: agreement (1 + 1) / (1 + 1 + 2) = 0.5
    est = weighted_estimates([0, 3, 1], [1.0, 1.0, 2.0], 2, pair_measures(), boot=200)["percent_agreement"]
    assert est.value == pytest.approx(0.5) and est.n == 3 and est.low <= 0.5 <= est.high


def test_no_draws_is_not_defined_not_zero():
    est = weighted_estimates([], [], 2, pair_measures())["cohen_kappa"]
    assert est.value is None and est.reason


def test_kish_effective_n():
    assert kish_effective_n(np.ones(10)) == pytest.approx(10)
    assert kish_effective_n(np.array([1.0, 1.0, 2.0])) == pytest.approx(16 / 6)


def test_ppi_mean_by_hand():
    # the judge passes 6 of 10 answers; on 4 human-graded ones it passed one the person failed: rectifier -1/4
    est, gain = ppi_mean([1] * 6 + [0] * 4, human=[1, 0, 0, 1], judge_on_sample=[1, 1, 0, 1], boot=500, lam=1)
    assert est.value == pytest.approx(0.6 - 0.25)
    assert est.low <= est.value <= est.high and gain.lam == 1 and gain.people_alone.value == pytest.approx(0.5)


def test_ppi_with_a_perfect_judge_is_worth_more_than_its_human_grades():
    rng = np.random.default_rng(3)
    judge_all = rng.random(5000) < 0.7
    sample = rng.choice(5000, 50, replace=False)
    est, gain = ppi_mean(judge_all, judge_all[sample], judge_all[sample], boot=1000)
    assert est.value == pytest.approx(judge_all.mean()) and gain.lam > 0.9
    # the judge's 5,000 grades carry the precision; 50 human grades alone would not. How much is bounded by the
    # errors 50 draws could have missed (weighted._unseen_errors_var): a few hundred grades, not unbounded
    assert 50 * 4 < gain.worth_more < 50 * 10
    assert gain.line.startswith(f"the machine grades are worth {gain.worth_more} more graded items")


def test_sampler_keeps_every_item_possible_and_prefers_the_useful():
    probs = draw_probabilities([0.0, 0.1, 0.5])
    assert sum(probs) == pytest.approx(1) and min(probs) >= 0.2 / 3 - 1e-12 and probs[2] > probs[1] > probs[0]
    assert draw_probabilities([0, 0]) == [0.5, 0.5]


def test_clusters_resample_together_only_after_a_first_stage():
    assert first_stage_clusters([4, 5, 4], [1.0, 1.0, 1.0]) is None
    assert first_stage_clusters([4, 5, 4], [0.3, 0.3, 0.3]).tolist() == [4, 5, 4]
    # two draws of one item always together: every replicate takes both as often, so their cells stay equal
    cells, weights = np.array([0, 3, 1]), np.array([1.0, 1.0, 2.0])
    together = _resampled_matrices(cells, weights, 2, 300, 1, np.array([7, 7, 8]))[0]
    apart = _resampled_matrices(cells, weights, 2, 300, 1, None)[0]
    assert (together[:, 0, 0] == together[:, 1, 1]).all() and not (apart[:, 0, 0] == apart[:, 1, 1]).all()
    assert set(together.sum(axis=(1, 2))) == {4.0}  # two clusters of weight 2 each, whichever are taken


def test_ppi_resamples_a_first_stages_draws_by_question_as_a_hand_computed_cluster_bootstrap():
    data = np.random.default_rng(4)
    judge_all = (data.random(200) < 0.6).astype(float)
    questions = sorted(data.integers(0, 12, 40).tolist())  # 40 draws of 12 questions: most drawn again
    truth = data.random(12) < 0.5
    human = truth[questions].astype(float)
    judge = np.where(data.random(40) < 0.8, human, 1 - human)
    weights = data.uniform(1, 4, 40)
    clusters = first_stage_clusters(questions, [0.3] * 40)
    est, _ = ppi_mean(judge_all, human, judge, weights, boot=300, seed=11, clusters=clusters, lam=1)
    rect = human - judge
    value = judge_all.mean() + (weights * rect).sum() / weights.sum()
    # by hand, with the same seeded generator: the judge's mean held (it graded the whole run), as many questions as
    # were drawn taken with replacement, each with all its draws; Wilson's interval at the replicates' effective n
    keys = sorted(set(questions))
    taken = np.random.default_rng(11).integers(0, len(keys), size=(300, len(keys)))
    by_hand = []
    for b in range(300):
        members = [i for c in taken[b] for i, q in enumerate(questions) if q == keys[c]]
        by_hand.append(judge_all.mean() + sum(weights[i] * rect[i] for i in members)
                       / sum(weights[i] for i in members))
    question_weights = np.array([sum(w for w, q in zip(weights, questions) if q == key) for key in keys])
    replicates = np.clip(by_hand, 0.0, 1.0)
    expected = finish(value, 40, replicates, "",
                      score_interval(value, replicates, len(keys), kish_effective_n(question_weights)))
    assert est.value == pytest.approx(value) and 0 < est.low < est.value < est.high < 1
    assert (est.low, est.high) == (pytest.approx(expected.low), pytest.approx(expected.high))
    # draw by draw (every inclusion probability 1: no first stage) the interval is another, narrower here
    apart, _ = ppi_mean(judge_all, human, judge, weights, boot=300, seed=11,
                        clusters=first_stage_clusters(questions, [1.0] * 40), lam=1)
    assert apart.high - apart.low < est.high - est.low


def test_a_sample_that_shows_no_disagreement_still_gets_an_interval_wilsons_at_its_size():
    """30 draws that all agree: percentiles of the bootstrap give [1, 1]; the score interval gives Wilson's lower bound
    at n = 30 with Student's t for 29 degrees of freedom."""
    est = weighted_estimates([0] * 30, [1.0] * 30, 2, pair_measures(), boot=300)["percent_agreement"]
    t = t_quantile(29)
    assert est.value == 1.0 and est.high == 1.0 and est.low == pytest.approx(1 / (1 + t * t / 30))


def test_a_share_of_thirty_draws_covers_its_truth():
    """A share of 0.9 from 30 draws, the case where percentile intervals covered 88%: the score interval covers
    about 95% (400 samples: the Monte Carlo error is about 1.1 points)."""
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(400):
        agree = rng.random(30) < 0.9
        est = weighted_estimates(np.where(agree, 0, 1), np.ones(30), 2, pair_measures()[:1], boot=300,
                                 seed=int(rng.integers(1 << 30)))["percent_agreement"]
        covered += est.low <= 0.9 <= est.high
    assert covered / 400 >= 0.92


def test_a_difference_keeps_its_interval_inside_minus_one_to_one():
    """Bundled - raw near -1 (raw better on almost every question): the interval stays inside -1..1, and a difference
    of 0 is not a share's boundary (it gets an interval on both sides)."""
    judge_all = np.array([-1.0] * 90 + [0.0] * 10)
    human = np.array([-1.0] * 7 + [0.0])
    est, gain = ppi_mean(judge_all, human, human.copy(), boot=300, span=(-1.0, 1.0))
    assert -1 <= est.low < est.value < est.high < 0 and -1 <= gain.people_alone.low
    zero, _ = ppi_mean(np.zeros(100), np.array([1.0, -1.0, 0.0, 0.0] * 5), np.zeros(20), boot=300, span=(-1.0, 1.0))
    assert zero.value == 0 and zero.low < 0 < zero.high


def test_several_peoples_values_on_one_question_are_resampled_together():
    """Two people's preferences on each of 20 questions: resampled by question the interval is wider than one by one
    (the pairs agree, so 40 values hold only 20 questions' worth)."""
    values = np.repeat(np.random.default_rng(5).choice([0.0, 0.5, 1.0], 20), 2)
    questions = np.repeat(np.arange(20), 2)
    apart = weighted_mean(values, "none", boot=500)
    together = weighted_mean(values, "none", boot=500, clusters=questions)
    assert apart.value == together.value == pytest.approx(values.mean())
    assert (together.high - together.low) > 1.3 * (apart.high - apart.low)
    assert weighted_mean([], "nobody chose").reason == "nobody chose"


def test_one_question_alone_says_nothing_of_the_spread():
    """Three people who all preferred the bundle on one question printed 1.000 [1.000, 1.000]: one unit resampled is
    always itself. One question (one cluster, or one draw) gets the whole span, and the figure says more are needed."""
    one_question = weighted_mean([1.0, 1.0, 1.0], "none", None, 200, 1, [7, 7, 7])
    assert (one_question.value, one_question.low, one_question.high) == (1.0, 0.0, 1.0)
    assert one_question.more_for_target and one_question.more_for_target > 0
    assert (weighted_mean([0.0], "none").low, weighted_mean([0.0], "none").high) == (0.0, 1.0)
    three_questions = weighted_mean([1.0, 1.0, 1.0], "none", None, 200, 1, [7, 8, 9])
    assert 0.0 < three_questions.low < 1.0 and three_questions.high == 1.0
