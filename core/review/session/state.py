"""What a desk session holds (the run and the budget shown, the item on screen, the order, the filters, what blind
first shows, the person), opening it, and the one way an item is loaded and taken in (`load`, `landed`). The session's
actions (order.py, writes.py, neighbours.py, settings.py, counts.py, watch.py) are mixins of `DeskState`; session.py
joins them into the one `DeskSession`."""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Iterator

from gradedesk.core.review.item import MACHINE_NAMES, SIDES, AnswerView, Item, load_item
from gradedesk.core.review.queue import Filters, Progress, QuestionOrder
from gradedesk.core.review.session.jobs import Find, Job, Landed, Prepared, Request, Shown, Target, Write
from gradedesk.core.review.session.opening import Opening, open_desk
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store.connection import Store
from gradedesk.core.store.leases import Lease
from gradedesk.core.store.run_records import RunInfo

AHEAD = 4  # items prepared ahead of the keys typed in runs, j and n (question order): five keys in a burst all swap


class DeskState:
    """A person's desk on one run of a store: what it shows (see the module)."""

    def __init__(self, person: str, run_id: int, *, recheck: float | None = None, recheck_share: float = 0.1,
                 reveal_share: float = 0.0, budget: int | None = None, adjudicate: bool = False,
                 show_judge: bool | None = None, hide_methods: bool | None = None) -> None:
        self.person = person
        self.run_id = run_id
        self.recheck_share = recheck_share
        self.reveal_share = reveal_share
        self.adjudicating = adjudicate
        self._opening = (recheck, budget)
        self._asked = (show_judge, hide_methods)  # None: as the person left the desk
        self.run: RunInfo | None = None  # with the budget shown (RunInfo.showing)
        self.item: Item | None = None
        self.filters = Filters()
        self.show_judge = False
        self.hide_methods = False
        self.judge_rubric: str | None = None  # the judge's verdicts under this rubric version (None: the newest)
        self.order = "question"
        self.order_list: list[int] = []
        self.order_index = 0
        # how the person came to the item shown (human_grades.selection) and, for a sampled one, its probability
        self.reached: tuple[str, float | None] = ("question_order", None)
        self.total: int | None = None  # answers shown, once counted
        self.questions: QuestionOrder | None = None  # the run's questions in order, once counted
        self.progress: Progress | None = None  # the person's figures, once counted
        self.unsaved: deque[Write] = deque()  # writes planned whose answer has not landed, in the order typed
        self._seq = 0
        self.holder = uuid.uuid4().hex  # this desk, in the person's lease (core/store/leases.py)
        self.lease: Lease | None = None
        self._data_version: int | None = None  # the store's PRAGMA data_version when last looked at
        # the neighbours of the item shown, loaded ahead of their keys (neighbours.py), by kind; `epoch` counts the
        # changes that may move the order or an item (a write, a filter, the budget, another desk's write): a
        # neighbour prepared before the newest one is never shown
        self.ready: dict[tuple[int, str], Prepared] = {}  # by (the question it was prepared around, kind)
        self.preparing: set[tuple[str, int, int]] = set()  # (kind, around, epoch) of the jobs on their way
        self.epoch = 0


    # What the desk shows ---------------------------------------------------------------------------------------------

    @property
    def recheck(self) -> bool:
        return self.order == "recheck"

    @property
    def blindness(self) -> Blindness:
        """What blind first shows, as the desk is set now: every event saved records what it shows."""
        seed = self.run.order_seed if self.run else 0
        return Blindness(self.show_judge, self.recheck, self.reveal_share, seed, self.person)

    @property
    def mode(self) -> str:
        """The mode the top bar names: adjudicate, or the one a grade is recorded in."""
        return "adjudicate" if self.adjudicating else self.blindness.mode(self.item.question_pk if self.item else None)

    @property
    def seq(self) -> int:
        """The newest request for an item: an answer to an older one shows nothing."""
        return self._seq

    def answer_at(self, side: str) -> AnswerView | None:
        return self.item.at(side) if self.item else None

    def judge_visible(self, answer: AnswerView | None, item: Item | None = None) -> bool:
        """Blind first: whether `answer`'s machine grade shows, on the item shown (or on `item`, a neighbour)."""
        return self.blindness.answer_judge(item or self.item, answer)

    def methods_visible(self, item: Item | None = None) -> bool:
        item = item or self.item
        return not self.hide_methods or (item is not None and item.fully_graded)

    def scorers_visible(self, answer: AnswerView | None) -> bool:
        due = answer is not None and answer.claims is not None and answer.claims.scorers_due
        return self.blindness.scorers(due=due)

    @property
    def machine_name(self) -> str:
        """What grades this run's answers, named as what it is ('rule grader', 'judge'): the kind the figures compare
        with, else the item's, else 'machine grader'."""
        if self.progress is not None and self.progress.kind:
            return MACHINE_NAMES.get(self.progress.kind, self.progress.kind)
        views = [self.item.at(side) for side in SIDES] if self.item else []
        kinds = sorted({v.machine.kind for v in views if v is not None and v.machine is not None})
        return " / ".join(MACHINE_NAMES.get(k, k) for k in kinds) or "machine grader"
    # Opening ---------------------------------------------------------------------------------------------------------

    def open(self) -> Job[Opening]:
        """Open the run where the person stopped (or a recheck pass, or the adjudication queue)."""
        run_id, person, (recheck, budget), adjudicate = self.run_id, self.person, self._opening, self.adjudicating
        return Job("open the run", lambda store: open_desk(store, run_id, person, recheck, budget=budget,
                                                             adjudicate=adjudicate))

    def opened(self, opening: Opening) -> list[str]:
        """Take the opened desk in; what to tell the person about it."""
        settings, (show_judge, hide_methods) = opening.settings, self._asked
        self.run, self.filters, self.order, self.order_list = (opening.run, opening.filters, opening.order,
                                                               opening.order_list)
        self.show_judge = show_judge if show_judge is not None else bool(settings.get("show_judge"))
        self.hide_methods = hide_methods if hide_methods is not None else bool(settings.get("hide_methods"))
        self.judge_rubric = opening.judge_rubric
        self.item = opening.item
        notes = []
        if self.order == "recheck" and not self.order_list:
            notes.append("recheck: nothing graded yet in this run, so nothing to re-check")
            self.order = "question"
        if self.order == "adjudicate" and not self.order_list:
            notes.append("nothing to adjudicate: no item's assigned people disagree (that you may see)")
        if self.hide_methods and hide_methods is None:  # sticky: say why, and how to undo it
            notes.append("method names hidden, as you left your last desk (command palette: Show method names)")
        return notes

    # Loading items ---------------------------------------------------------------------------------------------------

    def load(self, find: Find, *, empty: str, how: str | None = None, clear_when_empty: bool = False,
             write: Write | None = None) -> Job[Shown] | None:
        """A job that runs `find` (which may write first: a grade, an undo) and loads the item it names, in one job, so
        what is shown is what the write left. None while the run is still opening."""
        if self.run is None:
            return None
        self._seq += 1
        request = Request(self._seq, empty, how, clear_when_empty, write)
        found = self.finder(find)

        def fn(store: Store) -> Shown:
            return Shown(request, *found(store))
        return Job("load item" if write is None else f"save {write.what}", fn)

    def reload(self) -> Job[Shown] | None:
        """Load the item shown again (the desk's settings changed what it holds)."""
        if self.item is None:
            return None
        pk = self.item.question_pk
        return self.load(lambda store: pk, empty="the item vanished from the store")

    def finder(self, find: Find) -> Callable[[Store], tuple[Item | None, Target]]:
        """`find` and the load of the item it names, as the desk is set now (a function of the store that carries
        every value it needs: by the time it runs, the desk may show another item)."""
        load = self.loader()
        return lambda store: load(store, find)

    def loader(self) -> Callable[[Store, Find], tuple[Item | None, Target]]:
        """Run a find and load the item it names, as the desk is set now (see `finder`)."""
        run, person, recheck, rubric, adjudicate = self.run, self.person, self.recheck, self.judge_rubric, \
            self.adjudicating
        assert run is not None

        def fn(store: Store, find: Find) -> tuple[Item | None, Target]:
            found = find(store)
            target = found if isinstance(found, Target) else Target(found)
            item = None if target.question_pk is None else load_item(
                store, run, person, target.question_pk, recheck=recheck, judge_rubric=rubric, adjudicate=adjudicate)
            return item, target
        return fn

    def chain(self, kind: str, question_pk: int) -> Iterator[Prepared]:
        """The neighbours of `kind` prepared from question `question_pk` on, each around the item of the one before:
        what keys of `kind` reach from there by swaps alone (AHEAD at most). It ends at the first not prepared, and
        after one at the end of the list (no item, or the item it was prepared around)."""
        at = question_pk
        for _ in range(AHEAD):
            n = self.ready.get((at, kind))
            if n is None:
                return
            yield n
            if n.item is None or n.item.question_pk == at:
                return
            at = n.item.question_pk

    def ahead_of(self, question_pk: int) -> dict[tuple[int, str], Prepared]:
        """The neighbours prepared that keys can reach from question `question_pk` by swaps alone: of each kind, the
        one around it, the one around that one's item, and so on (AHEAD at most), nearest first."""
        chains = [list(self.chain(kind, question_pk)) for kind in dict.fromkeys(kind for _, kind in self.ready)]
        out = {}
        for depth in range(AHEAD):
            for found in chains:
                if depth < len(found):
                    out[(found[depth].around, found[depth].kind)] = found[depth]
        return out

    def forget(self) -> None:
        """Something changed that may move the order or an item: the neighbours prepared are dropped, and any still
        being prepared will be too."""
        self.epoch += 1
        self.ready.clear()
        self.preparing.clear()

    def landed(self, shown: Shown) -> Landed:
        """Take a Shown answer in: the item it loaded becomes the one shown, unless a newer request is on its way."""
        request, target, item = shown.request, shown.target, shown.item
        if request.write is not None and request.write in self.unsaved:
            self.unsaved.remove(request.write)
        recount = request.write is not None
        if request.seq != self._seq:  # a newer request is on its way
            return Landed(target.note, False, recount=recount)
        if item is None:
            if request.clear_when_empty:
                self.item = None
            return Landed(target.note or request.empty, request.clear_when_empty, recount=recount)
        if request.how is not None or self.item is None or item.question_pk != self.item.question_pk:
            self.reached = (request.how or self._navigation(), target.probability)
        if self.item is None or item.question_pk != self.item.question_pk:  # what was prepared around the items left
            self.ready = self.ahead_of(item.question_pk)
            reached = {(n.kind, n.item.question_pk) for n in self.ready.values() if n.item is not None}
            self.preparing = {p for p in self.preparing if p[1] == item.question_pk or (p[0], p[1]) in reached}
        self.item = item
        if item.question_pk in self.order_list:
            self.order_index = self.order_list.index(item.question_pk)
        return Landed(target.note, True, target.undone_answer, recount)

    def _navigation(self) -> str:
        """How an item reached by stepping was chosen: the recheck sample, a filter, or the run's question order."""
        if self.recheck:
            return "recheck"
        return "filter" if self.filters != Filters() else "question_order"
