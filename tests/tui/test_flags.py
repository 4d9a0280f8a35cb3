"""Flagging an item at the desk (issue 24, item 8): the flag key stores an item_flags event with its reason and note,
shows the flag in the status line and the queue, and the same key on a flagged item takes it back (an undo event);
how a flagged item's grades count, through the desk session."""

from __future__ import annotations

import pytest

from gradedesk.core.grading.human_grades import GradeChange
from tests.fixtures.desk import keys, rows, running, screen_text
from tests.fixtures.session import act, counted, opened
from gradedesk.tui.screens.flag_modal import FlagModal
from gradedesk.tui.screens.queue import QueueScreen

pytestmark = pytest.mark.anyio


def flag_events(path):
    return rows(path, "SELECT * FROM item_flags ORDER BY id")


async def test_the_flag_keys_dialogs_and_marks(fixture_store):
    """One desk: escape in the flag dialog stores nothing; ! then 1 stores a flag with its reason, shown in the status
    line; ! on a flagged item takes it back at once (an undo event, no dialog); other (3) asks for a note first, shown
    literally, and the queue marks the item."""
    info = fixture_store
    async with running(info.path) as (app, pilot):
        pk = app.screen.session.item.question_pk
        await keys(pilot, "exclamation_mark", "escape")
        assert flag_events(info.path) == [] and app.screen.session.item.flag is None

        await keys(pilot, "exclamation_mark")
        assert isinstance(app.screen, FlagModal)
        await keys(pilot, "1")
        [e] = flag_events(info.path)
        assert (e["run_id"], e["question_pk"], e["grader"], e["action"], e["reason"], e["note"], e["judge_visible"]) \
            == (info.run_id, pk, "alice", "set", "bad_gold", None, 0)
        assert "⚑ flagged: bad gold answer" in app.screen.query_one("#progress").render().plain
        await keys(pilot, "exclamation_mark")
        assert not isinstance(app.screen, FlagModal)  # no dialog: the flag is taken back at once
        undo = flag_events(info.path)[1]
        assert (undo["action"], undo["undoes_uuid"], undo["question_pk"]) == ("undo", e["uuid"], pk)
        assert "⚑" not in app.screen.query_one("#progress").render().plain
        assert "flag taken back" in app.screen.query_one("#progress").render().plain
        assert app.screen.session.item.flag is None

        await keys(pilot, "exclamation_mark", "3")
        assert isinstance(app.screen, FlagModal)  # other: the note first
        await keys(pilot, *"two [b]answers[/b]", "enter")
        other = flag_events(info.path)[2]
        assert (other["action"], other["reason"], other["note"]) == ("set", "other", "two [b]answers[/b]")
        assert "⚑ flagged: other — two [b]answers[/b]" in screen_text(app)  # untrusted note shown literally
        await keys(pilot, "q")
        assert isinstance(app.screen, QueueScreen)
        flagged = [r for r in app.screen.rows if r.flag]
        assert {r.question_pk for r in flagged} == {pk} and all(r.flag == "other" for r in flagged)
        assert f"⚑ {flagged[0].question_id}" in screen_text(app)


def test_a_flagged_item_is_graded_never_compared_and_u_takes_back_the_grade_not_the_flag(desk_store):
    """Through the desk session: the grade keys still work on a flagged item, which counts as graded, never as
    compared (as in agree)."""
    info, store = desk_store
    session = opened(store, info)
    act(store, session, session.flag("bad_gold", None))
    left = session.answer_at("left")
    act(store, session, session.grade(left, GradeChange(grade="partially_correct")))
    assert "graded 1 of 12 · agreement with judge: nothing compared yet · 1 on flagged items not compared" \
        in counted(store, session).describe(machine=session.machine_name)
    act(store, session, session.undo())  # u takes back the grade, not the flag
    assert len(flag_events(info.path)) == 1 and session.item.flag is not None
    landed = act(store, session, session.unflag())
    assert landed.message.startswith("flag taken back") and session.item.flag is None
    act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="partially_correct")))
    assert "graded 1 of 12 · agreement with judge 0/1" in counted(store, session).describe(machine=session.machine_name)
