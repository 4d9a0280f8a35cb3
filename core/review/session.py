"""What the grading desk asks of the store, one call per user action: open a run where the grader stopped (or, for a
lead adjudicating, on the first disputed item), find the next item in question order or in a list order (recheck,
adjudication), undo (the newest grade, label or preference; a lead's newest decision), order the items. No textual
here.

The desk runs each of these as one job on its store thread; the screen keeps only what is on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradedesk.core.review import queue as review
from gradedesk.core.review.adjudication import adjudication_queue, undo_decision
from gradedesk.core.review.item import Item, load_item
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store import grades, preferences
from gradedesk.core.store.answers import answer_row
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunInfo, run_info


@dataclass(frozen=True)
class Opening:
    """The desk as the grader left it: run, saved settings and filters, the order, the first item to show."""
    run: RunInfo
    settings: dict[str, Any]
    filters: Filters
    order: str
    order_list: list[int]
    item: Item | None
    judge_rubric: str | None  # the rubric version whose judge verdicts the desk shows (None: the newest)


def open_desk(store: Store, run_id: int, grader: str, recheck: float | None, *, budget: int | None = None,
              adjudicate: bool = False) -> Opening:
    """Where this grader stopped in the run (or, with `recheck`, the first item of a recheck sample of that share;
    with `adjudicate`, the first item of the adjudication queue), showing raw beside the bundled answer at `budget`
    (None: the budget they left the desk on, else the run's largest)."""
    run = run_info(store, run_id)
    state = review.load_desk_state(store, grader, run.id)
    settings = state.settings if state else {}
    kept = settings.get("budget")
    run = run.showing(budget if budget is not None else kept if kept in run.budgets else None)
    filters = Filters.from_dict(settings.get("filters") or {})
    rubric = settings.get("judge_rubric")
    rubric = rubric if isinstance(rubric, str) else None
    order, order_list, pk = "question", [], state.question_pk if state else None
    if adjudicate:
        order, order_list = "adjudicate", adjudication_queue(store, run, grader)
        pk = order_list[0] if order_list else None
    elif recheck:
        order, order_list = "recheck", review.recheck_sample(store, run, grader, recheck)
        pk = order_list[0] if order_list else None
    elif pk is None or not review.has_question(store, run, pk):
        pk = review.neighbour(store, run, grader, filters, None, judge_rubric=rubric)
    item = load_item(store, run, grader, pk, recheck=order == "recheck", judge_rubric=rubric,
                     adjudicate=adjudicate) if pk is not None else None
    return Opening(run, settings, filters, order, order_list, item, rubric)


def next_in_order(store: Store, run: RunInfo, grader: str, filters: Filters, current: int | None, forward: bool,
                  wrap: bool, judge_rubric: str | None = None) -> tuple[int | None, bool]:
    """The question after (or before) `current` that passes the filters (machine grades under `judge_rubric` when one
    is chosen); with `wrap`, from the start at the end. The bool: it wrapped (the desk says so)."""
    pk = review.neighbour(store, run, grader, filters, current, forward, judge_rubric)
    if pk is None and wrap and current is not None:
        pk = review.neighbour(store, run, grader, filters, None, forward, judge_rubric)
        return pk, pk is not None
    return pk, False


def next_in_list(store: Store, run: RunInfo, grader: str, pks: list[int], start: int,
                 wanted: Callable[[Item], bool], *, recheck: bool, judge_rubric: str | None = None,
                 adjudicate: bool = False) -> tuple[int | None, bool]:
    """The next question of a list order (after index `start`, wrapping round) whose item `wanted` accepts (items
    loaded with the machine grades under `judge_rubric` when one is chosen). The bool: it wrapped round."""
    for offset in range(1, len(pks) + 1):
        pk = pks[(start + offset) % len(pks)]
        item = load_item(store, run, grader, pk, recheck=recheck, judge_rubric=judge_rubric, adjudicate=adjudicate)
        if item is not None and wanted(item):
            return pk, start + offset >= len(pks)
    return None, False


def disagrees(item: Item) -> bool:
    """Some answer of the item has a person's grade that differs from its usable machine verdict (a compared pair
    that disagrees: an unusable reply is no verdict)."""
    return any(a.human and a.human.grade and a.machine and a.machine.usable and a.human.grade != a.machine.grade
               for a in item.answers.values())


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


def recheck_questions(store: Store, run: RunInfo, grader: str, share: float) -> list[int]:
    """The questions of a recheck pass: a sample of `share` of the graded ones (the most useful order is drawn item by
    item instead: core/review/sampler.py)."""
    return review.recheck_sample(store, run, grader, share)

