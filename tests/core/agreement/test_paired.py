"""Two judges on the same items: each one's agreement and new - base, checked against hand-computed values, and the
paired bootstrap's intervals against what pairing must give."""

from __future__ import annotations

import numpy as np
import pytest

from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.paired_graders import paired_grader_estimates, paired_table
from gradedesk.core.grading.vocabulary import GRADES

FC, PC, UN, WR = GRADES
PEOPLE = [FC, FC, FC, PC, PC, UN, UN, WR, WR, WR]
BASE = [FC] * 10                                      # a lenient judge
NEW = [FC, FC, PC, PC, PC, UN, WR, WR, WR, WR]        # right on 8 of 10
FOUR = [m for m in agree.pair_measures() if m.name in ("percent_agreement", "cohen_kappa", "gwet_ac1")]


def figures(people, a, b, boot=2000, seed=5):
    table = paired_table(people, a, b, GRADES)
    return {**paired_grader_estimates(table, FOUR, boot, seed),
            **paired_grader_estimates(table, agree.binary_rates(), boot, seed, positive=0)}


def test_hand_computed_values():
    f = figures(PEOPLE, BASE, NEW, boot=0)
    assert f["percent_agreement"].a.value == pytest.approx(0.3)
    assert f["percent_agreement"].b.value == pytest.approx(0.8)
    assert f["percent_agreement"].difference.value == pytest.approx(0.5)
    # new: person margins (3, 2, 2, 3)/10, judge margins (2, 3, 1, 4)/10 -> pe = .26; kappa = (.8 - .26) / .74
    assert f["cohen_kappa"].b.value == pytest.approx(0.54 / 0.74)
    assert f["cohen_kappa"].a.value == pytest.approx(0.0)  # one grade for everything: no better than chance
    # AC1 new: pi = (.25, .25, .15, .35), pe = sum pi (1 - pi) / 3 = .73 / 3
    assert f["gwet_ac1"].b.value == pytest.approx((0.8 - 0.73 / 3) / (1 - 0.73 / 3))
    # AC1 base: pi = (.65, .1, .1, .15), pe = .535 / 3
    assert f["gwet_ac1"].a.value == pytest.approx((0.3 - 0.535 / 3) / (1 - 0.535 / 3))
    # pass = fully_correct: the person passed items 1-3; base passes everything, new passes items 1-2
    assert (f["tpr"].a.value, f["tnr"].a.value) == (1.0, 0.0)
    assert f["tpr"].b.value == pytest.approx(2 / 3) and f["tnr"].b.value == 1.0
    assert f["tpr"].difference.value == pytest.approx(-1 / 3) and f["tnr"].difference.value == 1.0
    assert all(p.a.n == p.b.n == p.difference.n == 10 for p in f.values())


def test_the_same_judge_twice_differs_by_exactly_nothing():
    f = figures(PEOPLE, NEW, NEW)
    for p in f.values():
        assert (p.difference.value, p.difference.low, p.difference.high) == (0.0, 0.0, 0.0)


def test_an_improvement_on_six_of_twenty_items_excludes_zero():
    people = [FC, PC, UN, WR] * 5
    base = [FC] * 20
    new = list(base)
    for i in (1, 2, 3, 5, 6, 7):  # fixed six items base got wrong
        new[i] = people[i]
    d = figures(people, base, new)["percent_agreement"].difference
    assert d.value == pytest.approx(0.3)
    # d is +1 on 6 items, 0 elsewhere: its mean resampled is Binomial(20, .3)/20, whose 2.5% point is 0.1
    assert d.low == pytest.approx(0.1, abs=0.051) and d.low > 0
    assert d.high == pytest.approx(0.5, abs=0.051)


def test_pairing_narrows_the_interval_when_both_judges_err_on_the_same_items():
    rng = np.random.default_rng(1)
    people = list(rng.choice(GRADES, 80))
    base = [p if rng.random() < 0.6 else GRADES[(GRADES.index(p) + 1) % 4] for p in people]
    new = list(base)
    wrong = [i for i in range(80) if base[i] != people[i]]
    for i in wrong[:6]:
        new[i] = people[i]
    paired = figures(people, base, new)["percent_agreement"].difference
    # the same figures from two independent bootstraps (what ignoring the pairing would give)
    m = FOUR[0]
    cm_base = agree.confusion_matrix(people, base, GRADES)
    cm_new = agree.confusion_matrix(people, new, GRADES)
    unpaired = m.fn(agree.resample_matrices(cm_new, 2000, 11)) - m.fn(agree.resample_matrices(cm_base, 2000, 12))
    low, high = agree.interval(unpaired)
    assert paired.value == pytest.approx(6 / 80)
    assert paired.low > 0 > low  # paired, the 6 fixes are a real improvement; unpaired, the noise hides them
    assert (paired.high - paired.low) < (high - low) / 2


def test_undefined_measures_say_why_for_the_difference():
    f = figures([FC, FC], [FC, FC], [FC, PC])
    assert f["cohen_kappa"].a.value is None
    assert f["cohen_kappa"].difference.value is None
    assert f["cohen_kappa"].difference.reason.startswith("A: both graders gave one and the same grade")
    assert f["tnr"].difference.reason == "the person failed no item"  # the same reason for both: said once
    named = paired_grader_estimates(paired_table([FC, FC], [FC, FC], [FC, PC], GRADES), FOUR, 10, names=("base", "new"))
    assert named["cohen_kappa"].difference.reason.startswith("base: both graders gave one and the same grade")
    empty = figures([], [], [])
    assert empty["percent_agreement"].difference.reason == "no items graded by both"
    with pytest.raises(ValueError):
        paired_table([FC], [FC, FC], [FC], GRADES)
