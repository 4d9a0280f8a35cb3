"""What the grading desk asks of the store, one call per user action: open a run where the grader stopped, find the
next item in question order or in a list order (recheck, most useful), undo, order the items. No textual here.

The desk runs each of these as one job on its store thread; the screen keeps only what is on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradedesk.core.review import queue as review
from gradedesk.core.review.item import Item, load_item
from gradedesk.core.review.queue import Filters
from gradedesk.core.store.answers import answer_row
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import HumanGrade, undo_last_grade
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


def open_desk(store: Store, run_id: int, grader: str, recheck: float | None) -> Opening:
    """Where this grader stopped in the run (or, with `recheck`, the first item of a recheck sample of that share)."""
    run = run_info(store, run_id)
    state = review.load_desk_state(store, grader, run.id)
    settings = state.settings if state else {}
    filters = Filters.from_dict(settings.get("filters") or {})
    rubric = settings.get("judge_rubric")
    rubric = rubric if isinstance(rubric, str) else None
    order, order_list, pk = "question", [], state.question_pk if state else None
    if recheck:
        order, order_list = "recheck", review.recheck_sample(store, run, grader, recheck)
        pk = order_list[0] if order_list else None
    elif pk is None or not review.has_question(store, run, pk):
        pk = review.neighbour(store, run, grader, filters, None, judge_rubric=rubric)
    item = load_item(store, run, grader, pk, recheck=order == "recheck",
                     judge_rubric=rubric) if pk is not None else None
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
                 wanted: Callable[[Item], bool], *, recheck: bool,
                 judge_rubric: str | None = None) -> tuple[int | None, bool]:
    """The next question of a list order (after index `start`, wrapping round) whose item `wanted` accepts (items
    loaded with the machine grades under `judge_rubric` when one is chosen). The bool: it wrapped round."""
    for offset in range(1, len(pks) + 1):
        pk = pks[(start + offset) % len(pks)]
        item = load_item(store, run, grader, pk, recheck=recheck, judge_rubric=judge_rubric)
        if item is not None and wanted(item):
            return pk, start + offset >= len(pks)
    return None, False


def disagrees(item: Item) -> bool:
    """Some answer of the item has a person's grade that differs from its machine grade."""
    return any(a.human and a.machine and a.human.grade != a.machine.grade for a in item.answers.values())


def undo(store: Store, run_id: int, grader: str) -> tuple[HumanGrade, int] | None:
    """Take back the grader's newest grade in the run: (the event undone, its question), or None if there is none."""
    undone = undo_last_grade(store, run_id, grader)
    if undone is None:
        return None
    return undone, answer_row(store, undone.answer_id)["question_pk"]


def recheck_questions(store: Store, run: RunInfo, grader: str, share: float) -> list[int]:
    """The questions of a recheck pass: a sample of `share` of the graded ones (the most useful order is drawn item by
    item instead: core/review/sampler.py)."""
    return review.recheck_sample(store, run, grader, share)

