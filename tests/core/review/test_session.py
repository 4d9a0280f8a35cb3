"""The desk session (core/review/session.py) driven directly on a real fixture store, without Textual: each action's
job is run inline (`run_job`) and its answer taken in, as the desk's store thread and screen do."""

from __future__ import annotations

import pytest

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.session import DeskSession, Job, Landed, run_job
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.leases import LeaseHeld
from tests.fixtures.desk import rows
from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture
def desk(tmp_path):
    info = build_fixture_store(tmp_path / "store.db")
    store = open_store(info.path)
    yield info, store
    store.close()


def opened(store, info, person: str = "alice", **settings) -> DeskSession:
    session = DeskSession(person, info.run_id, **settings)
    session.opened(run_job(store, session.open()))
    return session


def act(store, session: DeskSession, plan) -> Landed | str | None:
    """Run what a key planned, as the desk does: a job's answer is taken in; a sentence is what the desk says."""
    if isinstance(plan, Job):
        return session.landed(run_job(store, plan))
    return plan


def test_a_fresh_desk_opens_on_the_first_question_blind(desk):
    info, store = desk
    session = opened(store, info)
    assert session.item.question_pk == info.question_pks[0]
    assert session.mode == "blind" and not session.judge_visible(session.answer_at("left"))


def test_steps_walk_the_question_order_and_say_where_it_ends(desk):
    info, store = desk
    session = opened(store, info)
    for pk in info.question_pks[1:]:
        act(store, session, session.step(1))
        assert session.item.question_pk == pk
    landed = act(store, session, session.step(1))
    assert landed.message == "no more items" and session.item.question_pk == info.question_pks[-1]


def test_a_grade_is_stored_for_the_answer_it_was_typed_for_and_says_what_was_saved(desk):
    info, store = desk
    session = opened(store, info)
    answer = session.answer_at("left")
    job = session.grade(answer, GradeChange(grade="fully_correct"))
    assert list(session.unsaved) and session.unsaved[0].what == "grade"  # queued, in order, until its answer lands
    landed = act(store, session, job)
    assert not session.unsaved
    assert landed.message == "saved: fully correct" and landed.recount
    saved = rows(info.path, "SELECT answer_id, grade, mode, judge_visible FROM human_grades")
    assert saved == [{"answer_id": answer.id, "grade": "fully_correct", "mode": "blind", "judge_visible": 0}]
    assert session.judge_visible(session.answer_at("left"))  # graded: blind first reveals its machine grade


def test_a_label_alone_is_named_as_a_label_not_as_label_scores_and_note(desk):
    info, store = desk
    session = opened(store, info)
    landed = act(store, session, session.grade(session.answer_at("left"), GradeChange(failure_label="retrieval_miss")))
    assert landed.message == "saved: label retrieval_miss (not graded yet: the machine grade stays hidden)"


def test_a_write_whose_job_failed_stays_unsaved_in_order(desk):
    info, store = desk
    session = opened(store, info)
    session.grade(session.answer_at("left"), GradeChange(grade="wrong"))  # its job fails: never answers
    first = session.unsaved[0]
    second = session.grade(session.answer_at("right"), GradeChange(grade="fully_correct"))
    assert [w.what for w in session.unsaved] == ["grade", "grade"]
    act(store, session, second)
    assert list(session.unsaved) == [first]  # still there, first in line


def test_an_older_answer_never_replaces_a_newer_request(desk):
    info, store = desk
    session = opened(store, info)
    older, newer = session.step(1), session.show_question(info.question_pks[3])
    stale = session.landed(run_job(store, older))
    assert not stale.show and session.item.question_pk == info.question_pks[0]
    act(store, session, newer)
    assert session.item.question_pk == info.question_pks[3] and session.reached == ("jump", None)


def test_filters_that_match_nothing_leave_no_item(desk):
    info, store = desk
    session = opened(store, info)
    landed = act(store, session, session.apply_filters(Filters(status="graded")))
    assert session.item is None and landed.show and "no item matches filters: graded" in landed.message


def test_undo_takes_back_the_newest_grade_and_names_its_answer(desk):
    info, store = desk
    session = opened(store, info)
    answer = session.answer_at("right")
    act(store, session, session.grade(answer, GradeChange(grade="partially_correct")))
    landed = act(store, session, session.undo())
    assert landed.focus_answer == answer.id and landed.message.startswith("undone: partially_correct")


def test_where_the_person_stopped_and_their_settings_come_back(desk):
    info, store = desk
    session = opened(store, info)
    act(store, session, session.show_question(info.question_pks[2]))
    session.set_hide_methods(True)
    run_job(store, session.save_state())
    again = opened(store, info)
    assert again.item.question_pk == info.question_pks[2] and again.hide_methods


def test_a_desk_sees_another_connections_write_to_the_item_it_shows(desk):
    """Item 3 of issue 40: a grade written elsewhere (another desk, a command) to the item on screen is shown within a
    look, not only after moving away and back; the desk's own writes do not count as another's."""
    info, store = desk
    session = opened(store, info)
    assert not session.refreshed(run_job(store, session.watch()))  # the first look only records where the store is
    act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="wrong")))
    look = run_job(store, session.watch())
    assert not look.changed and not session.refreshed(look)  # its own write
    other = opened(elsewhere := open_store(info.path), info)
    try:
        act(elsewhere, other, other.grade(other.answer_at("left"), GradeChange(grade="fully_correct")))
    finally:
        elsewhere.close()
    look = run_job(store, session.watch())
    assert look.changed and session.refreshed(look)
    assert session.answer_at("left").human.grade == "fully_correct"


def test_a_look_overtaken_by_a_move_is_dropped(desk):
    info, store = desk
    session = opened(store, info)
    run_job(store, session.watch())
    with open_store(info.path) as elsewhere:
        other = opened(elsewhere, info, person="bob")
        act(elsewhere, other, other.flag("ambiguous", None))
    look = session.watch()
    act(store, session, session.step(1))  # typed before the look answered
    assert not session.refreshed(run_job(store, look)) and session.item.question_pk == info.question_pks[1]


def test_one_live_desk_per_person_and_store(desk):
    info, store = desk
    first = opened(store, info)
    first.lease = run_job(store, first.take_lease())
    second = DeskSession("alice", info.run_id)
    with pytest.raises(LeaseHeld, match="already has a desk open on this store"):
        run_job(store, second.take_lease())
    run_job(store, first.release_lease())
    assert run_job(store, second.take_lease()).holder == second.holder
