"""The desk session (core/review/session/) driven directly on a real fixture store, without Textual: each action's
job is run inline (`run_job`) and its answer taken in, as the desk's store thread and screen do."""

from __future__ import annotations

import pytest

from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.review.flags import describe_flags
from gradedesk.core.review.queue import Filters, queue_page
from gradedesk.core.review.session import NEIGHBOURS, DeskSession, Job, Shown, disagrees, run_job
from gradedesk.core.review.session.state import AHEAD
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.leases import LeaseHeld
from gradedesk.core.store.machine_grades import AutoGrade, add_machine_grade
from tests.fixtures.desk import rows
from tests.fixtures.desk_store import build_fixture_store
from tests.fixtures.session import act, opened


@pytest.fixture
def rule_desk(tmp_path):
    """A run only the rule grader graded (as the demo's): every pair compares with one kind of machine grader."""
    info = build_fixture_store(tmp_path / "store.db", judge=False)
    store = open_store(info.path)
    yield info, store
    store.close()


def test_a_fresh_desk_opens_on_the_first_question_blind(desk_store):
    info, store = desk_store
    session = opened(store, info)
    assert session.item.question_pk == info.question_pks[0]
    assert session.mode == "blind" and not session.judge_visible(session.answer_at("left"))


def test_steps_walk_the_question_order_and_say_where_it_ends(desk_store):
    info, store = desk_store
    session = opened(store, info)
    for pk in info.question_pks[1:]:
        act(store, session, session.step(1))
        assert session.item.question_pk == pk
    landed = act(store, session, session.step(1))
    assert landed.message == "no more items" and session.item.question_pk == info.question_pks[-1]


def test_a_grade_is_stored_for_the_answer_it_was_typed_for_and_says_what_was_saved(desk_store):
    info, store = desk_store
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


def test_a_label_alone_is_named_as_a_label_not_as_label_scores_and_note(desk_store):
    info, store = desk_store
    session = opened(store, info)
    landed = act(store, session, session.grade(session.answer_at("left"), GradeChange(failure_label="retrieval_miss")))
    assert landed.message == "saved: label retrieval_miss (not graded yet: the machine grade stays hidden)"


def test_a_write_whose_job_failed_stays_unsaved_in_order(desk_store):
    info, store = desk_store
    session = opened(store, info)
    session.grade(session.answer_at("left"), GradeChange(grade="wrong"))  # its job fails: never answers
    first = session.unsaved[0]
    second = session.grade(session.answer_at("right"), GradeChange(grade="fully_correct"))
    assert [w.what for w in session.unsaved] == ["grade", "grade"]
    act(store, session, second)
    assert list(session.unsaved) == [first]  # still there, first in line


def test_an_older_answer_never_replaces_a_newer_request(desk_store):
    info, store = desk_store
    session = opened(store, info)
    older, newer = session.step(1), session.show_question(info.question_pks[3])
    stale = session.landed(run_job(store, older))
    assert not stale.show and session.item.question_pk == info.question_pks[0]
    act(store, session, newer)
    assert session.item.question_pk == info.question_pks[3] and session.reached == ("jump", None)


def test_filters_that_match_nothing_leave_no_item(desk_store):
    info, store = desk_store
    session = opened(store, info)
    landed = act(store, session, session.apply_filters(Filters(status="graded")))
    assert session.item is None and landed.show and "no item matches filters: graded" in landed.message


def test_undo_takes_back_the_newest_grade_and_names_its_answer(desk_store):
    info, store = desk_store
    session = opened(store, info)
    answer = session.answer_at("right")
    act(store, session, session.grade(answer, GradeChange(grade="partially_correct")))
    landed = act(store, session, session.undo())
    assert landed.focus_answer == answer.id and landed.message.startswith("undone: partially_correct")


def test_where_the_person_stopped_and_their_settings_come_back(desk_store):
    info, store = desk_store
    session = opened(store, info)
    act(store, session, session.show_question(info.question_pks[2]))
    session.set_hide_methods(True)
    run_job(store, session.save_state())
    again = opened(store, info)
    assert again.item.question_pk == info.question_pks[2] and again.hide_methods


def test_a_desk_sees_another_connections_write_to_the_item_it_shows(desk_store):
    """Item 3 of issue 40: a grade written elsewhere (another desk, a command) to the item on screen is shown within a
    look, not only after moving away and back; the desk's own writes do not count as another's."""
    info, store = desk_store
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


