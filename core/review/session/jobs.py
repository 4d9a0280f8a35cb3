"""The desk's store jobs and their typed answers: a `Job[R]` is a function of the Store typed by its result R, run on
the desk's store thread (tui/db.py) or inline (`run_job`); `Shown` is the answer of every move and every write, and
`Landed` what the desk does once it is taken in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from gradedesk.core.review.item import Item
from gradedesk.core.store.connection import Store

R = TypeVar("R")


@dataclass(frozen=True)
class Job(Generic[R]):
    """One store job of the desk: `what` names it in an error ('save grade'), `run` is called on the store thread with
    the desk's Store. `holds_keys`: keys typed ahead wait for its answer (tui/keygate.py), since it changes what the
    next key acts on; counting and saving where the person is change nothing a key acts on."""
    what: str
    run: Callable[[Store], R]
    holds_keys: bool = True
    # asked on the store thread just before the job would run: True skips it, with no answer (a neighbour prepared
    # for an item the person has already left, so that the move they made does not wait behind it)
    stale: Callable[[], bool] | None = None
    # a read done ahead of need (a neighbour prepared): it runs after every other job waiting, and gives way to a job
    # that holds keys submitted while it runs (stopped, then run again unless stale by then), so a key's job never
    # waits behind it
    background: bool = False


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


@dataclass(frozen=True)
class Prepared:
    """A neighbour of the item shown, loaded ahead of its key (`kind`: next, previous, ungraded, disagreement): the
    item and the find's Target, prepared around question `around` at the session's `epoch` (state.py)."""
    kind: str
    around: int
    epoch: int
    item: Item | None
    target: Target


Plan = Job[Shown] | Shown | str | None  # a move's job, its item already loaded (a neighbour prepared ahead: a swap), or
# why it does nothing (said in the status line), or nothing to do


@dataclass(frozen=True)
class RecheckPlan:
    """A recheck pass first draws its sample of graded questions (`DeskSession.rechecked` then shows the first)."""
    job: Job[list[int]]
