"""The desk's one door to store.db: a thread worker that runs store jobs in order and answers with messages.

Screens never touch SQLite. They submit a job (a function of the Store) with a callback; the store thread runs jobs one
at a time, in submission order (so a grade is committed before the item is reloaded), on its own connection, and posts
`JobDone` or `JobFailed` to the app. The app calls the callback on the UI thread, or shows the error in one place and
keeps going. The worker never touches widgets.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.worker import get_current_worker

from gradedesk.core.store.connection import Store, StoreError, open_store


@dataclass(frozen=True)
class Job:
    what: str  # for error messages: "save grade", "load item", ...
    fn: Callable[[Store], Any]
    on_done: Callable[[Any], None] | None = None
    holds_keys: bool = True  # keys wait until it has answered (tui/keygate.py); progress counts do not hold them


class JobDone(Message):
    def __init__(self, job: Job, result: Any) -> None:
        super().__init__()
        self.job = job
        self.result = result


class JobFailed(Message):
    def __init__(self, job: Job, error: BaseException) -> None:
        super().__init__()
        self.job = job
        self.error = error


class JobWaiting(Message):
    """A job the store refused for now (locked, read-only, full): it is retried, in order, until the store takes it."""

    def __init__(self, job: Job, error: BaseException) -> None:
        super().__init__()
        self.job = job
        self.error = error


RETRY_EVERY = 0.5  # seconds between tries of a job the store refused for now


class StoreThread:
    """Owns the store connection; `run` is the body of the app's thread worker."""

    def __init__(self, store_path: Path, *, delay: float = 0.0) -> None:
        self.store_path = store_path
        self.delay = delay  # seconds before each job: tests and benchmarks slow the store on purpose
        self._jobs: queue.Queue[Job] = queue.Queue()
        self._pending = 0
        self._lock = threading.Lock()

    def submit(self, job: Job) -> None:
        with self._lock:
            self._pending += 1
        self._jobs.put(job)

    @property
    def idle(self) -> bool:
        """No job queued or running (tests and benchmarks wait for this)."""
        with self._lock:
            return self._pending == 0

    def run(self, post: Callable[[Message], Any]) -> None:
        worker = get_current_worker()
        store = open_store(self.store_path, create=False)
        try:
            while not worker.is_cancelled:
                try:
                    job = self._jobs.get(timeout=0.05)
                except queue.Empty:
                    continue
                try:
                    if self.delay:
                        time.sleep(self.delay)
                    post(JobDone(job, self._until_stored(job, store, post, worker)))
                except Exception as exc:  # shown by the app's one error handler; the desk keeps going
                    post(JobFailed(job, exc))
                finally:
                    with self._lock:
                        self._pending -= 1
        finally:
            store.close()

    @staticmethod
    def _until_stored(job: Job, store: Store, post: Callable[[Message], Any], worker: Any) -> Any:
        """Run the job; while the store refuses it for now, say so once and try again. The jobs after it wait
        (they run in order), so a grade typed during a lock is never dropped nor stored before an earlier one."""
        said = False
        while True:
            try:
                return job.fn(store)
            except StoreError as exc:
                if not exc.transient or worker.is_cancelled:
                    raise
                if not said:
                    post(JobWaiting(job, exc))
                    said = True
                time.sleep(RETRY_EVERY)
