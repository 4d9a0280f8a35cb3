"""core/agreement/report.py on a real store: pairs, breakdowns, switch rate, self-consistency, rubric flags, corrected rates."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from tests.fixtures.agreement import BOB, FC, PC, TABLE, add_auto, add_human, add_rubric, build
from gradedesk.core.stats import rogan_gladen as rogan_gladen_mod
from gradedesk.core.stats import measures as agree
from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_question, add_raw_answer, add_run

FAST = Settings(boot=300, seed=3)


def current_pairs() -> list[tuple[str, str, str, str]]:
    """(grader, method, person grade, judge grade) for every current grade, worked out from the story above."""
    alice = {(q, "raw"): t[3] for q, t in TABLE.items()} | {(q, "bundle"): t[4] for q, t in TABLE.items()}
    alice[("q3", "raw")], alice[("q6", "raw")] = PC, FC
    judge = {(q, "raw"): t[1] for q, t in TABLE.items()} | {(q, "bundle"): t[2] for q, t in TABLE.items()}
    out = [("alice", k[1], g, judge[k]) for k, g in alice.items()]
    return out + [("bob", k[1], g, judge[k]) for k, g in BOB.items()]


@pytest.fixture
def report(tmp_path):
    store, run, _ = build(tmp_path / "store.db")
    with store:
        yield agreement_report(store, run, FAST)


def test_headline_matches_references(report):
    pairs = current_pairs()
    people, judge = [p[2] for p in pairs], [p[3] for p in pairs]
    assert report["machine"] == {"kind": "judge", "label": "judge (judge-model)"}
    assert report["pairs"] == 16 and report["people"] == ["alice", "bob"]
    assert np.array_equal(report["confusion"]["matrix"], agree.confusion_matrix(people, judge, GRADES))
    four = report["four_level"]
    assert four["cohen_kappa"]["value"] == pytest.approx(cohen_kappa_score(people, judge, labels=list(GRADES)))
    assert four["kappa_quadratic"]["value"] == pytest.approx(
        cohen_kappa_score(people, judge, labels=list(GRADES), weights="quadratic"))
    assert four["percent_agreement"]["value"] == pytest.approx(sum(a == b for a, b in zip(people, judge)) / 16)
    assert four["cohen_kappa"]["low"] <= four["cohen_kappa"]["value"] <= four["cohen_kappa"]["high"]
    bp, bj = [g == FC for g in people], [g == FC for g in judge]
    assert report["binary"]["cohen_kappa"]["value"] == pytest.approx(cohen_kappa_score(bp, bj))
    assert report["binary"]["tpr"]["value"] == pytest.approx(
        sum(a and b for a, b in zip(bp, bj)) / sum(bp))


def test_breakdowns(report):
    by_method = {g["group"]: g for g in report["breakdowns"]["method"]}
    pairs = current_pairs()
    for method in ("raw", "bundle"):
        mine = [p for p in pairs if p[1] == method]
        assert by_method[method]["n"] == len(mine)
        assert by_method[method]["percent_agreement"]["value"] == pytest.approx(
            sum(p[2] == p[3] for p in mine) / len(mine))
    assert {g["group"] for g in report["breakdowns"]["category"]} == {"lookup", "explain"}
    assert {g["group"]: g["n"] for g in report["breakdowns"]["label"]} == {"(no label)": 12, "hallucination": 4}
    assert {g["group"] for g in report["breakdowns"]["mode"]} == {"blind", "open"}
    assert [p["group"] for p in report["people_agreement"]] == ["alice", "bob"]
    assert any("in view" in n for n in report["notes"])


def test_switch_rate_and_self_consistency(report):
    sw = report["switch_rate"]
    assert (sw["eligible"], sw["switched"], sw["toward_machine"], sw["away_from_machine"]) == (16, 2, 1, 1)
    assert sw["rate"]["value"] == pytest.approx(2 / 16)
    [alice] = report["self_consistency"]
    assert alice["grader"] == "alice" and alice["n"] == 2
    assert alice["percent_agreement"]["value"] == 0.5


def test_rubric_flags(report):
    rub = report["rubrics"]
    assert rub["current"] == "r2"
    assert [(f["question_id"], f["method"], f["grader"], f["rubric_version"]) for f in rub["flagged_for_regrading"]] \
        == [("q4", "raw", "alice", "r1")]
    assert {g["group"]: g["n"] for g in rub["per_version"]} == {"r1": 1, "r2": 15}
    assert rub["machine_grades_under_older_rubric"] == 0  # the judge graded everything under r2


def test_krippendorff_across_people(report):
    # answers graded by both: q1 raw, q2 raw, q3 raw (alice revised to partial), q5 bundle
    units = [[0, 0], [3, 3], [1, 1], [0, 1]]
    data = np.array(units, dtype=float).T
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3])
    assert report["krippendorff_alpha"]["value"] == pytest.approx(want)
    assert report["krippendorff_alpha"]["n"] == 4


def test_corrected_pass_rates(report):
    pairs = current_pairs()
    cm2 = agree.collapse_binary(agree.confusion_matrix([p[2] for p in pairs], [p[3] for p in pairs], GRADES))
    tpr, tnr = cm2[0, 0] / cm2[0].sum(), cm2[1, 1] / cm2[1].sum()
    corr = report["corrected_pass_rates"]
    assert corr["calibration"]["n"] == 16
    arms = {(a["method"], a["budget"]): a for a in corr["arms"]}
    assert set(arms) == {("raw", 0), ("bundle", 1000), ("bundle", 2000)}
    assert arms[("raw", 0)]["judge_passed"] == 2 and arms[("bundle", 2000)]["judge_passed"] == 4
    for arm in arms.values():
        c = arm["corrected"]
        if tpr + tnr > 1:
            assert c["value"] == pytest.approx(float(rogan_gladen_mod.rogan_gladen(arm["observed_rate"], tpr, tnr)))
        else:
            assert c["value"] is None and "TPR + TNR" in c["reason"]
    diff = corr["bundle_minus_raw"]
    assert diff["budget"] == 2000 and diff["paired_questions"] == 6


def test_quality_by_tokens(report):
    rows = {(r["method"], r["budget"]): r for r in report["quality_by_tokens"]}
    assert rows[("bundle", 2000)]["mean_tokens_in"] == 2100
    assert rows[("raw", 0)]["machine_pass_rate"] == pytest.approx(2 / 6)
    assert rows[("bundle", 1000)]["human_pass_rate"] is None


def test_rule_only_run_names_the_rule_grader(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        qpk = add_question(store, "q1", "q?", "g")
        a = add_raw_answer(store, run, qpk, "x", [])
        add_auto(store, a, FC, kind="rule", model="rules/1")
        add_human(store, a, "alice", FC)
        rep = agreement_report(store, run, FAST)
    assert rep["machine"]["label"] == "rule grader (rules/1)"
    assert any("rule grader" in n for n in rep["notes"])
    assert any("only 1 graded pair(s)" in n for n in rep["notes"])
    assert rep["four_level"]["cohen_kappa"]["value"] is None  # one item, one class: kappa not defined
    assert rep["four_level"]["percent_agreement"]["value"] == 1.0


def test_empty_run_gives_reasons_not_errors(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        rep = agreement_report(store, run, FAST)
    assert rep["pairs"] == 0 and rep["machine"]["kind"] is None
    assert rep["four_level"]["cohen_kappa"]["reason"] == agree.NO_ITEMS
    assert rep["corrected_pass_rates"] is None
    assert rep["krippendorff_alpha"]["value"] is None
    assert rep["switch_rate"]["rate"]["value"] is None
    assert any("no answer" in n for n in rep["notes"])


def test_machine_grades_under_an_older_rubric_are_counted(tmp_path):
    store, run, ids = build(tmp_path / "store.db")
    with store:
        add_auto(store, ids[("q1", "raw")], FC, kind="rule", model="rules/2", rubric="r1")
        report = agreement_report(store, run, FAST)
    assert report["rubrics"]["machine_grades_under_older_rubric"] == 1
    assert report["pairs"] == 16  # a rule grade never displaces the judge's


def test_machine_graded_but_nobody_graded_yet(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        for i, grade in enumerate((FC, FC, PC)):
            add_auto(store, add_raw_answer(store, run, add_question(store, f"q{i}", "q?", "g"), "x", []), grade)
        rep = agreement_report(store, run, FAST)
    assert rep["machine"]["label"] == "judge (judge-model)" and rep["pairs"] == 0
    [arm] = rep["corrected_pass_rates"]["arms"]
    assert arm["observed_rate"] == pytest.approx(2 / 3)
    assert arm["corrected"]["value"] is None and "no answer has both" in arm["corrected"]["reason"]
    assert rep["quality_by_tokens"][0]["machine_pass_rate"] == pytest.approx(2 / 3)


def test_imported_grades_are_named_and_long_flag_lists_are_cut(tmp_path):
    from gradedesk.core.agreement.tables import MAX_FLAGGED, rubric_table

    with open_store(tmp_path / "s.db") as store:
        add_rubric(store, "old", "2024-01-01T00:00:00+00:00")
        add_rubric(store, "new", "2024-02-01T00:00:00+00:00")
        run = add_run(store)
        for i in range(MAX_FLAGGED + 3):
            answer = add_raw_answer(store, run, add_question(store, f"q{i}", "q?", "g"), "x", [])
            add_auto(store, answer, FC, kind="imported", model="their-log.jsonl")
            add_human(store, answer, "alice", FC, rubric="old")
        rep = agreement_report(store, run, FAST)
    assert rep["machine"]["label"] == "imported grades (their-log.jsonl)"
    assert len(rep["rubrics"]["flagged_for_regrading"]) == MAX_FLAGGED + 3
    rows = rubric_table(rep).rows
    assert rows[-1][0] == "... and 3 more to re-grade (all of them: --json)"
    assert sum(str(r[0]).startswith("re-grade:") for r in rows) == MAX_FLAGGED


def test_an_unusable_judge_reply_is_no_verdict(tmp_path):
    """A grading_error is stored as `unsupported` (what a base model behind llama.cpp gives for every answer): it must
    neither agree nor disagree with a person, nor count as the judge failing the answer."""
    from gradedesk.core.grading.vocabulary import GRADING_ERROR
    from tests.fixtures.agreement import UN

    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        answers = [add_raw_answer(store, run, add_question(store, f"q{i}", "q?", "g"), "x", []) for i in range(4)]
        for a in answers[:2]:  # usable verdicts, both fully correct
            add_auto(store, a, FC, confidence=0.9)
        for a in answers[2:]:  # unusable replies
            add_auto(store, a, UN, label=GRADING_ERROR)
        for a in answers:
            add_human(store, a, "alice", FC)
        rep = agreement_report(store, run, FAST)
    assert rep["pairs"] == 2 and rep["four_level"]["percent_agreement"]["value"] == 1.0
    assert "2 person grade(s) are on answers whose machine grade is a grading_error (its reply could not be used) " \
           "and are not compared" in rep["notes"]
    assert not any("another kind of machine grader" in n for n in rep["notes"])
    [arm] = rep["corrected_pass_rates"]["arms"]
    assert arm["observed_rate"] == 1.0  # of the two verdicts, not 2 of 4
