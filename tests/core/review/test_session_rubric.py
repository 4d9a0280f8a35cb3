"""The judge's rubric version chosen at the desk (the palette's "Judge verdict under rubric …") through the desk
session, without Textual: grades record the verdict on the desk, the panes show it (blind first still), the choice is
kept for the person's next desk, and the figures, the disagreement key, the filters and the queue's rows all use that
version's verdicts. The store is a real fixture store on which the judge graded the
run under two rubric versions that disagree. (The palette itself and the queue screen drawing a version's verdicts:
tests/tui/test_judge_rubric_choice.py.)"""

from __future__ import annotations

import pytest

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import GRADE_LABELS
from gradedesk.core.review.queue import Filters, left_method, queue_page
from gradedesk.core.review.session import run_job
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_auto, add_rubric
from tests.fixtures.desk import rows, session_pane_text
from tests.fixtures.desk_store import build_fixture_store
from tests.fixtures.rubrics import HIDDEN, MINE, MINE_SHOWN, build_two_rubrics, verdict
from tests.fixtures.session import act, counted, opened

NEWER = "rubric-2"


@pytest.fixture
def disagreeing_rubrics(tmp_path):
    """The fixture store (the judge under rubric-1 on questions 0, 1, 3 and 4, the rule grader on 2 and 5), then the
    judge under a later rubric-2 on every answer: fully correct, but for question 1's raw answer (partially correct)
    and question 2's bundled one (unsupported). Question 0's raw answer gets a second rubric-1 repeat saying fully
    correct: only the first repeat counts."""
    info = build_fixture_store(tmp_path / "store.db")
    with open_store(info.path) as store:
        add_rubric(store, NEWER, "2030-01-01T00:00:00+00:00")
        q = info.question_pks
        odd = {(q[1], "raw"): "partially_correct", (q[2], "bundle"): "unsupported"}
        for key, aid in info.answer_ids.items():
            add_auto(store, aid, odd.get(key, "fully_correct"), model="gpt-4o-mini", rubric=NEWER)
        add_auto(store, info.answer_ids[(q[0], "raw")], "fully_correct", model="gpt-4o-mini", rubric="rubric-1",
                 repeat=1)
    store = open_store(info.path)
    yield info, store
    store.close()


def judge_verdicts(path, rubric: str) -> dict[int, str]:
    """answer id -> the judge's grade under `rubric` (first repeat, newest), read from the raw rows."""
    out: dict[int, str] = {}
    for r in rows(path, "SELECT answer_id, grade FROM auto_grades WHERE grader_kind = 'judge' AND rubric_version = ? "
                        "AND repeat_index = 0 ORDER BY id", (rubric,)):
        out[r["answer_id"]] = r["grade"]
    return out


def people(path) -> dict[int, str]:
    return {r["answer_id"]: r["grade"] for r in rows(
        path, "SELECT answer_id, grade FROM current_human_grades WHERE grader = 'alice'")}


def disagreeing(info, verdicts: dict[int, str]) -> list[int]:
    """The questions where alice's grade of an answer differs from the verdict in `verdicts`, in question order."""
    mine = people(info.path)
    return [pk for pk in info.question_pks if any(
        aid in mine and aid in verdicts and mine[aid] != verdicts[aid]
        for (q, _), aid in info.answer_ids.items() if q == pk)]


def side_of(info, pk: int, side: str) -> int:
    method = left_method(7, pk) if side == "left" else ("raw" if left_method(7, pk) == "bundle" else "bundle")
    return info.answer_ids[(pk, method)]


def walk(store, session, move, times: int) -> list[int]:
    """Make the move (a session method: next_disagreement, ...) `times` times; the questions reached."""
    out = []
    for _ in range(times):
        act(store, session, move())
        out.append(session.item.question_pk)
    return out


