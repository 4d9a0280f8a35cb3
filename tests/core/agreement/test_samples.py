"""core/agreement/samples.py and the sampler's draws on a real store: each figure names the sample it rests on."""

from __future__ import annotations

import numpy as np
import pytest

from gradedesk.core.agreement.report import agreement_report
from gradedesk.core.grading.human_grades import GradeChange, record_grade, record_preference
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.stats.weighted import cross_fitted_lambdas
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info

from tests.fixtures.agreement import add_auto, add_rubric, build_sampling_run, grade_sampled

FC, PC, UN, WR = GRADES


def build(path):
    """Twelve questions; the judge is unsure of the first four (confidence 0.55) and sure of the rest (0.95)."""
    store = open_store(path)
    run, answers = build_sampling_run(store)
    return store, run_info(store, run), answers


@pytest.fixture
def run_store(tmp_path):
    store, run, answers = build(tmp_path / "store.db")
    yield store, run, answers
    store.close()


def _grade_question(store, answers, qpk, grade, *, selection, probability=None, grader="alice"):
    for answer_id in answers[qpk]:
        record_grade(store, answer_id, grader, GradeChange(grade=grade), selection=selection,
                     selection_probability=probability)


def test_draws_are_reproducible_prefer_the_unsure_and_count_graded_questions_again(run_store, tmp_path):
    store, run, answers = run_store
    first = draw_next(store, run, "alice")
    assert first is not None and first.population == 12 and first.draw_index == 0
    from gradedesk.core.review.sampler import draw_probabilities, question_usefulness

    pks, usefulness = question_usefulness(store, run)
    probabilities = dict(zip(pks, draw_probabilities(usefulness)))
    unsure, sure = sorted(answers)[:4], sorted(answers)[4:]
    assert min(probabilities[q] for q in unsure) > max(probabilities[q] for q in sure) >= 0.2 / 12
    assert first.probability == pytest.approx(probabilities[first.question_pk])
    # the same run seed and grader give the same draws in another store built the same way
    other, other_run, _ = build(tmp_path / "other.db")
    assert draw_next(other, other_run, "alice") == first
    other.close()
    # grade everything but one question: the next draw may land on graded ones (stored, counted) before that one
    last = sorted(answers)[-1]
    for qpk in answers:
        if qpk != last:
            _grade_question(store, answers, qpk, FC, selection="question_order")
    nxt = draw_next(store, run, "alice")
    assert nxt.question_pk == last
    drawn = [r["question_pk"] for r in store._query("SELECT question_pk FROM sample_draws ORDER BY draw_index")]
    assert drawn[-1] == last and len(drawn) >= 2
    _grade_question(store, answers, last, FC, selection="question_order")
    assert draw_next(store, run, "alice", max_draws=50) is None  # everything graded


def test_with_a_rubric_version_chosen_usefulness_follows_that_rubrics_verdicts(run_store):
    """The desk shows the judge's verdicts under the rubric version the person chose: the draw weighs by those, not by
    the newest verdicts (a newer rubric that is sure of everything would otherwise flatten the draw)."""
    from gradedesk.core.review.sampler import question_usefulness

    store, run, answers = run_store
    sure = sorted(answers)[4:]
    add_rubric(store, "r-old", "2026-11-01T00:00:00+00:00")
    add_rubric(store, "r-new", "2026-11-02T00:00:00+00:00")
    for qpk in answers:  # the older rubric: unsure of the last four questions only
        for answer_id in answers[qpk]:
            add_auto(store, answer_id, FC, confidence=0.5 if qpk in sure[-4:] else 0.99, rubric="r-old")
    for qpk in answers:  # the newest rubric: sure of everything
        for answer_id in answers[qpk]:
            add_auto(store, answer_id, FC, confidence=0.99, rubric="r-new")
    pks, newest = question_usefulness(store, run)
    assert max(newest) - min(newest) < 1e-9
    pks_old, old = question_usefulness(store, run, judge_rubric="r-old")
    by_pk = dict(zip(pks_old, old))
    assert pks_old == pks and min(by_pk[q] for q in sure[-4:]) > max(by_pk[q] for q in answers if q not in sure[-4:])
    first = draw_next(store, run, "alice", judge_rubric="r-old")
    assert first.probability == pytest.approx(0.2 / 12 + 0.8 * by_pk[first.question_pk] / sum(old))


