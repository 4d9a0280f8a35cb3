"""The grading screen's moves: to another item (j/k along the order, n to the next ungraded, d to the next
disagreement with the machine grader, each saying so when it wraps round from the end; in 'most useful' order each is
the sampler's next draw), the order itself (command palette), and between the two answers (tab, h/l) and up and down
the question (ctrl+up/down). The desk session (core/review/session/) finds the item; functions of the screen as a
`GradingHost` (host.py)."""

from __future__ import annotations

from gradedesk.core.review.session import RecheckPlan

from gradedesk.tui.db import RecheckDrawn
from gradedesk.tui.screens.grading.host import GradingHost
from gradedesk.tui.screens.palette import PaletteCommand


def step(host: GradingHost, step: int) -> None:
    host.show(host.session.step(step))


def next_ungraded(host: GradingHost) -> None:
    host.show(host.session.next_ungraded())


def next_disagreement(host: GradingHost) -> None:
    host.show(host.session.next_disagreement())


def set_order(host: GradingHost, order: str) -> None:
    plan = host.session.set_order(order)
    host.render_topbar()
    if isinstance(plan, RecheckPlan):
        host.desk.submit(RecheckDrawn, plan.job, lambda pks: host.show(host.session.rechecked(pks)))
    else:
        host.show(plan)


def commands(host: GradingHost) -> list[PaletteCommand]:
    share = host.session.recheck_share
    return [
        PaletteCommand(f"Recheck: re-grade {share:.0%} of graded items blind",
                       "self-consistency: events are stored with mode 'recheck'", lambda: set_order(host, "recheck")),
        PaletteCommand("Order: most useful first",
                       "draw items, judge least sure / rarest confusion cell likelier; agree weighs the draws",
                       lambda: set_order(host, "most_useful")),
        PaletteCommand("Order: question order", "walk the queue in question order",
                       lambda: set_order(host, "question")),
    ]


def switch(host: GradingHost) -> None:
    host.focus_side("right" if host.side == "left" else "left")


def focus_side(host: GradingHost, side: str) -> None:
    host.focus_side(side)


def scroll_question(host: GradingHost, step: int) -> None:
    host.scroll_question(step)
