"""Assigning a run's items to people with overlap: balance, overlap, re-runs that keep graded pairs, seeded samples
(the plan alone, and through the store)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.review.assignment import plan_assignment, sample_items
from gradedesk.core.review.grader_names import name_problem, parse_graders
from gradedesk.core.review.team import assign_run
from gradedesk.core.store.assignments import current_assignments
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_human
from tests.fixtures.desk_store import build_fixture_store


def _check(plan, graders, overlap):
    loads = plan.loads(graders)
    assert max(loads.values()) - min(loads.values()) <= 1, loads
    assert all(len(p) == overlap and p <= set(graders) for p in plan.people.values())


@pytest.mark.parametrize("n_items, graders, overlap", [(20, "ab", 2), (31, "abc", 2), (17, "abcde", 3), (7, "abcd", 1),
                                                       (9, "abc", 3), (1, "abc", 2)])
def test_every_item_gets_overlap_people_and_loads_differ_by_at_most_one(n_items, graders, overlap):
    plan = plan_assignment(range(100, 100 + n_items), list(graders), overlap, seed=5)
    assert sorted(plan.people) == list(range(100, 100 + n_items))
    _check(plan, list(graders), overlap)
    assert plan.withdraw == [] and len(plan.add) == n_items * overlap


def test_the_same_seed_gives_the_same_plan_and_running_it_again_changes_nothing():
    a = plan_assignment(range(30), ["ann", "bob", "cy"], 2, seed=3)
    assert a == plan_assignment(range(30), ["ann", "bob", "cy"], 2, seed=3)
    again = plan_assignment(range(30), ["ann", "bob", "cy"], 2, seed=99, current=a.people)
    assert again.people == a.people and again.add == [] and again.withdraw == []


def test_adding_a_grader_moves_only_ungraded_pairs_and_evens_the_loads():
    first = plan_assignment(range(30), ["ann", "bob"], 2, seed=1)
    rng = random.Random(0)
    graded = {(i, g) for i, people in first.people.items() for g in people if rng.random() < 0.4}
    plan = plan_assignment(range(30), ["ann", "bob", "cy"], 2, seed=1, current=first.people, graded=graded)
    _check(plan, ["ann", "bob", "cy"], 2)
    assert plan.loads(["ann", "bob", "cy"]) == {"ann": 20, "bob": 20, "cy": 20}
    assert all(g in plan.people[i] for i, g in graded)  # no graded pair moved
    assert not set(plan.withdraw) & graded
    assert {g for _, g in plan.add} == {"cy"} and len(plan.withdraw) == 20


def test_graded_pairs_that_pin_a_person_above_the_rest_are_kept():
    first = plan_assignment(range(10), ["ann", "bob"], 2, seed=1)
    graded = {(i, "ann") for i in range(10)}  # ann graded everything: she keeps all ten
    plan = plan_assignment(range(10), ["ann", "bob", "cy"], 2, seed=1, current=first.people, graded=graded)
    assert plan.loads(["ann", "bob", "cy"]) == {"ann": 10, "bob": 5, "cy": 5}


def test_a_person_no_longer_named_loses_ungraded_items_and_keeps_graded_ones():
    first = plan_assignment(range(6), ["ann", "bob", "cy"], 2, seed=2)
    cy_items = sorted(i for i, p in first.people.items() if "cy" in p)
    plan = plan_assignment(range(6), ["ann", "bob"], 2, seed=2, current=first.people, graded={(cy_items[0], "cy")})
    assert "cy" in plan.people[cy_items[0]] and len(plan.people[cy_items[0]]) == 2
    assert all("cy" not in plan.people[i] for i in cy_items[1:])
    assert {(i, "cy") for i in cy_items[1:]} <= set(plan.withdraw)


def test_bad_overlap_and_empty_lists_are_user_errors():
    with pytest.raises(UserError, match="--overlap 3: must be from 1 to the number of graders"):
        plan_assignment(range(5), ["ann", "bob"], 3, seed=1)
    with pytest.raises(UserError, match="--overlap 0"):
        plan_assignment(range(5), ["ann", "bob"], 0, seed=1)
    with pytest.raises(UserError, match="no names given"):
        parse_graders(" , ,")
    with pytest.raises(UserError, match="ann named twice"):
        parse_graders("ann,bob,ann")


@pytest.mark.parametrize("name, ok", [("ann;echo x", True), ("Zoë O'Neil", True), ("[bold]x[/]", True), ("", False),
                                      ("ann\nbob", False), ("a\x1b[31m", False), ("ann,bob", False), ("x" * 41, False)])
def test_names_are_text_without_controls_or_commas(name, ok):
    assert (name_problem(name) is None) is ok


def test_a_seeded_sample_is_simple_random_with_probability_n_over_total():
    items = list(range(50))
    chosen, p = sample_items(items, 10, seed=4)
    assert p == 0.2 and len(set(chosen)) == 10 and chosen == sorted(chosen)
    assert sample_items(items, 10, seed=4) == (chosen, p)
    # every item equally likely over seeds: each is chosen about 10/50 of the time
    counts = Counter(i for s in range(2000) for i in sample_items(items, 10, seed=s)[0])
    assert all(abs(counts[i] / 2000 - 0.2) < 0.05 for i in items)
    assert sample_items(items, None, seed=4) == (items, 1.0)
    with pytest.raises(UserError, match="--items 51: the run has 50 items"):
        sample_items(items, 51, seed=4)


def test_assign_run_stores_the_plan_and_rerunning_with_a_new_grader_keeps_graded_items(tmp_path):
    info = build_fixture_store(tmp_path / "store.db", questions=12)
    with open_store(info.path, create=False) as store:
        report = assign_run(store, info.run_id, ["ann", "bob"], 2, items=8, seed=11)
        assert (report.items, report.inclusion_probability, report.loads) == (8, 8 / 12, {"ann": 8, "bob": 8})
        rows = current_assignments(store, info.run_id)
        assert len(rows) == 16 and {r.inclusion_probability for r in rows} == {8 / 12}
        sampled = sorted({r.question_pk for r in rows})
        graded = sampled[:3]
        for pk in graded:
            add_human(store, info.answer_ids[(pk, "raw")], "ann", "wrong")
        report = assign_run(store, info.run_id, ["ann", "bob", "cy"], 2)
        assert sorted(report.loads.values()) == [5, 5, 6]
        rows = current_assignments(store, info.run_id)
        assert sorted({r.question_pk for r in rows}) == sampled  # the same sample, its probability kept
        assert {r.inclusion_probability for r in rows} == {8 / 12}
        assert all(any(r.question_pk == pk and r.grader == "ann" for r in rows) for pk in graded)
        assert Counter(r.question_pk for r in rows) == {pk: 2 for pk in sampled}
        withdrawn = store._scalar("SELECT count(*) FROM assignments WHERE action = 'withdraw'")
        assert withdrawn == report.withdrawn == report.added
        with pytest.raises(UserError, match="--items 5: run 1 has 8 items assigned already"):
            assign_run(store, info.run_id, ["ann", "bob"], 2, items=5)
