"""What blind first lets the grader see, as they set it in the command palette: the judge from the start (open mode),
method names hidden until both answers are graded, and the rubric version whose judge verdicts are shown. Each setting
redraws the item and is stored with the desk state; what follows from them for the item on screen (the mode, whether
the judge is visible) is the screen's, core/review/visibility.py decides it.

Functions of the screen (tui/screens/grading/screen.py), which holds the settings.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gradedesk.core.review.item import MACHINE_NAMES
from gradedesk.tui.screens.palette import PaletteCommand

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def machine_name(screen: GradingScreen) -> str:
    """What grades the item on screen, named as what it is ('rule grader', 'judge'): the demo has no judge."""
    item = screen.item
    views = [item.at(side) for side in ("left", "right")] if item else []
    kinds = sorted({v.machine.kind for v in views if v is not None and v.machine is not None})
    return " / ".join(MACHINE_NAMES.get(k, k) for k in kinds) or "machine grader"


def set_show_judge(screen: GradingScreen, on: bool) -> None:
    screen.show_judge = on
    name = machine_name(screen)
    screen.desk.report(f"{name} shown from the start (open mode)" if on
                       else f"blind first: {name} hidden until graded")
    screen.redraw()
    screen.save_state()


def set_hide_methods(screen: GradingScreen, on: bool) -> None:
    screen.hide_methods = on
    screen.redraw()
    screen.refresh_progress()  # the status line names the budget only while method names show
    screen.save_state()


def set_judge_rubric(screen: GradingScreen, version: str | None) -> None:
    """Show the judge's verdicts under this rubric version (None: the newest); blind first still decides when. The
    status line's agreement stays `agree`'s: each grade beside the verdict on the desk when it was saved."""
    screen.judge_rubric = version
    screen.desk.report(f"judge verdicts under rubric {version}" if version else "judge verdicts: the newest")
    screen.reload()
    screen.save_state()


def judge_rubric_commands(screen: GradingScreen) -> list[PaletteCommand]:
    """One entry per rubric version the judge graded this item under (when there is a choice to make)."""
    versions = screen.item.judge_rubrics if screen.item else ()
    if len(versions) < 2 and screen.judge_rubric is None:
        return []
    out = [PaletteCommand(f"Judge verdict under rubric {v}", "show what the judge said under this rubric version",
                          functools.partial(set_judge_rubric, screen, v)) for v in versions if v != screen.judge_rubric]
    if screen.judge_rubric is not None:
        out.append(PaletteCommand("Judge verdict: the newest", "as agree shows it",
                                  lambda: set_judge_rubric(screen, None)))
    return out


def commands(screen: GradingScreen) -> list[PaletteCommand]:
    name = machine_name(screen)
    return judge_rubric_commands(screen) + [
        PaletteCommand(
            f"Show the {name} from the start" if not screen.show_judge else f"Blind first (hide the {name} until graded)",
            "spot-check mode; every grade records the mode it was made in",
            lambda: set_show_judge(screen, not screen.show_judge)),
        PaletteCommand("Hide method names (Answer A / B)" if not screen.hide_methods else "Show method names",
                       "hide which answer is raw and which bundled until both are graded",
                       lambda: set_hide_methods(screen, not screen.hide_methods)),
    ]
