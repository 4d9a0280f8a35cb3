"""core/grading/human_grades.py: grade events (state, revisions, undo as an event, recheck) on a real fixture store."""

from __future__ import annotations

import pytest

from gradedesk.core.grading import human_grades
from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.errors import UserError
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.store import grades


def _events(store, grader="alice"):
    return store._query("SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def test_grade_events_carry_state_and_revisions(env):
    store, run, info = env
    aid = info.answer_ids[(info.question_pks[0], "raw")]
    noted = human_grades.record_grade(store, aid, "alice", GradeChange(note="x"))  # before the grade: blind
    assert (noted.grade, noted.note, noted.is_revision, noted.judge_visible) == (None, "x", 0, 0)
    assert not grades.judge_seen(store, aid, "alice")  # a note reveals nothing
    first = human_grades.record_grade(store, aid, "alice", GradeChange(grade="wrong"), rubric_version="rubric-1")
    assert (first.is_revision, first.judge_visible, first.mode, first.note) == (0, 0, "blind", "x")
    labelled = human_grades.record_grade(store, aid, "alice", GradeChange(failure_label="hallucination",
                                                                    scores={"correctness": 2}), judge_visible=True)
    assert labelled.grade == "wrong" and labelled.failure_label == "hallucination" and labelled.correctness == 2
    assert labelled.is_revision == 1  # a change after the judge was revealed
    passed = human_grades.record_grade(store, aid, "alice", GradeChange(grade="fully_correct", note="fine"),
                                 judge_visible=True)
    assert passed.failure_label is None and passed.correctness == 2 and passed.note == "fine"
    assert grades.current_grade(store, aid, "alice").uuid == passed.uuid
    with pytest.raises(UserError):
        human_grades.record_grade(store, aid, "alice", GradeChange(scores={"correctness": 9}))
    with pytest.raises(UserError):
        human_grades.record_grade(store, aid, "alice", GradeChange(grade="great"))
    assert len(_events(store)) == 4  # the rejected changes wrote nothing


def test_undo_is_a_new_event_and_restores_the_previous_grade(env):
    store, run, info = env
    aid = info.answer_ids[(info.question_pks[0], "raw")]
    a = human_grades.record_grade(store, aid, "alice", GradeChange(grade="wrong"))
    b = human_grades.record_grade(store, aid, "alice", GradeChange(grade="unsupported"), judge_visible=True)
    assert session.undo(store, run, "alice", Blindness()).what == b.grade
    assert grades.current_grade(store, aid, "alice").uuid == a.uuid
    assert session.undo(store, run, "alice", Blindness()).what == a.grade
    assert grades.current_grade(store, aid, "alice") is None
    assert session.undo(store, run, "alice", Blindness()) is None
    events = _events(store)
    assert [e["action"] for e in events] == ["set", "set", "undo", "undo"]
    assert events[2]["undoes_uuid"] == b.uuid and events[3]["undoes_uuid"] == a.uuid


def test_recheck_events_do_not_replace_the_grade(env):
    store, run, info = env
    pks = info.question_pks
    for pk in pks[:4]:
        human_grades.record_grade(store, info.answer_ids[(pk, "raw")], "alice", GradeChange(grade="wrong"))
    sample = review.recheck_sample(store, run, "alice", 0.5)
    assert len(sample) == 2 and set(sample) <= set(pks[:4])
    assert sample == review.recheck_sample(store, run, "alice", 0.5)  # seeded
    aid = info.answer_ids[(pks[0], "raw")]
    again = human_grades.record_grade(store, aid, "alice", GradeChange(grade="fully_correct"), mode="recheck")
    assert again.mode == "recheck" and again.is_revision == 0
    assert grades.current_grade(store, aid, "alice").grade == "wrong"
    assert grades.current_grade(store, aid, "alice", recheck=True).grade == "fully_correct"
    assert review.recheck_sample(store, run, "bob", 0.5) == []
    with pytest.raises(UserError):
        review.recheck_sample(store, run, "alice", 1.5)
