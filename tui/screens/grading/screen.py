"""The grading screen: a question, its two answers side by side with their evidence, graded by keyboard alone.

Blind first (core/review/visibility.py): an answer's machine grade stays hidden until the person has saved a grade for
it (unless the desk was opened with --show-judge, in 'open' mode); a label, scores or a note may come before the
grade. Which answer is on the left is a per-question coin seeded by the run, and method names can be hidden ("Answer
A / B") until both answers are graded.

The desk session (core/review/session/) holds the state: the run and budget shown, the item, the order, the filters,
what blind first shows, the person. A key calls the session, which returns a store job; the screen runs it through
the desk's one door (tui/db.py) and draws what the session says once its answer lands. The screen keeps only what is
on screen: the focused side and what is drawn. Its keys are one table (keys.py), whose rows run functions of the
screen as a `GradingHost` (host.py) by concern: grades.py (the grade and flag keys), moves.py (between items and
answers, the order), opens.py (the screens opened over this one), settings.py (blind first and the budget shown, set
in the command palette); view.py draws the text; collection.py says when the garbage collector may run; ahead.py
does the work between keys (the code highlighted, the neighbours read and rendered before their key).
What stays here is one job, running the session's jobs and drawing what they return (showing an item, counting,
when the work ahead starts, the desk's lease and watch): its parts share the item shown and the order
of its jobs, and split apart they would each reach back into the screen.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.visual import Visual, visualize
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from gradedesk.core.review.flags import describe_flags
from gradedesk.core.review.item import SIDES, AnswerView, Item, side_on_show
from gradedesk.core.review.queue import Filters, Progress, QuestionOrder
from gradedesk.core.review.session import RENEW_SECONDS, DeskSession, Job, Lease, Opening, Plan, Shown
from gradedesk.core.review.session import Refreshed as RefreshedItem

from gradedesk.tui.db import (AnswersCounted, Counted, ItemShown, LeaseRenewed, LeaseTaken, Opened, QuestionsOrdered,
                             Refreshed, StateSaved)
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.key_log import log_key
from gradedesk.tui.keygate import KeysCaughtUp
from gradedesk.tui.screens.grading import keys, moves, opens, settings, view
from gradedesk.tui.screens.grading.ahead import WorkAhead
from gradedesk.tui.screens.grading.collection import DeskCollection
from gradedesk.tui.screens.palette import PaletteCommand, ScreenCommands
from gradedesk.tui.widgets.answer_pane import AnswerPane, PaneView, snippets_of
from gradedesk.tui.widgets.literal import highlight_code
from gradedesk.tui.widgets.status_line import StatusLine

STATE_DELAY = 0.3  # seconds after the last move before desk_state is written
HIGHLIGHT_DELAY = 0.08  # seconds after an item is shown before its code is highlighted (after the first paint)
WATCH_SECONDS = 1.0  # how often the desk looks for other desks' writes (one PRAGMA; the item only when one came)


def update_if_changed(static: Static, text: Text) -> None:
    """Static.update lays the screen out again even for the same text, or a new text of the same height: every key
    would pay for a layout of the whole screen (and its full repaint). Only a new height lays out."""
    if static.content == text:
        return
    width = static.content_region.width
    same_height = width > 0 and (laid_out_height(static, static.visual, width)
                                 == laid_out_height(static, visualize(static, text, markup=False), width))
    static.update(text, layout=not same_height)


def laid_out_height(static: Static, visual: Visual, width: int) -> int:
    """The height `static` gets for `visual` at `width`: its content's, or its min-height when taller (the question
    fills its box: a question of two lines or of three takes the same place)."""
    height = visual.get_height(static.styles, width)  # type: ignore[arg-type]  # as Widget.get_content_height does
    floor = static.styles.min_height
    return max(height, int(floor.resolve(static.size, static.app.size))) if floor is not None else height


class GradingScreen(Screen):
    COMMANDS = {ScreenCommands}
    BINDINGS = keys.BINDINGS

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        cfg = desk.config
        self.session = DeskSession(cfg.grader, cfg.run_id, recheck=cfg.recheck, recheck_share=cfg.recheck_share,
                                   reveal_share=cfg.reveal_share, budget=cfg.budget, adjudicate=cfg.adjudicate,
                                   show_judge=cfg.show_judge, hide_methods=cfg.hide_methods)
        self.side = "left"
        self._had_no_item = True
        self._shown_pk: int | None = None
        self._undrawn = False  # the item held was not drawn (keys were waiting to leave it)
        self._state_timer: Timer | None = None
        self._collection = DeskCollection(self, self._keys_busy)  # when the garbage collector may run
        self._ahead = WorkAhead(self, self._keys_busy)  # the code highlighted and the neighbours, between keys

    def _keys_busy(self) -> bool:
        return self.desk.keys_busy

    # Layout ----------------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar", markup=False)
        with VerticalScroll(id="question-box", can_focus=False):
            yield Static("Opening the store…", id="question", markup=False)
        with Horizontal(id="answers"):
            yield AnswerPane("left", keys_busy=self._keys_busy)
            yield AnswerPane("right", keys_busy=self._keys_busy)
        yield StatusLine("counting…", id="progress")
        yield Footer(show_command_palette=False)  # no room at 80 columns; help names ctrl+p

    def on_mount(self) -> None:
        self._collection.mounted()
        self.desk.submit(LeaseTaken, self.session.take_lease(), self._leased, on_failed=self._refused)

    def _leased(self, lease: Lease) -> None:
        """The person's one live desk: only now is the run opened (a desk refused its lease never reads the person's
        items, nor stores where they stopped)."""
        self.session.lease = lease
        self.desk.on_quit(self.save_state)
        self.desk.at_close(self.session.release_lease)
        self.desk.submit(Opened, self.session.open(), self._opened)
        self.set_interval(RENEW_SECONDS, lambda: self.desk.submit(LeaseRenewed, self.session.renew_lease(),
                                                                  self._renewed))
        self.set_interval(WATCH_SECONDS, lambda: self.desk.submit(Refreshed, self.session.watch(), self._refreshed))

    def _refused(self, error: BaseException) -> None:
        """Another desk under this name is live: this one never opens, saying where the other runs (LeaseHeld's
        line)."""
        self.desk.refused(str(error))

    def _renewed(self, held: bool) -> None:
        if not held:
            self.desk.report("this desk's lease expired and another desk under your name took it: close this one",
                             error=True)

    def _refreshed(self, refreshed: RefreshedItem) -> None:
        if self.session.refreshed(refreshed):
            self.redraw()
        if refreshed.changed:
            self.refresh_progress()

    def _opened(self, opening: Opening) -> None:
        for note in self.session.opened(opening):
            self.desk.report(note)
        self.focus_side("left")
        self._show_item(moved=True)
        self._collection.opened()
        self.recount()

    # What tests and the key modules read (the session's state itself: `screen.session`) ----------------------------

    @property
    def progress_text(self) -> str:
        return self.query_one(StatusLine).progress

    def answer_at(self, side: str) -> AnswerView | None:
        return self.session.answer_at(side)

    def judge_visible(self, answer: AnswerView | None) -> bool:
        return self.session.judge_visible(answer)

    def pane_title(self, side: str) -> str:
        return view.pane_title(side, self.answer_at(side), self.session.methods_visible())

    def focused_answer(self) -> AnswerView | None:
        """The answer in the focused pane; if that pane is empty, say so (a key that does nothing must say why)."""
        a = self.answer_at(self.side)
        if a is None and self.session.item is not None:
            self.desk.report(f"Answer {'A' if self.side == 'left' else 'B'}: the run has no answer of this kind for "
                             "this question, so nothing to grade here (tab: the other answer)")
        return a

    # Drawing ---------------------------------------------------------------------------------------------------------

    def redraw(self) -> None:
        self.render_topbar()
        self.render_question()
        item = self.session.item
        new_item = item is None or item.question_pk != self._shown_pk
        self._shown_pk = item.question_pk if item else None
        self._render_panes(new_item)
        self.query_one(StatusLine).show_flag(describe_flags(item.flag, item.others_flags) if item is not None else "")
        if (item is None) != self._had_no_item:  # the Footer's keys change only with this (re-laying it is slow)
            self._had_no_item = item is None
            self.refresh_bindings()

    def render_question(self) -> None:
        s = self.session
        update_if_changed(self.query_one("#question", Static),
                          view.question_text(s.item, s.methods_visible(), s.questions))

    def pane_view(self, side: str, item: Item | None = None) -> PaneView:
        """What the pane of `side` shows now (of `item`: what it would show, were that item shown)."""
        return view.pane_view(self.session, side, item)

    def _render_panes(self, new_item: bool) -> None:
        for side in SIDES:
            self.query_one(f"#{side}", AnswerPane).show(self.pane_view(side), new_item=new_item)

    def render_topbar(self) -> None:
        s = self.session
        order = view.order_text(s.order, s.order_index, len(s.order_list))
        topbar = self.query_one("#topbar", Static)
        update_if_changed(topbar, view.topbar_text(s.run, s.person, s.mode, s.hide_methods, order,
                                                   s.filters.describe(s.machine_name), width=topbar.content_region.width))

    def on_resize(self) -> None:
        self.render_topbar()  # one line at any width

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
        """The item's code in colour: rendered a block a step, between keys (tui/idle_work.py), then each pane swapped
        in at once, while the item is still shown."""
        self._ahead.highlighted(message.question_pk)

    # Counting --------------------------------------------------------------------------------------------------------

    def recount(self) -> None:
        """Count the shown answers and order the questions of the run as shown now (of the person's set, when they
        have assigned items), then the figures."""
        self.refresh_progress()
        self.desk.submit(AnswersCounted, self.session.count_total(), self._counted_total)
        self.desk.submit(QuestionsOrdered, self.session.order_questions(), self._ordered)

    def _counted_total(self, total: int) -> None:
        self.session.total = total
        self.refresh_progress()

    def _ordered(self, order: QuestionOrder) -> None:
        self.session.questions = order
        self.render_question()

    def refresh_progress(self) -> None:
        """Count the progress figures again (the message beside them stays)."""
        self.desk.submit(Counted, self.session.count(), self._progressed)

    def _progressed(self, progress: Progress) -> None:
        s = self.session
        s.progress = progress
        if s.recheck:  # a recheck pass shows no agreement: it would hint at the earlier grades
            self.query_one(StatusLine).show_progress(
                f"recheck pass: {len(s.order_list)} items re-shown blind · earlier grades and the machine grade hidden")
            return
        budget = view.status_budget(s.run, s.hide_methods) if s.run else None
        self.query_one(StatusLine).show_progress(
            progress.describe(budget, person=s.person, machine=s.machine_name),
            progress.describe(budget, person=s.person, machine=s.machine_name, short=True))

    # Showing items ---------------------------------------------------------------------------------------------------

    def show(self, plan: Plan, focus: str | None = None) -> None:
        """Run a session job that shows an item; a plan that is a sentence says why nothing moves. Keys wait while
        the job is in flight (tui/keygate.py), so each acts on the item the keys before it led to."""
        if isinstance(plan, str):
            self.desk.report(plan)
            return
        if isinstance(plan, Shown):  # a neighbour prepared ahead: a swap, no store job
            self._collection.pause()
            self._landed(plan, focus)
            return
        if not isinstance(plan, Job):
            return
        self._collection.pause()
        self.desk.submit(ItemShown, plan, lambda shown: self._landed(shown, focus))

    def _landed(self, shown: Shown, focus: str | None) -> None:
        before = self.session.item
        landed = self.session.landed(shown)
        if landed.message:
            self.desk.report(landed.message)
        if landed.recount:
            self.refresh_progress()
        if not landed.show:
            if shown.request.seq == self.session.seq:  # nothing newer on its way: the collector may run
                self._collection.resume()
            return
        item = self.session.item
        self._show_item(moved=item is not None and (before is None or item.question_pk != before.question_pk))
        self.call_after_refresh(self._collection.resume)
        if focus:
            self.focus_side(focus)
        for side in SIDES:  # the answer whose grade `u` took back: the next grade key is meant for it
            answer = self.answer_at(side)
            if landed.focus_answer is not None and answer is not None and answer.id == landed.focus_answer:
                self.focus_side(side)

    def _show_item(self, *, moved: bool) -> None:
        item = self.session.item
        if item is not None:
            side = side_on_show(self.side, moved=moved, answered=[s for s in SIDES if item.at(s) is not None])
            if side != self.side:
                self.focus_side(side)
        if self.desk.keys_waiting:  # the next key leaves this item at once: draw it when the keys have caught up
            self._undrawn = True
            return
        self._draw()

    def on_keys_caught_up(self, message: KeysCaughtUp) -> None:
        if self._undrawn:
            self._draw()

    def _draw(self) -> None:
        self._undrawn = False
        self.redraw()
        item = self.session.item
        if item is not None:
            self._highlight(item)
            self.call_after_refresh(self._ahead.neighbours)  # once painted: the paint never waits for them
            if self.session.run is not None:  # save where the person is once they pause, not on every key
                if self._state_timer is not None:
                    self._state_timer.stop()
                self._state_timer = self.set_timer(STATE_DELAY, self.save_state)

    def save_state(self) -> None:
        """Store where the person is (and the filters and settings)."""
        if self._state_timer is not None:
            self._state_timer.stop()
            self._state_timer = None
        self.desk.submit(StateSaved, self.session.save_state())

    def show_question(self, question_pk: int, side: str | None = None, how: str | None = "jump") -> None:
        self.show(self.session.show_question(question_pk, how), focus=side)

    def apply_filters(self, filters: Filters) -> None:
        plan = self.session.apply_filters(filters)
        self.render_topbar()
        self.show(plan)

    def on_unmount(self) -> None:
        self._collection.unmounted()

    # What the key modules ask of the screen (host.py) ----------------------------------------------------------------

    def focus_side(self, side: str) -> None:
        # now, not after the next message (Widget.focus): a grade key right behind must find the new side
        self.set_focus(self.query_one(f"#{side}", AnswerPane))
        self.side = side

    def scroll_question(self, step: int) -> None:
        self.query_one("#question-box", VerticalScroll).scroll_relative(y=step * 2, animate=False)

    def push(self, screen: Screen[Any], callback: Any = None) -> None:
        self.app.push_screen(screen, callback)

    # Keys and the command palette ----------------------------------------------------------------------------------

    def action_key(self, key_id: str) -> None:
        """Every key of the table (keys.py) runs here: its row says what it does. The last message goes first, so
        what is shown is what this key (or a later one) had to say, never an older action's."""
        self.query_one(StatusLine).clear_message()
        self._collection.key()
        key = keys.BY_ID[key_id]
        answer = self.answer_at(self.side)
        log_key(self.session.person, key_id, self.session.item.question_pk if self.session.item else None,
                answer.id if answer else None)
        key.run(self, *key.args)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "key" and keys.BY_ID[str(parameters[0])].when is keys.When.ITEM and self.session.item is None:
            return None  # shown dimmed: no item
        return True

    def on_descendant_focus(self, event) -> None:
        # a click moves focus too; an event older than the focus now (tab tab typed ahead) changes nothing
        if isinstance(event.widget, AnswerPane) and event.widget is self.focused:
            self.side = event.widget.side
            self.refresh_bindings()

    def palette_commands(self) -> list[PaletteCommand]:
        """The desk's rarer actions, for the command palette (tui/screens/palette.py)."""
        return settings.commands(self) + moves.commands(self) + opens.commands(self)
