"""The desk's settings in the command palette: what blind first shows (the machine grader from the start, method names
hidden until both answers are graded, the judge rubric version whose verdicts are shown) and which budget's bundled
answer sits beside raw (the run's largest by default; also `gradedesk grade --budget N`). The desk session
(core/review/session/) holds them and they are kept with the desk state, per person; functions of the screen as a
`GradingHost` (host.py)."""

from __future__ import annotations

import functools

from gradedesk.tui.screens.grading.host import GradingHost
from gradedesk.tui.screens.palette import PaletteCommand


def set_show_judge(host: GradingHost, on: bool) -> None:
    host.desk.report(host.session.set_show_judge(on))
    host.redraw()
    host.save_state()


def set_hide_methods(host: GradingHost, on: bool) -> None:
    host.desk.report(host.session.set_hide_methods(on))
    host.redraw()
    host.refresh_progress()  # the status line names the budget only while method names show
    host.save_state()


def set_judge_rubric(host: GradingHost, version: str | None) -> None:
    """The status line's agreement stays `agree`'s: each grade beside the verdict on the desk when it was saved."""
    said, job = host.session.set_judge_rubric(version)
    host.desk.report(said)
    host.show(job)
    host.save_state()


def set_budget(host: GradingHost, budget: int) -> None:
    """Show raw beside the bundled answer at `budget`: the item on screen again, counted and ordered anew."""
    if host.session.run is None:
        return
    host.desk.report(host.session.set_budget(budget))
    host.render_topbar()
    host.recount()
    host.show(host.session.reload())
    host.save_state()


def judge_rubric_commands(host: GradingHost) -> list[PaletteCommand]:
    """One entry per rubric version the judge graded this item under (when there is a choice to make)."""
    session = host.session
    versions = session.item.judge_rubrics if session.item else ()
    if len(versions) < 2 and session.judge_rubric is None:
        return []
    out = [PaletteCommand(f"Judge verdict under rubric {v}", "show what the judge said under this rubric version",
                          functools.partial(set_judge_rubric, host, v)) for v in versions if v != session.judge_rubric]
    if session.judge_rubric is not None:
        out.append(PaletteCommand("Judge verdict: the newest", "as agree shows it",
                                  lambda: set_judge_rubric(host, None)))
    return out


def budget_commands(host: GradingHost) -> list[PaletteCommand]:
    """One entry per other budget of the run (none when it has one). None while adjudicating: the disputed items are
    those at the budget the desk opened with (grade --adjudicate --budget N for another)."""
    run = host.session.run
    if run is None or host.session.adjudicating:
        return []
    return [PaletteCommand(f"Bundled answer at {b:,} tokens" + (" (the run's largest)" if b == run.primary_budget else ""),
                           "grade raw against the bundle at this budget; grades and preferences record it",
                           functools.partial(set_budget, host, b)) for b in run.budgets if b != run.bundle_budget]


def commands(host: GradingHost) -> list[PaletteCommand]:
    session = host.session
    name = session.machine_name
    return judge_rubric_commands(host) + [
        PaletteCommand(
            f"Show the {name} from the start" if not session.show_judge else f"Blind first (hide the {name} until graded)",
            "spot-check mode; every grade records the mode it was made in",
            lambda: set_show_judge(host, not session.show_judge)),
        PaletteCommand("Hide method names (Answer A / B)" if not session.hide_methods else "Show method names",
                       "hide which answer is raw and which bundled until both are graded" if not session.hide_methods
                       else "say which answer is raw and which bundled (hidden since set; kept for your next desk)",
                       lambda: set_hide_methods(host, not session.hide_methods)),
    ] + budget_commands(host)
