"""The grading screen: a question, its two answers side by side with their evidence, graded by keyboard alone.

Blind first (core/review/visibility.py): an answer's machine grade stays hidden until the person has saved a grade for
it (unless the desk was opened with --show-judge, in 'open' mode); a label, scores or a note may come before the
grade. Which answer is on the left is a per-question coin seeded by the run, and method names can be hidden ("Answer
A / B") until both answers are graded. Every store call is a job on the desk's store thread (one core/review function
each); this screen keeps only what is on screen.

The screen holds the state (what is on screen, the order, the filters, what blind first reveals), draws it and loads
items; its keys are one table (keys.py), whose rows run functions of the screen by concern: grades.py (the grade keys),
moves.py (between items and answers, the order), opens.py (the screens opened over this one), reveal.py (what blind
first shows, set in the command palette), budget.py (which budget's bundled answer sits beside raw); opening.py opens
the run; view.py draws the text.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from gradedesk.core.review import queue as review
from gradedesk.core.review.item import SIDES, AnswerView, Item, load_item, side_on_show
from gradedesk.core.review.flags import describe as describe_flag
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store.run_records import RunInfo
from gradedesk.core.store.connection import Store

from gradedesk.tui.collector import CollectorPause
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.key_log import log_key
from gradedesk.tui.keygate import KeysCaughtUp
from gradedesk.tui.screens.grading import budget, keys, moves, opening, opens, reveal, view
from gradedesk.tui.screens.palette import PaletteCommand, ScreenCommands
from gradedesk.tui.widgets.answer_pane import AnswerPane, PaneView, snippets_of
from gradedesk.tui.widgets.literal import highlight_code
from gradedesk.tui.widgets.status_line import StatusLine

Found = int | tuple[int | None, str] | None  # what a `find` of `load` returns: a question, maybe with a note
STATE_DELAY = 0.3  # seconds after the last move before desk_state is written
HIGHLIGHT_DELAY = 0.08  # seconds after an item is shown before its code is highlighted (after the first paint)
COLLECTOR_PAUSE_MAX = 1.0  # seconds: the collector is back on even if a requested item never arrives (a failed job)


class GradingScreen(Screen):
    COMMANDS = {ScreenCommands}
    BINDINGS = keys.BINDINGS

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.run: RunInfo | None = None
        self.item: Item | None = None
        self.filters = Filters()
        self.show_judge = False
        self.hide_methods = False
        self.judge_rubric: str | None = None  # show the judge's verdicts under this rubric version (None: the newest)
        self.order = "question"
        self.order_list: list[int] = []
        self.order_index = 0
        # how the person came to the item on screen (human_grades.selection) and, for a sampled one, its probability
        self.reached: tuple[str, float | None] = ("question_order", None)
        self.total: int | None = None
        self.questions: review.QuestionOrder | None = None  # the run's questions in order, once counted
        self.side = "left"
        self._seq = 0
        self._had_no_item = True
        self._shown_pk: int | None = None
        self._undrawn = False  # the item held was not drawn (keys were waiting to leave it)
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
        yield Footer(show_command_palette=False)  # no room at 80 columns; help names ctrl+p

    def on_mount(self) -> None:
        self.desk.on_quit(self.save_state)
        opening.open_run(self)

    # What is on screen -----------------------------------------------------------------------------------------------

    @property
    def recheck(self) -> bool:
        return self.order == "recheck"

    @property
    def blindness(self) -> Blindness:
        """What blind first shows, as the desk is set now: every event saved records what it shows."""
        run, cfg = self.run, self.desk.config
        return Blindness(self.show_judge, self.recheck, cfg.reveal_share, run.order_seed if run else 0, cfg.grader)

    @property
    def adjudicating(self) -> bool:
        return self.desk.config.adjudicate

    @property
    def mode(self) -> str:
        """The mode the top bar names: adjudicate, or the one a grade is recorded in."""
        return "adjudicate" if self.adjudicating else self.blindness.mode(self.item.question_pk if self.item else None)

    @property
    def progress_text(self) -> str:
        return self.query_one(StatusLine).progress

    def answer_at(self, side: str) -> AnswerView | None:
        return self.item.at(side) if self.item else None

    def judge_visible(self, answer: AnswerView | None) -> bool:
        return self.blindness.answer_judge(self.item, answer)

    def methods_visible(self) -> bool:
        return not self.hide_methods or (self.item is not None and self.item.fully_graded)

    def pane_title(self, side: str) -> str:
        return view.pane_title(side, self.answer_at(side), self.methods_visible())

    def focused_answer(self) -> AnswerView | None:
        """The answer in the focused pane; if that pane is empty, say so (a key that does nothing must say why)."""
        a = self.answer_at(self.side)
        if a is None and self.item is not None:
            self.desk.report(f"Answer {'A' if self.side == 'left' else 'B'}: the run has no answer of this kind for "
                             "this question, so nothing to grade here (tab: the other answer)")
        return a

    def redraw(self) -> None:
        self.render_topbar()
        self.render_question()
        item = self.item
        new_item = item is None or item.question_pk != self._shown_pk
        self._shown_pk = item.question_pk if item else None
        self._render_panes(new_item)
        self.query_one(StatusLine).show_flag(describe_flag(item.flag) if item is not None and item.flag else "")
        if (self.item is None) != self._had_no_item:  # the Footer's keys change only with this (re-laying it is slow)
            self._had_no_item = self.item is None
            self.refresh_bindings()

    def render_question(self) -> None:
        self.query_one("#question", Static).update(
            view.question_text(self.item, self.methods_visible(), self.questions))

    def scorers_visible(self, answer: AnswerView | None) -> bool:
        due = answer is not None and answer.claims is not None and answer.claims.scorers_due
        return self.blindness.scorers(due=due)

    def pane_view(self, side: str) -> PaneView:
        """What the pane of `side` shows now."""
        a = self.answer_at(side)
        return PaneView(a, self.pane_title(side), self.judge_visible(a), self.recheck, self.methods_visible(),
                        self.scorers_visible(a), self.judge_rubric,
                        bundle_budget=self.run.bundle_budget if self.run else 0, adjudicating=self.adjudicating)

    def _render_panes(self, new_item: bool) -> None:
        for side in SIDES:
            self.query_one(f"#{side}", AnswerPane).show(self.pane_view(side), new_item=new_item)

    def render_topbar(self) -> None:
        order = view.order_text(self.order, self.order_index, len(self.order_list))
        topbar = self.query_one("#topbar", Static)
        topbar.update(view.topbar_text(self.run, self.desk.config.grader, self.mode, self.hide_methods, order,
                                       self.filters, width=topbar.content_region.width))

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
        if self.item is not None and self.item.question_pk == message.question_pk:
            self._render_panes(new_item=False)

    def refresh_progress(self) -> None:
        """Count the progress figures again (the message beside them stays)."""
        if self.run is None or self.total is None:
            return
        run, grader, total = self.run, self.desk.config.grader, self.total
        named = view.status_budget(run, self.hide_methods)  # the figures are counted at the run's budget as shown now
        self.desk.submit("count grades", lambda store: review.progress(store, run, grader, total),
                         lambda p: self._progressed(p.describe(named)), background=True)

    def _progressed(self, figures: str) -> None:
        # a recheck pass shows no agreement: it would hint at the earlier grades
        self.query_one(StatusLine).show_progress(
            f"recheck pass: {len(self.order_list)} items re-shown blind · earlier grades and the machine grade hidden"
            if self.recheck else figures)

    def show_item(self, item: Item | None) -> None:
        moved = item is not None and (self.item is None or item.question_pk != self.item.question_pk)
        self.item = item
        if item is not None:
            side = side_on_show(self.side, moved=moved, answered=[s for s in SIDES if item.at(s) is not None])
            if side != self.side:
                moves.focus_side(self, side)
            if item.question_pk in self.order_list:
                self.order_index = self.order_list.index(item.question_pk)
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
        item = self.item
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
                    "hide_methods": self.hide_methods, "judge_rubric": self.judge_rubric, "budget": run.bundle_budget}
        self.desk.submit("save desk state", lambda store: review.save_desk_state(store, grader, run.id, pk, settings),
                         background=True)

    # Loading items ---------------------------------------------------------------------------------------------------

    def load(self, find: Callable[[Store], Found], *, empty: str, after: Callable[[], None] | None = None,
             how: str | None = None, probability: Callable[[], float | None] = lambda: None,
             clear_when_empty: bool = False) -> None:
        """Run `find(store)` in the store thread, then load that item in the same job and show it. `find` may write
        first (a grade, an undo) and return (question_pk, what it did) for the status line. `how` names how the
        person reached the item ('jump', 'sampled'; by default what the order and filters say); staying on the same
        item keeps how it was reached. `clear_when_empty`: when nothing is found, no item stays on screen (new filters
        that match nothing must not leave the last item as if it matched).

        Keys wait while this job is in flight (tui/keygate.py), so each acts on the item the keys before it led to;
        results of an older request are still dropped, should one ever overtake.
        """
        if self.run is None:
            return
        self._pause_collector()
        self._seq += 1
        seq, run, grader, recheck, rubric = self._seq, self.run, self.desk.config.grader, self.recheck, self.judge_rubric
        adjudicate = self.adjudicating

        def fn(store: Store) -> tuple[str | None, Item | None]:
            found = find(store)
            pk, note = found if isinstance(found, tuple) else (found, None)
            return note, None if pk is None else load_item(store, run, grader, pk, recheck=recheck,
                                                           judge_rubric=rubric, adjudicate=adjudicate)

        def done(result: tuple[str | None, Item | None]) -> None:
            note, item = result
            if note:
                self.desk.report(note)
            if seq != self._seq:  # a newer request is on its way: the collector stays paused for it
                return
            if item is None:
                self._resume_collector()
                if clear_when_empty:
                    self.show_item(None)
                if not note:
                    self.desk.report(empty)
                return
            if how is not None or self.item is None or item.question_pk != self.item.question_pk:
                self.reached = (how or self._navigation(), probability())
            self.show_item(item)
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

    def _navigation(self) -> str:
        """How an item reached by stepping was chosen: the recheck sample, a filter, or the run's question order."""
        if self.recheck:
            return "recheck"
        return "filter" if self.filters != Filters() else "question_order"

    def show_question(self, question_pk: int, side: str | None = None, how: str | None = "jump") -> None:
        def focus() -> None:
            if side:
                moves.focus_side(self, side)
        self.load(lambda store: question_pk, empty=f"question {question_pk} is not in this run", after=focus, how=how)

    def reload(self) -> None:
        if self.item is not None:
            pk = self.item.question_pk
            self.load(lambda store: pk, empty="the item vanished from the store")

    def apply_filters(self, filters: Filters) -> None:
        self.filters = filters
        self.order = "question"
        self.render_topbar()
        run, grader, rubric = self.run, self.desk.config.grader, self.judge_rubric
        if run is None:  # the run is still opening (load would do nothing)
            return
        self.load(lambda store: review.neighbour(store, run, grader, filters, None, judge_rubric=rubric),
                  empty=f"no item matches filters: {filters.describe()}", clear_when_empty=True)

    # Keys and the command palette ----------------------------------------------------------------------------------

    def action_key(self, key_id: str) -> None:
        """Every key of the table (keys.py) runs here: its row says what it does. The last message goes first, so
        what is shown is what this key (or a later one) had to say, never an older action's."""
        self.query_one(StatusLine).clear_message()
        key = keys.BY_ID[key_id]
        answer = self.answer_at(self.side)
        log_key(self.desk.config.grader, key_id, self.item.question_pk if self.item else None,
                answer.id if answer else None)
        key.run(self, *key.args)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "key" and keys.BY_ID[str(parameters[0])].when is keys.When.ITEM and self.item is None:
            return None  # shown dimmed: no item
        return True

    def on_descendant_focus(self, event) -> None:
        # a click moves focus too; an event older than the focus now (tab tab typed ahead) changes nothing
        if isinstance(event.widget, AnswerPane) and event.widget is self.focused:
            self.side = event.widget.side
            self.refresh_bindings()

    def palette_commands(self) -> list[PaletteCommand]:
        """The desk's rarer actions, for the command palette (tui/screens/palette.py)."""
        return reveal.commands(self) + budget.commands(self) + moves.commands(self) + opens.commands(self)
