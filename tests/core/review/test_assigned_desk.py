"""The desk of a person with assigned items (gradedesk assign) on a real store: the queue, the order, the totals and the
sampler keep to their set; each draw records the set's inclusion probability and `agree` weighs it by 1 / (pi * q)."""

from __future__ import annotations

import numpy as np
import pytest

from gradedesk.core.agreement import samples
from gradedesk.core.agreement.report import agreement_report
from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.review.team import assign_run
from gradedesk.core.stats.weighted import kish_effective_n
from gradedesk.core.store.assignments import assigned_set, current_assignments
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info

from tests.fixtures.agreement import build_sampling_run, grade_sampled


@pytest.fixture
def team(tmp_path):
    """The sampler's twelve questions; a sample of 9 assigned to ann, bob and cy, two people each."""
    store = open_store(tmp_path / "store.db")
    run_id, answers = build_sampling_run(store)
    assign_run(store, run_id, ["ann", "bob", "cy"], 2, items=9, seed=5)
    mine = {g: sorted(a.question_pk for a in current_assignments(store, run_id) if a.grader == g)
            for g in ("ann", "bob", "cy")}
    yield store, run_info(store, run_id), answers, mine
    store.close()


def test_the_queue_order_and_totals_keep_to_the_persons_assigned_items(team):
    store, run, answers, mine = team
    assert len(mine["ann"]) == 6 and set(mine["ann"]) < set(answers)
    rows = review.queue_page(store, run, "ann", Filters())
    assert sorted({r.question_pk for r in rows}) == mine["ann"]
    assert list(review.question_order(store, run, "ann").pks) == mine["ann"]
    assert review.count_shown(store, run, "ann") == 2 * 6
    walked, pk = [], None
    while (pk := session.next_in_order(store, run, "ann", Filters(), pk, True, False)[0]) is not None:
        walked.append(pk)
    assert walked == mine["ann"]
    assert session.open_desk(store, run.id, "ann", None).item.question_pk == mine["ann"][0]
    # someone with nothing assigned in the run sees every item, as before
    assert len(review.question_order(store, run, "dan")) == 12 and review.count_shown(store, run, "dan") == 24
    assert review.progress(store, run, "ann", 12).describe().startswith("assigned to you: graded 0 of 12")
    assert not review.progress(store, run, "dan", 24).describe().startswith("assigned")


def test_the_sampler_draws_from_the_set_and_records_its_inclusion_probability(team):
    store, run, answers, mine = team
    s = assigned_set(store, run.id, "ann")
    assert (s.items, s.pool, s.sample_probability) == (6, 9, 0.75)
    assert s.inclusion_probability == pytest.approx(0.75 * 6 / 9)  # = 6 / 12: her share of the run
    draws = [draw_next(store, run, "ann") for _ in range(5)]
    assert all(d.question_pk in mine["ann"] and d.population == 6 for d in draws)
    assert all(d.inclusion_probability == pytest.approx(0.5) for d in draws)
    stored = store._query("SELECT DISTINCT inclusion_probability FROM sample_draws WHERE grader = 'ann'")
    assert stored == [{"inclusion_probability": pytest.approx(0.5)}]
    assert draw_next(store, run, "dan").inclusion_probability == 1.0  # nothing assigned: the whole run


def test_agree_weighs_each_draw_by_the_inverse_of_pi_times_q(team):
    store, run, answers, mine = team
    grade_sampled(store, run.id, answers, "ann", 3)
    grade_sampled(store, run.id, answers, "dan", 3)  # no assignment: pi 1, the whole run
    rows = store._query("SELECT grader, probability, inclusion_probability FROM sample_draws")
    assert {(r["grader"], r["inclusion_probability"]) for r in rows} == {("ann", 0.5), ("dan", 1.0)}
    # each graded draw counts its two pairs (raw and bundle) with weight 1 / (pi * q): the report's Kish n is theirs
    w = np.array([1 / (r["inclusion_probability"] * r["probability"]) for r in rows for _ in range(2)])
    sampled = agreement_report(store, run.id).samples.sampled
    assert (sampled.draws, sampled.pairs) == (len(rows), 2 * len(rows))
    assert sampled.kish_effective_n == round(kish_effective_n(w), 1)


def test_agree_resamples_draws_from_an_assigned_set_by_question(team, monkeypatch):
    """Draws from a sampled assignment (pi < 1): the interval resamples each question's pairs together (core/stats/
    weighted.py first_stage_clusters), so it covers which items the assignment's sample took."""
    store, run, answers, mine = team
    grade_sampled(store, run.id, answers, "ann", 3)
    seen = []
    real = samples.weighted_estimates
    monkeypatch.setattr(samples, "weighted_estimates",
                        lambda *a, **k: seen.append(a[6] if len(a) > 6 else k.get("clusters")) or real(*a, **k))
    agreement_report(store, run.id)
    drawn = [r["question_pk"] for r in store._query("SELECT question_pk FROM sample_draws ORDER BY id")]
    assert seen and all(c is not None and sorted(c.tolist()) == sorted(drawn * 2) for c in seen)


def test_agree_resamples_the_prediction_powered_pass_rates_by_question_too(team, monkeypatch):
    """The pass rates' rectifier from a sampled assignment's draws resamples each question's draws together, as the
    weighted agreement does (one clustering: first_stage_clusters); so does the paired bundle - raw difference."""
    store, run, answers, mine = team
    grade_sampled(store, run.id, answers, "ann", 3)
    seen = []
    real = samples.ppi_mean
    monkeypatch.setattr(samples, "ppi_mean", lambda *a, **k: seen.append(a[6] if len(a) > 6 else k.get("clusters"))
                        or real(*a, **k))
    report = agreement_report(store, run.id)
    drawn = [r["question_pk"] for r in store._query("SELECT question_pk FROM sample_draws ORDER BY id")]
    assert [r.method for r in report.samples.pass_rates] == ["raw", "bundle"] and len(seen) == 3
    # one answer a draw per method; the difference: one draw whose person graded both answers
    assert all(c is not None and sorted(c.tolist()) == sorted(drawn) for c in seen)
    difference = report.samples.bundle_minus_raw
    assert difference.human_sampled == len(drawn) and difference.ppi.value is not None
