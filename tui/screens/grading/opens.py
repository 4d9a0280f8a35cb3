"""The screens the grading screen opens over itself, and what it does with their answers: jump to a question id (g),
the filters (/), the queue (q), the evidence browser (b), answer A against B word by word (v), the focused answer as
written (w), claim mode (c), explore (x), the trace's URL (t), agreement with the judge (a), the team's progress (p).

Functions of the screen as a `GradingHost` (host.py); the desk session (core/review/session/) holds what they read.
Explore, agreement and team progress are imported when first opened: they pull in the compiler and numpy, which
opening the desk need not wait for.
"""

from __future__ import annotations

from gradedesk.core.exchange.traces import trace_url
from gradedesk.core.review.blind import neutral_answer
from gradedesk.core.review.item import AnswerView
from gradedesk.core.review.queue import Filters

from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.claims import ClaimScreen
from gradedesk.tui.screens.diff import DiffScreen
from gradedesk.tui.screens.grading.host import GradingHost
from gradedesk.tui.screens.modals import ReadingModal, TextModal, open_filters
from gradedesk.tui.screens.palette import PaletteCommand
from gradedesk.tui.screens.queue import QueueScreen
from gradedesk.tui.widgets.answer_pane import snippets_of
from gradedesk.tui.widgets.literal import literal


def jump(host: GradingHost) -> None:
    def jumped(text: str | None) -> None:
        if text:
            host.show(host.session.jump(text))
    host.push(TextModal("Jump to question id", placeholder="e.g. q-tokens or 42", blink=host.desk.config.cursor_blink),
              jumped)


def filters(host: GradingHost) -> None:
    if host.session.run is None:
        return

    def chosen(picked: Filters | None) -> None:
        if picked is not None:
            host.apply_filters(picked)
    open_filters(host.app, host.desk, host.session.run.id, host.session.filters, chosen, host.session.judge_rubric)


def queue(host: GradingHost) -> None:
    session = host.session
    if session.run is None:
        return

    def chosen(choice: tuple[int, str, Filters] | None) -> None:
        if choice is None:
            return
        pk, side, picked = choice
        host.show(host.session.open_from_queue(pk, picked), focus=side)
    host.push(QueueScreen(host.desk, session.run, session.filters, session.item.question_pk if session.item else None,
                          show_judge=session.show_judge, recheck=session.recheck, hide_methods=session.hide_methods,
                          judge_rubric=session.judge_rubric,
                          kind=session.progress.kind if session.progress is not None else None), chosen)


def bundle(host: GradingHost) -> None:
    if (a := host.focused_answer()) is not None:
        host.push(BundleScreen(a, host.pane_title(host.side), methods_visible=host.session.methods_visible()))


def _shown(host: GradingHost, a: AnswerView) -> str:
    """The answer's text as the panes show it now (with method names hidden, citations written one way)."""
    text = a.text or ""
    return text if host.session.methods_visible() else neutral_answer(text, snippets_of(a))


def diff(host: GradingHost) -> None:
    item = host.session.item
    if item is None:
        return
    a, b = item.at("left"), item.at("right")
    if a is None or b is None or not a.text or not b.text:
        host.desk.report("A against B needs two answers with text; this item has "
                           f"{sum(1 for x in (a, b) if x is not None and x.text)}")
        return
    host.push(DiffScreen(_shown(host, a), _shown(host, b), host.pane_title("left"), host.pane_title("right")))


def as_written(host: GradingHost) -> None:
    if (a := host.focused_answer()) is None:
        return
    if host.session.methods_visible():
        host.desk.report("the answer is shown as written (only with method names hidden do the panes change it)")
        return
    title = (f"{host.pane_title(host.side)} as written: its citations and what it copied of its prompt may "
             "tell which method it is")
    host.push(ReadingModal(title, literal(a.text) if a.text else literal("(empty answer)", "dim")))


def claims(host: GradingHost) -> None:
    a, item = host.focused_answer(), host.session.item
    if a is None or item is None:
        return
    if host.session.recheck:
        host.desk.report("claim mode is not part of a recheck pass: leave it first (command palette)")
        return
    host.push(ClaimScreen(host.desk, a.id, host.pane_title(host.side), item.question,
                          show_judge=host.session.show_judge, evidence_label="Evidence" if a.bundle else "Hit",
                          methods_visible=host.session.methods_visible()),
              lambda _: host.show(host.session.reload()))


def explore(host: GradingHost) -> None:
    """The item's question in the explore screen, at the budget of its bundled answer, on the run's repository."""
    from gradedesk.tui.screens.explore import ExploreScreen

    item, run = host.session.item, host.session.run
    if item is None or run is None:
        return
    bundled = item.answers.get("bundle")
    host.push(ExploreScreen(host.desk, item.question, run_id=run.id,
                            budget=bundled.budget if bundled and bundled.budget else run.bundle_budget))


def trace_link(host: GradingHost) -> None:
    """Copy the URL of the trace the focused answer came from (import-traces), and show it."""
    a = host.focused_answer()
    url = trace_url(a.origin) if a is not None and a.origin is not None else None
    if url is None:
        host.desk.report("this answer did not come from a trace on a server: no trace URL")
        return
    host.app.copy_to_clipboard(url)
    host.desk.report(f"copied {url}")


def agreement(host: GradingHost) -> None:
    from gradedesk.tui.screens.agreement import AgreementScreen

    if host.session.run is None:
        return

    def chosen(cell: tuple[str, str] | None) -> None:
        if cell:
            host.apply_filters(Filters(grade=cell[0], judge_grade=cell[1]))
    host.push(AgreementScreen(host.desk, host.session.run.id, person=host.session.person), chosen)


def team_progress(host: GradingHost) -> None:
    from gradedesk.tui.screens.progress import ProgressScreen

    if host.session.run is not None:
        host.push(ProgressScreen(host.desk, host.session.run.id))


def commands(host: GradingHost) -> list[PaletteCommand]:
    return [
        PaletteCommand("Clear filters", "show every item", lambda: host.apply_filters(Filters())),
        PaletteCommand("Open the queue", "all items in a table", lambda: queue(host)),
        PaletteCommand("Open the evidence browser", "snippets of the focused answer", lambda: bundle(host)),
        PaletteCommand("Claim mode", "check the focused answer claim by claim (c)", lambda: claims(host)),
        PaletteCommand("Jump to question id", "go to a question by its benchmark id", lambda: jump(host)),
        PaletteCommand("Team progress", "per person assigned, graded, adjudicated; alpha between people (p)",
                       lambda: team_progress(host)),
    ]