def test_sampled_figures_are_weighted_and_other_samples_are_reported_apart(run_store):
    store, run, answers = run_store
    for _ in range(6):
        d = draw_next(store, run, "alice")
        # alice agrees with the judge except on the unsure questions' raw answers
        raw, bundle = answers[d.question_pk]
        judge_raw = store._scalar("SELECT grade FROM machine_grades WHERE answer_id = ?", (raw,))
        unsure = store._scalar("SELECT confidence FROM machine_grades WHERE answer_id = ?", (raw,)) < 0.9
        record_grade(store, raw, "alice", GradeChange(grade=PC if unsure else judge_raw), selection="sampled",
                     selection_probability=d.probability)
        record_grade(store, bundle, "alice", GradeChange(grade=FC), selection="sampled",
                     selection_probability=d.probability)
    ungraded = [q for q in answers if store._scalar(
        "SELECT count(*) FROM current_human_grades WHERE answer_id = ?", (answers[q][0],)) == 0]
    _grade_question(store, answers, ungraded[0], WR, selection="jump")
    report = agreement_report(store, run.id)
    samples = report["samples"]
    sampled = samples["sampled"]
    assert sampled["draws"] >= 6 and sampled["graded_draws"] >= 6 and sampled["pairs"] >= 12
    assert sampled["four_level"]["percent_agreement"]["value"] is not None
    assert 0 < sampled["kish_effective_n"] <= sampled["pairs"]
    apart = {a["selection"]: a for a in samples["apart"]}
    assert apart["jump"]["pairs"] == 2 and "convenience" in apart["jump"]["sample"]
    assert "sampled" not in apart
    rates = {r["method"]: r for r in samples["pass_rates"]}
    assert rates["raw"]["judged"] == 12 and rates["raw"]["human_sampled"] >= 6
    assert rates["bundle"]["ppi"]["value"] == pytest.approx(1.0)  # judge and person both pass every bundle


def test_position_bias_and_anchoring(run_store):
    store, run, answers = run_store
    for i, qpk in enumerate(sorted(answers)):
        record_preference(store, run.id, qpk, "alice", "raw", left="raw" if i < 9 else "bundle")
    report = agreement_report(store, run.id)["samples"]
    assert report["position_bias"]["preferences"] == 12
    assert report["position_bias"]["preferred_left"]["value"] == pytest.approx(9 / 12)
    assert report["anchoring"]["difference"]["value"] is None  # no revealed grades yet
    raw0, _ = answers[sorted(answers)[0]]
    record_grade(store, raw0, "alice", GradeChange(grade=WR), mode="open", judge_visible=True)
    raw1, _ = answers[sorted(answers)[1]]
    record_grade(store, raw1, "alice", GradeChange(grade=PC))
    anchoring = agreement_report(store, run.id)["samples"]["anchoring"]
    assert anchoring["open"]["value"] == 1.0 and anchoring["blind"]["value"] == 0.0
    assert anchoring["difference"]["value"] == 1.0


def test_a_sampled_grade_needs_its_probability(run_store):
    from gradedesk.core.errors import UserError

    store, run, answers = run_store
    raw, _ = next(iter(answers.values()))
    with pytest.raises(UserError, match="selection_probability"):
        record_grade(store, raw, "alice", GradeChange(grade=FC), selection="sampled")
    with pytest.raises(UserError, match="selection"):
        record_grade(store, raw, "alice", GradeChange(grade=FC), selection="by magic")


def test_the_sampled_figures_and_pass_rates_use_the_chosen_grader(tmp_path):
    """Two judges that disagree: `--grader` on a store with both gives the samples section of a store where the chosen
    judge is the only machine grader."""
    import shutil

    from gradedesk.core.agreement.grade_pairs import GraderChoice
    from gradedesk.core.agreement.report import Settings

    both, only_first, only_second = (tmp_path / f"{name}.db" for name in ("both", "first", "second"))
    with open_store(both) as store:
        run, answers = build_sampling_run(store)  # judge-model: fails every third raw answer, passes every bundle
        grade_sampled(store, run, answers, "carol", 8)
    shutil.copy(both, only_first)
    shutil.copy(both, only_second)
    with open_store(only_second) as store:
        store._conn.execute("DELETE FROM auto_grades")
    for path in (both, only_second):  # judge-b fails every answer
        with open_store(path) as store:
            for raw, bundle in answers.values():
                add_auto(store, raw, WR, model="judge-b")
                add_auto(store, bundle, WR, model="judge-b")
    settings = Settings(boot=200)

    def samples(path, grader=None) -> dict:
        with open_store(path) as store:
            return agreement_report(store, run, settings, grader and GraderChoice.parse(grader))["samples"]

    first, second = samples(only_first), samples(only_second)
    assert first["sampled"]["binary"] != second["sampled"]["binary"]
    assert [r["ppi"] for r in first["pass_rates"]] != [r["ppi"] for r in second["pass_rates"]]
    assert samples(both, "judge:judge-model") == first
    assert samples(both, "judge:judge-b") == second