def filter_to(store, session, **values) -> list[int]:
    """Apply filters as the filters dialog does, then step with j to the end; the questions reached."""
    act(store, session, session.apply_filters(Filters(**values)))
    reached = [session.item.question_pk]
    while True:
        landed = act(store, session, session.step(1))
        if session.item.question_pk == reached[-1]:
            assert landed.message == "no more items"
            return reached
        reached.append(session.item.question_pk)


def grade(store, session, side: str, grade: str) -> None:
    act(store, session, session.grade(session.answer_at(side), GradeChange(grade=grade)))
    counted(store, session)  # the desk counts again after every write


def test_the_disagreement_key_filters_progress_and_queue_use_the_chosen_rubric_version(disagreeing_rubrics):
    info, store = disagreeing_rubrics
    q = info.question_pks
    old, new = judge_verdicts(info.path, "rubric-1"), judge_verdicts(info.path, NEWER)
    session = opened(store, info)
    message, reload = session.set_judge_rubric("rubric-1")
    act(store, session, reload)
    assert message == "judge verdicts under rubric rubric-1" and session.judge_rubric == "rubric-1"
    for _ in q[:4]:  # both answers of questions 0-3 graded fully correct, blind
        grade(store, session, "left", "fully_correct")
        grade(store, session, "right", "fully_correct")
        act(store, session, session.step(1))
    graded = [info.answer_ids[(pk, m)] for pk in q[:4] for m in ("raw", "bundle")]
    assert people(info.path) == {aid: "fully_correct" for aid in graded}
    for e in rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'"):
        assert (e["mode"], e["judge_visible"]) == ("blind", 0)
        on_desk = ("judge", "rubric-1") if e["answer_id"] in old else (None, None)  # question 2: no rubric-1 verdict
        assert (e["machine_kind"], e["machine_rubric"]) == on_desk
    assert session.item.question_pk == q[4]
    # the status line counts as agree does: each grade beside the verdict on the desk when it was saved, and
    # question 2's (no rubric-1 verdict on the desk) beside the newest judge verdict
    beside = {a: old.get(a, new[a]) for a in graded}
    agreed = sum(v == "fully_correct" for v in beside.values())
    assert f"agreement with judge {agreed}/{len(graded)}" in counted(store, session).describe(
        machine=session.machine_name)

    expected = disagreeing(info, old)
    assert expected != disagreeing(info, new)  # the two versions really lead to different items
    assert expected == [q[0], q[1], q[3]]
    assert walk(store, session, session.next_disagreement, 4) == [q[0], q[1], q[3], q[0]]
    for side in ("left", "right"):  # the pane and the key agree: the verdict shown is rubric-1's
        a = session.answer_at(side)
        assert a.machine.rubric_version == "rubric-1" and a.machine.grade == old[a.id]
        assert "· rubric rubric-1" in session_pane_text(session, side)

    # to the next disagreement, grade its left answer, to the next, grade its right answer
    before = len(rows(info.path, "SELECT id FROM human_grades WHERE grader = 'alice'"))
    act(store, session, session.next_disagreement())
    grade(store, session, "left", "unsupported")
    act(store, session, session.next_disagreement())
    grade(store, session, "right", "wrong")
    latest = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice' ORDER BY id")[before:]
    assert [(e["answer_id"], e["grade"], e["machine_rubric"]) for e in latest] == [
        (side_of(info, q[1], "left"), "unsupported", "rubric-1"), (side_of(info, q[3], "right"), "wrong", "rubric-1")]

    unsupported = sorted({pk for (pk, _), aid in info.answer_ids.items() if old.get(aid) == "unsupported"})
    assert filter_to(store, session, judge_grade="unsupported") == unsupported == [q[3]]
    assert filter_to(store, session, status="disagreeing") == disagreeing(info, old)

    # the queue's rows (what the queue screen lists) carry rubric-1's verdicts and its disagreements
    act(store, session, session.apply_filters(Filters()))
    queue = queue_page(store, session.run, "alice", session.filters, judge_rubric=session.judge_rubric,
                       kind=session.progress.kind)
    mine = people(info.path)
    assert len(queue) == len(info.answer_ids)
    for row in queue:
        aid = row.answer_id
        assert row.machine_grade == old.get(aid)
        assert row.machine_kind == ("judge" if aid in old else None)
        assert row.judge_seen == (aid in mine)  # blind first: the machine grade is shown for graded answers only
        assert row.disagrees == (aid in mine and aid in old and mine[aid] != old[aid])

    message, reload = session.set_judge_rubric(None)  # back to the newest: the filter follows
    act(store, session, reload)
    assert message == "judge verdicts: the newest" and session.judge_rubric is None
    assert filter_to(store, session, judge_grade="unsupported") == [q[2]]


