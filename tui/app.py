"""The grading desk app: `run_desk(store_path, run=None, grader=None)` opens it.

The app owns the store thread (tui/db.py), the gate that makes type-ahead exact (tui/keygate.py), the one place worker
errors are shown (the status line of the screen on top, plus a notification), and help built from the bindings. Screens hold what is on screen and nothing else; they reach the
app only through the `Desk` protocol (tui/desk_protocol.py), and declare their own command-palette providers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from gradedesk.core.config import grader_name
from gradedesk.core.errors import UserError
from gradedesk.core.review.session import Job

from gradedesk.tui.db import Answer, JobFailed, JobWaiting, Left, Request, StoreThread
from gradedesk.tui.desk_protocol import DeskConfig
from gradedesk.tui.idle_work import IdleWork
from gradedesk.tui.keygate import STUCK_AFTER, KeyDone, KeyGate, KeysCaughtUp
from gradedesk.tui.screens.grading import GradingScreen
from gradedesk.tui.screens.help import HelpScreen
from gradedesk.tui.screens.name import NameScreen
from gradedesk.tui.widgets.literal import clean
from gradedesk.tui.widgets.status_line import StatusLine

__all__ = ["DeskApp", "DeskConfig", "run_desk", "run_explore"]

R = TypeVar("R")
CLOSE_WAIT = 2.0  # seconds the app waits, as it ends, for the store thread's last jobs


class DeskApp(App):
    TITLE = "gradedesk"
    CSS_PATH = "desk.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("question_mark", "help", "help", key_display="?", id="app.help"),
        Binding("ctrl+q", "quit", "quit", id="app.quit", priority=True),
    ]

    def __init__(self, config: DeskConfig, first: Callable[[DeskApp], Screen] | None = None, *,
                 driver_class: type[Driver] | None = None) -> None:
        super().__init__(driver_class=driver_class)
        self.config = config
        self._first = first or GradingScreen  # the screen it opens on: the grading desk, or explore
        self.store_thread = StoreThread(config.store_path, delay=config.job_delay)
        self.gate = KeyGate()
        self._key_screen: Screen | None = None  # the screen on top when the travelling key was let through
        self._stuck_timer: Timer | None = None
        self.last_status = ""
        self.quitting = False
        self._flushes: list[Callable[[], None]] = []
        self._waited = False  # a write was refused for a while and retried (tui/db.py): messages say so
        self._store_worker: Worker[None] | None = None
        self._asks_name = config.ask_name  # served: a name refused goes back to the name screen

    def on_mount(self) -> None:
        self._store_worker = self._run_store_thread()
        if self.config.ask_name:
            self._ask_name()
        else:
            self.push_screen(self._first(self))

    def _ask_name(self, problem: str = "") -> None:
        self.push_screen(NameScreen(f"gradedesk · run {self.config.run_id}", blink=self.config.cursor_blink,
                                    problem=problem), self._named)

    def _named(self, name: str | None) -> None:
        self.config = replace(self.config, grader=name or "", ask_name=False)
        self.push_screen(GradingScreen(self))

    def refused(self, reason: str) -> None:
        if self._asks_name:  # served: the person stays, and types another name (or waits for theirs to be free)
            self.pop_screen()
            self._ask_name(reason)
        else:
            self.exit(return_code=2, message=reason)

    @work(thread=True, name="store", exit_on_error=False)
    def _run_store_thread(self) -> None:
        self.store_thread.run(self.post_message)

    async def on_unmount(self) -> None:
        """The desk ends: let the store thread run its last jobs (the lease freed) and close, before the process or
        the next desk goes on (a thread worker is only told to stop)."""
        if self._store_worker is None:
            return
        self._store_worker.cancel()
        await asyncio.to_thread(self.store_thread.closed.wait, CLOSE_WAIT)

    # Store jobs ------------------------------------------------------------------------------------------------------

    def submit(self, answer: type[Answer[R]], job: Job[R] | None, on_done: Callable[[R], object] | None = None, *,
               on_failed: Callable[[BaseException], object] | None = None) -> None:
        if job is None:
            return
        if job.holds_keys:
            self.gate.holds += 1
        self.store_thread.submit(Request(job, answer, on_done, on_failed))

    async def on_answer(self, message: Answer[Any]) -> None:
        """Every job's typed answer (tui/db.py): its callback runs here, on the UI thread."""
        if message.request.on_done is not None:
            message.request.on_done(message.result)
        if self._waited:  # after the job's own message: the writes typed during the wait were kept, and say so
            shown, waited = self.last_status, " (after waiting for the store)"
            if not shown.endswith(waited):
                self.report(f"{shown}{waited}" if shown else "saved after waiting for the store")
            # until the typed-ahead keys are in: one still travelling to its binding has not submitted its job yet
            self._waited = not self.gate.idle or not self.store_thread.idle
        await self._release(message.request.job)

    def on_job_waiting(self, message: JobWaiting) -> None:
        """A write the store refused for now: it is retried in order; nothing typed after it is stored before it."""
        self._waited = True
        self.report(f"not saved yet: retrying ({message.error})", error=False)

    async def on_job_failed(self, message: JobFailed) -> None:
        error, job = message.error, message.request.job
        text = str(error) if isinstance(error, UserError) else f"{job.what} failed: {type(error).__name__}: {error}"
        self.report(text, error=True)
        if message.request.on_failed is not None:
            message.request.on_failed(error)
        if self.quitting:  # the store failed while saving the position: leave anyway, grades are committed
            self.exit()
        await self._release(job)

    async def on_worker_state_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            what = "the store could not be used" if event.worker.name == "store" else f"{event.worker.name} failed"
            self.report(f"{what}: {event.worker.error}", error=True)
            if event.worker.name == "store":  # no job will ever answer: keys stop waiting for them
                self.gate.holds = 0
                await self._let_waiting_through()
                self._caught_up()

    # Keys: exact type-ahead (tui/keygate.py) -------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            if not event.is_forwarded:  # a new key
                if self.gate.idle:
                    await self._let_through(event)
                else:
                    self.gate.waiting.append(event)
                    self.gate.backlog = True
                return
            await super().on_event(event)  # back from the focused widget: the bindings run now
            await self._done(event)
            return
        await super().on_event(event)

    async def _let_through(self, key: events.Key) -> None:
        self.gate.travelling, self._key_screen = key, self.screen
        if self._stuck_timer is not None:
            self._stuck_timer.stop()
        self._stuck_timer = self.set_timer(STUCK_AFTER, lambda: self._done(key))
        target = self.focused or self.screen
        await super().on_event(key)  # priority bindings run here; any other key goes on to `target`
        if key.is_forwarded:
            target.post_message(KeyDone(key))
        else:  # handled already; the caller lets the next one through (no recursion, however many keys wait)
            await self._done(key, let_waiting_through=False)

    async def on_key_done(self, message: KeyDone) -> None:
        await self._done(message.key)

    async def _done(self, key: events.Key, *, let_waiting_through: bool = True) -> None:
        if self.gate.travelling is not key:
            return
        if self.screen is not self._key_screen:  # the key opened or closed a screen: the next key is for that
            # screen, once it has mounted and taken focus (it handles this message after those)
            self._key_screen = self.screen
            self.screen.post_message(KeyDone(key))
            return
        self.gate.travelling = None
        if self._stuck_timer is not None:
            self._stuck_timer.stop()
            self._stuck_timer = None
        self._caught_up()
        if let_waiting_through:
            await self._let_waiting_through()

    def _caught_up(self) -> None:
        """Once keys have waited, tell the screens when the last of them is done, its store job too (an item drawn
        while the job of a key after it is in flight would be left as soon as drawn: tens of milliseconds lost)."""
        if self.gate.backlog and self.gate.idle:
            self.gate.backlog = False
            for screen in self.screen_stack:
                screen.post_message(KeysCaughtUp())

    async def _release(self, job: Job[Any]) -> None:
        if job.holds_keys:
            self.gate.holds -= 1
            await self._let_waiting_through()
            self._caught_up()

    async def _let_waiting_through(self) -> None:
        while self.gate.waiting and self.gate.open:
            await self._let_through(self.gate.waiting.popleft())

    @property
    def keys_waiting(self) -> bool:
        return bool(self.gate.waiting)

    @property
    def keys_busy(self) -> bool:
        # a key's store job in flight counts: the store thread needs Python's lock between its queries, and work on
        # this thread meanwhile made a 3 ms load of the next item take 75 ms (each query waiting a switch interval)
        return not self.gate.idle

    def report(self, text: str, *, error: bool = False) -> None:
        """The one place messages and errors are shown: the status line, and a notification for errors."""
        self.last_status = text
        for status in self.screen.query(StatusLine):  # none when a modal or another screen is on top
            status.show_message(text, error=error)
        if error:
            self.notify(clean(text), title="error", severity="error", markup=False)

    def at_close(self, last: Callable[[], Job[Any] | None]) -> None:
        self.store_thread.at_close.append(last)

    def on_quit(self, flush: Callable[[], None]) -> None:
        self._flushes.append(flush)

    async def action_quit(self) -> None:
        """Let the screens store what they keep (where the grader stopped), then leave once the store thread has run
        every job before (it runs them in order). Grades are already committed, one per key press."""
        self.quitting = True
        if not self.store_thread.idle:  # writes waiting for the store: the desk leaves once they are stored
            self.report("quitting once the writes still waiting for the store are saved")
        for flush in self._flushes:
            flush()
        self.submit(Left, Job("leave", lambda store: None, holds_keys=False), lambda _: self.exit())

    @property
    def idle(self) -> bool:
        """No key waiting, no store job queued or running, no other worker (highlighting) busy and no work between
        keys left (tui/idle_work.py): tests and benchmarks wait on it."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        return self.gate.idle and self.store_thread.idle and not any(
            w.state in busy for w in self.workers if w.name != "store") and not IdleWork.busy(self)

    def action_help_quit(self) -> None:
        """Ctrl-C does nothing (Textual's default prints how to quit): the footers show `^q quit`."""

    # Help ------------------------------------------------------------------------------------------------------------

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        bindings = [(b.binding, b.enabled) for b in self.active_bindings.values()]
        self.push_screen(HelpScreen(bindings))


def run_desk(store_path: str | Path, run: str | int | None = None, grader: str | None = None, *,
             show_judge: bool | None = None, hide_methods: bool | None = None, recheck: float | None = None,
             reveal_share: float = 0.0, ask_name: bool = False, budget: int | None = None,
             adjudicate: bool = False, driver_class: type[Driver] | None = None) -> None:
    """Check the store and run (and that the run has bundled answers at `budget`), then open the desk (with
    ask_name, on the screen that asks the person's name; served, on `driver_class`). Problems raise UserError (one
    line, before the screen opens)."""
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.leases import LeaseHeld, lease_of
    from gradedesk.core.store.run_records import resolve_run, run_info

    if recheck is not None and not 0 < recheck <= 1:
        raise UserError(f"--recheck: {recheck!r} is not a share between 0 and 1 (e.g. 0.1)")
    if recheck is not None and adjudicate:
        raise UserError("--adjudicate: a recheck pass and adjudication are two passes; give one of them")
    from gradedesk.core.config import ENV_GRADER
    from gradedesk.core.review.grader_names import checked_name

    person = checked_name(grader, "--grader") if grader is not None else checked_name(grader_name(), f"${ENV_GRADER}")
    path = Path(store_path)
    with open_store(path, create=False) as store:
        run_id = resolve_run(store, run)
        if budget is not None:
            run_info(store, run_id).showing(budget)
        if not ask_name and (held := lease_of(store, person)) is not None:  # one live desk per person and store
            raise LeaseHeld(held)
    config = DeskConfig(path, run_id, person, show_judge=show_judge,
                        hide_methods=hide_methods, recheck=recheck, recheck_share=recheck or 0.1,
                        reveal_share=reveal_share, ask_name=ask_name, budget=budget, adjudicate=adjudicate)
    DeskApp(config, driver_class=driver_class).run()


def run_explore(store_path: str | Path, question: str = "", *, repo: str | None = None, budget: int = 2000,
                questions: str | Path | None = None, embedder: Any = None) -> None:
    """Open the explore screen on its own (no run). The store and the repository are checked first (UserError)."""
    from gradedesk.core.index.indexer import resolve_repo
    from gradedesk.core.store.connection import open_store
    from gradedesk.tui.screens.explore import ExploreScreen

    if budget < 1:
        raise UserError(f"--budget: must be a positive number of tokens, got {budget}")
    path = Path(store_path)
    with open_store(path, create=False) as store:
        repo = resolve_repo(store, repo).name
    kept = Path(questions) if questions else None
    config = DeskConfig(path, 0, grader_name())  # explore grades nothing: no run (0), the grader only for the config
    DeskApp(config, lambda desk: ExploreScreen(desk, question, budget=budget, repo=repo, questions=kept,
                                               embedder=embedder)).run()
