"""Opening a person's desk on a run: where they stopped, with the settings and filters they left, or the first item of
a recheck pass or of the adjudication queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradedesk.core.review import queue as review
from gradedesk.core.review.adjudication import adjudication_queue
from gradedesk.core.review.item import Item, load_item
from gradedesk.core.review.queue import Filters
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

