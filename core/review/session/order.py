"""The item order and its filters: the question after or before the one shown (in question order under the filters,
or along a list order: a recheck sample, the adjudication queue), saying so when the search went round, and the
session's moves along them (`OrderMoves`: j/k, n, d, a jump, filters, the order itself)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gradedesk.core.review import queue as review
from gradedesk.core.review.item import Item, load_item
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.session.jobs import Find, Job, Plan, RecheckPlan, Shown, Target
from gradedesk.core.review.session.state import DeskState
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import RunInfo


def next_in_order(store: Store, run: RunInfo, grader: str, filters: Filters, current: int | None, forward: bool,
                  wrap: bool, judge_rubric: str | None = None, kind: str | None = None) -> tuple[int | None, bool]:
    """The question after (or before) `current` that passes the filters (machine grades under `judge_rubric` when one
    is chosen; disagreements with the `kind` of machine grader the person's figures compare, when counted); with
    `wrap`, from the start at the end. The bool: it wrapped (the desk says so)."""
    pk = review.neighbour(store, run, grader, filters, current, forward, judge_rubric, kind=kind)
    if pk is None and wrap and current is not None:
        pk = review.neighbour(store, run, grader, filters, None, forward, judge_rubric, kind=kind)
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



def recheck_questions(store: Store, run: RunInfo, grader: str, share: float) -> list[int]:
    """The questions of a recheck pass: a sample of `share` of the graded ones (the most useful order is drawn item by
    item instead: core/review/sampler.py)."""
    return review.recheck_sample(store, run, grader, share)




def said(found: tuple[int | None, bool], current: int | None, what: str) -> Target:
    """The item found, and when the search went round from the end to the start, a note saying so: a silent wrap looks
    like a new item."""
    pk, wrapped = found
    if pk is None or not wrapped:
        return Target(pk)
    if pk == current:
        return Target(pk, f"this is the only {what}")
    return Target(pk, f"wrapped round from the last {what} to the first")


NEIGHBOURS = ("next", "ungraded", "previous", "disagreement")  # the keys j, n, k, d; prepared in this order
RUN_KEYS = ("next", "ungraded")  # j and n, the keys typed in runs: prepared AHEAD deep, their panes before their key


@dataclass(frozen=True)
class Move:
    """Where a key leads, before it runs: the find step, what to say when it finds nothing, how the item is reached
    (None: the order says)."""
    find: Find
    empty: str
    how: str | None = None


class OrderMoves(DeskState):
    """The moves of a desk session along its order and filters."""

    def show_question(self, question_pk: int, how: str | None = "jump") -> Job[Shown] | None:
        return self.load(lambda store: question_pk, empty=f"question {question_pk} is not in this run", how=how)

    def open_from_queue(self, question_pk: int, filters: Filters) -> Job[Shown] | None:
        """The item chosen in the queue, under the filters the queue ended with (new ones: question order)."""
        if filters != self.filters:
            self.forget()
            self.filters, self.order = filters, "question"
        return self.show_question(question_pk)

    def jump(self, text: str) -> Job[Shown] | None:
        run = self.run
        if not text.strip() or run is None:
            return None
        return self.load(lambda store: review.find_question(store, run, text), empty=f"no question {text.strip()!r}",
                         how="jump")

    def apply_filters(self, filters: Filters) -> Job[Shown] | None:
        """Show the first item the filters pass (none: the screen is left empty, it must not look as if it matched)."""
        self.forget()
        self.filters, self.order = filters, "question"
        run, person, rubric = self.run, self.person, self.judge_rubric
        if run is None:
            return None
        return self.load(lambda store: review.neighbour(store, run, person, filters, None, judge_rubric=rubric),
                         empty=f"no item matches filters: {filters.describe(self.machine_name)}", clear_when_empty=True)

    def _in_order(self, filters: Filters, forward: bool, wrap: str | None = None) -> Find:
        """The next item in question order; `wrap` (what is looked for, e.g. 'disagreement'): from the start at the
        end, saying so."""
        return self._from(filters, forward, wrap)(self.item.question_pk if self.item else None)

    def _from(self, filters: Filters, forward: bool, wrap: str | None = None) -> Callable[[int | None], Find]:
        """`_in_order` from any question, as the desk is set now."""
        run, person, rubric = self.run, self.person, self.judge_rubric
        kind = self.progress.kind if self.progress is not None else None  # counted already: not again per key
        assert run is not None

        def at(cur: int | None) -> Find:
            return lambda store: said(next_in_order(store, run, person, filters, cur, forward, wrap is not None,
                                                    rubric, kind), cur, wrap or "")
        return at

    def onward(self, kind: str) -> Callable[[int | None], Find] | None:
        """The key `kind`'s find from any question (question order only, and only for j and n, the keys typed in
        runs: neighbours.py prepares AHEAD of those)."""
        if self.run is None or self.order != "question" or kind not in RUN_KEYS:
            return None
        if kind == "next":
            return self._from(self.filters, True)
        return self._from(replace(self.filters, status="ungraded"), True, "ungraded item")

    def _in_list(self, wanted: Callable[[Item], bool], what: str) -> Find:
        run, person, recheck, start, pks = self.run, self.person, self.recheck, self.order_index, list(self.order_list)
        rubric, cur, adjudicate = self.judge_rubric, self.item.question_pk if self.item else None, self.adjudicating
        assert run is not None
        return lambda store: said(next_in_list(store, run, person, pks, start, wanted, recheck=recheck,
                                                judge_rubric=rubric, adjudicate=adjudicate), cur, what)

    def draw(self) -> Job[Shown] | None:
        """The sampler's next draw (core/review/sampler.py): stored with its probability, graded ones count again."""
        run, person, rubric = self.run, self.person, self.judge_rubric
        if run is None:
            return None

        def find(store: Store) -> Target:
            # imported here: the sampler pulls in the pairwise judge's verdicts (and the providers), which a desk in
            # question order never uses and its opening need not wait for
            from gradedesk.core.review.sampler import draw_next

            d = draw_next(store, run, person, judge_rubric=rubric)
            return Target(d.question_pk, probability=d.probability) if d else Target(None)
        return self.load(find, empty="every question of this run is graded", how="sampled")

    def move(self, kind: str) -> Move | str | None:
        """Where the key of a neighbour (NEIGHBOURS: next, previous, ungraded, disagreement) leads from the item shown,
        as the order and filters stand now, before anything runs; a sentence: why it goes nowhere."""
        if self.run is None:
            return None
        forward = kind != "previous"
        if self.order != "question":
            if kind == "ungraded":
                return Move(self._in_list(lambda item: not item.fully_graded, "ungraded item"),
                            "everything in this list is graded")
            if kind == "disagreement":
                return Move(self._in_list(disagrees, "disagreement"), "no disagreement in this list")
            if not self.order_list:
                return None
            index = self.order_index + (1 if forward else -1)
            if not 0 <= index < len(self.order_list):
                return "end of the list" if forward else "start of the list"
            pk = self.order_list[index]
            return Move(lambda store: pk, f"question {pk} is not in this run")
        cur = self.item.question_pk if self.item else None
        if kind == "disagreement":
            return Move(self._in_order(replace(self.filters, status="disagreeing"), True, "disagreement"),
                        f"no disagreement with the {self.machine_name} (with these filters)")
        if kind == "previous":
            return Move(self._in_order(self.filters, False), "no earlier items")
        onward = self.onward(kind)
        assert onward is not None
        return Move(onward(cur), "no ungraded item left (with these filters)" if kind == "ungraded" else "no more items")

    def set_order(self, order: str) -> RecheckPlan | Plan:
        """Question order or most useful first move at once; a recheck pass first draws its sample (`rechecked`)."""
        run, person, share = self.run, self.person, self.recheck_share
        if run is None:
            return None
        self.forget()
        if order in ("question", "most_useful"):
            self.order, self.order_list, self.order_index = order, [], 0
            return self.draw() if order == "most_useful" else self.reload()
        return RecheckPlan(Job(f"order items: {order}", lambda store: recheck_questions(store, run, person, share)))

    def rechecked(self, pks: list[int]) -> Plan:
        """The recheck sample is drawn: show its first item."""
        if not pks:
            return "nothing graded yet to re-check"
        self.forget()
        self.order, self.order_list, self.order_index = "recheck", pks, 0
        return self.show_question(pks[0], how="recheck")