def test_bundle_minus_raw_is_the_judges_difference_corrected_by_the_draws_that_graded_both(run_store):
    """Prediction-powered bundled - raw on the same questions: the weighted mean over the draws of (person's
    difference - lambda * (judge's - the judge's mean difference over every question it graded both answers of))."""
    from gradedesk.core.store.samples import sample_draws

    store, run, answers = run_store
    grade_sampled(store, run.id, answers, "alice", 6)
    difference = agreement_report(store, run.id)["samples"]["bundle_minus_raw"]

    def passed(answer_id, table):
        return float(store._scalar(f"SELECT grade FROM {table} WHERE answer_id = ?", (answer_id,)) == FC)

    judge_all = [passed(b, "machine_grades") - passed(r, "machine_grades") for r, b in answers.values()]
    draws = sample_draws(store, run.id)
    weights = [1 / (d.inclusion_probability * d.probability) for d in draws]
    people = [passed(answers[d.question_pk][1], "current_human_grades")
              - passed(answers[d.question_pk][0], "current_human_grades") for d in draws]
    judge = [judge_all[sorted(answers).index(d.question_pk)] for d in draws]
    # each draw is its own cluster (no first stage), weighed by the judge's weight chosen without it
    w, p, j = (np.array(x, dtype=float) for x in (weights, people, judge))
    lams = cross_fitted_lambdas(np.stack([w, w * p, w * j]))
    by_hand = float((w * (p - lams * (j - sum(judge_all) / 12))).sum() / w.sum())
    assert difference["judge_bought"]["lam"] == pytest.approx(float(np.average(lams, weights=w)))
    assert difference["method"] == "bundle - raw" and difference["budget"] == 2000
    assert difference["judged"] == 12 and difference["human_sampled"] == len(draws) == 6
    assert difference["ppi"]["value"] == pytest.approx(by_hand)
    assert -1 <= difference["ppi"]["low"] <= by_hand <= difference["ppi"]["high"] <= 1


def test_pass_rates_per_budget_each_corrected_by_its_own_draws():
    """Raw, then the bundled answers at each budget the machine grader graded, each corrected by the draws of its own
    answers (a draw at a budget samples the bundled answers at that budget)."""
    from gradedesk.core.agreement.grade_pairs import Pair
    from gradedesk.core.agreement.pass_rates import Arm
    from gradedesk.core.agreement.samples import _pass_rates
    from gradedesk.core.agreement.report import Settings

    def pair(qpk, method, budget, human, machine):
        return Pair(qpk * 10 + budget, qpk, "alice", human, machine, "c", method, budget, "", "blind", None, None,
                    "sampled")

    weighted = [(pair(q, "raw", 500, FC if q % 2 else WR, FC), 2.0, 1.0) for q in range(6)]
    weighted += [(pair(q, "bundle", 500, FC if q % 3 else WR, FC), 2.0, 1.0) for q in range(6)]
    weighted += [(pair(q, "bundle", 1000, FC, FC), 3.0, 1.0) for q in range(4)]
    arms = [Arm("raw", 500, judged=20, passed=15), Arm("bundle", 500, judged=20, passed=20),
            Arm("bundle", 1000, judged=20, passed=20), Arm("bundle", 2000)]  # 2000: answered, not graded
    rates = _pass_rates(weighted, arms, Settings(boot=300))
    assert [(r.method, r.budget, r.judged, r.human_sampled) for r in rates] == [
        ("raw", None, 20, 6), ("bundle", 500, 20, 6), ("bundle", 1000, 20, 4)]
    assert rates[2].ppi.value == pytest.approx(1.0)  # judge and people pass every bundle at 1000
    assert rates[1].ppi.value < 1.0  # people failed two of the six sampled bundles at 500 the judge passed