def test_a_look_overtaken_by_a_move_is_dropped(desk_store):
    info, store = desk_store
    session = opened(store, info)
    run_job(store, session.watch())
    with open_store(info.path) as elsewhere:
        other = opened(elsewhere, info, person="bob")
        act(elsewhere, other, other.flag("ambiguous", None))
    look = session.watch()
    act(store, session, session.step(1))  # typed before the look answered
    assert not session.refreshed(run_job(store, look)) and session.item.question_pk == info.question_pks[1]


def test_one_live_desk_per_person_and_store(desk_store):
    info, store = desk_store
    first = opened(store, info)
    first.lease = run_job(store, first.take_lease())
    second = DeskSession("alice", info.run_id)
    with pytest.raises(LeaseHeld, match="already has a desk open on this store"):
        run_job(store, second.take_lease())
    run_job(store, first.release_lease())
    assert run_job(store, second.take_lease()).holder == second.holder


def graded_everything(store, info, person: str, grade: str = "partially_correct") -> DeskSession:
    session = opened(store, info, person)
    for pk in info.question_pks:
        act(store, session, session.show_question(pk))
        for side in ("left", "right"):
            act(store, session, session.grade(session.answer_at(side), GradeChange(grade=grade)))
    return session


def figures(store, session: DeskSession):
    session.total = run_job(store, session.count_total())
    return run_job(store, session.count())


def test_a_flagged_item_is_left_out_of_every_count_and_list_alike(rule_desk):
    """Item 1 of issue 40: after `!` on a disagreement, the status line's disagreements, the queue filtered to
    disagreeing, where `d` goes and the confusion cell's rows all leave the flagged item out, the same way."""
    info, store = rule_desk
    session = graded_everything(store, info, "alice")
    act(store, session, session.show_question(info.question_pks[0]))
    assert disagrees(session.item)
    before = figures(store, session)
    act(store, session, session.flag("bad_gold", None))
    after = figures(store, session)
    disagreements = after.compared - after.agreed
    assert after.compared == before.compared - 2 and after.flagged == 2  # both answers of the flagged item
    listed = queue_page(store, session.run, "alice", Filters(status="disagreeing"))
    assert len(listed) == disagreements and info.question_pks[0] not in {r.question_pk for r in listed}
    act(store, session, session.next_disagreement())
    fresh = opened(store, info)  # `d` lands where a fresh desk's `d` would, never on the flagged item
    act(store, fresh, fresh.next_disagreement())
    assert session.item.question_pk == fresh.item.question_pk != info.question_pks[0]
    matrix = agreement_report(store, info.run_id, Settings(boot=20)).confusion.matrix
    for h, person in enumerate(GRADES):
        for m, machine in enumerate(GRADES):
            cell = queue_page(store, session.run, "alice", Filters(grade=person, judge_grade=machine))
            assert len(cell) == matrix[h][m], (person, machine)


def test_another_persons_flag_is_shown_where_it_changes_your_figures(desk_store):
    """Item 2 of issue 40: carol graded an item root flagged; her figures leave it out and say so, and her desk shows
    root's flag on it."""
    info, store = desk_store
    root = opened(store, info, "root")
    act(store, root, root.flag("bad_gold", None))
    carol = opened(store, info, "carol")
    for side in ("left", "right"):
        act(store, carol, carol.grade(carol.answer_at(side), GradeChange(grade="wrong")))
    mine = figures(store, carol)
    assert (mine.graded, mine.compared, mine.flagged) == (2, 0, 2)
    text = mine.describe(person="carol", machine=carol.machine_name)
    assert text.startswith("carol: graded 2 of 12") and "2 on flagged items not compared" in text
    assert describe_flags(carol.item.flag, carol.item.others_flags) == \
        "flagged by root: bad gold answer (left out of your figures)"


# Moves and how each item was reached (these replace Pilot tests of the same behaviour: see the commit) -----------------

def test_next_previous_ungraded_disagreement_and_jump(desk_store):
    info, store = desk_store
    pks = info.question_pks
    session = opened(store, info)
    act(store, session, session.step(1))
    act(store, session, session.step(1))
    assert session.item.question_pk == pks[2]
    act(store, session, session.step(-1))
    assert session.item.question_pk == pks[1]
    act(store, session, session.step(-1))  # grade both answers of the first question, one against the machine
    left = session.answer_at("left")
    other = "wrong" if left.machine.grade != "wrong" else "fully_correct"
    act(store, session, session.grade(left, GradeChange(grade=other)))
    act(store, session, session.grade(session.answer_at("right"), GradeChange(grade="fully_correct")))
    act(store, session, session.next_ungraded())
    assert session.item.question_pk == pks[1]  # the next one with an ungraded answer
    act(store, session, session.next_disagreement())
    assert session.item.question_pk == pks[0]  # wraps round to the disagreement
    act(store, session, session.jump("q-validate"))
    assert session.item.question_id == "q-validate"
    landed = act(store, session, session.jump("nope"))
    assert session.item.question_id == "q-validate" and landed.message == "no question 'nope'"


