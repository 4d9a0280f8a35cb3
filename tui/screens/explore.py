"""The explore screen: ask a question, then watch the raw hits and the bundle change with the budget, by keyboard alone.

A question input at the top; Enter asks and moves focus to the results, where `+`/`-` step the budget through
500/1,000/2,000/4,000/8,000, digits then Enter set any budget, `/` or `i` go back to the input, `v` shows the snippets'
code and `s` keeps the question in a benchmark questions file. Left: the raw top-k hits; right: the bundle at the
budget, each snippet marked against the budget before (core/evidence/explore.py).

Retrieval runs as a store job (in the background: keys keep acting); compiling runs in a thread worker. Each result
carries the question and budget it was made for, and one that no longer matches what is asked is dropped. The garbage
collector waits from a key until the bundle it asked for is painted (tui/collector.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from gradedesk.core.evidence.explore import (Compiled, Retrieval, Step, compile_at, next_budget, retrieve_question,
                                             run_repo, step)
from gradedesk.core.review.session import Job, Store
from gradedesk.core.runs.questions import append_question

from gradedesk.tui.collector import CollectorPause, freeze_once
from gradedesk.tui.db import QuestionKept, Retrieved
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.screens.explore_keep import KeepModal
from gradedesk.tui.widgets.footer import DeskFooter
from gradedesk.tui.widgets.explore_view import bundle_text, raw_text
from gradedesk.tui.widgets.literal import literal, token_bar
from gradedesk.tui.widgets.status_line import StatusLine
from gradedesk.tui.widgets.text_column import TextColumn

MAX_BUDGET = 200_000  # a typed budget above this is a typo
COLLECTOR_PAUSE_MAX = 2.0  # seconds: the collector is back on even if the bundle asked for never comes (a failed job)


@dataclass(frozen=True)
class Shown:
    """The bundle in view and the step that led to it."""
    compiled: Compiled
    moved: Step


class BundleReady(Message):
    def __init__(self, asked: int, before: Compiled | None, after: Compiled) -> None:
        super().__init__()
        self.asked, self.before, self.after = asked, before, after


class ExploreScreen(Screen):
    BINDINGS = [
        Binding("plus", "budget(1)", "budget", key_display="+/-", id="explore.more",
                tooltip="next budget step up (500, 1,000, 2,000, 4,000, 8,000)"),
        Binding("minus", "budget(-1)", "smaller budget", show=False, id="explore.less"),
        *[Binding(str(d), f"digit({d})", "type a budget", show=False) for d in range(10)],
        Binding("enter", "typed_budget", "set typed budget", show=False, id="explore.typed"),
        Binding("backspace", "undigit", "erase a typed digit", show=False, id="explore.undigit"),
        Binding("slash,i", "ask_again", "question", key_display="/", id="explore.input"),
        Binding("tab,shift+tab", "other_column", "other column", show=False, id="explore.column",
                tooltip="move the keys between the raw hits and the bundle (/ reaches the question)"),
        Binding("v", "toggle_code", "code", tooltip="show or hide the snippets' code", id="explore.code"),
        Binding("s", "keep", "keep", tooltip="append the question to the benchmark questions file", id="explore.keep"),
        Binding("escape", "leave", "back", tooltip="clear a typed budget; else back to the desk", id="explore.close"),
    ]

    def __init__(self, desk: Desk, question: str = "", *, budget: int = 2000, repo: str | None = None,
                 run_id: int | None = None, questions: Path | None = None, embedder: Any = None) -> None:
        super().__init__()
        self.desk = desk
        self.question = question
        self.budget = budget
        self.before: int | None = None  # the budget of the bundle the next one is marked against
        self.repo, self.run_id, self.questions, self.embedder = repo, run_id, questions, embedder
        self.asked = 0  # the question's number: a result of an earlier one is dropped
        self.retrieval: Retrieval | None = None
        self.bundles: dict[int, Compiled] = {}  # this question's bundles by budget
        self.shown: Shown | None = None
        self.typed = ""
        self.show_code = False
        self._collector = CollectorPause()  # no garbage collection between a key and its bundle painted
        self._collector_timer: Timer | None = None
        self._unpainted = False  # a bundle was drawn and the screen has not been painted since
        self._drawn_asked = 0  # the question whose bundle the columns show: a new one opens them at their top

    def compose(self) -> ComposeResult:
        yield Input(self.question, placeholder="a question about the code · Enter asks", id="explore-question",
                    select_on_focus=False)
        yield Static("", id="explore-head", markup=False)
        with Horizontal(id="explore-body"):
            yield TextColumn(id="explore-raw")
            yield TextColumn(id="explore-bundle")
        yield StatusLine(id="progress")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = self.desk.config.cursor_blink
        if self.question.strip():
            self.ask(self.question)
        else:
            self.query_one(Input).focus()
        self._draw_head()

    # asking ----------------------------------------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.ask(event.value)

    def ask(self, question: str) -> None:
        self.question = question.strip()
        self.asked += 1
        asked, repo, run_id, embedder = self.asked, self.repo, self.run_id, self.embedder
        self.retrieval, self.bundles, self.shown, self.before = None, {}, None, None
        self._pause_collector()
        self.query_one("#explore-bundle").focus()
        self._draw_head("retrieving…")

        def find(store: Store) -> Retrieval:
            where = run_repo(store, run_id) if run_id is not None and repo is None else None
            retrieval = retrieve_question(store, question, where or repo, embedder)
            # its index is loaded now and stays: out of every later collection (once, in this job: a collection
            # after the paint could not be timed to come after it)
            freeze_once(("index", store.path, retrieval.repo))
            return retrieval
        self.desk.submit(Retrieved, Job("retrieve", find, holds_keys=False), lambda r: self._retrieved(asked, r))

    def _retrieved(self, asked: int, retrieval: Retrieval) -> None:
        if asked != self.asked:  # another question was asked since
            return
        self.retrieval = retrieval
        self._compile()

    def _compile(self) -> None:
        if self.retrieval is not None:
            self._compile_worker(self.retrieval, self.asked, self.before, self.budget, dict(self.bundles))

    @work(thread=True, exclusive=True, group="explore-compile", exit_on_error=False)
    def _compile_worker(self, retrieval: Retrieval, asked: int, before: int | None, budget: int,
                        made: dict[int, Compiled]) -> None:
        after = made.get(budget) or compile_at(retrieval, budget)
        old = None if before is None else made.get(before) or compile_at(retrieval, before)
        self.post_message(BundleReady(asked, old, after))

    def on_bundle_ready(self, message: BundleReady) -> None:
        if message.asked != self.asked:
            return
        for c in (message.before, message.after):
            if c is not None:
                self.bundles[c.budget] = c
        if message.after.budget != self.budget:  # the budget moved on while this compiled: the newer one follows
            return
        self.shown = Shown(message.after, step(message.before, message.after))
        self._draw()

    # budget ----------------------------------------------------------------------------------------------------------

    def set_budget(self, budget: int) -> None:
        if budget == self.budget:
            return
        # marked against the bundle in view; while none is (the first one is compiling), against the budget asked before
        shown = self.shown.compiled.budget if self.shown else None
        self.before = shown if shown not in (None, budget) else self.budget if self.retrieval else None
        self.budget = budget
        self._pause_collector()
        self._draw_head()
        self._compile()

    def action_budget(self, direction: int) -> None:
        self.typed = ""
        self.set_budget(next_budget(self.budget, direction))

    def action_digit(self, digit: int) -> None:
        if len(self.typed) < 7:
            self.typed += str(digit)
        self._draw_head()

    def action_undigit(self) -> None:
        self.typed = self.typed[:-1]
        self._draw_head()

    def action_typed_budget(self) -> None:
        typed, self.typed = self.typed, ""
        if not typed:
            return
        budget = int(typed)
        if not 1 <= budget <= MAX_BUDGET:
            self.desk.report(f"budget: {budget:,} is not between 1 and {MAX_BUDGET:,} tokens", error=True)
            self._draw_head()
            return
        self.set_budget(budget)
        self._draw_head()

    # the collector ---------------------------------------------------------------------------------------------------

    def _pause_collector(self) -> None:
        self._collector.pause()
        if self._collector_timer is not None:
            self._collector_timer.stop()
        self._collector_timer = self.set_timer(COLLECTOR_PAUSE_MAX, self._collector.resume)

    def _compositor_refresh(self) -> None:
        """Textual's repaint of the screen (a private hook: `call_after_refresh` may run before the repaint of what
        the columns were just given). Once the bundle asked for is on screen, the collector runs again."""
        super()._compositor_refresh()
        if self._unpainted:
            self._unpainted = False
            self._collector.resume()

    def on_unmount(self) -> None:
        self._collector.resume()

    # other keys ------------------------------------------------------------------------------------------------------

    def action_ask_again(self) -> None:
        self.query_one(Input).focus()

    def action_other_column(self) -> None:
        """Tab and shift+Tab move between the two columns only (from the question, to the bundle): Textual's focus
        chain also held the question input, whose focus is a cursor on the top line, so a Tab from the bundle sent
        the keys where nothing showed it and two more Tabs brought them back. `/` and `i` reach the input."""
        raw, bundle = self.query_one("#explore-raw"), self.query_one("#explore-bundle")
        (raw if self.focused is bundle else bundle).focus()

    def action_toggle_code(self) -> None:
        self.show_code = not self.show_code
        self._draw()

    def action_leave(self) -> None:
        if self.typed:
            self.typed = ""
            self._draw_head()
        elif len(self.app.screen_stack) > 2:  # opened from the desk (the default screen is below it)
            self.app.pop_screen()

    def action_keep(self) -> None:
        retrieval, path = self.retrieval, self.questions
        if retrieval is None:
            self.desk.report("ask a question first; then s keeps it")
            return
        if path is None:
            self.desk.report("no questions file: open explore with --questions FILE to keep questions", error=True)
            return

        def kept(answer: tuple[str, list[str]] | None) -> None:
            if answer is None:
                return
            gold, files = answer
            self.desk.submit(QuestionKept, Job("keep question", lambda store: append_question(
                path, retrieval.info.text, retrieval.info.question_type, gold, files)),
                lambda q: self.desk.report(f"kept as {q.id} in {path}"))
        self.app.push_screen(KeepModal(retrieval.info.text, blink=self.desk.config.cursor_blink), kept)

    # drawing ---------------------------------------------------------------------------------------------------------

    def _draw_head(self, doing: str = "") -> None:
        """Two lines that stay in view: the repository, question type, budget and token bar; then what the last step
        added and cost (or what is under way)."""
        r, shown = self.retrieval, self.shown
        t = Text()
        if r is not None:
            t.append_text(literal(r.repo, "bold"))
            t.append(" · ")
            t.append_text(literal(r.info.question_type, "italic"))
            if r.vector_model:
                t.append(" · vectors ")
                t.append_text(literal(r.vector_model))
            t.append(" · ")
        current = shown is not None and shown.compiled.budget == self.budget
        if current and shown is not None:  # the bar ends `used / budget tokens`: the budget once, so 80 columns hold it
            t.append("budget ", style="bold")
            t.append_text(token_bar(shown.compiled.bundle.total_tokens, self.budget, width=16))
        else:
            t.append(f"budget {self.budget:,}", style="bold")
        t.append("\n")
        if self.typed:
            t.append(f"typed budget {self.typed}▏ Enter sets it, Esc clears", style="reverse")
        elif doing or r is None and self.question:
            t.append(doing or "retrieving…", style="italic")
        elif r is not None and not current:
            t.append("compiling…", style="italic")
        elif shown is not None:
            t.append(shown.moved.summary, style="bold")
        else:
            t.append("type a question and press Enter", style="dim")
        # always two lines (the CSS height): no layout pass, which would redraw the whole screen; a line too long for
        # the width ends in an ellipsis rather than wrap and push the step's line out of the head
        t.no_wrap, t.overflow = True, "ellipsis"
        self.query_one("#explore-head", Static).update(t, layout=False)

    def _draw(self) -> None:
        r, shown = self.retrieval, self.shown
        self._draw_head()
        if r is None or shown is None:
            return
        raw, bundle = self.query_one("#explore-raw", TextColumn), self.query_one("#explore-bundle", TextColumn)
        raw.update(raw_text(r, shown.compiled))
        bundle.update(bundle_text(r, shown.compiled, shown.moved, show_code=self.show_code))
        if self._drawn_asked != self.asked:  # a new question's first bundle opens at its top, not where the last was
            self._drawn_asked = self.asked
            raw.scroll_home(animate=False, immediate=True)
            bundle.scroll_home(animate=False, immediate=True)
        self._unpainted = True
