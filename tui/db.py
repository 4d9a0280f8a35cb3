"""The desk's one door to store.db: a thread worker that runs store jobs in order and answers with typed messages.

Screens never touch SQLite, and none opens a connection of its own: every screen (the grading desk, the queue, claims,
agreement, team progress, explore) submits a `Job[R]` (core/review/session/: a function of the Store typed by its
result R) together with the message class that carries its answer, one per operation (`ItemShown` carries a
`Shown`, `AgreementComputed` an `AgreementView`, ...), and the callback that takes the answer. The store thread runs
jobs one at a time, in submission order (so a grade is committed before the item is reloaded; reads done ahead of
their key give way: `StoreThread`), on its own connection,
and posts the job's answer message, or `JobFailed`, to the app. The app calls the callback on the UI thread, or shows
the error in one place and keeps going. The worker never touches widgets.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.message import Message
from textual.worker import get_current_worker

from gradedesk.core.review.claim_desk import ClaimMark, ClaimSheet
from gradedesk.core.review.queue import Progress, QuestionOrder, QueueRow
from gradedesk.core.review.session import Job, Lease, Opening, Prepared, Shown
from gradedesk.core.review.session import Refreshed as RefreshedItem
from gradedesk.core.runs.questions import Question
from gradedesk.core.store.connection import Preempted, Store, StoreError, open_store

if TYPE_CHECKING:  # types only: agree's report, the run's headline, the team's progress and explore's retrieval pull
    # in numpy and the compiler, which the desk loads when a screen that shows them first opens (opening the desk
    # waits for none); the last two name answers below as strings, which the lint does not count as a use
    from gradedesk.core.agreement.report import AgreementReport
    from gradedesk.core.evidence.explore import Retrieval  # noqa: F401
    from gradedesk.core.review.team import TeamProgress  # noqa: F401
    from gradedesk.core.runs.headline import Headline

R = TypeVar("R")


class Answer(Message, Generic[R]):
    """A store job's answer, typed by its result. Each operation has its own subclass below; all of them reach the
    app's one handler (`on_answer`), which hands `result` to the job's callback."""

    def __init__(self, request: Request[R], result: R) -> None:
        super().__init__()
        self.request = request
        self.result = result

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.handler_name = "on_answer"  # one handler in the app for every operation's answer


class Opened(Answer[Opening]):
    """The run opened where the person stopped."""


class ItemShown(Answer[Shown]):
    """A move or a write landed: the item to show (core/review/session/ DeskSession.landed takes it in)."""


class Counted(Answer[Progress]):
    """The person's figures for the status line."""


class AnswersCounted(Answer[int]):
    """How many answers the desk shows."""


class QuestionsOrdered(Answer[QuestionOrder]):
    """The run's questions in order ('question 3 of 48')."""


class RecheckDrawn(Answer[list[int]]):
    """A recheck pass's sample of graded questions."""


class NeighbourPrepared(Answer[tuple[Prepared, ...]]):
    """A neighbour of the item shown, loaded ahead of its key (with j's or n's item after it)."""


class StateSaved(Answer[None]):
    """Where the person is, stored."""


class LeaseTaken(Answer[Lease]):
    """The person's lease: this is their one live desk on the store."""


class LeaseRenewed(Answer[bool]):
    """The lease pushed on (False: lost to another desk after it expired)."""


class Refreshed(Answer[RefreshedItem]):
    """A look for other desks' writes, with the item shown loaded again when one came."""


@dataclass(frozen=True)
class AgreementView:
    """What the agreement screen shows: agree's report and the run's headline."""
    report: AgreementReport
    headline: Headline


class AgreementComputed(Answer[AgreementView]):
    """The agreement screen's figures."""


class TeamCounted(Answer["TeamProgress"]):
    """The team's progress."""


class QueuePaged(Answer[list[QueueRow]]):
    """A page of the queue."""


class CategoriesListed(Answer[list[str]]):
    """The run's categories, for the filters."""


class ClaimsOpened(Answer[ClaimSheet]):
    """An answer's claims, where each points, and the person's marks."""


class ClaimMarked(Answer[dict[int, str]]):
    """A claim marked: the person's marks now."""


class ClaimUndone(Answer[tuple[ClaimMark | None, dict[int, str]]]):
    """The newest mark taken back (None: there was none), and the marks now."""


class Retrieved(Answer["Retrieval"]):
    """Explore's hits for a question."""


class QuestionKept(Answer[Question]):
    """Explore kept a question in a benchmark file."""


class Left(Answer[None]):
    """Every job before leaving has run: the desk may close."""


@dataclass(frozen=True)
class Request(Generic[R]):
    """A job as submitted: the job, the message class of its answer, who takes the answer, and who hears of a failure
    (after the app has shown it in its one place: a screen that said 'computing…' says what went wrong instead)."""
    job: Job[R]
    answer: type[Answer[R]]
    on_done: Callable[[R], object] | None = None
    on_failed: Callable[[BaseException], object] | None = None


