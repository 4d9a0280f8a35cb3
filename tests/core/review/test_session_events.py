"""What each desk action stores and what blind first shows after it, through the desk session on a real fixture store
(no Textual): grades, revisions and undo, labels and notes before the grade, preferences, the settings that decide what
is seen (open mode, hidden method names, a recheck pass, a revealed share), two people and where each stopped, and a
bundled budget other than the run's largest. These were Pilot tests (tests/tui/test_desk.py, test_blind_events.py,
test_budget_desk.py); the screens' own part of them (the keys' dialogs, what the panes draw) stays there and in the
snapshots."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.agreement.tables import headline as pairs_line
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.grading.vocabulary import FAILURE_LABELS
from gradedesk.core.review.queue import left_method, queue_page
from gradedesk.core.review.sampler import draw_probabilities, question_usefulness
from gradedesk.core.review.session import run_job
from gradedesk.core.review.visibility import revealed
from gradedesk.core.store.machine_grades import GRADING_ERROR
from gradedesk.core.store.run_records import run_info
from tests.fixtures.cli import cli
from tests.fixtures.desk import rows
from tests.fixtures.session import act, counted, opened


def events(path, grader="alice"):
    return rows(path, "SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def preferences(path):
    return rows(path, "SELECT * FROM human_preferences ORDER BY id")


def grade(store, session, side: str, **change):
    return act(store, session, session.grade(session.answer_at(side), GradeChange(**change)))


def prefer(store, session, which: str):
    return act(store, session, session.prefer(which, lambda item, preferred: preferred))


def bundle_at(path, pk: int, budget: int) -> int:
    [row] = rows(path, "SELECT id FROM answers WHERE question_pk = ? AND method = 'bundle' AND budget = ?",
                 (pk, budget))
    return row["id"]


# grades, revisions, undo (were test_desk.py's) ---------------------------------------------------------------------

def test_a_blind_grade_is_recorded_blind_and_reveals_that_answers_machine_grade_only(desk_store):
    info, store = desk_store
    session = opened(store, info)
    left = session.answer_at("left")
    assert not session.judge_visible(left) and not session.judge_visible(session.answer_at("right"))
    grade(store, session, "left", grade="partially_correct")
    [e] = events(info.path)
    assert (e["answer_id"], e["grade"], e["mode"], e["judge_visible"], e["is_revision"], e["action"]) == \
        (left.id, "partially_correct", "blind", 0, 0, "set")
    assert e["rubric_version"] == "rubric-1" and e["grader"] == "alice"
    assert session.judge_visible(session.answer_at("left"))
    assert session.answer_at("left").machine.grade  # the judge's grade is there to show
    assert not session.judge_visible(session.answer_at("right"))  # the other answer stays blind until graded
    assert "graded 1 of 12" in counted(store, session).describe()


def test_a_change_after_the_reveal_is_a_revision_and_undo_is_an_event(desk_store):
    info, store = desk_store
    session = opened(store, info)
    grade(store, session, "left", grade="wrong")
    grade(store, session, "left", grade="fully_correct")
    first, second = events(info.path)
    assert (second["grade"], second["judge_visible"], second["is_revision"]) == ("fully_correct", 1, 1)
    act(store, session, session.undo())
    evs = events(info.path)
    assert len(evs) == 3 and evs[2]["action"] == "undo" and evs[2]["undoes_uuid"] == second["uuid"]
    assert session.answer_at("left").human.grade == "wrong"  # the earlier grade is current again
    assert rows(info.path, "SELECT grade FROM current_human_grades WHERE grader = 'alice'") == [{"grade": "wrong"}]


def test_undo_after_the_reveal_does_not_blind_again(desk_store):
    """4 reveals the judge; u takes the grade back but not what was seen (the pane and the queue's row still show the
    machine grade); 2 is then a change after the reveal. (Was the Pilot test of that name in
    tests/tui/test_typeahead.py; the queue screen drawing a row's machine grade or "hidden": tests/tui.)"""
    info, store = desk_store
    session = opened(store, info)
    aid = session.answer_at("left").id
    grade(store, session, "left", grade="wrong")
    act(store, session, session.undo())
    left = session.answer_at("left")
    assert left.id == aid and left.human is None and session.judge_visible(left)  # still shown: it was seen
    progress = counted(store, session)
    [row] = [r for r in queue_page(store, session.run, "alice", session.filters, kind=progress.kind)
             if r.answer_id == aid]
    assert row.judge_seen and row.machine_grade == left.machine.grade  # the queue shows it too
    grade(store, session, "left", grade="partially_correct")
    assert [(e["answer_id"], e["action"], e["grade"], e["judge_visible"], e["is_revision"]) for e in events(info.path)] \
        == [(aid, "set", "wrong", 0, 0), (aid, "undo", None, 1, 0), (aid, "set", "partially_correct", 1, 1)]


def test_open_mode_is_recorded_with_the_machine_grade_in_view(desk_store):
    info, store = desk_store
    session = opened(store, info, show_judge=True)
    assert session.judge_visible(session.answer_at("left"))
    grade(store, session, "left", grade="fully_correct")
    [e] = events(info.path)
    assert (e["mode"], e["judge_visible"], e["is_revision"]) == ("open", 1, 0)


def test_method_names_stay_hidden_until_both_answers_are_graded(desk_store):
    info, store = desk_store
    session = opened(store, info, hide_methods=True)
    assert not session.methods_visible()
    grade(store, session, "left", grade="fully_correct")
    assert not session.methods_visible()
    grade(store, session, "right", grade="partially_correct")
    assert session.methods_visible()


def test_two_people_grade_apart_and_each_comes_back_where_they_stopped(desk_store):
    info, store = desk_store
    pks = info.question_pks
    alice, bob = opened(store, info, "alice"), opened(store, info, "bob")
    for _ in range(3):
        act(store, alice, alice.step(1))
    grade(store, alice, "left", grade="partially_correct")
    grade(store, bob, "left", grade="wrong")
    run_job(store, alice.save_state())  # what quitting the desk stores
    graders = {(e["grader"], e["grade"]) for e in rows(info.path, "SELECT * FROM human_grades")}
    assert graders == {("alice", "partially_correct"), ("bob", "wrong")}
    again = opened(store, info, "alice")
    assert again.item.question_pk == pks[3] and again.answer_at("left").human.grade == "partially_correct"
    assert opened(store, info, "carol").item.question_pk == pks[0]


def test_a_recheck_pass_is_blind_and_stores_recheck_events_beside_the_grades(desk_store):
    info, store = desk_store
    session = opened(store, info)
    for _ in range(3):
        grade(store, session, "left", grade="fully_correct")
        grade(store, session, "right", grade="partially_correct")
        act(store, session, session.step(1))
    recheck = opened(store, info, recheck=1.0)
    assert recheck.mode == "recheck" and recheck.item.question_pk in info.question_pks[:3]
    left = recheck.answer_at("left")
    assert left.human is None and not recheck.judge_visible(left)  # the earlier grade and the judge both hidden
    grade(store, recheck, "left", grade="wrong")
    last = events(info.path)[-1]
    assert (last["mode"], last["grade"], last["judge_visible"], last["is_revision"]) == ("recheck", "wrong", 0, 0)
    # the recheck did not replace the grade
    assert rows(info.path, "SELECT count(*) AS n FROM current_human_grades WHERE grade = 'wrong'") == [{"n": 0}]
    assert recheck.save_state() is None  # a recheck pass does not move where the person stopped


def test_a_revealed_share_opens_that_share_of_items_with_the_judge_in_view(desk_store):
    info, store = desk_store
    session = opened(store, info, reveal_share=1.0)
    grade(store, session, "left", grade="partially_correct")
    assert [(e["mode"], e["judge_visible"]) for e in events(info.path)] == [("open", 1)]
    shown = sum(revealed(7, "alice", pk, 0.1) for pk in range(5000))
    assert 400 < shown < 600 and not revealed(7, "alice", 3, 0.0)
    assert revealed(7, "alice", 42, 0.5) == revealed(7, "alice", 42, 0.5)


def test_most_useful_first_draws_and_each_grade_records_its_draw(desk_store):
    info, store = desk_store
    session = opened(store, info)
    act(store, session, session.set_order("most_useful"))
    drawn = rows(info.path, "SELECT * FROM sample_draws WHERE grader = 'alice' ORDER BY draw_index")
    assert session.order == "most_useful" and drawn and session.item.question_pk == drawn[-1]["question_pk"]
    grade(store, session, "left", grade="partially_correct")
    assert events(info.path)[-1]["selection"] == "sampled"
    assert events(info.path)[-1]["selection_probability"] == pytest.approx(drawn[-1]["probability"])
    act(store, session, session.step(1))
    later = rows(info.path, "SELECT * FROM sample_draws WHERE grader = 'alice' ORDER BY draw_index")
    assert session.item.question_pk == later[-1]["question_pk"] and len(later) > len(drawn)
    act(store, session, session.set_order("question"))
    assert session.order == "question"


# labels, notes and preferences before and after the grade (were test_blind_events.py's) ---------------------------

def test_a_label_before_the_grade_is_blind_and_not_graded(desk_store):
    info, store = desk_store
    session = opened(store, info)
    assert "graded 0 of 12" in counted(store, session).describe()
    landed = grade(store, session, "left", failure_label=FAILURE_LABELS[1])
    [label] = events(info.path)
    assert (label["grade"], label["failure_label"], label["judge_visible"], label["is_revision"], label["mode"]) \
        == (None, FAILURE_LABELS[1], 0, 0, "blind")
    assert landed.message.startswith(f"saved: label {FAILURE_LABELS[1]} (not graded yet")
    assert "graded 0 of 12" in counted(store, session).describe()  # a label is no grade
    assert not session.judge_visible(session.answer_at("left"))  # nor does it reveal the machine grade
    grade(store, session, "left", grade="unsupported")  # the grade, still blind: the label stays
    graded = events(info.path)[-1]
    assert (graded["grade"], graded["failure_label"], graded["judge_visible"], graded["is_revision"]) == \
        ("unsupported", FAILURE_LABELS[1], 0, 0)
    assert "graded 1 of 12" in counted(store, session).describe()
    grade(store, session, "left", failure_label=FAILURE_LABELS[2])  # after the reveal: a revision in its view
    after = events(info.path)[-1]
    assert (after["grade"], after["failure_label"], after["judge_visible"], after["is_revision"]) == \
        ("unsupported", FAILURE_LABELS[2], 1, 1)


def test_undo_takes_back_a_note_given_before_the_grade(desk_store):
    info, store = desk_store
    session = opened(store, info)
    grade(store, session, "left", note="check")
    act(store, session, session.undo())
    noted, undo = events(info.path)
    assert (noted["grade"], noted["note"]) == (None, "check")
    assert (undo["action"], undo["undoes_uuid"], undo["judge_visible"]) == ("undo", noted["uuid"], 0)
    left = session.answer_at("left")
    assert left.human is None and not session.judge_visible(left)
    assert rows(info.path, "SELECT * FROM current_human_grades") == []


def test_a_grade_after_undo_is_a_revision_and_agree_counts_the_switch(desk_store, capsys):
    info, store = desk_store
    session = opened(store, info)
    left = session.answer_at("left")
    grade(store, session, "left", grade="partially_correct")  # blind; the machine grade is revealed
    act(store, session, session.undo())
    grade(store, session, "left", grade="wrong")  # after the reveal, however it was reached
    blind, undo, again = events(info.path)
    assert (blind["grade"], blind["judge_visible"], blind["is_revision"]) == ("partially_correct", 0, 0)
    assert (undo["action"], undo["judge_visible"]) == ("undo", 1)  # the judge was in view as it was taken back
    assert (again["grade"], again["judge_visible"], again["is_revision"]) == ("wrong", 1, 1)
    assert again["answer_id"] == left.id
    code, out, _ = cli(capsys, "agree", "1", "--store", info.path, "--json", "--bootstrap", "50")
    switch = json.loads(out)["switch_rate"]
    assert code == 0 and (switch["eligible"], switch["switched"]) == (1, 1)


def test_an_unusable_judge_reply_is_no_pair_in_the_figures_the_agreement_report_and_agree(desk_store, capsys):
    """An unusable judge reply (stored as unsupported, label grading_error) is counted alike by the person's figures
    (the status line), the agreement report (the agreement screen's top line) and `agree --json`."""
    info, store = desk_store
    session = opened(store, info)
    left = session.answer_at("left")
    with store.transaction():
        store._conn.execute("UPDATE auto_grades SET grade = 'unsupported', failure_label = ? WHERE answer_id = ?",
                            (GRADING_ERROR, left.id))
    for side, grade_given, figures, pairs in (
            ("left", "unsupported", ("graded 1 of 12", "nothing compared yet", "1 not compared (machine reply unusable)"),
             0),
            ("right", "fully_correct", ("graded 2 of 12", "agreement with judge", "/1 ("), 1)):
        grade(store, session, side, grade=grade_given)
        status = counted(store, session).describe(machine=session.machine_name)
        assert all(f in status for f in figures) and ("0/1" not in status) == (pairs == 0)
        top = pairs_line(agreement_report(store, info.run_id, Settings(boot=20)))
        assert f"{pairs} graded pair(s), alice vs judge" in top and "nobody" not in top  # who graded is named
        code, out, _ = cli(capsys, "agree", "1", "--store", info.path, "--json", "--bootstrap", "50")
        report = json.loads(out)
        assert code == 0 and report["pairs"] == pairs and report["people"] == ["alice"]


def test_a_preference_records_what_was_on_screen_and_how_the_item_was_reached(desk_store):
    info, store = desk_store
    session = opened(store, info)
    prefer(store, session, "right")  # before any grade: both machine grades hidden
    grade(store, session, "left", grade="fully_correct")  # its machine grade is shown now
    prefer(store, session, "tie")
    [target] = rows(info.path, "SELECT question_id FROM questions WHERE id = ?", (info.question_pks[3],))
    act(store, session, session.jump(target["question_id"]))
    prefer(store, session, "left")
    first, second, jumped = preferences(info.path)
    assert (first["action"], first["judge_visible"], first["selection"], first["selection_probability"]) == \
        ("set", 0, "question_order", None)
    assert (second["preferred"], second["judge_visible"]) == ("tie", 1)
    assert (jumped["judge_visible"], jumped["selection"]) == (0, "jump")
    pk = info.question_pks[0]
    assert first["preferred"] == ("bundle" if left_method(7, pk) == "raw" else "raw") and first["left_method"] == \
        left_method(7, pk)


def test_u_takes_back_a_preference_given_after_a_grade_then_the_grade(desk_store):
    info, store = desk_store
    session = opened(store, info)
    grade(store, session, "left", grade="wrong")
    prefer(store, session, "right")
    assert session.item.preference is not None
    landed = act(store, session, session.undo())  # the newest event: the preference
    chosen, undo = preferences(info.path)
    assert (undo["action"], undo["undoes_uuid"], undo["judge_visible"]) == ("undo", chosen["uuid"], 1)
    assert session.item.preference is None and landed.message.startswith("undone: preference")
    assert [e["action"] for e in events(info.path)] == ["set"]  # the grade stays
    act(store, session, session.undo())  # then the grade
    assert [e["action"] for e in events(info.path)] == ["set", "undo"]
    assert len(preferences(info.path)) == 2


# a bundled budget other than the run's largest (were test_budget_desk.py's) ----------------------------------------

def test_budget_1000_shows_raw_beside_the_1000_token_answer_and_every_event_records_it(desk_store):
    info, store = desk_store
    pk = info.question_pks[0]
    bundle_side = "left" if left_method(7, pk) == "bundle" else "right"
    with store.transaction():  # the judge was unsure of one 1,000-token answer only
        store._db["auto_grades"].insert({
            "answer_id": bundle_at(info.path, info.question_pks[1], 1000), "grader_kind": "judge",
            "grader_model": "gpt-4o-mini", "rubric_version": "rubric-1", "grade": "wrong", "confidence": 0.0,
            "created_at": "2026-01-05T10:00:00+00:00"})
    session = opened(store, info, budget=1000)
    assert session.item.question_pk == pk and session.item.answers["bundle"].id == bundle_at(info.path, pk, 1000)
    assert "graded 0 of 12" in counted(store, session).describe()  # 6 raw + 6 bundled at 1,000
    grade(store, session, bundle_side, grade="partially_correct")
    prefer(store, session, "left")
    [saved] = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'")
    assert (saved["answer_id"], saved["grade"], saved["budget"]) == (
        bundle_at(info.path, pk, 1000), "partially_correct", 1000)
    [preference] = rows(info.path, "SELECT * FROM human_preferences WHERE grader = 'alice'")
    assert (preference["preferred"], preference["budget"]) == (left_method(7, pk), 1000)
    assert session.item.preference == left_method(7, pk)
    act(store, session, session.set_order("most_useful"))
    [first, *_] = draws = rows(info.path, "SELECT * FROM sample_draws WHERE grader = 'alice' ORDER BY draw_index")
    assert {d["budget"] for d in draws} == {1000}
    # exact: each draw's probability is its question's in the population shown at 1,000 tokens
    run = run_info(store, info.run_id)
    pks, usefulness = question_usefulness(store, run.showing(1000))
    at_largest = dict(zip(*question_usefulness(store, run)))
    expected = dict(zip(pks, draw_probabilities(usefulness)))
    assert first["population"] == len(pks) == 6
    assert [d["probability"] for d in draws] == [pytest.approx(expected[d["question_pk"]]) for d in draws]
    assert dict(zip(pks, usefulness)) != at_largest  # the 2,000-token population would weigh them otherwise
    run_job(store, session.save_state())
    [state] = rows(info.path, "SELECT settings FROM desk_state WHERE grader = 'alice'")
    assert json.loads(state["settings"])["budget"] == 1000


def test_a_budget_chosen_is_kept_per_person_and_a_raw_grade_stays_the_raw_answers(desk_store):
    info, store = desk_store
    pk = info.question_pks[0]
    raw_side = "left" if left_method(7, pk) == "raw" else "right"
    session = opened(store, info)
    assert session.item.answers["bundle"].budget == 2000  # the default: the run's largest
    grade(store, session, raw_side, grade="unsupported")
    assert session.set_budget(1000) == "raw beside the bundled answer at 1,000 tokens"
    act(store, session, session.reload())
    item = session.item
    assert item.question_pk == pk and item.answers["bundle"].budget == 1000
    assert item.answers["raw"].human.grade == "unsupported"  # the same answer, the same grade
    assert "graded 1 of 12" in counted(store, session).describe()
    run_job(store, session.save_state())
    again = opened(store, info)  # alice comes back to the budget she left
    assert again.run.bundle_budget == 1000 and again.item.answers["bundle"].budget == 1000
    assert opened(store, info, "bob").run.bundle_budget == 2000  # bob's desk is his own


def by_budget_counts(store, budget: int) -> tuple[int, int, int]:
    """(graded, compared, agreed) of `agree --json`'s by_budget at `budget`: its raw point and that budget's point."""
    curve = agreement_report(store, 1).to_dict()["by_budget"]
    shown = ("raw", f"bundle@{budget}")
    points = [p for p in curve["points"] if p["method"] in shown]
    assert len(points) == 2
    graded = sum(g["graded"] for g in curve["people"]["grades"] if g["method"] in shown)
    return graded, sum(p["compared"] for p in points), sum(p["agreed"] for p in points)


def test_the_figures_count_at_the_budget_shown_as_agree_by_budget_does(desk_store):
    info, store = desk_store
    pk, other = info.question_pks[0], info.question_pks[1]
    bundle_side = "left" if left_method(7, pk) == "bundle" else "right"
    with store.transaction():  # the fixture's judge graded only the 2,000-token answers: one at 1,000 too
        store._db["auto_grades"].insert({
            "answer_id": bundle_at(info.path, pk, 1000), "grader_kind": "judge", "grader_model": "gpt-4o-mini",
            "rubric_version": "rubric-1", "grade": "fully_correct", "confidence": 0.9,
            "created_at": "2026-01-05T10:00:00+00:00"})
    # alice graded another question's 2,000-token answer beside 2,000 earlier: no figure at 1,000 counts it
    record_grade(store, info.answer_ids[(other, "bundle")], "alice", GradeChange(grade="wrong"), budget=2000)
    session = opened(store, info, budget=1000)
    assert counted(store, session).describe(person="alice", machine=session.machine_name) == \
        "alice: graded 0 of 12 · agreement with judge: nothing compared yet"
    grade(store, session, bundle_side, grade="fully_correct")
    progress = counted(store, session)
    assert (progress.graded, progress.compared, progress.agreed) == by_budget_counts(store, 1000) == (1, 1, 1)
    session.set_budget(2000)
    act(store, session, session.reload())
    progress = counted(store, session)
    graded, compared, agreed = by_budget_counts(store, 2000)
    assert (progress.graded, progress.compared, progress.agreed) == (graded, compared, agreed)
    assert (graded, compared) == (1, 1)


def test_undo_at_a_budget_takes_back_that_budgets_events_and_the_other_budgets_stand(desk_store):
    info, store = desk_store
    pk = info.question_pks[0]
    raw_side, bundle_side = ("left", "right") if left_method(7, pk) == "raw" else ("right", "left")
    for budget, raw_grade, bundle_grade, which in ((1000, "unsupported", "partially_correct", "left"),
                                                   (2000, "fully_correct", "wrong", "right")):
        session = opened(store, info, budget=budget)
        assert session.item.question_pk == pk
        grade(store, session, raw_side, grade=raw_grade)
        grade(store, session, bundle_side, grade=bundle_grade)
        prefer(store, session, which)
    sets = {(r["answer_id"], r["budget"]): r["uuid"] for r in rows(
        info.path, "SELECT * FROM human_grades WHERE action = 'set'")}
    raw = info.answer_ids[(pk, "raw")]
    at_1000 = [sets[(raw, 1000)], sets[(bundle_at(info.path, pk, 1000), 1000)]]
    [pref_1000] = rows(info.path, "SELECT uuid FROM human_preferences WHERE budget = 1000")
    session = opened(store, info, budget=1000)
    for _ in range(4):  # the preference, the bundled grade and the raw grade made at 1,000; then nothing is left
        act(store, session, session.undo())
    undone = rows(info.path, "SELECT 'grade' AS kind, undoes_uuid, budget FROM human_grades WHERE action = 'undo' "
                             "UNION ALL SELECT 'preference', undoes_uuid, budget FROM human_preferences "
                             "WHERE action = 'undo'")
    assert sorted((u["kind"], u["undoes_uuid"], u["budget"]) for u in undone) == sorted(
        [("preference", pref_1000["uuid"], 1000), *(("grade", u, 1000) for u in at_1000)])
    # the 2,000-token events stand: the raw answer's grade is the one made beside 2,000 tokens
    current = {r["answer_id"]: (r["grade"], r["budget"]) for r in rows(
        info.path, "SELECT answer_id, grade, budget FROM current_human_grades")}
    assert current == {raw: ("fully_correct", 2000), info.answer_ids[(pk, "bundle")]: ("wrong", 2000)}
    people = agreement_report(store, 1).to_dict()["by_budget"]["people"]
    assert [(g["method"], g["graded"], g["passed"]) for g in people["grades"]] == [
        ("raw", 1, 1), ("bundle@2000", 1, 0)]
    assert [(p["budget"], p["preferences"]) for p in people["preferences"]] == [(2000, 1)]
