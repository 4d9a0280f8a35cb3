"""The write queue: what the person saves (grades, labels, scores, notes, preferences, undo, flags). Each `Write`
joins the session's queue of unsaved writes, in the order typed, when it is planned, and leaves it when its job's
`Shown` answer lands (state.py `landed`); a job that failed leaves its write in the queue (`unsaved`), in order, for the
desk to retry or report. A write may change the order and the item shown: the neighbours prepared are dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gradedesk.core.grading import human_grades
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import GRADE_LABELS
from gradedesk.core.review import adjudication
from gradedesk.core.review import flags as item_flags
from gradedesk.core.review.adjudication import undo_decision
from gradedesk.core.review.item import AnswerView, Item, load_item, other_method
from gradedesk.core.review.session.jobs import Find, Job, Shown, Target, Write
from gradedesk.core.review.session.state import DeskState
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store import grades, preferences
from gradedesk.core.store.answers import answer_row
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunInfo


@dataclass(frozen=True)
class Undone:
    """What `u` took back: an event on the question `question_pk` (of the answer `answer_id`, for a grade)."""
    question_pk: int
    answer_id: int | None
    what: str  # for the status line: 'partially_correct', 'the label', 'preference raw'


def undo(store: Store, run: RunInfo, grader: str, blindness: Blindness,
         judge_rubric: str | None = None, adjudicate: bool = False) -> Undone | None:
    """Take back the grader's newest event in the run at the budget shown (run.bundle_budget), a grade (or label,
    scores, note) or a preference (adjudicating: their newest decision), with an undo event at that budget saying what
    was on screen of it (the desk shows its item as it saves, its machine grades under `judge_rubric` when one is
    chosen); None if there is none."""
    if adjudicate:
        decided = undo_decision(store, run, grader, judge_visible=blindness.show_judge)
        return None if decided is None else Undone(decided.question_pk, None, "the decision " + (
            decided.grade or decided.preferred or "on the label or note"))
    with store.transaction():
        # at the budget shown: a grade or preference made beside another budget's bundled answer is left alone
        grade = grades.newest_live_grade(store, run.id, grader, run.bundle_budget)
        preference = preferences.newest_preference(store, run.id, grader, budget=run.bundle_budget)
        if preference is not None and (grade is None or preference.created_at > grade.created_at):
            item = load_item(store, run, grader, preference.question_pk, recheck=blindness.recheck,
                             judge_rubric=judge_rubric)
            preferences.undo_preference(store, preference, judge_visible=blindness.machines(item))
            return Undone(preference.question_pk, None, f"preference {preference.preferred}")
        if grade is None:
            return None
        pk = answer_row(store, grade.answer_id)["question_pk"]
        item = load_item(store, run, grader, pk, recheck=blindness.recheck, judge_rubric=judge_rubric)
        answer = next((a for a in item.answers.values() if a.id == grade.answer_id), None) if item else None
        grades.undo_grade(store, grade, judge_visible=blindness.answer_judge(item, answer))
        return Undone(pk, grade.answer_id, grade.grade or "the label, scores and note given before the grade")



def saved_text(change: GradeChange, grade: str | None, *, revision: bool) -> str:
    """What a grade key saved, in words: the grade, or the label, scores or note it changed (the grade not given yet:
    the machine grade stays hidden)."""
    if change.grade is not ...:
        text = GRADE_LABELS.get(grade or "", grade or "")
    else:
        parts = []
        if change.failure_label is not ...:
            parts.append(f"label {change.failure_label}" if change.failure_label else "label cleared")
        if change.scores is not None:
            parts.append("scores")
        if change.note is not ...:
            parts.append("note" if change.note else "note cleared")
        text = ", ".join(parts) or "nothing changed"
        if not grade:
            text += " (not graded yet: the machine grade stays hidden)"
    return f"saved: {text}" + (" (revision after reveal)" if revision else "")



class WriteQueue(DeskState):
    """The session's writes, each queued until its answer lands."""

    def _write(self, what: str, question_pk: int, save: Find) -> Job[Shown] | None:
        self.forget()  # it may change the order or the item: what was prepared around it is not what it leaves
        write = Write(what, question_pk, save)
        job = self.load(save, empty="the item vanished from the store", write=write)
        if job is not None:
            self.unsaved.append(write)
        return job

    def grade(self, answer: AnswerView, change: GradeChange) -> Job[Shown] | None:
        """Save a change to `answer`'s grade (a lead adjudicating: a decision) and show the item again."""
        item, run = self.item, self.run
        if item is None or run is None:
            return None
        person, mode, visible = self.person, self.mode, self.judge_visible(answer)
        selection, probability = self.reached
        answer_id, pk, machine = answer.id, item.question_pk, answer.machine.on_desk if answer.machine else None
        method, budget = answer.method, answer.budget

        def decide(store: Store) -> Target:
            decided = adjudication.decide_grade(store, run, pk, method, budget, person, change, judge_visible=visible)
            return Target(pk, "decided: " + (GRADE_LABELS.get(decided.grade or "")
                                             or "label and note (no grade decided yet)"))

        def save(store: Store) -> Target:
            saved = human_grades.record_grade(store, answer_id, person, change, mode=mode, judge_visible=visible,
                                              rubric_version=run.rubric_version, machine=machine, selection=selection,
                                              selection_probability=probability, budget=run.bundle_budget)
            return Target(pk, saved_text(change, saved.grade, revision=bool(saved.is_revision)))
        return self._write("decision" if self.adjudicating else "grade", pk, decide if self.adjudicating else save)

    def prefer(self, which: str, shown: Callable[[Item, str], str]) -> Job[Shown] | None:
        """Say which answer is better: 'left', 'right' or 'tie'; `shown(item, preferred)` names it as the header does."""
        item, run = self.item, self.run
        if item is None or run is None:
            return None
        preferred = "tie" if which == "tie" else (
            item.left_method if which == "left" else other_method(item.left_method))
        person, pk, left = self.person, item.question_pk, item.left_method
        visible, (selection, probability) = self.blindness.machines(item), self.reached
        adjudicating, name = self.adjudicating, shown(item, preferred)

        def save(store: Store) -> Target:
            if adjudicating:
                adjudication.decide_preference(store, run, pk, person, preferred, judge_visible=visible)
                return Target(pk, f"decided: {name}")
            human_grades.record_preference(store, run.id, pk, person, preferred, left, judge_visible=visible,
                                           selection=selection, selection_probability=probability,
                                           budget=run.bundle_budget)
            return Target(pk, f"preference saved: {name}")
        return self._write("preference", pk, save)

    def undo(self) -> Job[Shown] | None:
        """u: take back the person's newest grade, label or preference (a lead's newest decision)."""
        run, person, blindness, rubric, adjudicating = (self.run, self.person, self.blindness, self.judge_rubric,
                                                        self.adjudicating)
        if run is None:
            return None

        def take_back(store: Store) -> Target:
            undone = undo(store, run, person, blindness, rubric, adjudicating)
            if undone is None:
                return Target(None, "nothing to undo")
            return Target(undone.question_pk, f"undone: {undone.what} (a new undo event; nothing was deleted)",
                          undone_answer=undone.answer_id)
        return self._write("undo", self.item.question_pk if self.item else 0, take_back)

    def flag(self, reason: str, note: str | None) -> Job[Shown] | None:
        """Flag the item shown for fixing the benchmark."""
        item, run = self.item, self.run
        if item is None or run is None:
            return None
        person, pk, visible = self.person, item.question_pk, self.blindness.machines(item)

        def save(store: Store) -> Target:
            item_flags.flag_item(store, run.id, pk, person, reason, note, judge_visible=visible)
            return Target(pk, "flag saved: left out of every figure; ! again takes it back")
        return self._write("flag", pk, save)

    def unflag(self) -> Job[Shown] | None:
        item, run = self.item, self.run
        if item is None or run is None:
            return None
        person, pk, visible = self.person, item.question_pk, self.blindness.machines(item)

        def take_back(store: Store) -> Target:
            undone = item_flags.unflag_item(store, run.id, pk, person, judge_visible=visible)
            return Target(pk, "flag taken back (a new undo event; nothing was deleted)" if undone
                          else "no flag to take back")
        return self._write("unflag", pk, take_back)
