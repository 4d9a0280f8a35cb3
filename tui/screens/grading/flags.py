"""The grading screen's flag key: flag the item on screen for fixing the benchmark, or, on an item the person flagged,
take the flag back (core/review/flags.py). A function of the screen (tui/screens/grading/screen.py), run as one store
job that carries the question it was meant for, like the grade keys; the progress figures are counted again after it
(a flagged item is compared with no machine grade)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradedesk.core.review import flags
from gradedesk.core.store.connection import Store

from gradedesk.tui.screens.flag_modal import FlagModal

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def flag(screen: GradingScreen) -> None:
    item, run = screen.item, screen.run
    if item is None or run is None:
        return
    grader, pk = screen.desk.config.grader, item.question_pk
    visible = any(screen.judge_visible(a) for a in item.answers.values())  # what the flag event records
    if item.flag is not None:
        def take_back(store: Store) -> tuple[int, str]:
            undone = flags.unflag_item(store, run.id, pk, grader, judge_visible=visible)
            return pk, "flag taken back (a new undo event; nothing was deleted)" if undone else "no flag to take back"
        screen.load(take_back, empty="the item vanished from the store", after=screen.refresh_progress)
        return

    def chosen(value: tuple[str, str | None] | None) -> None:
        if value is None:
            return
        reason, note = value

        def save(store: Store) -> tuple[int, str]:
            flags.flag_item(store, run.id, pk, grader, reason, note, judge_visible=visible)
            return pk, "flag saved: left out of agree; ! again takes it back"
        screen.load(save, empty="the item vanished from the store", after=screen.refresh_progress)
    screen.app.push_screen(FlagModal(blink=screen.desk.config.cursor_blink), chosen)
