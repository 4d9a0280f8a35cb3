"""Bias probes against hand-computed cases: grade inflation (judge vs people pass rates on the same items) and
verbosity (agreement by answer length tercile)."""

from __future__ import annotations

import pytest

from gradedesk.core.agreement.machine_bias import grade_inflation, verbosity
from gradedesk.core.stats.bias import LengthItem, terciles
from gradedesk.core.grading.vocabulary import GRADES

FC, PC, UN, WR = GRADES


def test_inflation_hand_computed():
    # people pass 4 of 10; the judge passes those 4 and 1 more (5 of 10): 25% more than people, +0.1
    people = [FC] * 4 + [PC, PC, UN, UN, WR, WR]
    judge = [FC] * 4 + [FC, PC, UN, WR, WR, WR]
    f = grade_inflation(people, judge, boot=2000, seed=3)
    assert f["person_pass_rate"]["value"] == pytest.approx(0.4)
    assert f["judge_pass_rate"]["value"] == pytest.approx(0.5)
    assert f["pass_rate_difference"]["value"] == pytest.approx(0.1)
    assert f["pass_rate_ratio"]["value"] == pytest.approx(1.25)
    # resampling items keeps the pairs: the judge never passes less than people here, so the difference never < 0
    d = f["pass_rate_difference"]
    assert d["low"] == pytest.approx(0.0) and d["low"] <= d["value"] <= d["high"] <= 0.4


def test_inflation_when_people_pass_nothing():
    f = grade_inflation([WR, WR], [FC, WR], boot=100)
    assert f["pass_rate_difference"]["value"] == pytest.approx(0.5)
    assert f["pass_rate_ratio"]["value"] is None
    assert "people passed no item" in f["pass_rate_ratio"]["reason"]
    assert grade_inflation([], [], boot=100)["judge_pass_rate"]["reason"] == "no items graded by both"


def test_terciles_split_by_length_as_evenly_as_possible():
    items = [LengthItem(n, FC, FC) for n in (50, 10, 40, 20, 30, 70, 60)]
    assert [[i.length for i in t] for t in terciles(items)] == [[10, 20, 30], [40, 50], [60, 70]]
    assert terciles([]) == [[], [], []]


def test_verbosity_hand_computed():
    # a judge that agrees on short answers and passes every long one
    short = [LengthItem(5, g, g) for g in (FC, PC, UN)]
    middle = [LengthItem(20, FC, FC), LengthItem(21, WR, PC), LengthItem(22, WR, WR)]
    long = [LengthItem(90, g, FC) for g in (FC, PC, UN)]
    rows = verbosity(short + long + middle, boot=200)
    assert [(r["tercile"], r["n"], r["min_length"], r["max_length"]) for r in rows] == [
        ("shortest third", 3, 5, 5), ("middle third", 3, 20, 22), ("longest third", 3, 90, 90)]
    assert [r["percent_agreement"]["value"] for r in rows] == pytest.approx([1.0, 2 / 3, 1 / 3])
    assert [r["judge_pass_rate"]["value"] for r in rows] == pytest.approx([1 / 3, 1 / 3, 1.0])
    assert [r["person_pass_rate"]["value"] for r in rows] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert rows[2]["cohen_kappa"]["value"] == pytest.approx(0.0)  # the judge gives one grade to every long answer
    assert verbosity([], boot=10)[0]["percent_agreement"]["reason"] == "no items graded by both"
