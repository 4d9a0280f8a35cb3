"""The grading screen's keys that change grades or open other screens, and its command-palette entries.

Mixed into GradingScreen (tui/screens/grading.py), whose state (run, item, side, filters, order, show_judge,
hide_methods) and loading (load, reload, show_question) these use. Every write is one core function run as one store
job, with the answer id it was meant for.
"""

from __future__ import annotations

from gradedesk.core.grading import human_grades
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import DIMENSIONS
from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.core.review.item import Item, other_method
from gradedesk.core.review.queue import Filters
from gradedesk.core.store.runs import RunInfo

from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.screens.agreement import AgreementScreen
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.modals import LabelModal, ScoresModal, TextModal, open_filters
from gradedesk.tui.screens.palette import PaletteCommand
from gradedesk.tui.screens.queue import QueueScreen

class GradingActions:
    # the grading screen's state these actions read and change (set in GradingScreen.__init__)
    desk: Desk
    run: RunInfo | None
    item: Item | None
    side: str
    filters: Filters
    order: str
    order_list: list[int]
    order_index: int
    show_judge: bool
    hide_methods: bool

    # Grading ---------------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        needs_answer = {"grade", "label", "scores", "note", "bundle"}
        if action in needs_answer and self.answer_at(self.side) is None:
            return None  # shown dimmed: nothing to grade here
        if action in ("prefer", "undo") and self.item is None:
            return None
        return True

    def _change(self, change: GradeChange) -> None:
        a, run = self.answer_at(self.side), self.run
        if a is None or self.item is None or run is None:
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
        preferred = "tie" if which == "tie" else (
            item.left_method if which == "left" else other_method(item.left_method))
        grader = self.desk.config.grader
        self.desk.submit("save preference",
                         lambda store: human_grades.record_preference(store, run.id, item.question_pk, grader,
                                                                      preferred, item.left_method),
                         lambda _: (self.desk.report(f"preference saved: {which}"), self.reload()))

    def action_undo(self) -> None:
        run, grader = self.run, self.desk.config.grader
        if run is None:
            return

        def done(result: tuple[human_grades.HumanGrade, int] | None) -> None:
            if result is None:
                self.desk.report("nothing to undo")
                return
            undone, pk = result
            self.desk.report(f"undone: {undone.grade} (a new undo event; nothing was deleted)")
            self.show_question(pk)
            self.refresh_progress()
        self.desk.submit("undo", lambda store: session.undo(store, run.id, grader), done)

    # Other screens ---------------------------------------------------------------------------------------------------

    def action_jump(self) -> None:
        def jumped(text: str | None) -> None:
            if not text or not text.strip():
                return
            run = self.run
            self.load(lambda store: review.find_question(store, run, text), empty=f"no question {text.strip()!r}")
        self.app.push_screen(TextModal("Jump to question id", placeholder="e.g. q-tokens or 42",
                                       blink=self.desk.config.cursor_blink), jumped)

    def apply_filters(self, filters: Filters) -> None:
        self.filters = filters
        self.order = "question"
        self._render_topbar()
        run, grader = self.run, self.desk.config.grader
        self.load(lambda store: review.neighbour(store, run, grader, filters, None),
                  empty=f"no item matches filters: {filters.describe()}")

    def action_filters(self) -> None:
        if self.run is None:
            return

        def chosen(filters: Filters | None) -> None:
            if filters is not None:
                self.apply_filters(filters)
        open_filters(self, self.desk, self.run.id, self.filters, chosen)

    def action_queue(self) -> None:
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
        self.app.push_screen(QueueScreen(self.desk, self.run, self.filters,
                                         self.item.question_pk if self.item else None,
                                         show_judge=self.show_judge and not self.recheck,
                                         hide_methods=self.hide_methods), chosen)

    def action_bundle(self) -> None:
        if (a := self.answer_at(self.side)) is not None:
            self.app.push_screen(BundleScreen(a, self.pane_title(self.side)))

    def action_agreement(self) -> None:
        if self.run is None:
            return

        def chosen(cell: tuple[str, str] | None) -> None:
            if cell:
                self.apply_filters(Filters(grade=cell[0], judge_grade=cell[1]))
        desk = self.desk
        self.app.push_screen(AgreementScreen(desk.config.store_path, self.run.id,
                                             report_error=lambda text: desk.report(text, error=True)), chosen)

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

    def set_order(self, order: str) -> None:
        run, grader, share = self.run, self.desk.config.grader, self.desk.config.recheck_share
        if run is None:
            return
        if order == "question":
            self.order, self.order_list, self.order_index = "question", [], 0
            self.reload()
            self._render_topbar()
            return

        def done(pks: list[int]) -> None:
            if not pks:
                self.desk.report("nothing graded yet to re-check" if order == "recheck"
                                 else "nothing left to grade in this run")
                return
            self.order, self.order_list, self.order_index = order, pks, 0
            self.show_question(pks[0])
        self.desk.submit(f"order items: {order}",
                         lambda store: session.order_questions(store, run, grader, order, share), done)

    def palette_commands(self) -> list[PaletteCommand]:
        """The desk's rarer actions, for the command palette (tui/screens/palette.py)."""
        return [
            PaletteCommand(
                "Show the judge from the start" if not self.show_judge else "Blind first (hide the judge until graded)",
                "spot-check mode; every grade records the mode it was made in",
                lambda: self.set_show_judge(not self.show_judge)),
            PaletteCommand("Hide method names (Answer A / B)" if not self.hide_methods else "Show method names",
                           "hide which answer is raw and which bundled until both are graded",
                           lambda: self.set_hide_methods(not self.hide_methods)),
            PaletteCommand(f"Recheck: re-grade {self.desk.config.recheck_share:.0%} of graded items blind",
                           "self-consistency: events are stored with mode 'recheck'",
                           lambda: self.set_order("recheck")),
            PaletteCommand("Order: most useful first", "judge least confident / rarest confusion cell first",
                           lambda: self.set_order("most_useful")),
            PaletteCommand("Order: question order", "walk the queue in question order",
                           lambda: self.set_order("question")),
            PaletteCommand("Clear filters", "show every item", lambda: self.apply_filters(Filters())),
            PaletteCommand("Open the queue", "all items in a table", self.action_queue),
            PaletteCommand("Open the evidence browser", "snippets of the focused answer", self.action_bundle),
            PaletteCommand("Jump to question id", "go to a question by its benchmark id", self.action_jump),
        ]
