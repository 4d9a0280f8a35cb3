"""The grading screen's grade keys: 1-4 grade the focused answer, f sets its failure label, s its scores, e a note
(before the grade too: blind); [ ] = say which of the two answers is better; u takes back the last grade, label or
preference. What each event records as seen is core/review/visibility.py's (the screen's `blindness`). A lead
adjudicating (grade --adjudicate) stores the same keys as decisions (core/review/adjudication.py), never as grades.

Functions of the screen (tui/screens/grading/screen.py), which holds the state they read. Every write is one core
function run as one store job that carries the answer id it was meant for (never "the current item": by the time it
runs, the screen may show another), and the same job loads the item again to show what was saved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from gradedesk.core.grading import human_grades
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import DIMENSIONS, GRADE_LABELS
from gradedesk.core.review import adjudication, session
from gradedesk.core.review.item import other_method
from gradedesk.core.store.connection import Store

from gradedesk.tui.screens.grading import moves, view
from gradedesk.tui.screens.modals import LabelModal, ScoresModal, TextModal

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def change(screen: GradingScreen, grade_change: GradeChange) -> None:
    """Save a change to the focused answer's grade and show the item again."""
    a, item, run = screen.focused_answer(), screen.item, screen.run
    if a is None or item is None or run is None:
        return
    grader, mode, visible = screen.desk.config.grader, screen.mode, screen.judge_visible(a)
    selection, probability = screen.reached
    answer_id, pk, machine = a.id, item.question_pk, a.machine.on_desk if a.machine else None
    method, budget = a.method, a.budget

    def decide(store: Store) -> tuple[int, str]:
        decided = adjudication.decide_grade(store, run, pk, method, budget, grader, grade_change,
                                            judge_visible=visible)
        return pk, f"decided: {GRADE_LABELS.get(decided.grade or '') or 'label and note (no grade decided yet)'}"

    def save(store: Store) -> tuple[int, str]:
        saved = human_grades.record_grade(store, answer_id, grader, grade_change, mode=mode, judge_visible=visible,
                                          rubric_version=run.rubric_version, machine=machine,
                                          selection=selection, selection_probability=probability,
                                          budget=run.bundle_budget)
        what = (GRADE_LABELS.get(saved.grade or "")
                or "label, scores and note (not graded yet: the machine grade stays hidden)")
        return pk, f"saved: {what}" + (" (revision after reveal)" if saved.is_revision else "")
    screen.load(decide if screen.adjudicating else save, empty="the item vanished from the store",
                after=screen.refresh_progress)


def grade(screen: GradingScreen, grade: str) -> None:
    change(screen, GradeChange(grade=grade))


def _ask(screen: GradingScreen, modal: Screen[Any], change_for: Callable[[Any], GradeChange]) -> None:
    """Open a picker for the focused answer; its result (None: cancelled) becomes a grade change."""
    def picked(value: Any) -> None:
        if value is not None:
            change(screen, change_for(value))
    screen.app.push_screen(modal, picked)


def label(screen: GradingScreen) -> None:
    if (a := screen.focused_answer()) is not None:
        _ask(screen, LabelModal(a.human.failure_label if a.human else None),
             lambda chosen: GradeChange(failure_label=chosen or None))  # NO_LABEL ("") clears it


def scores(screen: GradingScreen) -> None:
    if (a := screen.focused_answer()) is not None:
        current: dict[str, int | None] = a.human.scores if a.human else {d: None for d in DIMENSIONS}
        _ask(screen, ScoresModal(current), lambda chosen: GradeChange(scores=chosen))


def note(screen: GradingScreen) -> None:
    if (a := screen.focused_answer()) is not None:
        _ask(screen, TextModal("Note on this answer (Enter saves, empty clears)",
                               a.human.note or "" if a.human else "", blink=screen.desk.config.cursor_blink),
             lambda text: GradeChange(note=text))


def prefer(screen: GradingScreen, which: str) -> None:
    item, run = screen.item, screen.run
    if item is None or run is None:
        return
    preferred = "tie" if which == "tie" else (
        item.left_method if which == "left" else other_method(item.left_method))
    grader, pk, left = screen.desk.config.grader, item.question_pk, item.left_method
    visible, (selection, probability) = screen.blindness.machines(item), screen.reached
    adjudicating = screen.adjudicating
    shown = view.preference_text(item, preferred, screen.methods_visible())  # as the header names it (blind: no method)

    def save(store: Store) -> tuple[int, str]:
        if adjudicating:
            adjudication.decide_preference(store, run, pk, grader, preferred, judge_visible=visible)
            return pk, f"decided: {shown}"
        human_grades.record_preference(store, run.id, pk, grader, preferred, left, judge_visible=visible,
                                       selection=selection, selection_probability=probability,
                                       budget=run.bundle_budget)
        return pk, f"preference saved: {shown}"
    screen.load(save, empty="the item vanished from the store")


def undo(screen: GradingScreen) -> None:
    run, grader, blindness, rubric = screen.run, screen.desk.config.grader, screen.blindness, screen.judge_rubric
    if run is None:
        return

    undone_answer: list[int] = []
    adjudicating = screen.adjudicating

    def take_back(store: Store) -> tuple[int | None, str]:
        undone = session.undo(store, run, grader, blindness, rubric, adjudicating)
        if undone is None:
            return None, "nothing to undo"
        if undone.answer_id is not None:
            undone_answer.append(undone.answer_id)
        return undone.question_pk, f"undone: {undone.what} (a new undo event; nothing was deleted)"

    def after() -> None:  # focus the answer whose grade was taken back: the next grade key is meant for it
        item = screen.item
        for side in ("left", "right"):
            answer = item.at(side) if item else None
            if answer is not None and undone_answer and answer.id == undone_answer[0]:
                moves.focus_side(screen, side)
        screen.refresh_progress()
    screen.load(take_back, empty="the item vanished from the store", after=after)
