"""core/review/visibility.py: one model of what a person sees, for every kind of event; and a grade-less event (a label,
scores or a note before the grade) counted as graded nowhere: progress, the queue, the sampler, agree."""

from __future__ import annotations

from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.core.review.item import load_item
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.review.visibility import Blindness, revealed
from gradedesk.core.store import desk, grades

FAST = Settings(boot=50)


def test_the_model_for_each_setting():
    blind, open_mode, recheck = Blindness(), Blindness(show_judge=True), Blindness(show_judge=True, recheck=True)
    assert not blind.judge(1, has_machine=True, seen=False) and blind.judge(1, has_machine=True, seen=True)
    assert open_mode.judge(1, has_machine=True, seen=False) and not open_mode.judge(1, has_machine=False, seen=True)
    assert not recheck.judge(1, has_machine=True, seen=True)  # a recheck pass hides it always
    assert (blind.mode(1), open_mode.mode(1), recheck.mode(1)) == ("blind", "open", "recheck")
    assert not blind.scorers(due=False) and blind.scorers(due=True) and open_mode.scorers(due=False)
    assert not recheck.scorers(due=True)
    revealing = Blindness(reveal_share=0.5, order_seed=7, grader="alice")
    for pk in range(20):  # the revealed share is opened as in open mode, the rest blind
        assert revealing.judge_first(pk) == revealed(7, "alice", pk, 0.5)
        assert revealing.mode(pk) == ("open" if revealed(7, "alice", pk, 0.5) else "blind")


def test_what_each_event_sees_on_an_item(env):
    store, run, info = env
    pk = info.question_pks[0]
    raw, bundle = info.answer_ids[(pk, "raw")], info.answer_ids[(pk, "bundle")]
    blind = Blindness()

    def item():
        return load_item(store, run, "alice", pk)

    assert not blind.machines(item())  # a preference now would see no machine grade
    record_grade(store, raw, "alice", GradeChange(failure_label="hallucination"))
    assert not grades.judge_seen(store, raw, "alice")  # a label before the grade reveals nothing
    assert not blind.answer_judge(item(), item().answers["raw"]) and not blind.machines(item())
    record_grade(store, raw, "alice", GradeChange(grade="wrong"))
    now = item()
    assert blind.answer_judge(now, now.answers["raw"]) and not blind.answer_judge(now, now.answers["bundle"])
    assert blind.machines(now)  # a preference now sees the raw answer's machine grade
    session.undo(store, run, "alice", blind)
    assert grades.judge_seen(store, raw, "alice")  # once seen it stays seen
    assert blind.answer_judge(item(), item().answers["raw"])
    again = record_grade(store, raw, "alice", GradeChange(grade="fully_correct"),
                         judge_visible=blind.answer_judge(item(), item().answers["raw"]))
    assert (again.judge_visible, again.is_revision) == (1, 1)
    assert not grades.judge_seen(store, bundle, "alice")


def test_a_label_alone_is_not_graded_anywhere(env):
    store, run, info = env
    pk = info.question_pks[0]
    total = review.count_shown(store, run)
    for method in ("raw", "bundle"):
        record_grade(store, info.answer_ids[(pk, method)], "alice", GradeChange(note="looks off",
                                                                                  scores={"correctness": 2}))
    progress = review.progress(store, run, "alice", total)
    assert (progress.graded, progress.compared) == (0, 0)
    ungraded = review.queue_page(store, run, "alice", Filters(status="ungraded"))
    assert {r.answer_id for r in ungraded} >= {info.answer_ids[(pk, m)] for m in ("raw", "bundle")}
    assert review.queue_page(store, run, "alice", Filters(status="graded")) == []
    assert not desk.question_graded_by(store, run, "alice", pk)  # the sampler still treats it as pending
    assert review.recheck_sample(store, run, "alice", 1.0) == []
    report = agreement_report(store, run.id, FAST)
    assert report.pairs == 0 and report.people == []
    assert grades.answer_human_grades(store, info.answer_ids[(pk, "raw")]) == []


def test_a_label_alone_leaves_a_sampled_question_pending(env):
    store, run, info = env
    first = draw_next(store, run, "alice")
    for method in ("raw", "bundle"):
        record_grade(store, info.answer_ids[(first.question_pk, method)], "alice",
                     GradeChange(failure_label="hallucination"), selection="sampled",
                     selection_probability=first.probability)
    assert not desk.question_graded_by(store, run, "alice", first.question_pk)
    report = agreement_report(store, run.id, FAST)
    assert report.samples.sampled.pending_draws == 1 and report.samples.sampled.graded_draws == 0


def test_the_switch_rate_counts_a_blind_grade_taken_back(env):
    store, run, info = env
    pk = info.question_pks[0]
    raw = info.answer_ids[(pk, "raw")]
    machine = load_item(store, run, "alice", pk).answers["raw"].machine.grade
    blind_grade = "wrong" if machine != "wrong" else "partially_correct"
    record_grade(store, raw, "alice", GradeChange(grade=blind_grade))
    session.undo(store, run, "alice", Blindness())
    record_grade(store, raw, "alice", GradeChange(grade=machine))
    switch = agreement_report(store, run.id, FAST).switch_rate
    assert (switch.eligible, switch.switched, switch.toward_machine) == (1, 1, 1)
    # the same grade again after the undo is no switch
    record_grade(store, raw, "alice", GradeChange(grade=blind_grade))
    assert agreement_report(store, run.id, FAST).switch_rate.switched == 0
