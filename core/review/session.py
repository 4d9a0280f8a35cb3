"""The desk session: the one owner of what a person's desk holds (the run and the budget shown, the item on screen,
the order, the filters, what blind first shows, the person), and the one store call behind each desk action. No
textual here: the grading screen draws what the session returns, and tests drive a session directly on a real store.

Every action is two halves. On the UI thread the session plans it (`DeskSession.step`, `.grade`, ...): it reads its
state and returns a `Job[R]`, a function of the Store that carries every value it needs (never "the current item": by
the time it runs, the desk may show another), typed by its result R. The desk runs the job on its store thread (the
one door: tui/db.py) and hands the result back to the session (`DeskSession.landed`, `.opened`, ...), which updates
its state and says what to draw. `run_job(store, job)` runs a job inline, which is how tests and benchmarks drive it.

Writes (grades, labels, scores, notes, preferences, undo, flags) are `Write`s: each joins the session's queue of
unsaved writes, in the order typed, when it is planned, and leaves it when its job's `Shown` answer lands. A job that
failed leaves its write in the queue (`DeskSession.unsaved`), in order, for the desk to retry or report.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from gradedesk.core.grading import human_grades
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.grading.vocabulary import GRADE_LABELS
from gradedesk.core.review import adjudication
from gradedesk.core.review import flags as item_flags
from gradedesk.core.review import queue as review
from gradedesk.core.review.adjudication import adjudication_queue, undo_decision
from gradedesk.core.review.item import MACHINE_NAMES, SIDES, AnswerView, Item, load_item, other_method
from gradedesk.core.review.queue import Filters, Progress, QuestionOrder
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store import grades, preferences
from gradedesk.core.store.answers import answer_row
from gradedesk.core.store.connection import Store
from gradedesk.core.store.leases import RENEW_SECONDS as RENEW_SECONDS
from gradedesk.core.store.leases import Lease, release_lease, renew_lease, take_lease
from gradedesk.core.store.run_records import RunInfo, run_info

R = TypeVar("R")


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



# The desk session ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Job(Generic[R]):
    """One store job of the desk: `what` names it in an error ('save grade'), `run` is called on the store thread with
    the desk's Store. `holds_keys`: keys typed ahead wait for its answer (tui/keygate.py), since it changes what the
    next key acts on; counting and saving where the person is change nothing a key acts on."""
    what: str
    run: Callable[[Store], R]
    holds_keys: bool = True


def run_job(store: Store, job: Job[R]) -> R:
    """Run a job inline (tests and benchmarks drive a session this way; the desk runs it on its store thread)."""
    return job.run(store)


@dataclass(frozen=True)
class Target:
    """What a job's find step chose: the question to show (None: none), what the action had to say, a sampled item's
    draw probability, the answer whose grade `u` took back (the desk focuses it: the next grade key is for it)."""
    question_pk: int | None
    note: str | None = None
    probability: float | None = None
    undone_answer: int | None = None


Find = Callable[[Store], "Target | int | None"]


@dataclass(frozen=True, eq=False)
class Write:
    """One thing the person saved (a grade, label, scores, note, preference, undo, flag), bound to the question it was
    typed for. `save` stores it in one transaction and says, as a Target, what was saved and which item to show."""
    what: str
    question_pk: int | None
    save: Find


@dataclass(frozen=True)
class Request:
    """What a job that shows an item was asked: its sequence number (an older answer never overrides a newer one),
    what to say when nothing is found, how the person reached it ('jump', 'sampled'; None: the order says), whether
    the screen is left empty then (filters that match nothing), and the write it carries (its figures change)."""
    seq: int
    empty: str
    how: str | None = None
    clear_when_empty: bool = False
    write: Write | None = None


@dataclass(frozen=True)
class Shown:
    """The typed answer of every move and every write: the item loaded (None: nothing found) and the find's Target."""
    request: Request
    item: Item | None
    target: Target


