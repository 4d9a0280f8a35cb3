"""Budgets at the desk (issue 29): `grade --budget N` and the palette put the bundled answer at any budget of the run
beside raw; grades, preferences, sampler draws and the desk state record it (Pilot tests on a real fixture store whose
run has bundled answers at 1,000 and 2,000 tokens; 2,000 is its largest)."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, palette, pane_text, rows, running, screen_text, settle
from gradedesk.core.agreement.report import agreement_report
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review.queue import left_method
from gradedesk.core.review.sampler import draw_probabilities, question_usefulness
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info

pytestmark = pytest.mark.anyio


def bundle_at(path, pk: int, budget: int) -> int:
    [row] = rows(path, "SELECT id FROM answers WHERE question_pk = ? AND method = 'bundle' AND budget = ?",
                 (pk, budget))
    return row["id"]


async def test_grade_budget_1000_shows_raw_against_the_1000_token_answer_and_every_event_records_it(fixture_store):
    info = fixture_store
    pk = info.question_pks[0]
    bundle_side = "left" if left_method(7, pk) == "bundle" else "right"
    with open_store(info.path) as store, store.transaction():  # the judge was unsure of one 1,000-token answer only
        store._db["auto_grades"].insert({
            "answer_id": bundle_at(info.path, info.question_pks[1], 1000), "grader_kind": "judge",
            "grader_model": "gpt-4o-mini", "rubric_version": "rubric-1", "grade": "wrong", "confidence": 0.0,
            "created_at": "2026-01-05T10:00:00+00:00"})
    async with running(info.path, budget=1000) as (app, pilot):
        item = app.screen.session.item
        assert item.question_pk == pk and item.answers["bundle"].id == bundle_at(info.path, pk, 1000)
        assert "bundle @ 1,000 tokens" in app.screen.pane_title(bundle_side)
        assert "bundle @ 1,000" in screen_text(app).splitlines()[0]  # the top bar names the chosen budget
        assert "graded 0 of 12" in app.screen.progress_text  # 6 raw + 6 bundled at 1,000
        await keys(pilot, "h" if bundle_side == "left" else "l", "2", "left_square_bracket")
        [grade] = rows(info.path, "SELECT * FROM human_grades WHERE grader = 'alice'")
        assert (grade["answer_id"], grade["grade"], grade["budget"]) == (
            bundle_at(info.path, pk, 1000), "partially_correct", 1000)
        [preference] = rows(info.path, "SELECT * FROM human_preferences WHERE grader = 'alice'")
        assert (preference["preferred"], preference["budget"]) == (left_method(7, pk), 1000)
        assert app.screen.session.item.preference == left_method(7, pk)

        commands = await palette(app.screen)
        commands["Order: most useful first"].callback()
        await settle(pilot)
        [first, *_] = draws = rows(info.path, "SELECT * FROM sample_draws WHERE grader = 'alice' ORDER BY draw_index")
        assert {d["budget"] for d in draws} == {1000}
        # exact: each draw's probability is its question's in the population shown at 1,000 tokens
        with open_store(info.path) as store:
            run = run_info(store, info.run_id)
            pks, usefulness = question_usefulness(store, run.showing(1000))
            at_largest = dict(zip(*question_usefulness(store, run)))
        expected = dict(zip(pks, draw_probabilities(usefulness)))
        assert first["population"] == len(pks) == 6
        assert [d["probability"] for d in draws] == [pytest.approx(expected[d["question_pk"]]) for d in draws]
        assert dict(zip(pks, usefulness)) != at_largest  # the 2,000-token population would weigh them otherwise
        await pilot.press("ctrl+q")
        await pilot.pause()
    [state] = rows(info.path, "SELECT settings FROM desk_state WHERE grader = 'alice'")
    assert json.loads(state["settings"])["budget"] == 1000


async def test_the_palette_chooses_a_budget_kept_per_person_and_a_raw_grade_stays_the_raw_answers(fixture_store):
    info = fixture_store
    pk = info.question_pks[0]
    raw_side = "left" if left_method(7, pk) == "raw" else "right"
    async with running(info.path) as (app, pilot):
        assert app.screen.session.item.answers["bundle"].budget == 2000  # the default: the run's largest
        assert "bundle @" not in screen_text(app).splitlines()[0]
        await keys(pilot, "h" if raw_side == "left" else "l", "3")
        commands = await palette(app.screen)
        assert "Bundled answer at 2,000 tokens (the run's largest)" not in commands  # the one shown
        commands["Bundled answer at 1,000 tokens"].callback()
        await settle(pilot)
        item = app.screen.session.item
        assert item.question_pk == pk and item.answers["bundle"].budget == 1000
        assert item.answers["raw"].human.grade == "unsupported"  # the same answer, the same grade
        assert "graded beside the 2,000-token answer, shown now beside 1,000" in pane_text(app, raw_side)
        assert "graded 1 of 12" in app.screen.progress_text
        await pilot.press("ctrl+q")
        await pilot.pause()
    async with running(info.path) as (app, pilot):  # alice comes back to the budget she left
        assert app.screen.session.run.bundle_budget == 1000 and app.screen.session.item.answers["bundle"].budget == 1000
        assert "bundle @ 1,000" in screen_text(app).splitlines()[0]
    async with running(info.path, grader="bob") as (app, pilot):  # bob's desk is his own
        assert app.screen.session.run.bundle_budget == 2000


def test_grade_budget_the_run_has_not_is_one_line_naming_its_budgets(fixture_store, capsys):
    code, out, err = cli(capsys, "grade", "--store", fixture_store.path, "--budget", "3000")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0
    assert "--budget" in err and "3,000" in err and "1,000, 2,000" in err


def by_budget_counts(path, budget: int) -> tuple[int, int, int]:
    """(graded, compared, agreed) of `agree --json`'s by_budget at `budget` (the report it prints, read while a desk
    holds the terminal): its raw point and that budget's point."""
    with open_store(path) as store:
        curve = agreement_report(store, 1).to_dict()["by_budget"]
    shown = ("raw", f"bundle@{budget}")
    points = [p for p in curve["points"] if p["method"] in shown]
    assert len(points) == 2
    graded = sum(g["graded"] for g in curve["people"]["grades"] if g["method"] in shown)
    return graded, sum(p["compared"] for p in points), sum(p["agreed"] for p in points)


