"""The desk of a team (gradedesk assign): a person's desk walks their assigned items only, says "assigned to you", and
never shows another person's grade, label or note; a lead adjudicating sees the people's grades and notes side by
side and stores decisions, never grades; p opens the team's progress."""

from __future__ import annotations

import pytest

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.queue import Filters, queue_page
from gradedesk.core.review.team import assign_run
from gradedesk.core.store.assignments import current_assignments
from gradedesk.core.store.connection import open_store
from gradedesk.tui.screens.grading import view

from tests.fixtures.agreement import add_human
from tests.fixtures.desk import keys, rows, running, screen_text
from tests.fixtures.desk import session_pane_text as pane
from tests.fixtures.session import act, counted, opened




@pytest.fixture
def team(fixture_store):
    """The fixture run's six questions, each given to two of ann, bob and cy; bob graded each of his raw answers
    'wrong' with a note, before ann opens her desk."""
    info = fixture_store
    with open_store(info.path) as store:
        assign_run(store, info.run_id, ["ann", "bob", "cy"], 2)
        mine = {g: sorted(a.question_pk for a in current_assignments(store, info.run_id) if a.grader == g)
                for g in ("ann", "bob", "cy")}
        for pk in mine["bob"]:
            add_human(store, info.answer_ids[(pk, "raw")], "bob", "wrong", note="BOBS-NOTE", label="retrieval_miss")
    return info, mine


def test_her_desk_walks_her_items_and_shows_no_one_elses_grade(team):
    info, mine = team
    with open_store(info.path) as store:
        session = opened(store, info, "ann")
        assert "assigned to you: graded 0 of 8" in counted(store, session).describe()
        seen = [session.item.question_pk]
        for _ in range(len(mine["ann"]) + 1):
            act(store, session, session.step(1))
            seen.append(session.item.question_pk)
        assert sorted(set(seen)) == mine["ann"]
        for pk in mine["ann"]:
            act(store, session, session.show_question(pk))
            shown = view.question_text(session.item, True, None).plain + pane(session, "left") + pane(session, "right")
            assert "BOBS-NOTE" not in shown and "bob" not in shown
        queue = queue_page(store, session.run, "ann", Filters())  # the queue: her items, her grades
        assert {r.question_pk for r in queue} == set(mine["ann"]) and not any(r.human_grade for r in queue)
        act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="fully_correct")))
    assert rows(info.path, "SELECT grader, grade FROM human_grades WHERE grader = 'ann'") == [
        {"grader": "ann", "grade": "fully_correct"}]


def test_a_lead_sees_the_people_side_by_side_and_stores_decisions(team):
    info, mine = team
    both = sorted(set(mine["ann"]) & set(mine["bob"]))
    with open_store(info.path) as store:
        for pk in both:
            add_human(store, info.answer_ids[(pk, "raw")], "ann", "fully_correct", note="ANNS-NOTE")
        session = opened(store, info, "lead", adjudicate=True)
        assert session.order_list == both and session.item.question_pk == both[0]
        assert session.mode == "adjudicate"
        assert view.order_text(session.order, session.order_index, len(session.order_list)) == f"disputed 1/{len(both)}"
        side = "left" if session.item.at("left").method == "raw" else "right"
        raw = pane(session, side)
        assert "ann: fully correct · ANNS-NOTE" in raw and "bob: wrong · retrieval_miss · BOBS-NOTE" in raw
        act(store, session, session.grade(session.answer_at(side), GradeChange(grade="unsupported")))
        assert "Decision: unsupported" in pane(session, side)
        act(store, session, session.prefer("tie", lambda item, preferred: preferred))
        act(store, session, session.step(1))
        assert session.item.question_pk == both[1]
    decided = rows(info.path, "SELECT question_pk, method, grade, preferred, grader FROM adjudications ORDER BY id")
    assert decided == [{"question_pk": both[0], "method": "raw", "grade": "unsupported", "preferred": None,
                        "grader": "lead"},
                       {"question_pk": both[0], "method": None, "grade": None, "preferred": "tie", "grader": "lead"}]
    assert rows(info.path, "SELECT count(*) AS n FROM human_grades WHERE grader = 'lead'") == [{"n": 0}]
    assert rows(info.path, "SELECT count(*) AS n FROM human_preferences WHERE grader = 'lead'") == [{"n": 0}]


@pytest.mark.anyio
async def test_p_opens_the_teams_progress(team):
    info, mine = team
    async with running(info.path, grader="ann") as (app, pilot):
        await keys(pilot, "p")
        await pilot.pause(0.5)
        await keys(pilot)
        text = screen_text(app)
        assert "grader" in text and "adjudicated" in text and "ann" in text and "cy" in text
        await keys(pilot, "escape")
        assert type(app.screen).__name__ == "GradingScreen"
