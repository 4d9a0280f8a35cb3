"""core/stats/ against reference values: scikit-learn (kappa), krippendorff (alpha), hand-computed AC1 and
Rogan-Gladen, and the edge cases that must give a value or a reason, never NaN."""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from gradedesk.core.stats import rogan_gladen as rogan_gladen_mod
from gradedesk.core.stats import krippendorff as alpha_mod
from gradedesk.core.stats import measures as agree
from gradedesk.core.grading.vocabulary import GRADES


def _pairs(seed: int, n: int, noise: float) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    people = [rng.choice(GRADES) for _ in range(n)]
    judge = [g if rng.random() > noise else rng.choice(GRADES) for g in people]
    return people, judge


def _measures(cm, **kw):
    return agree.estimates(cm, agree.pair_measures(), **kw)


@pytest.mark.parametrize("seed,noise", [(1, 0.2), (2, 0.5), (3, 0.9), (4, 0.0)])
@pytest.mark.parametrize("weights,name", [(None, "cohen_kappa"), ("linear", "kappa_linear"),
                                          ("quadratic", "kappa_quadratic")])
def test_kappa_matches_sklearn(seed, noise, weights, name):
    people, judge = _pairs(seed, 60, noise)
    cm = agree.confusion_matrix(people, judge, GRADES)
    got = _measures(cm, boot=0)[name].value
    want = cohen_kappa_score(people, judge, labels=list(GRADES), weights=weights)
    assert got == pytest.approx(want, abs=1e-12)


def test_binary_kappa_matches_sklearn():
    people, judge = _pairs(7, 80, 0.4)
    cm2 = agree.collapse_binary(agree.confusion_matrix(people, judge, GRADES))
    bp = [g == "fully_correct" for g in people]
    bj = [g == "fully_correct" for g in judge]
    assert cm2.sum() == 80
    assert cm2[0, 0] == sum(a and b for a, b in zip(bp, bj))
    assert _measures(cm2, boot=0)["cohen_kappa"].value == pytest.approx(cohen_kappa_score(bp, bj))


def test_ac1_hand_computed():
    # pa = 0.7; margins rows (.6, .4), cols (.7, .3); pi = (.65, .35); pe = 2 * .65 * .35 / 1 = .455
    cm = np.array([[5, 1], [2, 2]])
    assert _measures(cm, boot=0)["gwet_ac1"].value == pytest.approx((0.7 - 0.455) / (1 - 0.455))
    # four classes: pe divides by q - 1 = 3
    cm4 = np.diag([3, 1, 0, 0])
    cm4[0, 1] = 1  # pa = 4/5; pi = (4/5, 1/5, 0, 0) averaged over margins: rows (.8,.2), cols (.6,.4) -> (.7,.3)
    pe = (0.7 * 0.3 + 0.3 * 0.7) / 3
    assert _measures(cm4, boot=0)["gwet_ac1"].value == pytest.approx((0.8 - pe) / (1 - pe))


def test_precision_recall_and_binary_rates():
    cm = np.array([[8, 2, 0, 0], [1, 3, 0, 0], [0, 0, 0, 0], [1, 0, 0, 5]])
    est = agree.estimates(cm, agree.class_measures(GRADES), boot=0)
    assert est["precision:fully_correct"].value == pytest.approx(8 / 10)
    assert est["recall:fully_correct"].value == pytest.approx(8 / 10)
    assert est["recall:wrong"].value == pytest.approx(5 / 6)
    assert est["recall:unsupported"].value is None
    assert est["recall:unsupported"].reason == "the person never gave unsupported"
    assert est["precision:unsupported"].reason == "the judge never gave unsupported"
    rates = agree.estimates(agree.collapse_binary(cm), agree.binary_rates(), boot=0)
    assert rates["tpr"].value == pytest.approx(8 / 10)
    assert rates["tnr"].value == pytest.approx(8 / 10)  # 10 failed by the person, 2 of them passed by the judge
    # a person who passed every item leaves TNR undefined, and the reason says so
    only_passes = agree.estimates(np.array([[3, 1], [0, 0]]), agree.binary_rates(), boot=0)
    assert only_passes["tnr"].value is None and only_passes["tnr"].reason == "the person failed no item"
    only_fails = agree.estimates(np.array([[0, 0], [2, 1]]), agree.binary_rates(), boot=0)
    assert only_fails["tpr"].reason == "the person passed no item"


def test_bootstrap_interval_is_seeded_and_contains_value():
    people, judge = _pairs(11, 120, 0.4)
    cm = agree.confusion_matrix(people, judge, GRADES)
    a = _measures(cm, boot=500, seed=5)
    b = _measures(cm, boot=500, seed=5)
    c = _measures(cm, boot=500, seed=6)
    k = a["cohen_kappa"]
    assert k.to_dict() == b["cohen_kappa"].to_dict()
    assert k.low != c["cohen_kappa"].low
    assert k.low < k.value < k.high
    half = (k.high - k.low) / 2
    assert half > 0.05
    assert k.more_for_target == math.ceil(120 * (half / 0.05) ** 2) - 120


def test_more_items_needed():
    assert agree.more_items_needed(100, 0.4, 0.6) == 300  # half-width .1 -> (.1/.05)^2 = 4x the items
    assert agree.more_items_needed(100, 0.48, 0.52) == 0
    assert agree.more_items_needed(0, None, None) is None


