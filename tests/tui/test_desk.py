"""Pilot tests: press the desk's keys and check the rows in store.db (a real fixture store, the real store thread): what
only the screen does (the keys' dialogs, the focus, the screens opened over the grading screen, the palette, worker
errors, the repaint). What each action stores and shows is tested through the desk session without Textual
(tests/core/review/test_session.py, test_session_events.py; the panes it draws: tests/tui/test_session_panes.py)."""

from __future__ import annotations

import gc
import sqlite3
from dataclasses import replace
import subprocess
import sys

import pytest

from tests.fixtures.desk import count_layouts, keys, palette, pane_text, rows, running, screen_text, settle
from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS
from gradedesk.core.review.queue import left_method
from gradedesk.core.review.session import Job
from gradedesk.core.store.connection import StoreError
from tests.fixtures import REPO_ROOT
from tests.fixtures.desk_store import build_fixture_store
from gradedesk.tui import collector
from gradedesk.tui.app import run_desk
from gradedesk.tui.db import StateSaved
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.grading import collection as grading_collection
from gradedesk.tui.screens.help import HelpScreen
from gradedesk.tui.screens.queue import QueueScreen
from gradedesk.tui.widgets.answer_pane import AnswerPane

pytestmark = pytest.mark.anyio


def events(path, grader="alice"):
    return rows(path, "SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def draws(path, grader="alice"):
    return rows(path, "SELECT * FROM sample_draws WHERE grader = ? ORDER BY draw_index", (grader,))


def left_answer_id(info, pk):
    return info.answer_ids[(pk, left_method(7, pk))]


async def test_label_scores_note_preference_and_switching_answers(fixture_store):
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

        await keys(pilot, "tab", "1")  # switching answers grades the other one
        await keys(pilot, "h", "4")
        right = info.answer_ids[(pk, "bundle" if left == "raw" else "raw")]
        assert [(e["answer_id"], e["grade"]) for e in events(info.path)[-2:]] == \
            [(right, "fully_correct"), (left_answer_id(info, pk), "wrong")]


async def test_no_garbage_collection_between_a_key_and_its_repaint(fixture_store, monkeypatch):
    """A full collection (~100 ms at scale) landing between `j` and the repaint was the desk's repaint tail. The
    safety net (the collector back on after COLLECTOR_PAUSE_MAX, for an item that never comes) is stretched: under
    load the paint came later than its 1 s, and the test is about the paint turning the collector back on."""
    monkeypatch.setattr(grading_collection, "COLLECTOR_PAUSE_MAX", 60.0)
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


async def test_full_collections_wait_for_the_person_to_pause(fixture_store, monkeypatch):
    """Python's own full collections (50-110 ms at scale, every few seconds while keys are typed) are off while the
    desk is open; the desk runs one once no key came for a while, and Python's thresholds are back when it closes."""
    monkeypatch.setattr(grading_collection, "QUIET_SECONDS", 0.2)
    threshold = gc.get_threshold()
    full: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(info["collected"])

    async with running(fixture_store.path) as (app, pilot):
        assert gc.get_threshold() == (threshold[0], threshold[1], collector.NO_FULL)
        gc.callbacks.append(count)
        try:
            await keys(pilot, "j")
            await pilot.pause(0.6)
            await settle(pilot)
        finally:
            gc.callbacks.remove(count)
        assert full  # the pause after `j`
    assert gc.get_threshold() == threshold


async def test_the_next_item_is_rendered_before_its_key_a_block_a_step(fixture_store):
    """While the person reads, the first screenful of the panes `j` and `n` lead to is rendered between keys, a block
    a step (no step holds a key up for a whole pane), so their key only swaps it in."""
    async with running(fixture_store.path) as (app, pilot):
        screen = app.screen
        session = screen.session
        following = session.ready[(session.item.question_pk, "next")].item
        views = {side: screen.pane_view(side, following) for side in ("left", "right")}
        panes = {side: screen.query_one(f"#{side}", AnswerPane) for side in views}
        assert all(panes[side].kept((views[side], False)) for side in views)
        kept = {side: panes[side]._find((views[side], False), panes[side]._shown.width) for side in views}
        await keys(pilot, "j")
        assert session.item.question_pk == following.question_pk
        assert all(panes[side]._shown is kept[side] or panes[side]._shown.key == (views[side], True) for side in views)
        step = panes["left"].prepare(replace(views["left"], title="another view"))
        assert step() and panes["left"]._kept[-1].next_block == 1  # one block, and more to come


async def test_one_layout_per_next_key_at_most(fixture_store):
    """A layout of the whole screen costs more than a paint at scale: `j` lays the screen out once at most (the new
    question's height, a scrollbar shown or hidden), not again for an unchanged top bar, the rest of the panes' lines
    or the highlighted code; the panes still scroll over all their lines, with a scrollbar when they need one."""
    async with running(fixture_store.path) as (app, pilot):  # settled: the first item's highlighting not counted
        screen = app.screen
        layouts = count_layouts(screen)
        for _ in range(3):
            await keys(pilot, "j")  # and the code highlighted and the panes' lines all rendered (settle waits for both)
        assert screen.session.item.question_pk == fixture_store.question_pks[3]
        assert layouts[0] <= 3
        for side in ("left", "right"):
            pane = screen.query_one(f"#{side}", AnswerPane)
            assert pane._shown.done and pane.virtual_size.height == len(pane._shown.lines)
            assert pane.show_vertical_scrollbar == (pane.virtual_size.height > pane.scrollable_content_region.height)


async def test_queue_screen_opens_the_chosen_item_and_its_columns_follow_the_width(fixture_store):
    """Blind first in the queue; narrower than its columns, it drops columns and words rather than cut the last one at
    the edge, and the cursor stays; Enter opens the chosen item."""
    info = fixture_store
    async with running(info.path) as (app, pilot):
        await keys(pilot, "1")
        await keys(pilot, "q")
        assert isinstance(app.screen, QueueScreen)
        table = app.screen.query_one("DataTable")
        assert table.row_count == 12
        graded_row = [str(c) for c in table.get_row_at(0)] + [str(c) for c in table.get_row_at(1)]
        assert "hidden" in graded_row  # blind first: an ungraded answer's machine grade is hidden
        await keys(pilot, "down", "down")
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
        await keys(pilot, "down", "enter")
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


async def test_worker_errors_the_bundle_browser_help_and_the_palette_on_one_desk(fixture_store):
    """A worker's error shows in one place and the desk keeps going (a grade key then lands); b opens the bundle
    browser (r: its raw JSON), ? the help built from the bindings; the palette's entries reach the session (what each
    setting and order then stores: test_session_events.py)."""
    info = fixture_store
    async with running(info.path) as (app, pilot):

        def broken(store):
            raise RuntimeError("disk on fire")
        app.submit(StateSaved, Job("test job", broken))
        await settle(pilot)
        assert "test job failed: RuntimeError: disk on fire" in app.last_status
        await keys(pilot, "1")
        assert len(events(info.path)) == 1

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
        await keys(pilot, "escape")

        commands = await palette(app.screen)
        assert {"Show the judge from the start", "Hide method names (Answer A / B)", "Order: most useful first",
                "Recheck: re-grade 10% of graded items blind", "Clear filters"} <= set(commands)
        assert "Bundled answer at 2,000 tokens (the run's largest)" not in commands  # the one shown
        commands["Show the judge from the start"].callback()
        await settle(pilot)
        screen = app.screen
        assert screen.session.show_judge
        commands["Bundled answer at 1,000 tokens"].callback()
        await settle(pilot)
        assert screen.session.run.bundle_budget == 1000 and screen.session.item.answers["bundle"].budget == 1000
        assert "bundle @ 1,000" in screen_text(app).splitlines()[0]  # the top bar names the chosen budget
        commands["Order: most useful first"].callback()
        await settle(pilot)
        assert screen.session.order == "most_useful" and screen.session.item.question_pk == draws(info.path)[-1][
            "question_pk"]
        later = await palette(app.screen)
        later["Order: question order"].callback()
        await settle(pilot)
        assert screen.session.order == "question"


HEAVY = ("numpy", "pandas", "sqlite_utils")  # about a third of the desk's opening at a million answers


def test_a_desk_opens_grades_and_moves_without_numpy_pandas_or_sqlite_utils(fixture_store):
    """Opening the desk, a grade, a move and the desk's state saved import none of them (agree's figures, explore and
    the writes of many rows do, when first used): checked in a fresh process, since this one has them all."""
    code = (
        "import asyncio, sys\n"
        "from tests.fixtures.desk import keys, rows, running, settle\n"
        "async def main():\n"
        f"    async with running({str(fixture_store.path)!r}) as (app, pilot):\n"
        "        await keys(pilot, '1', 'j', '2')\n"
        "        app.screen.save_state()\n"
        "        await settle(pilot)\n"
        f"    assert len(rows({str(fixture_store.path)!r}, 'SELECT * FROM human_grades')) == 2\n"
        f"    assert rows({str(fixture_store.path)!r}, 'SELECT * FROM desk_state')\n"
        f"    print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=REPO_ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
