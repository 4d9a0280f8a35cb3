"""What a desk screen may ask of the app: its settings, a store job, a message shown in the one place for messages.

Screens receive the app as a `Desk` and know nothing else of it, so no screen imports the app and the app never reaches
into a screen. `DeskApp` (tui/app.py) is the one implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from gradedesk.core.review.session import Job

if TYPE_CHECKING:
    from gradedesk.tui.db import Answer

R = TypeVar("R")


@dataclass(frozen=True)
class DeskConfig:
    store_path: Path
    run_id: int
    grader: str
    show_judge: bool | None = None  # None: as this grader left it (desk_state)
    hide_methods: bool | None = None
    recheck: float | None = None  # open in a recheck pass over this share of graded items
    recheck_share: float = 0.1  # the share the command palette's recheck uses
    reveal_share: float = 0.0  # a random share of items opened with the judge in view (anchoring is measured)
    cursor_blink: bool = True  # tests switch it off for stable snapshots
    job_delay: float = 0.0  # seconds the store thread waits before each job: tests and benchmarks play a busy machine
    ask_name: bool = False  # the served desk: the person types their name first (tui/screens/name.py)
    budget: int | None = None  # the bundled answer's budget shown beside raw (None: as this grader left it, else the
    # run's largest)
    adjudicate: bool = False  # a lead deciding where assigned people disagree (core/review/adjudication.py)


class Desk(Protocol):
    @property
    def config(self) -> DeskConfig: ...

    def submit(self, answer: type[Answer[R]], job: Job[R] | None, on_done: Callable[[R], object] | None = None, *,
               on_failed: Callable[[BaseException], object] | None = None) -> None:
        """Run the job on the store thread (the one door: tui/db.py), in submission order; its answer comes back as
        an `answer` message and `on_done(result)` then runs on the UI thread. A failure is reported by the app (the
        job's `what` names it), then `on_failed(error)` runs instead of `on_done`. Keys wait until the job has answered (exact type-ahead)
        when it holds keys. None: nothing to do (a session action with nothing to run)."""

    @property
    def keys_waiting(self) -> bool:
        """Keys typed ahead wait to act (tui/keygate.py): what is shown now will be left at once."""

    @property
    def keys_busy(self) -> bool:
        """A key is on its way (handled now, waiting, or its store job in flight): work between keys waits for it
        (tui/idle_work.py)."""

    def report(self, text: str, *, error: bool = False) -> None:
        """Show a message (or an error) in the status line of the screen on top."""

    def refused(self, reason: str) -> None:
        """This desk may not open (another live desk holds the person's name): a terminal desk ends with the reason
        (exit 2); a served desk asks for a name again, showing it."""

    def at_close(self, last: Callable[[], Job[Any] | None]) -> None:
        """Register `last()`: the job it returns runs on the store thread as the desk ends, however it ends (quit, a
        closed terminal), before the store is closed: what must not outlive the desk (its lease)."""

    def on_quit(self, flush: Callable[[], None]) -> None:
        """Register `flush()`, run when the person quits, before the app leaves: it submits the jobs that store what
        must outlive the desk (the app leaves once they have run)."""
