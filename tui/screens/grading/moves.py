"""The grading screen's moves: to another item (j/k along the order, n to the next ungraded, d to the next disagreement
with the judge, each saying so when it wraps round from the end; in 'most useful' order each is the sampler's next
draw), the order itself (command palette), and between the two answers (tab, h/l) and up and down the question
(ctrl+up/down).

Functions of the screen (tui/screens/grading/screen.py), which holds the state they read and change. Finding the next
item is one core function in the store job that loads it (`GradingScreen.load`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

from gradedesk.core.review import session
from gradedesk.core.review.item import Item
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunInfo

from gradedesk.tui.screens.palette import PaletteCommand
from gradedesk.tui.widgets.answer_pane import AnswerPane

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import Found, GradingScreen


# Between items -------------------------------------------------------------------------------------------------------

def _said(found: tuple[int | None, bool], current: int | None, what: str) -> Found:
    """The item found, and when the search went round from the end to the start, a note saying so: a silent wrap
    looks like a new item."""
    pk, wrapped = found
    if pk is None or not wrapped:
        return pk
    if pk == current:
        return pk, f"this is the only {what}"
    return pk, f"wrapped round from the last {what} to the first"


def _in_order(screen: GradingScreen, run: RunInfo, filters: Filters, forward: bool,
              wrap: str | None = None) -> Callable[[Store], Found]:
    """The next item in question order; `wrap` (what is looked for, e.g. 'disagreement'): from the start at the end."""
    grader, cur = screen.desk.config.grader, screen.item.question_pk if screen.item else None
    rubric = screen.judge_rubric
    return lambda store: _said(session.next_in_order(store, run, grader, filters, cur, forward, wrap is not None,
                                                     rubric), cur, wrap or "")


def _in_list(screen: GradingScreen, run: RunInfo, wanted: Callable[[Item], bool], what: str) -> Callable[[Store], Found]:
    grader, recheck, start, pks = screen.desk.config.grader, screen.recheck, screen.order_index, list(screen.order_list)
    rubric, cur, adjudicate = screen.judge_rubric, screen.item.question_pk if screen.item else None, screen.adjudicating
    return lambda store: _said(session.next_in_list(store, run, grader, pks, start, wanted, recheck=recheck,
                                                    judge_rubric=rubric, adjudicate=adjudicate), cur, what)


def draw(screen: GradingScreen) -> None:
    """The sampler's next draw (core/review/sampler.py): stored with its probability, graded ones count again."""
    run, grader, rubric, drawn = screen.run, screen.desk.config.grader, screen.judge_rubric, {}
    if run is None:  # the run is still opening (load would do nothing)
        return

    def find(store: Store) -> int | None:
        d = draw_next(store, run, grader, judge_rubric=rubric)
        drawn["probability"] = d.probability if d else None
        return d.question_pk if d else None
    screen.load(find, empty="every question of this run is graded", how="sampled",
                probability=lambda: drawn.get("probability"))


def step(screen: GradingScreen, step: int) -> None:
    if screen.order == "most_useful":
        if step > 0:
            draw(screen)
        else:
            screen.desk.report("most useful order draws items: j draws the next, there is no earlier one")
        return
    if screen.order != "question":
        if not screen.order_list:
            return
        index = screen.order_index + step
        if not 0 <= index < len(screen.order_list):
            screen.desk.report("end of the list" if step > 0 else "start of the list")
            return
        screen.order_index = index
        screen.show_question(screen.order_list[index], how=None)
        return
    if screen.run is None:  # the run is still opening (load would do nothing)
        return
    screen.load(_in_order(screen, screen.run, screen.filters, step > 0),
                empty="no more items" if step > 0 else "no earlier items")


def next_ungraded(screen: GradingScreen) -> None:
    if screen.order == "most_useful":
        draw(screen)
        return
    if screen.run is None:  # the run is still opening (load would do nothing)
        return
    if screen.order != "question":
        screen.load(_in_list(screen, screen.run, lambda item: not item.fully_graded, "ungraded item"),
                    empty="everything in this list is graded")
        return
    screen.load(_in_order(screen, screen.run, replace(screen.filters, status="ungraded"), True, "ungraded item"),
                empty="no ungraded item left (with these filters)")


def next_disagreement(screen: GradingScreen) -> None:
    if screen.run is None:  # the run is still opening (load would do nothing)
        return
    if screen.order != "question":
        screen.load(_in_list(screen, screen.run, session.disagrees, "disagreement"),
                    empty="no disagreement in this list")
        return
    screen.load(_in_order(screen, screen.run, replace(screen.filters, status="disagreeing"), True, "disagreement"),
                empty="no disagreement with the machine grade (with these filters)")


# The order (command palette) -----------------------------------------------------------------------------------------

def set_order(screen: GradingScreen, order: str) -> None:
    run, grader, share = screen.run, screen.desk.config.grader, screen.desk.config.recheck_share
    if run is None:
        return
    if order in ("question", "most_useful"):
        screen.order, screen.order_list, screen.order_index = order, [], 0
        screen.render_topbar()
        if order == "most_useful":
            draw(screen)
        else:
            screen.reload()
        return

    def done(pks: list[int]) -> None:
        if not pks:
            screen.desk.report("nothing graded yet to re-check")
            return
        screen.order, screen.order_list, screen.order_index = order, pks, 0
        screen.show_question(pks[0], how="recheck")
    screen.desk.submit(f"order items: {order}",
                       lambda store: session.recheck_questions(store, run, grader, share), done)


def commands(screen: GradingScreen) -> list[PaletteCommand]:
    return [
        PaletteCommand(f"Recheck: re-grade {screen.desk.config.recheck_share:.0%} of graded items blind",
                       "self-consistency: events are stored with mode 'recheck'",
                       lambda: set_order(screen, "recheck")),
        PaletteCommand("Order: most useful first",
                       "draw items, judge least sure / rarest confusion cell likelier; agree weighs the draws",
                       lambda: set_order(screen, "most_useful")),
        PaletteCommand("Order: question order", "walk the queue in question order",
                       lambda: set_order(screen, "question")),
    ]


# Between the answers, and the question -------------------------------------------------------------------------------

def switch(screen: GradingScreen) -> None:
    focus_side(screen, "right" if screen.side == "left" else "left")


def focus_side(screen: GradingScreen, side: str) -> None:
    # now, not after the next message (Widget.focus): a grade key right behind must find the new side
    screen.set_focus(screen.query_one(f"#{side}", AnswerPane))
    screen.side = side


def scroll_question(screen: GradingScreen, step: int) -> None:
    screen.query_one("#question-box", VerticalScroll).scroll_relative(y=step * 2, animate=False)
