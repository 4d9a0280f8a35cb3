"""The grading screen: a question, its two answers side by side with their evidence, graded by keyboard alone.

Blind first: an answer's machine grade stays hidden until the person has saved a grade for it (unless the desk was
opened with --show-judge, in 'open' mode). Which answer is on the left is a per-question coin seeded by the run, and
method names can be hidden ("Answer A / B") until both answers are graded. Every store call goes through the app's
store thread (tui/db.py); this screen only keeps what is on screen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import get_current_worker
from textual.widgets import Footer, Static

from gradedesk.core.grading import human_grades
from gradedesk.core.review import queue as review
from gradedesk.core.review import item as review_item
from gradedesk.core.grading.vocabulary import DIMENSIONS, GRADE_LABELS, GRADES
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.queue import Filters
from gradedesk.core.store.runs import RunInfo, run_info
from gradedesk.core.review.item import Item

from gradedesk.tui.collector import CollectorPause, freeze_startup
from gradedesk.tui.widgets.answer_pane import AnswerPane, PaneView, snippets_of
from gradedesk.tui.widgets.literal import highlight_code, literal
from gradedesk.tui.screens.modals import LabelModal, ScoresModal, TextModal, open_filters

if TYPE_CHECKING:
    from gradedesk.tui.app import DeskApp

SIDES = ("left", "right")
ORDERS = ("question", "most_useful", "recheck")
STATE_DELAY = 0.3  # seconds after the last move before desk_state is written
HIGHLIGHT_DELAY = 0.08  # seconds after an item is shown before its code is highlighted (after the first paint)
COLLECTOR_PAUSE_MAX = 1.0  # seconds: the collector is back on even if a requested item never arrives (a failed job)


def _grade_bindings() -> list[Binding]:
    out = []
    for i, grade in enumerate(GRADES, start=1):
        out.append(Binding(str(i), f"grade('{grade}')", "grade", show=i == 1, key_display="1-4" if i == 1 else None,
                           tooltip=f"grade the focused answer: {GRADE_LABELS[grade]}", id=f"desk.grade.{grade}"))
    return out


class GradingScreen(Screen):
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

    def __init__(self) -> None:
        super().__init__()
        self.run: RunInfo | None = None
        self.item: Item | None = None
        self.filters = Filters()
        self.show_judge = False
        self.hide_methods = False
        self.order = "question"
        self.order_list: list[int] = []
        self.order_index = 0
        self.total: int | None = None
        self.progress_text = "counting…"
        self.side = "left"
        self._seq = 0
        self._had_no_item = True
        self._shown_pk: int | None = None
        self._state_timer: Timer | None = None
        self._highlight_timer: Timer | None = None
        self.highlight_pending = False  # an item waits for its code to be highlighted (App.idle reads it)
        self._collector = CollectorPause()  # no garbage collection between a key and its repaint (tui/collector.py)
        self._collector_timer: Timer | None = None

    @property
    def desk(self) -> DeskApp:
        return self.app  # type: ignore[return-value]

    # Layout ----------------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar", markup=False)
        with VerticalScroll(id="question-box", can_focus=False):
            yield Static("Opening the store…", id="question", markup=False)
        with Horizontal(id="answers"):
            yield AnswerPane("left")
            yield AnswerPane("right")
        yield Static("", id="progress", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        cfg = self.desk.config
        grader = cfg.grader

        def open_desk(store):
            run = run_info(store, cfg.run_id)
            state = review.load_desk_state(store, grader, run.id)
            settings = state.settings if state else {}
            filters = Filters.from_dict(settings.get("filters") or {})
            order, order_list, pk = "question", [], state.question_pk if state else None
            if cfg.recheck:
                order, order_list = "recheck", review.recheck_sample(store, run, grader, cfg.recheck)
                pk = order_list[0] if order_list else None
            elif pk is None or not review.has_question(store, run, pk):
                pk = review.neighbour(store, run, grader, filters, None)
            item = review_item.load_item(store, run, grader, pk, recheck=order == "recheck") if pk is not None else None
            return run, settings, filters, order, order_list, item

        self.desk.submit("open the run", open_desk, self._opened)

    def _opened(self, result: tuple) -> None:
        run, settings, filters, order, order_list, item = result
        cfg = self.desk.config
        self.run, self.filters, self.order, self.order_list = run, filters, order, order_list
        self.show_judge = cfg.show_judge if cfg.show_judge is not None else bool(settings.get("show_judge"))
        self.hide_methods = cfg.hide_methods if cfg.hide_methods is not None else bool(settings.get("hide_methods"))
        if order == "recheck" and not order_list:
            self.desk.report("recheck: nothing graded yet in this run, so nothing to re-check")
            self.order = "question"
        self._show(item)
        self.call_after_refresh(freeze_startup)
        self.refresh_progress()
        self.query_one("#left", AnswerPane).focus()
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
        return "recheck" if self.recheck else ("open" if self.show_judge else "blind")

    def answer_at(self, side: str) -> review_item.AnswerView | None:
        return self.item.at(side) if self.item else None

    def judge_visible(self, answer: review_item.AnswerView | None) -> bool:
        if answer is None or answer.machine is None or self.recheck:
            return False
        return self.show_judge or answer.human is not None

    def methods_visible(self) -> bool:
        return not self.hide_methods or (self.item is not None and self.item.fully_graded)

    def pane_title(self, side: str) -> str:
        letter = "A" if side == "left" else "B"
        a = self.answer_at(side)
        if a is None or not self.methods_visible():
            return f"Answer {letter}"
        kind = "raw top-k" if a.method == "raw" else f"bundle @ {a.budget:,} tokens"
        return f"Answer {letter} — {kind}"

    def _redraw(self) -> None:
        self._render_topbar()
        question = self.query_one("#question", Static)
        item = self.item
        if item is None:
            question.update(Text("No item matches: change the filters (/) or the order (command palette).",
                                 style="italic"))
        else:
            t = Text()
            t.append_text(literal(item.question_id, "bold"))
            t.append("  ")
            t.append_text(literal(item.category, "reverse"))
            t.append(f"  {item.benchmark} · question {item.question_pk}", style="dim")
            if item.preference:
                t.append("  preferred: ", style="dim")
                t.append(self._preference_text(item.preference), style="bold")
            t.append("\n")
            t.append_text(literal(item.question))
            t.append("\nGold: ", style="bold green")
            t.append_text(literal(item.gold_answer) if item.gold_answer else Text("(none)", style="dim"))
            question.update(t)
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

    class Highlighted(Message):
        """The highlight worker is done with an item's code."""

        def __init__(self, question_pk: int) -> None:
            super().__init__()
            self.question_pk = question_pk

    def _start_highlight(self, item: Item) -> None:
        self.highlight_pending = False
        self._highlight(item)

    @work(thread=True, exclusive=True, group="highlight", name="highlight code", exit_on_error=False)
    def _highlight(self, item: Item) -> None:
        """Highlight the item's code off the UI thread (pure text work: no store, no widgets)."""
        worker = get_current_worker()
        for a in item.answers.values():
            for s in snippets_of(a):
                if worker.is_cancelled:  # the person moved on: a newer item is being highlighted
                    return
                highlight_code(s.text, s.file_path, s.start_line)
        self.post_message(self.Highlighted(item.question_pk))

    def on_grading_screen_highlighted(self, message: Highlighted) -> None:
        if self.item is not None and self.item.question_pk == message.question_pk:
            self._render_panes(new_item=False)

    def _preference_text(self, preferred: str) -> str:
        if preferred == "tie":
            return "tie"
        assert self.item is not None
        side = "A" if preferred == self.item.left_method else "B"
        return f"Answer {side} ({preferred})" if self.methods_visible() else f"Answer {side}"

    def _render_topbar(self) -> None:
        cfg = self.desk.config
        t = Text("gradedesk", style="bold")
        t.append(" │ ")
        t.append_text(literal(self.run.title if self.run else "…"))
        t.append(" │ grader ")
        t.append_text(literal(cfg.grader, "bold"))
        t.append(" │ ")
        t.append(self.mode, style="bold reverse" if self.mode != "blind" else "bold")
        if self.hide_methods:
            t.append(" │ methods hidden")
        order = {"question": "question order", "most_useful": "most useful first",
                 "recheck": f"recheck {self.order_index + 1}/{len(self.order_list)}"}[self.order]
        t.append(f" │ {order} │ filters: ")
        t.append_text(literal(self.filters.describe()))
        self.query_one("#topbar", Static).update(t)

    def refresh_progress(self) -> None:
        self.query_one("#progress", Static).update(Text(self.progress_text, style="bold"))
        if self.run is None or self.total is None:
            return
        run, grader, total = self.run, self.desk.config.grader, self.total
        self.desk.submit("count grades", lambda store: review.progress(store, run, grader, total), self._progressed)

    def _progressed(self, p: review.Progress) -> None:
        # a recheck pass shows no agreement: it would hint at the earlier grades
        self.progress_text = (f"recheck pass: {len(self.order_list)} items re-shown blind · earlier grades and the "
                              f"judge hidden" if self.recheck else p.describe())
        self.query_one("#progress", Static).update(Text(self.progress_text, style="bold"))

    def _show(self, item: Item | None) -> None:
        self.item = item
        if item is not None and item.question_pk in self.order_list:
            self.order_index = self.order_list.index(item.question_pk)
        self._redraw()
        if item is not None:  # once the plain text is painted, so highlighting never competes with the paint
            if self._highlight_timer is not None:
                self._highlight_timer.stop()
            self.highlight_pending = True
            self._highlight_timer = self.set_timer(HIGHLIGHT_DELAY, lambda: self._start_highlight(item))
            if self.run is not None:  # save where the grader is once they pause, not on every key
                if self._state_timer is not None:
                    self._state_timer.stop()
                self._state_timer = self.set_timer(STATE_DELAY, self.save_state)

    def save_state(self, on_done=None) -> bool:
        """Store where this grader is (and the filters and settings); False when there is nothing to store."""
        if self._state_timer is not None:
            self._state_timer.stop()
            self._state_timer = None
        if self.recheck or self.run is None:  # a recheck pass does not move where the grader stopped
            return False
        run, grader, pk = self.run, self.desk.config.grader, self.item.question_pk if self.item else None
        settings = {"filters": self.filters.to_dict(), "show_judge": self.show_judge,
                    "hide_methods": self.hide_methods}
        self.desk.submit("save desk state", lambda store: review.save_desk_state(store, grader, run.id, pk, settings),
                         on_done)
        return True

    # Loading items ---------------------------------------------------------------------------------------------------

    def load(self, find, *, empty: str, after=None) -> None:
        """Run `find(store) -> question_pk | None` in the store thread, then load and show that item.

        Results of an older request are dropped, so fast key presses never show a stale item.
        """
        if self.run is None:
            return
        self._pause_collector()
        self._seq += 1
        seq, run, grader, recheck = self._seq, self.run, self.desk.config.grader, self.recheck

        def fn(store):
            pk = find(store)
            return None if pk is None else review_item.load_item(store, run, grader, pk, recheck=recheck)

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

    def reload(self, after=None) -> None:
        if self.item is not None:
            pk = self.item.question_pk
            self.load(lambda store: pk, empty="the item vanished from the store", after=after)

    def _neighbour(self, filters: Filters, forward: bool, wrap: bool):
        run, grader, cur = self.run, self.desk.config.grader, self.item.question_pk if self.item else None

        def find(store):
            pk = review.neighbour(store, run, grader, filters, cur, forward)
            if pk is None and wrap and cur is not None:
                pk = review.neighbour(store, run, grader, filters, None, forward)
            return pk
        return find

    # Actions: moving -------------------------------------------------------------------------------------------------

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
        self.load(self._neighbour(self.filters, step > 0, wrap=False),
                  empty="no more items" if step > 0 else "no earlier items")

    def _list_find(self, wanted):
        """The next question in a list order (recheck, most useful) that `wanted(item)` accepts."""
        run, grader, recheck, start, pks = (self.run, self.desk.config.grader, self.recheck, self.order_index,
                                            list(self.order_list))

        def find(store):
            for offset in range(1, len(pks) + 1):
                i = (start + offset) % len(pks)
                item = review_item.load_item(store, run, grader, pks[i], recheck=recheck)
                if item is not None and wanted(item):
                    return pks[i]
            return None
        return find

    def action_next_ungraded(self) -> None:
        if self.order != "question":
            self.load(self._list_find(lambda item: not item.fully_graded), empty="everything in this list is graded")
            return
        self.load(self._neighbour(replace(self.filters, status="ungraded"), True, wrap=True),
                  empty="no ungraded item left (with these filters)")

    def action_next_disagreement(self) -> None:
        if self.order != "question":
            self.load(self._list_find(lambda item: any(
                a.human and a.machine and a.human.grade != a.machine.grade for a in item.answers.values())),
                empty="no disagreement in this list")
            return
        self.load(self._neighbour(replace(self.filters, status="disagreeing"), True, wrap=True),
                  empty="no disagreement with the judge (with these filters)")

    def action_jump(self) -> None:
        def jumped(text: str | None) -> None:
            if not text or not text.strip():
                return
            run = self.run
            self.load(lambda store: review.find_question(store, run, text), empty=f"no question {text.strip()!r}")
        self.app.push_screen(TextModal("Jump to question id", placeholder="e.g. q-tokens or 42",
                                       blink=self.desk.config.cursor_blink), jumped)

    def action_switch(self) -> None:
        self.action_focus_side("right" if self.side == "left" else "left")

    def action_focus_side(self, side: str) -> None:
        self.query_one(f"#{side}", AnswerPane).focus()

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, AnswerPane):
            self.side = event.widget.side
            self.refresh_bindings()

    def action_scroll_question(self, step: int) -> None:
        box = self.query_one("#question-box", VerticalScroll)
        box.scroll_relative(y=step * 2, animate=False)

    # Actions: grading ------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        needs_answer = {"grade", "label", "scores", "note", "bundle"}
        if action in needs_answer and self.answer_at(self.side) is None:
            return None  # shown dimmed: nothing to grade here
        if action in ("prefer", "undo") and self.item is None:
            return None
        if action == "agreement" and self.desk.agreement_screen() is None:
            return False
        return True

    def _change(self, change: GradeChange) -> None:
        a, item, run = self.answer_at(self.side), self.item, self.run
        if a is None or item is None or run is None:
            return
        if change.grade is ... and (a.human is None or not a.human.grade):
            self.desk.report("grade the answer first (keys 1-4), then add a label, scores or a note")
            return
        grader, mode, visible = self.desk.config.grader, self.mode, self.judge_visible(a)
        self.desk.submit(
            "save grade",
            lambda store: human_grades.record_grade(store, a.id, grader, change, mode=mode, judge_visible=visible,
                                              rubric_version=run.rubric_version),
            self._saved)

    def _saved(self, saved: human_grades.HumanGrade) -> None:
        self.desk.report(f"saved: {saved.grade}" + (" (revision after reveal)" if saved.is_revision else ""))
        self.reload()
        self.refresh_progress()

    def action_grade(self, grade: str) -> None:
        self._change(GradeChange(grade=grade))

    def _ask(self, modal, change_for) -> None:
        """Open a picker for the focused answer; its result (None: cancelled) becomes a grade change."""
        def picked(value) -> None:
            if value is not None:
                self._change(change_for(value))
        self.app.push_screen(modal, picked)

    def action_label(self) -> None:
        if (a := self.answer_at(self.side)) is not None:
            self._ask(LabelModal(a.human.failure_label if a.human else None),
                      lambda label: GradeChange(failure_label=label or None))  # NO_LABEL ("") clears it

    def action_scores(self) -> None:
        if (a := self.answer_at(self.side)) is not None:
            current = a.human.scores if a.human else {d: None for d in DIMENSIONS}
            self._ask(ScoresModal(current), lambda scores: GradeChange(scores=scores))

    def action_note(self) -> None:
        if (a := self.answer_at(self.side)) is not None:
            self._ask(TextModal("Note on this answer (Enter saves, empty clears)",
                                a.human.note or "" if a.human else "", blink=self.desk.config.cursor_blink),
                      lambda note: GradeChange(note=note))

    def action_prefer(self, which: str) -> None:
        item, run = self.item, self.run
        if item is None or run is None:
            return
        if which == "tie":
            preferred = "tie"
        else:
            preferred = item.left_method if which == "left" else review_item.other_method(item.left_method)
        grader = self.desk.config.grader
        self.desk.submit("save preference",
                         lambda store: human_grades.record_preference(store, run.id, item.question_pk, grader, preferred,
                                                                item.left_method),
                         lambda _: (self.desk.report(f"preference saved: {which}"), self.reload()))

    def action_undo(self) -> None:
        run, grader = self.run, self.desk.config.grader
        if run is None:
            return

        def fn(store):
            undone = human_grades.undo_last(store, run.id, grader)
            if undone is None:
                return None
            return undone, store.scalar("SELECT question_pk FROM answers WHERE id = ?", (undone.answer_id,))

        def done(result) -> None:
            if result is None:
                self.desk.report("nothing to undo")
                return
            undone, pk = result
            self.desk.report(f"undone: {undone.grade} (a new undo event; nothing was deleted)")
            self.show_question(pk)
            self.refresh_progress()
        self.desk.submit("undo", fn, done)

    # Other screens ---------------------------------------------------------------------------------------------------

    def apply_filters(self, filters: Filters) -> None:
        self.filters = filters
        self.order = "question"
        self._render_topbar()
        run, grader = self.run, self.desk.config.grader
        self.load(lambda store: review.neighbour(store, run, grader, filters, None),
                  empty=f"no item matches filters: {filters.describe()}")

    def action_filters(self) -> None:
        run = self.run
        if run is None:
            return

        def chosen(filters: Filters | None) -> None:
            if filters is not None:
                self.apply_filters(filters)
        open_filters(self.desk, run.id, self.filters, chosen)

    def action_queue(self) -> None:
        from gradedesk.tui.screens.queue import QueueScreen

        if self.run is None:
            return

        def chosen(choice: tuple[int, str, Filters] | None) -> None:
            if choice is None:
                return
            pk, side, filters = choice
            if filters != self.filters:
                self.filters = filters
                self.order = "question"
            self.show_question(pk, side)
        self.app.push_screen(QueueScreen(self.run, self.filters, self.item.question_pk if self.item else None,
                                         show_judge=self.show_judge and not self.recheck,
                                         hide_methods=self.hide_methods), chosen)

    def action_bundle(self) -> None:
        from gradedesk.tui.screens.bundle import BundleScreen

        a = self.answer_at(self.side)
        if a is None:
            return
        self.app.push_screen(BundleScreen(a, self.pane_title(self.side)))

    def action_agreement(self) -> None:
        screen_class = self.desk.agreement_screen()
        if screen_class is None or self.run is None:
            return

        def chosen(cell: tuple[str, str] | None) -> None:
            if cell:
                self.apply_filters(Filters(grade=cell[0], judge_grade=cell[1]))
        self.app.push_screen(screen_class(self.desk.config.store_path, self.run.id), chosen)

    # Settings (command palette) --------------------------------------------------------------------------------------

    def set_show_judge(self, on: bool) -> None:
        self.show_judge = on
        self.desk.report("judge shown from the start (open mode)" if on else "blind first: judge hidden until graded")
        self._redraw()
        self.save_state()

    def set_hide_methods(self, on: bool) -> None:
        self.hide_methods = on
        self._redraw()
        self.save_state()

    def set_order(self, order: str, share: float | None = None) -> None:
        run, grader = self.run, self.desk.config.grader
        if run is None:
            return
        if order == "question":
            self.order, self.order_list, self.order_index = "question", [], 0
            self.reload()
            self._render_topbar()
            return

        def fn(store) -> list[int] | None:
            if order == "recheck":
                return review.recheck_sample(store, run, grader, share or self.desk.config.recheck_share)
            return review.most_useful_questions(store, run, grader)

        def done(pks: list[int] | None) -> None:
            if not pks:
                self.desk.report("nothing graded yet to re-check" if order == "recheck"
                                 else "most-useful ordering is not available in this installation")
                return
            self.order, self.order_list, self.order_index = order, pks, 0
            self.show_question(pks[0])
        self.desk.submit(f"order items: {order}", fn, done)

    def commands(self) -> list[tuple[str, str, Any]]:
        """(title, help, callback) for the command palette: the desk's rarer actions."""
        out = [
            ("Show the judge from the start" if not self.show_judge else "Blind first (hide the judge until graded)",
             "spot-check mode; every grade records the mode it was made in",
             lambda: self.set_show_judge(not self.show_judge)),
            ("Hide method names (Answer A / B)" if not self.hide_methods else "Show method names",
             "hide which answer is raw and which bundled until both are graded",
             lambda: self.set_hide_methods(not self.hide_methods)),
            (f"Recheck: re-grade {self.desk.config.recheck_share:.0%} of graded items blind",
             "self-consistency: events are stored with mode 'recheck'", lambda: self.set_order("recheck")),
            ("Order: question order", "walk the queue in question order", lambda: self.set_order("question")),
            ("Clear filters", "show every item", lambda: self.apply_filters(Filters())),
            ("Open the queue", "all items in a table", self.action_queue),
            ("Open the evidence browser", "snippets of the focused answer", self.action_bundle),
            ("Jump to question id", "go to a question by its benchmark id", self.action_jump),
        ]
        if self.desk.most_useful_available():
            out.insert(3, ("Order: most useful first", "judge least confident / rarest confusion cell first",
                           lambda: self.set_order("most_useful")))
        return out