def test_d_says_when_it_wraps_from_the_last_disagreement_to_the_first(desk_store):
    info, store = desk_store
    session = opened(store, info)
    act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="wrong")))  # the machine said not
    act(store, session, session.jump("q-general"))
    landed = act(store, session, session.next_disagreement())
    assert session.item.question_id == "q-store-open"
    assert landed.message == "wrapped round from the last disagreement to the first"
    landed = act(store, session, session.next_disagreement())  # from the only disagreement, round to itself
    assert session.item.question_id == "q-store-open" and landed.message == "this is the only disagreement"
    assert act(store, session, session.step(1)).message is None


def test_each_grade_records_how_the_person_came_to_the_item(desk_store):
    info, store = desk_store
    session = opened(store, info)

    def grade(value: str) -> None:
        act(store, session, session.grade(session.answer_at("left"), GradeChange(grade=value)))
    grade("partially_correct")
    act(store, session, session.step(1))  # stepping in question order
    grade("unsupported")
    act(store, session, session.show_question(info.question_pks[4]))  # as the jump key and the queue do
    grade("fully_correct")
    act(store, session, session.apply_filters(Filters(status="ungraded")))
    grade("wrong")
    saved = rows(info.path, "SELECT selection, selection_probability FROM human_grades ORDER BY id")
    assert [e["selection"] for e in saved] == ["question_order", "question_order", "jump", "filter"]
    assert all(e["selection_probability"] is None for e in saved)


# The next item ready before its key (core/review/session/neighbours.py) -----------------------------------------------

def prepare(store, session: DeskSession, jobs=None) -> set[str]:
    """Run the neighbours' jobs and take their answers in, as the desk does while the person reads: the kinds kept."""
    kept = set()
    for job in session.prepare() if jobs is None else jobs:
        neighbours = run_job(store, job)
        if session.prepared(neighbours):
            kept.add(neighbours[0].kind)
    return kept


def test_a_prepared_neighbour_makes_its_key_a_swap(desk_store):
    info, store = desk_store
    session = opened(store, info)
    assert prepare(store, session) == set(NEIGHBOURS) and not session.prepare()  # all ready: nothing more to load
    plan = session.step(1)
    assert isinstance(plan, Shown)  # the item is there already: no store job between the key and the item
    act(store, session, plan)
    second = info.question_pks[1]
    assert session.item.question_pk == second
    # j's and n's items after it came along, AHEAD deep from the first item: keys can reach them by swaps alone
    assert set(session.ready) == {(pk, kind) for pk in info.question_pks[1:AHEAD] for kind in ("next", "ungraded")}
    for n in range(2, AHEAD + 1):  # so the next j's typed at once are swaps too, each where a fresh desk lands
        plan = session.step(1)
        assert isinstance(plan, Shown)
        act(store, session, plan)
        fresh = opened(store, info)
        act(store, fresh, fresh.show_question(info.question_pks[n - 1]))
        act(store, fresh, fresh.step(1))
        assert session.item == fresh.item and session.item.question_pk == info.question_pks[n]
    assert not session.ready  # the last one prepared: the next j loads
    assert isinstance(session.step(1), Job) and isinstance(session.step(-1), Job)
    act(store, session, session.show_question(second))
    prepare(store, session)
    for kind, key in (("previous", lambda: session.step(-1)), ("ungraded", session.next_ungraded)):
        landed = act(store, session, key())
        fresh = opened(store, info)  # what a desk without anything prepared shows for the same key
        act(store, fresh, fresh.show_question(info.question_pks[1]))
        act(store, fresh, fresh.step(-1) if kind == "previous" else fresh.next_ungraded())
        assert (session.item, landed.message) == (fresh.item, None), kind
        act(store, session, session.show_question(info.question_pks[1]))
        prepare(store, session)


