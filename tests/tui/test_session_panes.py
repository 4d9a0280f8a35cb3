"""What the grading screen draws of a desk session's state, without Pilot: the panes (view.pane_view, pane_blocks) and
the status line's budget (view.status_budget, view.topbar_text) are functions of the session, driven here on a real
fixture store. Blind first, hidden method names, a recheck pass and a bundled budget other than the run's largest, as
the panes and bars draw them (what each of those stores: tests/core/review/test_session_events.py)."""

from __future__ import annotations


from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.queue import left_method
from gradedesk.tui.screens.grading import view
from tests.fixtures.desk import session_pane_text as pane
from tests.fixtures.session import act, opened

HIDDEN = "hidden until you save your grade"



def grade(store, session, side: str, value: str) -> None:
    act(store, session, session.grade(session.answer_at(side), GradeChange(grade=value)))


def test_a_pane_hides_its_machine_grade_until_its_answer_is_graded(desk_store):
    info, store = desk_store
    session = opened(store, info)
    verdict = f"judge (gpt-4o-mini): {session.answer_at('left').machine.grade.replace('_', ' ')}"
    assert HIDDEN in pane(session, "left") and verdict not in pane(session, "left")
    grade(store, session, "left", "partially_correct")
    assert HIDDEN not in pane(session, "left") and verdict in pane(session, "left")
    assert HIDDEN in pane(session, "right")  # the other answer stays blind until graded
    assert HIDDEN not in pane(opened(store, info, "bob", show_judge=True), "left")  # open mode


def test_hidden_method_names_show_once_both_answers_are_graded(desk_store):
    info, store = desk_store
    session = opened(store, info, hide_methods=True)
    titles = lambda: view.pane_view(session, "left").title + view.pane_view(session, "right").title  # noqa: E731
    assert titles() == "Answer AAnswer B"
    grade(store, session, "left", "fully_correct")
    assert "raw top-k" not in titles()
    grade(store, session, "right", "partially_correct")
    assert "raw top-k" in titles()


def test_a_recheck_pass_draws_neither_the_earlier_grade_nor_the_machine_grade(desk_store):
    info, store = desk_store
    session = opened(store, info)
    grade(store, session, "left", "fully_correct")
    recheck = opened(store, info, recheck=1.0)
    text = pane(recheck, "left")
    assert "not graded" in text and "recheck pass: hidden" in text


def test_a_budget_other_than_the_largest_is_named_on_the_top_bar_and_its_pane(desk_store):
    info, store = desk_store
    pk = info.question_pks[0]
    raw_side, bundle_side = ("left", "right") if left_method(7, pk) == "raw" else ("right", "left")
    session = opened(store, info)
    top = lambda: view.topbar_text(session.run, "alice", session.mode, False, "question order", "none").plain  # noqa: E731
    assert "bundle @" not in top() and view.status_budget(session.run, False) == 2000  # the line names the largest
    grade(store, session, raw_side, "unsupported")
    session.set_budget(1000)
    act(store, session, session.reload())
    assert "bundle @ 1,000" in top() and view.status_budget(session.run, False) is None  # the bar names it
    assert "bundle @ 1,000 tokens" in view.pane_view(session, bundle_side).title
    assert "graded beside the 2,000-token answer, shown now beside 1,000" in pane(session, raw_side)
