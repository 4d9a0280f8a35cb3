"""Pilot tests: press the desk's keys and check the rows in store.db (a real fixture store, the real store thread)."""

from __future__ import annotations

import gc
import sqlite3
import subprocess
import sys

import pytest

from tests.fixtures.desk import keys, palette, pane_text, rows, running, settle
from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS
from gradedesk.core.review.queue import left_method
from gradedesk.core.review.session import Job
from gradedesk.core.store.connection import StoreError
from tests.fixtures.desk_store import build_fixture_store
from gradedesk.tui.app import run_desk
from gradedesk.tui.db import StateSaved
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.help import HelpScreen
from gradedesk.tui.screens.queue import QueueScreen

pytestmark = pytest.mark.anyio


def events(path, grader="alice"):
    return rows(path, "SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def draws(path, grader="alice"):
    return rows(path, "SELECT * FROM sample_draws WHERE grader = ? ORDER BY draw_index", (grader,))


def left_answer_id(info, pk):
    return info.answer_ids[(pk, left_method(7, pk))]


async def test_grade_keys_write_blind_events_and_reveal_the_judge(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        pk = info.question_pks[0]
        assert app.screen.session.item.question_pk == pk
        assert "hidden until you save your grade" in pane_text(app, "left")
        assert "judge (gpt-4o-mini): fully correct" not in pane_text(app, "left")
        await keys(pilot, "2")
        [e] = events(info.path)
        assert (e["answer_id"], e["grade"], e["mode"], e["judge_visible"], e["is_revision"], e["action"]) == \
            (left_answer_id(info, pk), "partially_correct", "blind", 0, 0, "set")
        assert e["rubric_version"] == "rubric-1" and e["grader"] == "alice"
        assert "hidden until" not in pane_text(app, "left")
        assert "judge (gpt-4o-mini):" in pane_text(app, "left")
        # the other answer stays blind until graded
        assert "hidden until you save your grade" in pane_text(app, "right")
        assert "graded 1 of 12" in app.screen.progress_text


async def test_change_after_reveal_is_a_revision_and_undo_is_an_event(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "4")
        await keys(pilot, "1")
        first, second = events(info.path)
        assert (second["grade"], second["judge_visible"], second["is_revision"]) == ("fully_correct", 1, 1)
        await keys(pilot, "u")
        evs = events(info.path)
        assert len(evs) == 3 and evs[2]["action"] == "undo" and evs[2]["undoes_uuid"] == second["uuid"]
        assert app.screen.answer_at("left").human.grade == "wrong"  # the earlier grade is current again
        current = rows(info.path, "SELECT grade FROM current_human_grades WHERE grader = 'alice'")
        assert current == [{"grade": "wrong"}]


async def test_label_scores_note_and_preference(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await pilot.press("f")  # before any grade: refused, nothing written
        await settle(pilot)
        await pilot.press("escape")
        assert "grade the answer first" in app.last_status or not events(info.path)
        await keys(pilot, "3")
        await keys(pilot, "f", "2")
        await keys(pilot, "s", "4", "5", "3", "2", "enter")
        await keys(pilot, "e", *"[bold]odd[/]", "enter")
        await keys(pilot, "right_square_bracket")
        last = events(info.path)[-1]
        assert last["grade"] == "unsupported" and last["failure_label"] == FAILURE_LABELS[1]
        assert [last[d] for d in DIMENSIONS] == [4, 5, 3, 2]
        assert last["note"] == "[bold]odd[/]"
        assert "[bold]odd[/]" in pane_text(app, "left")
        pk = info.question_pks[0]
        [pref] = rows(info.path, "SELECT * FROM human_preferences")
        left = left_method(7, pk)
        assert pref["preferred"] == ("bundle" if left == "raw" else "raw") and pref["left_method"] == left
        assert app.screen.session.item.preference == pref["preferred"]
        assert app.last_status == f"preference saved: Answer B ({pref['preferred']})"


async def test_switching_answers_grades_the_other_one(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "tab", "1")
        await keys(pilot, "h", "4")
        pk = info.question_pks[0]
        right = info.answer_ids[(pk, "bundle" if left_method(7, pk) == "raw" else "raw")]
        assert [(e["answer_id"], e["grade"]) for e in events(info.path)] == \
            [(right, "fully_correct"), (left_answer_id(info, pk), "wrong")]


async def test_show_judge_mode_is_recorded(fixture_store):
    info = fixture_store
    async with running(info.path, show_judge=True) as (app, pilot):
        assert "hidden until" not in pane_text(app, "left")
        await keys(pilot, "1")
        [e] = events(info.path)
        assert (e["mode"], e["judge_visible"], e["is_revision"]) == ("open", 1, 0)


async def test_hidden_method_names_until_both_answers_are_graded(fixture_store):
    info = fixture_store
    async with running(info.path, hide_methods=True) as (app, pilot):
        screen = app.screen
        assert screen.pane_title("left") == "Answer A" and screen.pane_title("right") == "Answer B"
        await keys(pilot, "1", "tab", "2")
        assert "raw top-k" in screen.pane_title("left") + screen.pane_title("right")


async def test_no_garbage_collection_between_a_key_and_its_repaint(fixture_store):
    """A full collection (~100 ms at scale) landing between `j` and the repaint was the desk's repaint tail."""
    pks = fixture_store.question_pks
    async with running(fixture_store.path) as (app, pilot):
        screen = app.screen
        assert gc.isenabled()
        paints: list[tuple[int | None, bool]] = []
        original = screen._compositor_refresh

        def refresh() -> None:
            paints.append((screen.session.item.question_pk if screen.session.item else None, gc.isenabled()))
            original()

        screen._compositor_refresh = refresh
        await keys(pilot, "j")
        first = next(enabled for pk, enabled in paints if pk == pks[1])
        assert first is False  # the item's first paint happened with the collector paused
        assert gc.isenabled()  # and it is back on once painted


async def test_resume_where_the_grader_stopped_and_two_graders(fixture_store):
    info = fixture_store
    pks = info.question_pks
    async with running(info.path, grader="alice") as (alice, pa), running(info.path, grader="bob") as (bob, pb):
        await pa.press("j", "j", "j", "2")
        await pb.press("4")
        await settle(pa)
        await settle(pb)
        assert alice.screen.session.item.question_pk == pks[3]
        await pa.press("ctrl+q")  # quitting stores where alice stopped
        await settle(pa)
    graders = {(e["grader"], e["grade"]) for e in rows(info.path, "SELECT * FROM human_grades")}
    assert graders == {("alice", "partially_correct"), ("bob", "wrong")}
    async with running(info.path, grader="alice") as (again, pilot):
        assert again.screen.session.item.question_pk == pks[3]
        assert again.screen.answer_at("left").human.grade == "partially_correct"
    async with running(info.path, grader="carol") as (fresh, pilot):
        assert fresh.screen.session.item.question_pk == pks[0]


async def test_recheck_pass_is_blind_and_stores_recheck_events(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        for _ in range(3):
            await keys(pilot, "1", "tab", "2", "tab", "j")
    async with running(info.path, recheck=1.0) as (recheck, pilot):
        screen = recheck.screen
        assert screen.session.mode == "recheck" and screen.session.item.question_pk in info.question_pks[:3]
        text = pane_text(recheck, "left")
        assert "not graded" in text and "recheck pass: hidden" in text  # earlier grade and judge both hidden
        await keys(pilot, "4")
        last = events(info.path)[-1]
        assert (last["mode"], last["grade"], last["judge_visible"], last["is_revision"]) == ("recheck", "wrong", 0, 0)
        current = rows(info.path, "SELECT count(*) AS n FROM current_human_grades WHERE grade = 'wrong'")
        assert current == [{"n": 0}]  # the recheck did not replace the grade


async def test_worker_errors_show_in_one_place_and_the_desk_keeps_going(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):

        def broken(store):
            raise RuntimeError("disk on fire")
        app.submit(StateSaved, Job("test job", broken))
        await settle(pilot)
        assert "test job failed: RuntimeError: disk on fire" in app.last_status
        await keys(pilot, "1")
        assert len(events(info.path)) == 1


async def test_queue_screen_opens_the_chosen_item(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "1")
        await keys(pilot, "q")
        assert isinstance(app.screen, QueueScreen)
        table = app.screen.query_one("DataTable")
        assert table.row_count == 12
        graded_row = [str(c) for c in table.get_row_at(0)] + [str(c) for c in table.get_row_at(1)]
        assert "hidden" in graded_row  # blind first: an ungraded answer's machine grade is hidden
        await keys(pilot, "down", "down", "down", "enter")
        assert app.screen.session.item.question_pk == info.question_pks[1]


async def test_queue_columns_follow_the_width_and_the_cursor_stays(fixture_store):
    """Narrower than its columns, the queue drops columns and words rather than cut the last one at the edge."""
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "1", "q", "down", "down")
        table = app.screen.query_one("DataTable")
        labels = [str(c.label) for c in table.columns.values()]
        assert labels[-1] == "confidence" and "fully correct" in [str(c) for c in table.get_row_at(0)]
        for size, last in (((100, 30), "conf."), ((80, 24), "conf.")):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            labels = [str(c.label) for c in table.columns.values()]
            assert labels[-1] == last and ("category" in labels) == (size[0] == 100)
            assert sum(c.get_render_width(table) for c in table.columns.values()) <= size[0] - 2  # beside the scrollbar
            assert table.row_count == 12 and table.cursor_row == 2
            assert "correct" in [str(c) for c in table.get_row_at(0)]  # the grade in a word
        await keys(pilot, "enter")
        assert app.screen.session.item.question_pk == info.question_pks[1]


async def test_filters_dialog_applies_and_resets(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "slash")
        dialog = app.screen
        dialog.query_one("#category").value = "relationship"
        await keys(pilot, "ctrl+s")
        assert app.screen.session.filters.category == "relationship"
        assert app.screen.session.item.category == "relationship"
        await keys(pilot, "j")
        assert app.screen.session.item.category == "relationship" and "no more items" in app.last_status
        await keys(pilot, "slash")
        await keys(pilot, "ctrl+r")
        assert not app.screen.session.filters.active
        await keys(pilot, "ctrl+q")
    state = rows(info.path, "SELECT settings FROM desk_state")
    assert '"category": null' in state[0]["settings"]


async def test_bundle_browser_and_help(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BundleScreen)
        await pilot.press("down", "r")
        await pilot.pause()
        assert app.screen.show_json
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {b.id for b, _ in app.screen.key_rows}
        assert {"desk.grade.fully_correct", "desk.label", "desk.undo", "desk.next_ungraded", "app.help"} <= ids


async def test_hostile_text_is_shown_literally(hostile_store):
    async with running(hostile_store.path) as (app, pilot):
        await keys(pilot, "1", "tab", "1")
        for side in ("left", "right"):
            text = pane_text(app, side)
            assert "[bold]not bold[/]" in text and "[link=https://example.invalid]" in text
            assert "\\x1b[31mnot red" in text and "\x1b" not in text
        question = str(app.screen.query_one("#question").render())
        assert "[bold]not bold[/]" in question and "\x1b" not in question


def test_missing_empty_and_newer_stores_give_one_clear_line(tmp_path):
    with pytest.raises(StoreError, match="no such store"):
        run_desk(tmp_path / "missing.db")
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(StoreError, match="no runs yet"):
        run_desk(tmp_path / "empty.db")
    newer = tmp_path / "newer.db"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="newer gradedesk"):
        run_desk(newer)
    info = build_fixture_store(tmp_path / "ok.db")
    with pytest.raises(UserError, match="no run 9"):
        run_desk(info.path, run=9)
    out = subprocess.run([sys.executable, "-m", "tui", "grade", "--store", str(tmp_path / "missing.db")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and "no such store" in out.stderr and "Traceback" not in out.stderr


async def test_command_palette_settings_and_orders(fixture_store):
    info = fixture_store
    async with running(info.path) as (app, pilot):
        commands = await palette(app.screen)
        assert {"Show the judge from the start", "Hide method names (Answer A / B)", "Order: most useful first",
                "Recheck: re-grade 10% of graded items blind", "Clear filters"} <= set(commands)
        commands["Show the judge from the start"].callback()
        await settle(pilot)
        await keys(pilot, "3")
        assert [(e["mode"], e["judge_visible"]) for e in events(info.path)] == [("open", 1)]
        commands["Order: most useful first"].callback()
        await settle(pilot)
        screen = app.screen
        drawn = draws(info.path)
        assert screen.session.order == "most_useful" and drawn and screen.session.item.question_pk == drawn[-1]["question_pk"]
        await keys(pilot, "2")  # the grade records that the item was drawn, and with which probability
        assert events(info.path)[-1]["selection"] == "sampled"
        assert events(info.path)[-1]["selection_probability"] == pytest.approx(drawn[-1]["probability"])
        await keys(pilot, "j")
        assert screen.session.item.question_pk == draws(info.path)[-1]["question_pk"] and len(draws(info.path)) > len(drawn)
        later = await palette(app.screen)
        later["Order: question order"].callback()
        await settle(pilot)
        assert screen.session.order == "question"


async def test_reveal_share_opens_that_share_of_items_with_the_judge_in_view(fixture_store):
    info = fixture_store
    async with running(info.path, reveal_share=1.0) as (app, pilot):
        await keys(pilot, "2")
        assert [(e["mode"], e["judge_visible"]) for e in events(info.path)] == [("open", 1)]
    from gradedesk.core.review.visibility import revealed

    shown = sum(revealed(7, "alice", pk, 0.1) for pk in range(5000))
    assert 400 < shown < 600 and not revealed(7, "alice", 3, 0.0)
    assert revealed(7, "alice", 42, 0.5) == revealed(7, "alice", 42, 0.5)