def test_flag_then_d_lands_where_a_fresh_desk_would(desk_store):
    """The item shown is the run's only disagreement, so `d` prepared ahead would come back to it; `!` leaves it out
    of every list, so `d` must say there is none, as a fresh desk's does, not swap to what was prepared."""
    info, store = desk_store
    session = opened(store, info)
    answer = session.answer_at("left")
    act(store, session, session.grade(answer, GradeChange(grade=next(g for g in GRADES if g != answer.machine.grade))))
    prepare(store, session)
    pk = session.item.question_pk
    assert session.ready[(pk, "disagreement")].item.question_pk == pk
    in_flight = session.prepare()  # none left to load: all four are ready
    act(store, session, session.flag("bad_gold", None))
    assert not session.ready and not in_flight
    prepare(store, session)  # prepared again, around the flagged item, as the desk does once the flag landed
    landed = act(store, session, session.next_disagreement())
    fresh = opened(store, info)
    assert fresh.item.question_pk == session.item.question_pk
    assert landed.message == act(store, fresh, fresh.next_disagreement()).message == \
        "no disagreement with the judge (with these filters)"


@pytest.mark.parametrize("change", ["grade", "flag", "filter", "budget", "rubric", "order", "another desk"])
def test_what_may_change_the_order_or_an_item_drops_the_neighbours_prepared(desk_store, change):
    info, store = desk_store
    session = opened(store, info)
    session.refreshed(run_job(store, session.watch()))  # the first look records where the store is
    planned = session.prepare()  # on their way when the change comes
    first = planned.pop(0)
    assert session.prepared(run_job(store, first))
    if change == "grade":
        act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="wrong")))
    elif change == "flag":
        act(store, session, session.flag("ambiguous", None))
    elif change == "filter":
        act(store, session, session.apply_filters(Filters(status="ungraded")))
    elif change == "budget":
        session.set_budget(1000)
    elif change == "rubric":
        act(store, session, session.set_judge_rubric("rubric-1")[1])
    elif change == "order":
        act(store, session, session.set_order("question"))
    else:
        with open_store(info.path) as elsewhere:
            other = opened(elsewhere, info, person="bob")
            act(elsewhere, other, other.grade(other.answer_at("left"), GradeChange(grade="wrong")))
        session.refreshed(run_job(store, session.watch()))
    assert not session.ready
    assert all(job.stale() for job in planned) and not prepare(store, session, planned)


def test_the_disagreeing_list_counts_the_pairs_the_status_line_counts_when_graders_are_mixed(rule_desk):
    """A grade saved beside the rule grader, which a judge graded later and agrees with: the person's figures compare
    it with the rule grader (a disagreement), so the queue's "disagreeing" lists it and `d` goes to it, one
    definition for both, not the judge's verdict shown now."""
    info, store = rule_desk
    session = opened(store, info)
    answer = session.answer_at("left")
    mine = next(g for g in GRADES if g != answer.machine.grade)
    act(store, session, session.grade(answer, GradeChange(grade=mine)))
    with store.transaction():  # the judge, later, agrees with the person
        add_machine_grade(store, AutoGrade(answer.id, "judge", "gpt-4o-mini", "rubric-1", 0, mine, None, 0.9,
                                           "agrees", None, "2026-01-06T10:00:00+00:00"))
    progress = figures(store, session)
    assert (progress.kind, progress.compared, progress.agreed) == ("rule", 1, 0)
    listed = queue_page(store, session.run, "alice", Filters(status="disagreeing"))
    assert [r.question_pk for r in listed] == [info.question_pks[0]] == [session.item.question_pk]
    act(store, session, session.step(1))
    landed = act(store, session, session.next_disagreement())
    assert session.item.question_pk == info.question_pks[0] and landed.message.startswith("wrapped round")


def test_a_persons_matrix_counts_the_pairs_their_status_line_counts(rule_desk):
    """Item 2 of issue 40: with two people, the agreement figures pool them (and say whose); each person's own matrix
    holds exactly the pairs their desk's status line compares, and the pooled matrix is the sum of theirs."""
    info, store = rule_desk
    alice = graded_everything(store, info, "alice")
    carol = opened(store, info, "carol")
    act(store, carol, carol.grade(carol.answer_at("left"), GradeChange(grade="wrong")))
    report = agreement_report(store, info.run_id, Settings(boot=20))
    assert report.people == ["alice", "carol"]
    for session in (alice, carol):
        progress, matrix = figures(store, session), report.confusion_by_person[session.person]
        assert sum(map(sum, matrix)) == progress.compared
        assert sum(matrix[i][i] for i in range(len(GRADES))) == progress.agreed
    pooled = [[a + c for a, c in zip(ra, rc)] for ra, rc in zip(*report.confusion_by_person.values())]
    assert pooled == report.confusion.matrix