async def test_the_status_line_counts_at_the_budget_shown_as_agree_by_budget_does(fixture_store):
    info = fixture_store
    pk, other = info.question_pks[0], info.question_pks[1]
    bundle_side = "left" if left_method(7, pk) == "bundle" else "right"
    with open_store(info.path) as store:
        with store.transaction():  # the fixture's judge graded only the 2,000-token answers: one at 1,000 too
            store._db["auto_grades"].insert({
                "answer_id": bundle_at(info.path, pk, 1000), "grader_kind": "judge", "grader_model": "gpt-4o-mini",
                "rubric_version": "rubric-1", "grade": "fully_correct", "confidence": 0.9,
                "created_at": "2026-01-05T10:00:00+00:00"})
        # alice graded another question's 2,000-token answer beside 2,000 earlier: no figure at 1,000 counts it
        record_grade(store, info.answer_ids[(other, "bundle")], "alice", GradeChange(grade="wrong"), budget=2000)
    async with running(info.path, budget=1000) as (app, pilot):
        line = app.screen.progress_text
        assert line == "alice: graded 0 of 12 · agreement with judge: nothing compared yet", line
        await keys(pilot, "h" if bundle_side == "left" else "l", "1")
        line = app.screen.progress_text
        graded, compared, agreed = by_budget_counts(info.path, 1000)
        assert (graded, compared, agreed) == (1, 1, 1)
        # the top bar names the chosen budget, so the line does not
        assert line.startswith(f"alice: graded {graded} of 12 · agreement with judge {agreed}/{compared} "), line
        commands = await palette(app.screen)
        commands["Bundled answer at 2,000 tokens (the run's largest)"].callback()
        await settle(pilot)
        line = app.screen.progress_text
        graded, compared, agreed = by_budget_counts(info.path, 2000)
        assert (graded, compared) == (1, 1)
        # the run's largest is not on the top bar: the line names it
        assert "bundle @" not in screen_text(app).splitlines()[0]
        assert line.startswith(f"alice, raw + bundle @ 2,000: graded {graded} of 12 · agreement with judge "
                               f"{agreed}/{compared} "), line
        await pilot.press("ctrl+q")
        await pilot.pause()


async def test_undo_at_a_budget_takes_back_that_budgets_events_and_the_other_budgets_stand(fixture_store):
    info = fixture_store
    pk = info.question_pks[0]
    raw_key, bundle_key = ("h", "l") if left_method(7, pk) == "raw" else ("l", "h")
    for budget, raw_grade, bundle_grade, prefer in ((1000, "3", "2", "left_square_bracket"),
                                                   (2000, "1", "4", "right_square_bracket")):
        async with running(info.path, budget=budget) as (app, pilot):
            assert app.screen.session.item.question_pk == pk
            await keys(pilot, raw_key, raw_grade, bundle_key, bundle_grade, prefer)
            await pilot.press("ctrl+q")
            await pilot.pause()
    sets = {(r["answer_id"], r["budget"]): r["uuid"] for r in rows(
        info.path, "SELECT * FROM human_grades WHERE action = 'set'")}
    raw = info.answer_ids[(pk, "raw")]
    at_1000 = [sets[(raw, 1000)], sets[(bundle_at(info.path, pk, 1000), 1000)]]
    [pref_1000] = rows(info.path, "SELECT uuid FROM human_preferences WHERE budget = 1000")
    async with running(info.path, budget=1000) as (app, pilot):
        for _ in range(4):  # the preference, the bundled grade and the raw grade made at 1,000; then nothing is left
            await keys(pilot, "u")
        await pilot.press("ctrl+q")
        await pilot.pause()
    undone = rows(info.path, "SELECT 'grade' AS kind, undoes_uuid, budget FROM human_grades WHERE action = 'undo' "
                             "UNION ALL SELECT 'preference', undoes_uuid, budget FROM human_preferences "
                             "WHERE action = 'undo'")
    assert sorted((u["kind"], u["undoes_uuid"], u["budget"]) for u in undone) == sorted(
        [("preference", pref_1000["uuid"], 1000), *(("grade", u, 1000) for u in at_1000)])
    # the 2,000-token events stand: the raw answer's grade is the one made beside 2,000 tokens
    current = {r["answer_id"]: (r["grade"], r["budget"]) for r in rows(
        info.path, "SELECT answer_id, grade, budget FROM current_human_grades")}
    assert current == {raw: ("fully_correct", 2000), info.answer_ids[(pk, "bundle")]: ("wrong", 2000)}
    with open_store(info.path) as store:
        people = agreement_report(store, 1).to_dict()["by_budget"]["people"]
    assert [(g["method"], g["graded"], g["passed"]) for g in people["grades"]] == [
        ("raw", 1, 1), ("bundle@2000", 1, 0)]
    assert [(p["budget"], p["preferences"]) for p in people["preferences"]] == [(2000, 1)]