@pytest.fixture
def two_rubrics(tmp_path):
    info = build_two_rubrics(tmp_path / "store.db")
    store = open_store(info.path)
    yield info, store
    store.close()


def test_a_chosen_rubric_version_shows_its_verdict_after_the_grade_and_survives_reopening(two_rubrics):
    """The panes the grading screen draws under a chosen version (blind first holds, the version's verdict after the
    grade, a user's version shown literally), the grade's record, and the choice kept for the person's next desk.
    (Was the Pilot test of that name in tests/tui/test_judge_rubric_choice.py; the palette keys stay there.)"""
    info, store = two_rubrics
    pk = info.question_pks[0]
    left, right = side_of(info, pk, "left"), side_of(info, pk, "right")
    session = opened(store, info)
    assert session.item.question_pk == pk and session.judge_rubric is None
    assert session.item.judge_rubrics == ("rubric-1", MINE)
    for side in ("left", "right"):
        assert f"judge (gpt-4o-mini): {HIDDEN}" in session_pane_text(session, side)
    message, reload = session.set_judge_rubric("rubric-1")
    act(store, session, reload)
    assert message == "judge verdicts under rubric rubric-1"
    for side in ("left", "right"):  # switching never reveals the judge: blind first still holds
        text = session_pane_text(session, side)
        assert f"judge (gpt-4o-mini) under rubric rubric-1: {HIDDEN}" in text
        assert "· rubric" not in text and "MINE judged" not in text and "gold answer." not in text

    grade(store, session, "left", "partially_correct")
    [event] = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'")
    assert (event["answer_id"], event["grade"], event["mode"], event["judge_visible"]) == \
        (left, "partially_correct", "blind", 0)
    assert (event["machine_kind"], event["machine_model"], event["machine_rubric"]) == \
        ("judge", "gpt-4o-mini", "rubric-1")
    shown, old = session_pane_text(session, "left"), verdict(info.path, left, "rubric-1")
    assert f"judge (gpt-4o-mini): {GRADE_LABELS[old['grade']]}" in shown and "· rubric rubric-1" in shown
    assert old["reasoning"] in shown and "MINE judged" not in shown and HIDDEN not in shown
    assert f"under rubric rubric-1: {HIDDEN}" in session_pane_text(session, "right")
    run_job(store, session.save_state())

    again = opened(store, info)  # the choice is kept in the desk state
    assert again.judge_rubric == "rubric-1" and again.item.question_pk == pk
    assert "· rubric rubric-1" in session_pane_text(again, "left") and HIDDEN in session_pane_text(again, "right")
    message, reload = again.set_judge_rubric(None)
    act(store, again, reload)
    assert message == "judge verdicts: the newest" and again.judge_rubric is None
    grade(store, again, "right", "unsupported")
    assert people(info.path) == {left: "partially_correct", right: "unsupported"}
    for side, aid in (("left", left), ("right", right)):  # the newest verdicts are MINE's, shown literally
        text = session_pane_text(again, side)
        new = verdict(info.path, aid, MINE)
        assert f"judge (gpt-4o-mini): {GRADE_LABELS[new['grade']]}" in text and new["reasoning"] in text
        assert f"· rubric {MINE_SHOWN}" in text and "\x1b" not in text
