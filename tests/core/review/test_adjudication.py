"""Adjudication on a real store: disputed items form the queue, a lead's decision is its own kind of grade (never in
human_grades, never in people's figures), undo takes it back, and `merge` carries it."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.merge import merge_store
from gradedesk.core.grading.human_grades import GradeChange, record_preference
from gradedesk.core.review import session
from gradedesk.core.review.adjudication import (
    adjudication_queue, decide_grade, decide_preference, people_on_item, undo_decision,
)
from gradedesk.core.review.item import load_item
from gradedesk.core.review.team import assign_run
from gradedesk.core.store.adjudications import current_decisions
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.grades import current_grades
from gradedesk.core.store.run_records import run_info

from tests.fixtures.agreement import add_human
from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture
def disputed(tmp_path):
    """Six questions, all assigned to ann and bob (and q1..q3 also to cy, who graded nothing): they disagree on the
    raw answer of the first question, prefer differently on the second, and agree on the third."""
    info = build_fixture_store(tmp_path / "store.db", questions=6)
    store = open_store(info.path)
    assign_run(store, info.run_id, ["ann", "bob"], 2)
    q1, q2, q3 = info.question_pks[:3]
    for g, grade in (("ann", "wrong"), ("bob", "fully_correct")):
        add_human(store, info.answer_ids[(q1, "raw")], g, grade, note=f"{g}'s reason", label=None)
    for g in ("ann", "bob"):
        add_human(store, info.answer_ids[(q2, "raw")], g, "partially_correct")
        add_human(store, info.answer_ids[(q3, "raw")], g, "unsupported")
    run = run_info(store, info.run_id)
    for g, preferred in (("ann", "raw"), ("bob", "bundle")):
        record_preference(store, info.run_id, q2, g, preferred, "raw")
    add_human(store, info.answer_ids[(q3, "bundle")], "dan", "wrong")  # not assigned: no dispute with anyone
    yield info, store, run
    store.close()


def test_disputed_items_form_the_queue_and_the_people_are_shown_side_by_side(disputed):
    info, store, run = disputed
    q1, q2, _ = info.question_pks[:3]
    assert adjudication_queue(store, run, "lead") == [q1, q2]
    on = people_on_item(store, run.id, q1)
    assert [(g.grader, g.grade, g.note) for g in on.grades["raw"]] == [
        ("ann", "wrong", "ann's reason"), ("bob", "fully_correct", "bob's reason")]
    assert [(p.grader, p.preferred) for p in people_on_item(store, run.id, q2).preferences] == [
        ("ann", "raw"), ("bob", "bundle")]
    opening = session.open_desk(store, run.id, "lead", None, adjudicate=True)
    assert (opening.order, opening.order_list, opening.item.question_pk) == ("adjudicate", [q1, q2], q1)
    assert [g.grader for g in opening.item.answers["raw"].people] == ["ann", "bob"]


def test_a_person_of_the_item_sees_no_dispute_there_before_grading_it(disputed, tmp_path):
    info, store, run = disputed
    q1 = info.question_pks[0]
    assign_run(store, run.id, ["ann", "bob", "cy"], 3)  # cy joins every item, grades nothing yet
    assert q1 not in adjudication_queue(store, run, "cy")
    assert q1 in adjudication_queue(store, run, "lead")
    add_human(store, info.answer_ids[(q1, "raw")], "cy", "wrong")
    add_human(store, info.answer_ids[(q1, "bundle")], "cy", "wrong")
    assert q1 in adjudication_queue(store, run, "cy")


def test_a_decision_is_its_own_kind_of_grade_and_undo_takes_it_back(disputed):
    info, store, run = disputed
    q1, q2, _ = info.question_pks[:3]
    before = sorted(current_grades(store, run.id))
    decide_grade(store, run, q1, "raw", 0, "lead", GradeChange(grade="unsupported"), judge_visible=False)
    decided = decide_grade(store, run, q1, "raw", 0, "lead", GradeChange(note="the gold is silent"),
                           judge_visible=False)
    assert (decided.grade, decided.note, len(decided.seen)) == ("unsupported", "the gold is silent", 2)
    decide_preference(store, run, q2, "lead", "tie", judge_visible=False)
    assert sorted(current_grades(store, run.id)) == before  # people's grades untouched, the lead in none of them
    assert store._scalar("SELECT count(*) FROM human_grades WHERE grader = 'lead'") == 0
    item = load_item(store, run, "lead", q1, adjudicate=True)
    assert item.answers["raw"].human.grade == "unsupported" and item.answers["raw"].human.mode == "adjudicated"
    assert load_item(store, run, "lead", q2, adjudicate=True).preference == "tie"
    assert load_item(store, run, "lead", q1).answers["raw"].human is None  # not a grade of the lead's own
    assert undo_decision(store, run, "lead", judge_visible=False).preferred == "tie"
    assert [(d.question_pk, d.method, d.grade) for d in current_decisions(store, run.id)] == [
        (q1, "raw", "unsupported")]
    with pytest.raises(UserError, match="scores stay each person's"):
        decide_grade(store, run, q1, "raw", 0, "lead", GradeChange(scores={"correctness": 3}), judge_visible=False)


def test_undo_takes_back_a_decision_at_the_budget_shown_only(disputed):
    info, store, run = disputed
    q2 = info.question_pks[1]
    other = next(b for b in run.budgets if b != run.bundle_budget)
    decide_preference(store, run, q2, "lead", "tie", judge_visible=False)
    decide_preference(store, replace(run, bundle_budget=other), q2, "lead", "raw", judge_visible=False)
    assert undo_decision(store, run, "lead", judge_visible=False).preferred == "tie"  # not the newer one beside `other`
    assert [(d.budget, d.preferred) for d in current_decisions(store, run.id)] == [(other, "raw")]
    assert undo_decision(store, run, "lead", judge_visible=False) is None


def test_merge_carries_decisions_once(disputed, tmp_path):
    info, store, run = disputed
    q1 = info.question_pks[0]
    lead = tmp_path / "lead.db"
    store.close()
    shutil.copy(info.path, lead)
    with open_store(lead) as other:
        decide_grade(other, run_info(other, run.id), q1, "raw", 0, "lead", GradeChange(grade="wrong"),
                     judge_visible=False)
    with open_store(info.path) as here:
        report = merge_store(here, lead)
        assert (report.decisions_added, report.decisions_already_here) == (1, 0)
        assert [(d.question_pk, d.grade, d.grader) for d in current_decisions(here, run.id)] == [(q1, "wrong", "lead")]
        assert merge_store(here, lead).decisions_added == 0


def test_progress_counts_disputed_and_adjudicated_items(disputed):
    from gradedesk.core.review.team import team_progress

    info, store, run = disputed
    decide_grade(store, run, info.question_pks[0], "raw", 0, "lead", GradeChange(grade="wrong"), judge_visible=False)
    report = team_progress(store, run.id)
    assert (report.disputed, report.adjudicated) == (2, 1)
    assert {p.grader: p.adjudicated for p in report.people} == {"ann": 1, "bob": 1}


def test_people_at_different_budgets_never_dispute_and_a_decision_names_the_budget_shown(disputed):
    """Raw beside 1,000 and raw beside 2,000 are two comparisons: grades of the two bundled answers and preferences
    at two budgets are no dispute; at one budget they are, and the lead's decision there records that budget."""
    info, store, run = disputed
    q4, q5 = info.question_pks[3:5]

    def at_1000(pk: int) -> int:
        return store._scalar("SELECT id FROM answers WHERE question_pk = ? AND method = 'bundle' AND budget = 1000",
                             (pk,))

    add_human(store, info.answer_ids[(q4, "bundle")], "ann", "wrong")  # at 2,000
    add_human(store, at_1000(q4), "bob", "fully_correct")
    record_preference(store, run.id, q4, "ann", "raw", "raw")  # beside 2,000, the run's largest
    record_preference(store, run.id, q4, "bob", "bundle", "raw", budget=1000)
    for g, grade in (("ann", "wrong"), ("bob", "fully_correct")):
        add_human(store, at_1000(q5), g, grade)
    small = run.showing(1000)
    assert q4 not in adjudication_queue(store, run, "lead") and q4 not in adjudication_queue(store, small, "lead")
    assert q5 not in adjudication_queue(store, run, "lead") and q5 in adjudication_queue(store, small, "lead")
    assert [g.grader for g in people_on_item(store, run.id, q5, 1000).grades["bundle"]] == ["ann", "bob"]
    decided = decide_preference(store, small, q5, "lead", "tie", judge_visible=False)
    assert decided.budget == 1000
    assert people_on_item(store, run.id, q5, 2000).decisions.get(None) is None