class JobFailed(Message):
    def __init__(self, request: Request[Any], error: BaseException) -> None:
        super().__init__()
        self.request = request
        self.error = error


class JobWaiting(Message):
    """A job the store refused for now (locked, read-only, full): it is retried, in order, until the store takes it."""

    def __init__(self, job: Job[Any], error: BaseException) -> None:
        super().__init__()
        self.job = job
        self.error = error


RETRY_EVERY = 0.5  # seconds between tries of a job the store refused for now


class StoreThread:
    """Owns the store connection; `run` is the body of the app's thread worker.

    Jobs run one at a time in submission order, except background jobs (`Job.background`: a neighbour read ahead of
    its key), which run only when no other job waits, and which give way to a job that holds keys submitted while they
    run: the store stops their query (Store.preempt) and they run again afterwards, unless stale by then. A key's job
    thus waits for no read ahead (one at a million answers took 50-170 ms, and keys typed in a burst queued behind
    it); the desk's periodic jobs (the watch, the lease) wait for it rather than restart it every time."""

    def __init__(self, store_path: Path, *, delay: float = 0.0) -> None:
        self.store_path = store_path
        self.delay = delay  # seconds before each job: tests and benchmarks slow the store on purpose
        self._jobs: deque[Request[Any]] = deque()
        self._background: deque[Request[Any]] = deque()
        self._running_background = False
        self._store: Store | None = None
        self._pending = 0
        self._lock = threading.Condition()
        self.at_close: list[Callable[[], Job[Any] | None]] = []  # jobs run as the desk ends, however it ends
        self.closed = threading.Event()  # the last jobs have run and the connection is closed

    def submit(self, request: Request[Any]) -> None:
        with self._lock:
            self._pending += 1
            if request.job.background:
                self._background.append(request)
            else:
                self._jobs.append(request)
                if request.job.holds_keys and self._running_background and self._store is not None:
                    self._store.preempt()  # it gives way (under the lock: it is still running, so only its reads stop)
            self._lock.notify()

    @property
    def idle(self) -> bool:
        """No job queued or running (tests and benchmarks wait for this)."""
        with self._lock:
            return self._pending == 0

    def _next(self, timeout: float) -> Request[Any] | None:
        """The next job to run (any other before a background one), or None after `timeout` seconds without one."""
        with self._lock:
            if not self._jobs and not self._background:
                self._lock.wait(timeout)
            queue = self._jobs or self._background
            if not queue:
                return None
            request = queue.popleft()
            self._running_background = request.job.background
            return request

    def _ran(self, request: Request[Any], preempted: bool) -> None:
        with self._lock:
            self._running_background = False
            if preempted:  # again once the jobs it gave way to have run
                self._background.appendleft(request)
            else:
                self._pending -= 1

    def run(self, post: Callable[[Message], Any]) -> None:
        worker = get_current_worker()
        store = open_store(self.store_path, create=False)
        self._store = store
        try:
            while not worker.is_cancelled:
                request = self._next(0.05)
                if request is None:
                    continue
                preempted = False
                try:
                    if request.job.stale is not None and request.job.stale():  # no longer wanted: no answer
                        continue
                    if self.delay:
                        time.sleep(self.delay)
                    if request.job.background:
                        with store.preemptible():
                            result = request.job.run(store)
                    else:
                        result = self._until_stored(request, store, post, worker)
                    post(request.answer(request, result))
                except Preempted:
                    preempted = True
                except Exception as exc:  # shown by the app's one error handler; the desk keeps going
                    post(JobFailed(request, exc))
                finally:
                    self._ran(request, preempted)
        finally:
            self._close(store)

    def _close(self, store: Store) -> None:
        """The last jobs (freeing the desk's lease), run however the desk ends (quit, a closed terminal, a test
        leaving), then the connection closed. A failure here is nobody's to show: the lease expires on its own."""
        try:
            for make in self.at_close:
                job = make()
                if job is not None:
                    job.run(store)
        except Exception:  # the desk is gone: its lease runs out by itself (LEASE_SECONDS)
            pass
        finally:
            store.close()
            self.closed.set()

    @staticmethod
    def _until_stored(request: Request[Any], store: Store, post: Callable[[Message], Any], worker: Any) -> Any:
        """Run the job; while the store refuses it for now, say so once and try again. The jobs after it wait
        (they run in order), so a grade typed during a lock is never dropped nor stored before an earlier one."""
        said = False
        while True:
            try:
                return request.job.run(store)
            except StoreError as exc:
                if not exc.transient or worker.is_cancelled:
                    raise
                if not said:
                    post(JobWaiting(request.job, exc))
                    said = True
                time.sleep(RETRY_EVERY)
