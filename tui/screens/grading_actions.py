"""The grading screen's keys that move between items, change grades or open other screens, and its command-palette
entries.

Mixed into GradingScreen (tui/screens/grading.py), whose state (run, item, side, filters, order, show_judge,
hide_methods, judge_rubric) and loading (load, reload, show_question) these use. Every write is one core function run
as one store job, with the answer id it was meant for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gradedesk.core.grading import human_grades
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import DIMENSIONS
from gradedesk.core.review import queue as review
from gradedesk.core.review import session
from gradedesk.core.review.item import AnswerView, Item, other_method
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.store.connection import Store
from gradedesk.core.store.runs import RunInfo

from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.screens.agreement import AgreementScreen
from gradedesk.tui.screens.bundle import BundleScreen
from gradedesk.tui.screens.claims import ClaimScreen
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
    judge_rubric: str | None

    # Actions: moving -------------------------------------------------------------------------------------------------

    def _in_order(self, filters: Filters, forward: bool, wrap: bool) -> Callable[[Store], int | None]:
        run, grader, cur = self.run, self.desk.config.grader, self.item.question_pk if self.item else None
        rubric = self.judge_rubric
        return lambda store: session.next_in_order(store, run, grader, filters, cur, forward, wrap, rubric)

    def _in_list(self, wanted: Callable[[Item], bool]) -> Callable[[Store], int | None]:
        run, grader, recheck, start, pks = (self.run, self.desk.config.grader, self.recheck, self.order_index,
                                            list(self.order_list))
        rubric = self.judge_rubric
        return lambda store: session.next_in_list(store, run, grader, pks, start, wanted, recheck=recheck,
                                                  judge_rubric=rubric)

    def _draw_next(self) -> None:
        """The sampler's next draw (core/review/sampler.py): stored with its probability, graded ones count again."""
        run, grader, rubric, drawn = self.run, self.desk.config.grader, self.judge_rubric, {}

        def find(store: Store) -> int | None:
            d = draw_next(store, run, grader, judge_rubric=rubric)
            drawn["probability"] = d.probability if d else None
            return d.question_pk if d else None
        self.load(find, empty="every question of this run is graded", how="sampled",
                  probability=lambda: drawn.get("probability"))

    def action_step(self, step: int) -> None:
        if self.order == "most_useful":
            if step > 0:
                self._draw_next()
            else:
                self.desk.report("most useful order draws items: j draws the next, there is no earlier one")
            return
        if self.order != "question":
            if not self.order_list:
                return
            index = self.order_index + step
            if not 0 <= index < len(self.order_list):
                self.desk.report("end of the list" if step > 0 else "start of the list")
                return
            self.order_index = index
            self.show_question(self.order_list[index], how=None)
            return
        self.load(self._in_order(self.filters, step > 0, wrap=False),
                  empty="no more items" if step > 0 else "no earlier items")

    def action_next_ungraded(self) -> None:
        if self.order == "most_useful":
            self._draw_next()
            return
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

    # Grading ---------------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("grade", "label", "scores", "note", "bundle", "claims", "prefer", "undo") and self.item is None:
            return None  # shown dimmed: no item
        return True

    def _focused_answer(self) -> AnswerView | None:
        """The answer in the focused pane; if that pane is empty, say so (a key that does nothing must say why)."""
        a = self.answer_at(self.side)
        if a is None and self.item is not None:
            self.desk.report(f"Answer {'A' if self.side == 'left' else 'B'}: the run has no answer of this kind for "
                             "this question, so nothing to grade here (tab: the other answer)")
        return a

    def _change(self, change: GradeChange) -> None:
        """Save a change to the focused answer's grade and reload the item, in one store job that carries the answer
        id (never "the current item": by the time it runs, the screen may show another)."""
        a, item, run = self._focused_answer(), self.item, self.run
        if a is None or item is None or run is None:
            return
        if change.grade is ... and (a.human is None or not a.human.grade):
            self.desk.report("grade the answer first (keys 1-4), then add a label, scores or a note")
            return
        grader, mode, visible = self.desk.config.grader, self.mode, self.judge_visible(a)
        selection, probability = self.reached
        answer_id, pk, machine = a.id, item.question_pk, a.machine.on_desk if a.machine else None

        def save(store: Store) -> tuple[int, str]:
            saved = human_grades.record_grade(store, answer_id, grader, change, mode=mode, judge_visible=visible,
                                              rubric_version=run.rubric_version, machine=machine,
                                              selection=selection, selection_probability=probability)
            return pk, f"saved: {saved.grade}" + (" (revision after reveal)" if saved.is_revision else "")
        self.load(save, empty="the item vanished from the store", after=self.refresh_progress)

    def action_grade(self, grade: str) -> None:
        self._change(GradeChange(grade=grade))

    def _ask(self, modal, change_for) -> None:
        """Open a picker for the focused answer; its result (None: cancelled) becomes a grade change."""
        def picked(value) -> None:
            if value is not None:
                self._change(change_for(value))
        self.app.push_screen(modal, picked)

    def action_label(self) -> None:
        if (a := self._focused_answer()) is not None:
            self._ask(LabelModal(a.human.failure_label if a.human else None),
                      lambda label: GradeChange(failure_label=label or None))  # NO_LABEL ("") clears it

    def action_scores(self) -> None:
        if (a := self._focused_answer()) is not None:
            current = a.human.scores if a.human else {d: None for d in DIMENSIONS}
            self._ask(ScoresModal(current), lambda scores: GradeChange(scores=scores))

    def action_note(self) -> None:
        if (a := self._focused_answer()) is not None:
            self._ask(TextModal("Note on this answer (Enter saves, empty clears)",
                                a.human.note or "" if a.human else "", blink=self.desk.config.cursor_blink),
                      lambda note: GradeChange(note=note))

    def action_prefer(self, which: str) -> None:
        item, run = self.item, self.run
        if item is None or run is None:
            return
        preferred = "tie" if which == "tie" else (
            item.left_method if which == "left" else other_method(item.left_method))
        grader, pk, left = self.desk.config.grader, item.question_pk, item.left_method

        def save(store: Store) -> tuple[int, str]:
            human_grades.record_preference(store, run.id, pk, grader, preferred, left)
            return pk, f"preference saved: {which}"
        self.load(save, empty="the item vanished from the store")

    def action_undo(self) -> None:
        run, grader = self.run, self.desk.config.grader
        if run is None:
            return

        undone_answer: list[int] = []

        def undo(store: Store) -> tuple[int | None, str]:
            result = session.undo(store, run.id, grader)
            if result is None:
                return None, "nothing to undo"
            undone, pk = result
            undone_answer.append(undone.answer_id)
            return pk, f"undone: {undone.grade} (a new undo event; nothing was deleted)"

        def after() -> None:  # focus the answer whose grade was taken back: the next grade key is meant for it
            item = self.item
            for side in ("left", "right"):
                answer = item.at(side) if item else None
                if answer is not None and undone_answer and answer.id == undone_answer[0]:
                    self.action_focus_side(side)
            self.refresh_progress()
        self.load(undo, empty="the item vanished from the store", after=after)

    # Other screens ---------------------------------------------------------------------------------------------------

    def action_jump(self) -> None:
        def jumped(text: str | None) -> None:
            if not text or not text.strip():
                return
            run = self.run
            self.load(lambda store: review.find_question(store, run, text), empty=f"no question {text.strip()!r}",
                      how="jump")
        self.app.push_screen(TextModal("Jump to question id", placeholder="e.g. q-tokens or 42",
                                       blink=self.desk.config.cursor_blink), jumped)

    def apply_filters(self, filters: Filters) -> None:
        self.filters = filters
        self.order = "question"
        self._render_topbar()
        run, grader, rubric = self.run, self.desk.config.grader, self.judge_rubric
        self.load(lambda store: review.neighbour(store, run, grader, filters, None, judge_rubric=rubric),
                  empty=f"no item matches filters: {filters.describe()}")

    def action_filters(self) -> None:
        if self.run is None:
            return

        def chosen(filters: Filters | None) -> None:
            if filters is not None:
                self.apply_filters(filters)
        open_filters(self, self.desk, self.run.id, self.filters, chosen, self.judge_rubric)

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
                                         show_judge=self.show_judge, recheck=self.recheck,
                                         hide_methods=self.hide_methods, judge_rubric=self.judge_rubric), chosen)

    def action_bundle(self) -> None:
        if (a := self._focused_answer()) is not None:
            self.app.push_screen(BundleScreen(a, self.pane_title(self.side), methods_visible=self.methods_visible()))

    def action_claims(self) -> None:
        a, item = self._focused_answer(), self.item
        if a is None or item is None:
            return
        if self.recheck:
            self.desk.report("claim mode is not part of a recheck pass: leave it first (command palette)")
            return
        self.app.push_screen(ClaimScreen(self.desk, a.id, self.pane_title(self.side), item.question,
                                         show_judge=self.show_judge, evidence_label="Evidence" if a.bundle else "Hit",
                                         methods_visible=self.methods_visible()),
                             lambda _: self.reload())

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
        if order in ("question", "most_useful"):
            self.order, self.order_list, self.order_index = order, [], 0
            self._render_topbar()
            if order == "most_useful":
                self._draw_next()
            else:
                self.reload()
            return

        def done(pks: list[int]) -> None:
            if not pks:
                self.desk.report("nothing graded yet to re-check")
                return
            self.order, self.order_list, self.order_index = order, pks, 0
            self.show_question(pks[0], how="recheck")
        self.desk.submit(f"order items: {order}",
                         lambda store: session.recheck_questions(store, run, grader, share), done)

    def set_judge_rubric(self, version: str | None) -> None:
        """Show the judge's verdicts under this rubric version (None: the newest); blind first still decides when."""
        self.judge_rubric = version
        note = f"judge verdicts under rubric {version}" if version else "judge verdicts: the newest"
        self.desk.report(note)
        self.reload()
        self.refresh_progress(note)  # agreement figures are with the verdicts shown
        self.save_state()

    def judge_rubric_commands(self) -> list[PaletteCommand]:
        """One entry per rubric version the judge graded this item under (when there is a choice to make)."""
        versions = self.item.judge_rubrics if self.item else ()
        if len(versions) < 2 and self.judge_rubric is None:
            return []
        out = [PaletteCommand(f"Judge verdict under rubric {v}", "show what the judge said under this rubric version",
                              lambda v=v: self.set_judge_rubric(v)) for v in versions if v != self.judge_rubric]
        if self.judge_rubric is not None:
            out.append(PaletteCommand("Judge verdict: the newest", "as agree shows it",
                                      lambda: self.set_judge_rubric(None)))
        return out

    def palette_commands(self) -> list[PaletteCommand]:
        """The desk's rarer actions, for the command palette (tui/screens/palette.py)."""
        return self.judge_rubric_commands() + [
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
            PaletteCommand("Order: most useful first",
                           "draw items, judge least sure / rarest confusion cell likelier; agree weighs the draws",
                           lambda: self.set_order("most_useful")),
            PaletteCommand("Order: question order", "walk the queue in question order",
                           lambda: self.set_order("question")),
            PaletteCommand("Clear filters", "show every item", lambda: self.apply_filters(Filters())),
            PaletteCommand("Open the queue", "all items in a table", self.action_queue),
            PaletteCommand("Open the evidence browser", "snippets of the focused answer", self.action_bundle),
            PaletteCommand("Claim mode", "check the focused answer claim by claim (c)", self.action_claims),
            PaletteCommand("Jump to question id", "go to a question by its benchmark id", self.action_jump),
        ]
