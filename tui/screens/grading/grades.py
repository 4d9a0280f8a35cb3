"""The grading screen's grade keys: 1-4 grade the focused answer, f sets its failure label, s its scores, e a note
(before the grade too: blind); [ ] = say which of the two answers is better; u takes back the last grade, label or
preference; ! flags the item for fixing the benchmark (or, flagged, takes the flag back). Each is one write of the desk
session (core/review/session/), bound to the answer or question it was typed for; a lead adjudicating stores the
same keys as decisions. Functions of the screen as a `GradingHost` (host.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import DIMENSIONS

from gradedesk.tui.screens.flag_modal import FlagModal
from gradedesk.tui.screens.grading import view
from gradedesk.tui.screens.grading.host import GradingHost
from gradedesk.tui.screens.modals import LabelModal, ScoresModal, TextModal


def change(host: GradingHost, grade_change: GradeChange) -> None:
    """Save a change to the focused answer's grade and show the item again."""
    if (a := host.focused_answer()) is not None:
        host.show(host.session.grade(a, grade_change))


def grade(host: GradingHost, grade: str) -> None:
    change(host, GradeChange(grade=grade))


def _ask(host: GradingHost, modal: Screen[Any], change_for: Callable[[Any], GradeChange]) -> None:
    """Open a picker for the focused answer; its result (None: cancelled) becomes a grade change."""
    def picked(value: Any) -> None:
        if value is not None:
            change(host, change_for(value))
    host.push(modal, picked)


def label(host: GradingHost) -> None:
    if (a := host.focused_answer()) is not None:
        _ask(host, LabelModal(a.human.failure_label if a.human else None),
             lambda chosen: GradeChange(failure_label=chosen or None))  # NO_LABEL ("") clears it


def scores(host: GradingHost) -> None:
    if (a := host.focused_answer()) is not None:
        current: dict[str, int | None] = a.human.scores if a.human else {d: None for d in DIMENSIONS}
        _ask(host, ScoresModal(current), lambda chosen: GradeChange(scores=chosen))


def note(host: GradingHost) -> None:
    if (a := host.focused_answer()) is not None:
        _ask(host, TextModal("Note on this answer (Enter saves, empty clears)",
                             a.human.note or "" if a.human else "", blink=host.desk.config.cursor_blink),
             lambda text: GradeChange(note=text))


def prefer(host: GradingHost, which: str) -> None:
    methods = host.session.methods_visible()  # the preference is named as the header names it (blind: no method)
    host.show(host.session.prefer(which, lambda item, preferred: view.preference_text(item, preferred, methods)))


def undo(host: GradingHost) -> None:
    host.show(host.session.undo())


def flag(host: GradingHost) -> None:
    item = host.session.item
    if item is None:
        return
    if item.flag is not None:
        host.show(host.session.unflag())
        return

    def chosen(value: tuple[str, str | None] | None) -> None:
        if value is not None:
            host.show(host.session.flag(*value))
    host.push(FlagModal(blink=host.desk.config.cursor_blink), chosen)
