"""Opening the desk: the run as this grader left it (core/review/session.py `open_desk`: the budget shown, the
filters, the order, the first item; with --adjudicate, the disputed items in turn), then the shown answers counted and
the questions ordered in the background, again whenever another budget is shown (budget.py), since both follow it.

Functions of the screen (tui/screens/grading/screen.py), which holds the state they set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.tui.collector import freeze_startup
from gradedesk.tui.screens.grading import moves

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def open_run(screen: GradingScreen) -> None:
    """Open the run in the store thread; `opened` shows it."""
    cfg = screen.desk.config
    screen.desk.submit("open the run", lambda store: session.open_desk(store, cfg.run_id, cfg.grader, cfg.recheck,
                                                                       budget=cfg.budget, adjudicate=cfg.adjudicate),
                       lambda opening: opened(screen, opening))


def opened(screen: GradingScreen, opening: session.Opening) -> None:
    cfg = screen.desk.config
    settings = opening.settings
    screen.run, screen.filters, screen.order, screen.order_list = (opening.run, opening.filters, opening.order,
                                                                   opening.order_list)
    screen.show_judge = cfg.show_judge if cfg.show_judge is not None else bool(settings.get("show_judge"))
    screen.hide_methods = cfg.hide_methods if cfg.hide_methods is not None else bool(settings.get("hide_methods"))
    screen.judge_rubric = opening.judge_rubric
    if screen.order == "recheck" and not screen.order_list:
        screen.desk.report("recheck: nothing graded yet in this run, so nothing to re-check")
        screen.order = "question"
    if screen.order == "adjudicate" and not screen.order_list:
        screen.desk.report("nothing to adjudicate: no item's assigned people disagree (that you may see)")
    moves.focus_side(screen, "left")
    screen.show_item(opening.item)
    screen.call_after_refresh(freeze_startup)
    recount(screen)


def recount(screen: GradingScreen) -> None:
    """Count the shown answers and order the questions of the run as shown now (of the grader's set, when they have
    assigned items)."""
    screen.refresh_progress()
    run, grader = screen.run, screen.desk.config.grader
    if run is None:
        return

    def counted(total: int) -> None:
        screen.total = total
        screen.refresh_progress()

    def ordered(order: review.QuestionOrder) -> None:
        screen.questions = order
        screen.render_question()

    screen.desk.submit("count answers", lambda store: review.count_shown(store, run, grader), counted,
                       background=True)
    screen.desk.submit("order the questions", lambda store: review.question_order(store, run, grader), ordered,
                       background=True)