@pytest.mark.parametrize("cm,name,reason", [
    (np.zeros((4, 4), dtype=int), "cohen_kappa", agree.NO_ITEMS),
    (np.zeros((4, 4), dtype=int), "percent_agreement", agree.NO_ITEMS),
    (np.zeros((4, 4), dtype=int), "gwet_ac1", agree.NO_ITEMS),
    (np.diag([5, 0, 0, 0]), "cohen_kappa", agree.KAPPA_UNDEFINED),
    (np.diag([5, 0, 0, 0]), "kappa_quadratic", agree.KAPPA_UNDEFINED),
])
def test_undefined_gives_reason_not_nan(cm, name, reason):
    est = _measures(cm, boot=200)[name]
    assert est.value is None and est.reason == reason
    assert est.low is None and est.high is None
    assert "not defined" in est.text()


def test_one_class_only_ac1_and_percent_defined():
    est = _measures(np.diag([5, 0, 0, 0]), boot=200)
    assert est["percent_agreement"].value == 1.0
    assert est["gwet_ac1"].value == 1.0


def test_all_agree_and_single_item():
    est = _measures(np.diag([3, 2, 1, 4]), boot=200)
    assert est["cohen_kappa"].value == 1.0
    assert est["cohen_kappa"].low == est["cohen_kappa"].high == 1.0
    assert est["cohen_kappa"].more_for_target == 0
    one = np.zeros((4, 4), dtype=int)
    one[0, 1] = 1
    single = _measures(one, boot=200)
    assert single["percent_agreement"].value == 0.0
    assert single["cohen_kappa"].value == 0.0  # po = 0, pe = 0
    for e in single.values():
        assert e.value is None or not math.isnan(e.value)


def _kripp_reference(units: list[list[int | None]]) -> float:
    data = np.array([[np.nan if v is None else v for v in row] for row in zip(*units)], dtype=float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_krippendorff_alpha_matches_package(seed):
    rng = random.Random(seed)
    units = []  # rows: items; columns: three people, some missing
    for _ in range(40):
        truth = rng.randrange(4)
        units.append([None if rng.random() < 0.2 else min(3, max(0, truth + rng.choice([-1, 0, 0, 1])))
                      for _ in range(3)])
    ours = alpha_mod.krippendorff_alpha_ordinal([[v for v in u if v is not None] for u in units], 4, boot=300)
    assert ours.value == pytest.approx(_kripp_reference(units), abs=1e-9)
    assert ours.low < ours.value < ours.high


def test_krippendorff_edge_cases():
    assert alpha_mod.krippendorff_alpha_ordinal([[0], [1]], 4).reason == "no item was graded by two or more people"
    same = alpha_mod.krippendorff_alpha_ordinal([[2, 2], [2, 2, 2]], 4)
    assert same.value is None and "same" in same.reason
    perfect = alpha_mod.krippendorff_alpha_ordinal([[0, 0], [3, 3], [1, 1]], 4, boot=100)
    assert perfect.value == pytest.approx(1.0)


def test_rogan_gladen_hand_computed():
    assert float(rogan_gladen_mod.rogan_gladen(0.6, 0.9, 0.8)) == pytest.approx(0.4 / 0.7)
    assert float(rogan_gladen_mod.rogan_gladen(0.05, 0.9, 0.8)) == 0.0  # clipped
    assert math.isnan(float(rogan_gladen_mod.rogan_gladen(0.5, 0.5, 0.5)))


def test_corrected_pass_rate():
    calib = np.array([[45, 5], [10, 40]])  # TPR .9, TNR .8
    est = rogan_gladen_mod.corrected_pass_rate(calib, passed=60, judged=100, boot=1000, seed=1)
    assert est.value == pytest.approx(0.4 / 0.7)
    assert est.low < est.value < est.high
    assert est.n == 100


def test_corrected_pass_rate_refuses_chance_judge():
    calib = np.array([[5, 5], [5, 5]])  # TPR .5 + TNR .5 = 1
    est = rogan_gladen_mod.corrected_pass_rate(calib, passed=10, judged=20)
    assert est.value is None and "TPR + TNR" in est.reason and "<= 1" in est.reason
    assert "passed no" in rogan_gladen_mod.corrected_pass_rate(np.array([[0, 0], [3, 3]]), 1, 2).reason
    assert "no answer" in rogan_gladen_mod.corrected_pass_rate(np.zeros((2, 2)), 1, 2).reason
    assert rogan_gladen_mod.corrected_pass_rate(calib, 0, 0).reason == "no answer of this kind has a machine grade"


def test_corrected_difference():
    calib = np.array([[45, 5], [10, 40]])
    paired = np.array([[30, 5], [20, 45]])  # raw passes 35/100, bundle passes 50/100
    est = rogan_gladen_mod.corrected_difference(calib, paired, boot=1000, seed=2)
    want = float(rogan_gladen_mod.rogan_gladen(0.5, 0.9, 0.8) - rogan_gladen_mod.rogan_gladen(0.35, 0.9, 0.8))
    assert est.value == pytest.approx(want)
    assert est.low < est.value < est.high
    assert rogan_gladen_mod.corrected_difference(np.array([[5, 5], [5, 5]]), paired).value is None


def test_proportion():
    est = agree.proportion(3, 10, "nothing", boot=500, seed=1)
    assert est.value == pytest.approx(0.3) and est.low < 0.3 < est.high
    assert agree.proportion(0, 0, "nothing to count").reason == "nothing to count"
