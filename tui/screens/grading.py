"""The grading screen: a question, its two answers side by side with their evidence, graded by keyboard alone.

Blind first (core/review/blind.py): an answer's machine grade stays hidden until the person has saved a grade for it
(unless the desk was opened with --show-judge, in 'open' mode). Which answer is on the left is a per-question coin
seeded by the run, and method names can be hidden ("Answer A / B") until both answers are graded. Every store call is a
job on the desk's store thread (one core/review function each); this screen keeps only what is on screen. The keys that
grade live in grading_actions.py, what is drawn in grading_view.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADES
from gradedesk.core.review import blind, session
from gradedesk.core.review import queue as review
from gradedesk.core.review.item import AnswerView, Item, load_item
from gradedesk.core.review.queue import Filters
from gradedesk.core.store.runs import RunInfo
from gradedesk.core.store.connection import Store

from gradedesk.tui.collector import CollectorPause, freeze_startup
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.screens import grading_view as view
from gradedesk.tui.screens.grading_actions import GradingActions
from gradedesk.tui.screens.palette import ScreenCommands
from gradedesk.tui.widgets.answer_pane import AnswerPane, PaneView, snippets_of
from gradedesk.tui.widgets.literal import highlight_code
from gradedesk.tui.widgets.status_line import StatusLine

SIDES = ("left", "right")
STATE_DELAY = 0.3  # seconds after the last move before desk_state is written
HIGHLIGHT_DELAY = 0.08  # seconds after an item is shown before its code is highlighted (after the first paint)
COLLECTOR_PAUSE_MAX = 1.0  # seconds: the collector is back on even if a requested item never arrives (a failed job)


def _grade_bindings() -> list[Binding]:
    out = []
    for i, grade in enumerate(GRADES, start=1):
        out.append(Binding(str(i), f"grade('{grade}')", "grade", show=i == 1, key_display="1-4" if i == 1 else None,
                           tooltip=f"grade the focused answer: {GRADE_LABELS[grade]}", id=f"desk.grade.{grade}"))
    return out


class GradingScreen(GradingActions, Screen):
    COMMANDS = {ScreenCommands}
    BINDINGS = [
        *_grade_bindings(),
        Binding("f", "label", "label", tooltip="failure label of the focused answer (six labels)", id="desk.label"),
        Binding("s", "scores", "scores", tooltip="score correctness, grounding, completeness, conciseness 1-5",
                id="desk.scores"),
        Binding("e", "note", "note", tooltip="a note on the focused answer", id="desk.note"),
        Binding("left_square_bracket", "prefer('left')", "prefer", key_display="[ ] =",
                tooltip="prefer the left answer (A)", id="desk.prefer.left"),
        Binding("right_square_bracket", "prefer('right')", "prefer right", show=False,
                tooltip="prefer the right answer (B)", id="desk.prefer.right"),
        Binding("equals_sign", "prefer('tie')", "tie", show=False, tooltip="the two answers are equally good",
                id="desk.prefer.tie"),
        Binding("u", "undo", "undo", tooltip="take back your last grade (stored as an undo event)", id="desk.undo"),
        Binding("tab", "switch", "switch", key_display="tab/h/l", priority=True, id="desk.switch"),
        Binding("h", "focus_side('left')", "left answer", show=False, id="desk.left"),
        Binding("l", "focus_side('right')", "right answer", show=False, id="desk.right"),
        Binding("j", "step(1)", "next", key_display="j/k", id="desk.next"),
        Binding("k", "step(-1)", "previous", show=False, id="desk.previous"),
        Binding("n", "next_ungraded", "ungraded", tooltip="next item with an answer you have not graded",
                id="desk.next_ungraded"),
        Binding("d", "next_disagreement", "disagree", tooltip="next item where you and the machine grade differ",
                id="desk.next_disagreement"),
        Binding("g", "jump", "jump", id="desk.jump"),
        Binding("slash", "filters", "filters", key_display="/", id="desk.filters"),
        Binding("q", "queue", "queue", tooltip="all items in a table", id="desk.queue"),
        Binding("b", "bundle", "evidence", tooltip="evidence browser: snippets, token bar, raw JSON",
                id="desk.bundle"),
        Binding("a", "agreement", "agreement", tooltip="agreement with the judge; Enter on a cell filters to it",
                id="desk.agreement"),
        Binding("ctrl+up", "scroll_question(-1)", "scroll question up", show=False, id="desk.question.up"),
        Binding("ctrl+down", "scroll_question(1)", "scroll question down", show=False, id="desk.question.down"),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.run: RunInfo | None = None
        self.item: Item | None = None
        self.filters = Filters()
        self.show_judge = False
        self.hide_methods = False
        self.order = "question"
        self.order_list: list[int] = []
        self.order_index = 0
        self.total: int | None = None
        self.side = "left"
        self._seq = 0
        self._had_no_item = True
        self._shown_pk: int | None = None
        self._state_timer: Timer | None = None
        self._collector = CollectorPause()  # no garbage collection between a key and its repaint (tui/collector.py)
        self._collector_timer: Timer | None = None

    # Layout ----------------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar", markup=False)
        with VerticalScroll(id="question-box", can_focus=False):
            yield Static("Opening the store…", id="question", markup=False)
        with Horizontal(id="answers"):
            yield AnswerPane("left")
            yield AnswerPane("right")
        yield StatusLine("counting…", id="progress")
        yield Footer()

    def on_mount(self) -> None:
        cfg = self.desk.config
        self.desk.on_quit(self.save_state)
        self.desk.submit("open the run", lambda store: session.open_desk(store, cfg.run_id, cfg.grader, cfg.recheck),
                         self._opened)

    def _opened(self, opening: session.Opening) -> None:
        cfg = self.desk.config
        settings = opening.settings
        self.run, self.filters, self.order, self.order_list = (opening.run, opening.filters, opening.order,
                                                               opening.order_list)
        self.show_judge = cfg.show_judge if cfg.show_judge is not None else bool(settings.get("show_judge"))
        self.hide_methods = cfg.hide_methods if cfg.hide_methods is not None else bool(settings.get("hide_methods"))
        if self.order == "recheck" and not self.order_list:
            self.desk.report("recheck: nothing graded yet in this run, so nothing to re-check")
            self.order = "question"
        self._show(opening.item)
        self.call_after_refresh(freeze_startup)
        self.refresh_progress()
        self.query_one("#left", AnswerPane).focus()
        run = opening.run
        self.desk.submit("count answers", lambda store: review.count_shown(store, run), self._counted)

    def _counted(self, total: int) -> None:
        self.total = total
        self.refresh_progress()

    # What is on screen -----------------------------------------------------------------------------------------------

    @property
    def recheck(self) -> bool:
        return self.order == "recheck"

    @property
    def mode(self) -> str:
        return blind.grading_mode(show_judge=self.show_judge, recheck=self.recheck)

    @property
    def progress_text(self) -> str:
        return self.query_one(StatusLine).progress

    def answer_at(self, side: str) -> AnswerView | None:
        return self.item.at(side) if self.item else None

    def judge_visible(self, answer: AnswerView | None) -> bool:
        if answer is None:
            return False
        return blind.judge_visible(has_machine=answer.machine is not None, graded=answer.human is not None,
                                   show_judge=self.show_judge, recheck=self.recheck)

    def methods_visible(self) -> bool:
        return not self.hide_methods or (self.item is not None and self.item.fully_graded)

    def pane_title(self, side: str) -> str:
        return view.pane_title(side, self.answer_at(side), self.methods_visible())

    def _redraw(self) -> None:
        self._render_topbar()
        self.query_one("#question", Static).update(view.question_text(self.item, self.methods_visible()))
        item = self.item
        new_item = item is None or item.question_pk != self._shown_pk
        self._shown_pk = item.question_pk if item else None
        self._render_panes(new_item)
        if (self.item is None) != self._had_no_item:  # the Footer's keys change only with this (re-laying it is slow)
            self._had_no_item = self.item is None
            self.refresh_bindings()

    def _render_panes(self, new_item: bool) -> None:
        for side in SIDES:
            a = self.answer_at(side)
            self.query_one(f"#{side}", AnswerPane).show(
                PaneView(a, self.pane_title(side), self.judge_visible(a), self.recheck), new_item=new_item)

    def _render_topbar(self) -> None:
        order = view.order_text(self.order, self.order_index, len(self.order_list))
        self.query_one("#topbar", Static).update(
            view.topbar_text(self.run, self.desk.config.grader, self.mode, self.hide_methods, order, self.filters))

    class Highlighted(Message):
        """The highlight worker is done with an item's code."""

        def __init__(self, question_pk: int) -> None:
            super().__init__()
            self.question_pk = question_pk

    @work(thread=True, exclusive=True, group="highlight", name="highlight code", exit_on_error=False)
    def _highlight(self, item: Item) -> None:
        """Highlight the item's code off the UI thread (pure text work: no store, no widgets), once the plain text
        has been painted, so highlighting never competes with the paint."""
        worker = get_current_worker()
        time.sleep(HIGHLIGHT_DELAY)
        for a in item.answers.values():
            for s in snippets_of(a):
                if worker.is_cancelled:  # the person moved on: a newer item is being highlighted
                    return
                highlight_code(s.text, s.file_path, s.start_line)
        self.post_message(self.Highlighted(item.question_pk))

    def on_grading_screen_highlighted(self, message: Highlighted) -> None:
        if self.item is not None and self.item.question_pk == message.question_pk:
            self._render_panes(new_item=False)

    def refresh_progress(self) -> None:
        status = self.query_one(StatusLine)
        status.show_progress(status.progress)
        if self.run is None or self.total is None:
            return
        run, grader, total = self.run, self.desk.config.grader, self.total
        self.desk.submit("count grades", lambda store: review.progress(store, run, grader, total), self._progressed)

    def _progressed(self, p: review.Progress) -> None:
        # a recheck pass shows no agreement: it would hint at the earlier grades
        self.query_one(StatusLine).show_progress(
            f"recheck pass: {len(self.order_list)} items re-shown blind · earlier grades and the judge hidden"
            if self.recheck else p.describe())

    def _show(self, item: Item | None) -> None:
        self.item = item
        if item is not None and item.question_pk in self.order_list:
            self.order_index = self.order_list.index(item.question_pk)
        self._redraw()
        if item is not None:
            self._highlight(item)
            if self.run is not None:  # save where the grader is once they pause, not on every key
                if self._state_timer is not None:
                    self._state_timer.stop()
                self._state_timer = self.set_timer(STATE_DELAY, self.save_state)

    def save_state(self) -> None:
        """Store where this grader is (and the filters and settings)."""
        if self._state_timer is not None:
            self._state_timer.stop()
            self._state_timer = None
        if self.recheck or self.run is None:  # a recheck pass does not move where the grader stopped
            return
        run, grader, pk = self.run, self.desk.config.grader, self.item.question_pk if self.item else None
        settings = {"filters": self.filters.to_dict(), "show_judge": self.show_judge,
                    "hide_methods": self.hide_methods}
        self.desk.submit("save desk state", lambda store: review.save_desk_state(store, grader, run.id, pk, settings))

    # Loading items ---------------------------------------------------------------------------------------------------

    def load(self, find: Callable[[Store], int | None], *, empty: str,
             after: Callable[[], None] | None = None) -> None:
        """Run `find(store) -> question_pk | None` in the store thread, then load and show that item.

        Results of an older request are dropped, so fast key presses never show a stale item.
        """
        if self.run is None:
            return
        self._pause_collector()
        self._seq += 1
        seq, run, grader, recheck = self._seq, self.run, self.desk.config.grader, self.recheck

        def fn(store: Store) -> Item | None:
            pk = find(store)
            return None if pk is None else load_item(store, run, grader, pk, recheck=recheck)

        def done(item: Item | None) -> None:
            if seq != self._seq:  # a newer request is on its way: the collector stays paused for it
                return
            if item is None:
                self._resume_collector()
                self.desk.report(empty)
                return
            self._show(item)
            self.call_after_refresh(self._resume_collector)
            if after:
                after()

        self.desk.submit("load item", fn, done)

    def _pause_collector(self) -> None:
        self._collector.pause()
        if self._collector_timer is not None:
            self._collector_timer.stop()
        self._collector_timer = self.set_timer(COLLECTOR_PAUSE_MAX, self._resume_collector)

    def _resume_collector(self) -> None:
        self._collector.resume()

    def on_unmount(self) -> None:
        self._collector.resume()

    def show_question(self, question_pk: int, side: str | None = None) -> None:
        def focus() -> None:
            if side:
                self.action_focus_side(side)
        self.load(lambda store: question_pk, empty=f"question {question_pk} is not in this run", after=focus)

    def reload(self) -> None:
        if self.item is not None:
            pk = self.item.question_pk
            self.load(lambda store: pk, empty="the item vanished from the store")

    # Actions: moving -------------------------------------------------------------------------------------------------

    def _in_order(self, filters: Filters, forward: bool, wrap: bool) -> Callable[[Store], int | None]:
        run, grader, cur = self.run, self.desk.config.grader, self.item.question_pk if self.item else None
        return lambda store: session.next_in_order(store, run, grader, filters, cur, forward, wrap)

    def _in_list(self, wanted: Callable[[Item], bool]) -> Callable[[Store], int | None]:
        run, grader, recheck, start, pks = (self.run, self.desk.config.grader, self.recheck, self.order_index,
                                            list(self.order_list))
        return lambda store: session.next_in_list(store, run, grader, pks, start, wanted, recheck=recheck)

    def action_step(self, step: int) -> None:
        if self.order != "question":
            if not self.order_list:
                return
            index = self.order_index + step
            if not 0 <= index < len(self.order_list):
                self.desk.report("end of the list" if step > 0 else "start of the list")
                return
            self.order_index = index
            self.show_question(self.order_list[index])
            return
        self.load(self._in_order(self.filters, step > 0, wrap=False),
                  empty="no more items" if step > 0 else "no earlier items")

    def action_next_ungraded(self) -> None:
        if self.order != "question":
            self.load(self._in_list(lambda item: not item.fully_graded), empty="everything in this list is graded")
            return
        self.load(self._in_order(replace(self.filters, status="ungraded"), True, wrap=True),
                  empty="no ungraded item left (with these filters)")

    def action_next_disagreement(self) -> None:
        if self.order != "question":
            self.load(self._in_list(session.disagrees), empty="no disagreement in this list")
            return
        self.load(self._in_order(replace(self.filters, status="disagreeing"), True, wrap=True),
                  empty="no disagreement with the judge (with these filters)")

    def action_switch(self) -> None:
        self.action_focus_side("right" if self.side == "left" else "left")

    def action_focus_side(self, side: str) -> None:
        self.query_one(f"#{side}", AnswerPane).focus()

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, AnswerPane):
            self.side = event.widget.side
            self.refresh_bindings()

    def action_scroll_question(self, step: int) -> None:
        self.query_one("#question-box", VerticalScroll).scroll_relative(y=step * 2, animate=False)
