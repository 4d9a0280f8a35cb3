"""Which bundled answer sits beside raw: the run's largest budget by default, or another budget of the run chosen in the
command palette (or with `gradedesk grade --budget N`). The queue, the sampler, the item, the filters and progress
follow it (core/store/run_records.py RunInfo.showing); the top bar names it when it is not the largest, and it is
kept with the desk state, per person.

Functions of the screen (tui/screens/grading/screen.py), which holds the run as shown.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gradedesk.tui.screens.grading import opening
from gradedesk.tui.screens.palette import PaletteCommand

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def set_budget(screen: GradingScreen, budget: int) -> None:
    """Show raw beside the bundled answer at `budget`: the item on screen again, counted and ordered anew."""
    if screen.run is None:
        return
    screen.run = screen.run.showing(budget)
    screen.total = None  # counted again for this budget's shown answers
    screen.desk.report(f"raw beside the bundled answer at {budget:,} tokens")
    screen.render_topbar()
    opening.recount(screen)
    screen.reload()
    screen.save_state()


def commands(screen: GradingScreen) -> list[PaletteCommand]:
    """One entry per other budget of the run (none when it has one). None while adjudicating: the disputed items are
    those at the budget the desk opened with (grade --adjudicate --budget N for another)."""
    run = screen.run
    if run is None or screen.adjudicating:
        return []
    return [PaletteCommand(f"Bundled answer at {b:,} tokens" + (" (the run's largest)" if b == run.primary_budget else ""),
                           "grade raw against the bundle at this budget; grades and preferences record it",
                           functools.partial(set_budget, screen, b)) for b in run.budgets if b != run.bundle_budget]
