"""The screens the grading screen opens over itself, and what it does with their answers: jump to a question id (g),
the filters (/), the queue (q), the evidence browser (b), answer A against B word by word (v), the focused answer as
written (w), claim mode (c), explore (x), the trace's URL (t), agreement with the judge (a), the team's progress (p).

Functions of the screen (tui/screens/grading/screen.py), which holds the state they read and change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradedesk.core.exchange.traces import trace_url
from gradedesk.core.review import queue as review
from gradedesk.core.review.blind import neutral_answer
from gradedesk.core.review.item import AnswerView
from gradedesk.core.review.queue import Filters

from gradedesk.tui.screens.agreement import AgreementScreen
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.claims import ClaimScreen
from gradedesk.tui.screens.diff import DiffScreen
from gradedesk.tui.screens.explore import ExploreScreen
from gradedesk.tui.screens.modals import ReadingModal, TextModal, open_filters
from gradedesk.tui.screens.palette import PaletteCommand
from gradedesk.tui.screens.progress import ProgressScreen
from gradedesk.tui.screens.queue import QueueScreen
from gradedesk.tui.widgets.answer_pane import snippets_of
from gradedesk.tui.widgets.literal import literal

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen


def jump(screen: GradingScreen) -> None:
    def jumped(text: str | None) -> None:
        if not text or not text.strip():
            return
        run = screen.run
        if run is None:  # the run is still opening (load would do nothing)
            return
        screen.load(lambda store: review.find_question(store, run, text), empty=f"no question {text.strip()!r}",
                    how="jump")
    screen.app.push_screen(TextModal("Jump to question id", placeholder="e.g. q-tokens or 42",
                                     blink=screen.desk.config.cursor_blink), jumped)


def filters(screen: GradingScreen) -> None:
    if screen.run is None:
        return

    def chosen(picked: Filters | None) -> None:
        if picked is not None:
            screen.apply_filters(picked)
    open_filters(screen, screen.desk, screen.run.id, screen.filters, chosen, screen.judge_rubric)


def queue(screen: GradingScreen) -> None:
    if screen.run is None:
        return

    def chosen(choice: tuple[int, str, Filters] | None) -> None:
        if choice is None:
            return
        pk, side, picked = choice
        if picked != screen.filters:
            screen.filters = picked
            screen.order = "question"
        screen.show_question(pk, side)
    screen.app.push_screen(QueueScreen(screen.desk, screen.run, screen.filters,
                                       screen.item.question_pk if screen.item else None,
                                       show_judge=screen.show_judge, recheck=screen.recheck,
                                       hide_methods=screen.hide_methods, judge_rubric=screen.judge_rubric), chosen)


def bundle(screen: GradingScreen) -> None:
    if (a := screen.focused_answer()) is not None:
        screen.app.push_screen(BundleScreen(a, screen.pane_title(screen.side),
                                            methods_visible=screen.methods_visible()))


def _shown(screen: GradingScreen, a: AnswerView) -> str:
    """The answer's text as the panes show it now (with method names hidden, citations written one way)."""
    text = a.text or ""
    return text if screen.methods_visible() else neutral_answer(text, snippets_of(a))


def diff(screen: GradingScreen) -> None:
    item = screen.item
    if item is None:
        return
    a, b = item.at("left"), item.at("right")
    if a is None or b is None or not a.text or not b.text:
        screen.desk.report("A against B needs two answers with text; this item has "
                           f"{sum(1 for x in (a, b) if x is not None and x.text)}")
        return
    screen.app.push_screen(DiffScreen(_shown(screen, a), _shown(screen, b), screen.pane_title("left"),
                                      screen.pane_title("right")))


def as_written(screen: GradingScreen) -> None:
    if (a := screen.focused_answer()) is None:
        return
    if screen.methods_visible():
        screen.desk.report("the answer is shown as written (only with method names hidden do the panes change it)")
        return
    title = (f"{screen.pane_title(screen.side)} as written: its citations and what it copied of its prompt may "
             "tell which method it is")
    screen.app.push_screen(ReadingModal(title, literal(a.text) if a.text else literal("(empty answer)", "dim")))


def claims(screen: GradingScreen) -> None:
    a, item = screen.focused_answer(), screen.item
    if a is None or item is None:
        return
    if screen.recheck:
        screen.desk.report("claim mode is not part of a recheck pass: leave it first (command palette)")
        return
    screen.app.push_screen(ClaimScreen(screen.desk, a.id, screen.pane_title(screen.side), item.question,
                                       show_judge=screen.show_judge, evidence_label="Evidence" if a.bundle else "Hit",
                                       methods_visible=screen.methods_visible()),
                           lambda _: screen.reload())


def explore(screen: GradingScreen) -> None:
    """The item's question in the explore screen, at the budget of its bundled answer, on the run's repository."""
    item, run = screen.item, screen.run
    if item is None or run is None:
        return
    bundled = item.answers.get("bundle")
    screen.app.push_screen(ExploreScreen(screen.desk, item.question, run_id=run.id,
                                         budget=bundled.budget if bundled and bundled.budget else run.bundle_budget))


def trace_link(screen: GradingScreen) -> None:
    """Copy the URL of the trace the focused answer came from (import-traces), and show it."""
    a = screen.focused_answer()
    url = trace_url(a.origin) if a is not None and a.origin is not None else None
    if url is None:
        screen.desk.report("this answer did not come from a trace on a server: no trace URL")
        return
    screen.app.copy_to_clipboard(url)
    screen.desk.report(f"copied {url}")


def agreement(screen: GradingScreen) -> None:
    if screen.run is None:
        return

    def chosen(cell: tuple[str, str] | None) -> None:
        if cell:
            screen.apply_filters(Filters(grade=cell[0], judge_grade=cell[1]))
    desk = screen.desk
    screen.app.push_screen(AgreementScreen(desk.config.store_path, screen.run.id,
                                           report_error=lambda text: desk.report(text, error=True)), chosen)


def team_progress(screen: GradingScreen) -> None:
    if screen.run is not None:
        screen.app.push_screen(ProgressScreen(screen.desk.config.store_path, screen.run.id))


def commands(screen: GradingScreen) -> list[PaletteCommand]:
    return [
        PaletteCommand("Clear filters", "show every item", lambda: screen.apply_filters(Filters())),
        PaletteCommand("Open the queue", "all items in a table", lambda: queue(screen)),
        PaletteCommand("Open the evidence browser", "snippets of the focused answer", lambda: bundle(screen)),
        PaletteCommand("Claim mode", "check the focused answer claim by claim (c)", lambda: claims(screen)),
        PaletteCommand("Jump to question id", "go to a question by its benchmark id", lambda: jump(screen)),
        PaletteCommand("Team progress", "per person assigned, graded, adjudicated; alpha between people (p)",
                       lambda: team_progress(screen)),
    ]