@dataclass(frozen=True)
class Landed:
    """What the desk does once a Shown answer is taken in: say `message`; draw the session's item when `show` (False:
    nothing new, or a newer request is on its way); focus the answer `focus_answer` (an id); count the figures again
    when `recount` (a write changed them)."""
    message: str | None
    show: bool
    focus_answer: int | None = None
    recount: bool = False


@dataclass(frozen=True)
class Refreshed:
    """A look for other desks' writes: the store's data_version now, whether it moved since the last look, and the
    item shown loaded again when it did (None otherwise). `seq`: the newest request when the look was planned."""
    seq: int
    data_version: int
    changed: bool
    item: Item | None


Plan = Job[Shown] | str | None  # a move's job, or why it does nothing (said in the status line), or nothing to do


@dataclass(frozen=True)
class RecheckPlan:
    """A recheck pass first draws its sample of graded questions (`DeskSession.rechecked` then shows the first)."""
    job: Job[list[int]]

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


class DeskSession:
    """A person's desk on one run of a store: what it shows and the store job behind each action (see the module)."""

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

    def judge_visible(self, answer: AnswerView | None) -> bool:
        return self.blindness.answer_judge(self.item, answer)

    def methods_visible(self) -> bool:
        return not self.hide_methods or (self.item is not None and self.item.fully_graded)

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
        run, person, recheck, rubric, adjudicate = self.run, self.person, self.recheck, self.judge_rubric, \
            self.adjudicating

        def fn(store: Store) -> Shown:
            found = find(store)
            target = found if isinstance(found, Target) else Target(found)
            item = None if target.question_pk is None else load_item(
                store, run, person, target.question_pk, recheck=recheck, judge_rubric=rubric, adjudicate=adjudicate)
            return Shown(request, item, target)
        return Job("load item" if write is None else f"save {write.what}", fn)

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
        self.item = item
        if item.question_pk in self.order_list:
            self.order_index = self.order_list.index(item.question_pk)
        return Landed(target.note, True, target.undone_answer, recount)

    def _navigation(self) -> str:
        """How an item reached by stepping was chosen: the recheck sample, a filter, or the run's question order."""
        if self.recheck:
            return "recheck"
        return "filter" if self.filters != Filters() else "question_order"

    def _write(self, what: str, question_pk: int, save: Find) -> Job[Shown] | None:
        write = Write(what, question_pk, save)
        job = self.load(save, empty="the item vanished from the store", write=write)
        if job is not None:
            self.unsaved.append(write)
        return job

    # Moving ----------------------------------------------------------------------------------------------------------

    def show_question(self, question_pk: int, how: str | None = "jump") -> Job[Shown] | None:
        return self.load(lambda store: question_pk, empty=f"question {question_pk} is not in this run", how=how)

    def reload(self) -> Job[Shown] | None:
        if self.item is None:
            return None
        pk = self.item.question_pk
        return self.load(lambda store: pk, empty="the item vanished from the store")

    def open_from_queue(self, question_pk: int, filters: Filters) -> Job[Shown] | None:
        """The item chosen in the queue, under the filters the queue ended with (new ones: question order)."""
        if filters != self.filters:
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
        self.filters, self.order = filters, "question"
        run, person, rubric = self.run, self.person, self.judge_rubric
        if run is None:
            return None
        return self.load(lambda store: review.neighbour(store, run, person, filters, None, judge_rubric=rubric),
                         empty=f"no item matches filters: {filters.describe(self.machine_name)}", clear_when_empty=True)

    def _in_order(self, filters: Filters, forward: bool, wrap: str | None = None) -> Find:
        """The next item in question order; `wrap` (what is looked for, e.g. 'disagreement'): from the start at the
        end, saying so."""
        run, person, rubric = self.run, self.person, self.judge_rubric
        cur = self.item.question_pk if self.item else None
        assert run is not None
        return lambda store: _said(next_in_order(store, run, person, filters, cur, forward, wrap is not None, rubric),
                                   cur, wrap or "")

    def _in_list(self, wanted: Callable[[Item], bool], what: str) -> Find:
        run, person, recheck, start, pks = self.run, self.person, self.recheck, self.order_index, list(self.order_list)
        rubric, cur, adjudicate = self.judge_rubric, self.item.question_pk if self.item else None, self.adjudicating
        assert run is not None
        return lambda store: _said(next_in_list(store, run, person, pks, start, wanted, recheck=recheck,
                                                judge_rubric=rubric, adjudicate=adjudicate), cur, what)

    def draw(self) -> Job[Shown] | None:
        """The sampler's next draw (core/review/sampler.py): stored with its probability, graded ones count again."""
        run, person, rubric = self.run, self.person, self.judge_rubric
        if run is None:
            return None

        def find(store: Store) -> Target:
            d = draw_next(store, run, person, judge_rubric=rubric)
            return Target(d.question_pk, probability=d.probability) if d else Target(None)
        return self.load(find, empty="every question of this run is graded", how="sampled")

    def step(self, step: int) -> Plan:
        """j (1) or k (-1): along the order the top bar names."""
        if self.order == "most_useful":
            return self.draw() if step > 0 else "most useful order draws items: j draws the next, there is no earlier one"
        if self.order != "question":
            if not self.order_list:
                return None
            index = self.order_index + step
            if not 0 <= index < len(self.order_list):
                return "end of the list" if step > 0 else "start of the list"
            self.order_index = index
            return self.show_question(self.order_list[index], how=None)
        if self.run is None:
            return None
        return self.load(self._in_order(self.filters, step > 0), empty="no more items" if step > 0 else "no earlier items")

    def next_ungraded(self) -> Plan:
        if self.order == "most_useful":
            return self.draw()
        if self.run is None:
            return None
        if self.order != "question":
            return self.load(self._in_list(lambda item: not item.fully_graded, "ungraded item"),
                             empty="everything in this list is graded")
        return self.load(self._in_order(replace(self.filters, status="ungraded"), True, "ungraded item"),
                         empty="no ungraded item left (with these filters)")

    def next_disagreement(self) -> Plan:
        if self.run is None:
            return None
        if self.order != "question":
            return self.load(self._in_list(disagrees, "disagreement"), empty="no disagreement in this list")
        return self.load(self._in_order(replace(self.filters, status="disagreeing"), True, "disagreement"),
                         empty=f"no disagreement with the {self.machine_name} (with these filters)")

    def set_order(self, order: str) -> RecheckPlan | Plan:
        """Question order or most useful first move at once; a recheck pass first draws its sample (`rechecked`)."""
        run, person, share = self.run, self.person, self.recheck_share
        if run is None:
            return None
        if order in ("question", "most_useful"):
            self.order, self.order_list, self.order_index = order, [], 0
            return self.draw() if order == "most_useful" else self.reload()
        return RecheckPlan(Job(f"order items: {order}", lambda store: recheck_questions(store, run, person, share)))

    def rechecked(self, pks: list[int]) -> Plan:
        """The recheck sample is drawn: show its first item."""
        if not pks:
            return "nothing graded yet to re-check"
        self.order, self.order_list, self.order_index = "recheck", pks, 0
        return self.show_question(pks[0], how="recheck")

    # Writing ---------------------------------------------------------------------------------------------------------

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

    # Settings --------------------------------------------------------------------------------------------------------

    def set_show_judge(self, on: bool) -> str:
        self.show_judge = on
        name = self.machine_name
        return f"{name} shown from the start (open mode)" if on else f"blind first: {name} hidden until graded"

    def set_hide_methods(self, on: bool) -> str:
        self.hide_methods = on
        return ("method names hidden (Answer A / B) until both answers are graded; kept for your next desk: "
                "undo in the command palette" if on else "method names shown")

    def set_judge_rubric(self, version: str | None) -> tuple[str, Job[Shown] | None]:
        """Show the judge's verdicts under this rubric version (None: the newest); blind first still decides when."""
        self.judge_rubric = version
        return (f"judge verdicts under rubric {version}" if version else "judge verdicts: the newest"), self.reload()

    def set_budget(self, budget: int) -> str:
        """Show raw beside the bundled answer at `budget`; the desk then counts, orders and reloads anew."""
        if self.run is not None:
            self.run = self.run.showing(budget)
            self.total = None  # counted again for this budget's shown answers
            self.progress = None
        return f"raw beside the bundled answer at {budget:,} tokens"

    # One live desk per person and store; other desks' writes -------------------------------------------------------

    def take_lease(self) -> Job[Lease]:
        """Take the person's lease (core/store/leases.py): LeaseHeld, a one-line refusal saying where the other desk
        runs, when another live desk under this name holds it."""
        person, holder, run_id = self.person, self.holder, self.run_id
        return Job("take the desk's lease", lambda store: take_lease(store, person, holder, run_id))

    def renew_lease(self) -> Job[bool] | None:
        lease = self.lease
        return None if lease is None else Job("renew the desk's lease", lambda store: renew_lease(store, lease),
                                              holds_keys=False)

    def release_lease(self) -> Job[None] | None:
        lease, self.lease = self.lease, None
        return None if lease is None else Job("release the desk's lease", lambda store: release_lease(store, lease),
                                              holds_keys=False)

    def watch(self) -> Job[Refreshed] | None:
        """Look whether another desk (or a command) wrote to the store since the last look (Store.data_version:
        this desk's own writes do not move it); if so, load the item shown again. In the background: keys never wait
        for it, and an answer overtaken by a move is dropped (`refreshed`)."""
        if self.run is None:
            return None
        seq, before, run, person = self._seq, self._data_version, self.run, self.person
        recheck, rubric, adjudicate = self.recheck, self.judge_rubric, self.adjudicating
        pk = self.item.question_pk if self.item else None

        def look(store: Store) -> Refreshed:
            version = store.data_version()
            if before is None or version == before or pk is None:
                return Refreshed(seq, version, before is not None and version != before, None)
            return Refreshed(seq, version, True, load_item(store, run, person, pk, recheck=recheck,
                                                            judge_rubric=rubric, adjudicate=adjudicate))
        return Job("look for other desks' writes", look, holds_keys=False)

    def refreshed(self, refreshed: Refreshed) -> bool:
        """Take a look's answer in; True when the item shown changed under the desk (draw it again)."""
        self._data_version = refreshed.data_version
        item = refreshed.item
        if item is None or refreshed.seq != self._seq or self.item is None or self.item.question_pk != item.question_pk:
            return False
        changed = item != self.item
        self.item = item
        return changed

    # Counting and where the person is -------------------------------------------------------------------------------

    def count_total(self) -> Job[int] | None:
        run, person = self.run, self.person
        return None if run is None else Job("count answers", lambda store: review.count_shown(store, run, person),
                                            holds_keys=False)

    def order_questions(self) -> Job[QuestionOrder] | None:
        run, person = self.run, self.person
        return None if run is None else Job("order the questions",
                                            lambda store: review.question_order(store, run, person), holds_keys=False)

    def count(self) -> Job[Progress] | None:
        """The person's figures, counted again (once the answers shown are counted)."""
        run, person, total = self.run, self.person, self.total
        if run is None or total is None:
            return None
        return Job("count grades", lambda store: review.progress(store, run, person, total), holds_keys=False)

    def save_state(self) -> Job[None] | None:
        """Store where the person is, with the filters and settings (a recheck pass does not move it)."""
        if self.recheck or self.run is None:
            return None
        run, person, pk = self.run, self.person, self.item.question_pk if self.item else None
        settings = {"filters": self.filters.to_dict(), "show_judge": self.show_judge,
                    "hide_methods": self.hide_methods, "judge_rubric": self.judge_rubric, "budget": run.bundle_budget}
        return Job("save desk state", lambda store: review.save_desk_state(store, person, run.id, pk, settings),
                   holds_keys=False)


def _said(found: tuple[int | None, bool], current: int | None, what: str) -> Target:
    """The item found, and when the search went round from the end to the start, a note saying so: a silent wrap looks
    like a new item."""
    pk, wrapped = found
    if pk is None or not wrapped:
        return Target(pk)
    if pk == current:
        return Target(pk, f"this is the only {what}")
    return Target(pk, f"wrapped round from the last {what} to the first")
