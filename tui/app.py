"""The grading desk app: `run_desk(store_path, run=None, grader=None)` opens it.

The app owns the store thread (tui/db.py), the one place worker errors are shown (the status line of the screen on top,
plus a notification), and help built from the bindings. Screens hold what is on screen and nothing else; they reach the
app only through the `Desk` protocol (tui/desk_protocol.py), and declare their own command-palette providers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import WorkerState

from gradedesk.core.config import grader_name
from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store

from gradedesk.tui.db import Job, JobDone, JobFailed, StoreThread
from gradedesk.tui.desk_protocol import DeskConfig
from gradedesk.tui.screens.grading import GradingScreen
from gradedesk.tui.screens.help import HelpScreen
from gradedesk.tui.widgets.status_line import StatusLine

__all__ = ["DeskApp", "DeskConfig", "run_desk"]


class DeskApp(App):
    TITLE = "gradedesk"
    CSS_PATH = "desk.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("question_mark", "help", "help", key_display="?", id="app.help"),
        Binding("ctrl+q", "quit", "quit", id="app.quit", priority=True),
    ]

    def __init__(self, config: DeskConfig) -> None:
        super().__init__()
        self.config = config
        self.store_thread = StoreThread(config.store_path)
        self.last_status = ""
        self.quitting = False
        self._flushes: list[Callable[[], None]] = []

    def on_mount(self) -> None:
        self._run_store_thread()
        self.push_screen(GradingScreen(self))

    @work(thread=True, name="store", exit_on_error=False)
    def _run_store_thread(self) -> None:
        self.store_thread.run(self.post_message)

    # Store jobs ------------------------------------------------------------------------------------------------------

    def submit(self, what: str, fn: Callable[[Store], Any], on_done: Callable[[Any], Any] | None = None) -> None:
        self.store_thread.submit(Job(what, fn, on_done))

    def on_job_done(self, message: JobDone) -> None:
        if message.job.on_done is not None:
            message.job.on_done(message.result)

    def on_job_failed(self, message: JobFailed) -> None:
        error = message.error
        text = str(error) if isinstance(error, UserError) else f"{message.job.what} failed: {type(error).__name__}: {error}"
        self.report(text, error=True)
        if self.quitting:  # the store failed while saving the position: leave anyway, grades are committed
            self.exit()

    def on_worker_state_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            what = "the store could not be used" if event.worker.name == "store" else f"{event.worker.name} failed"
            self.report(f"{what}: {event.worker.error}", error=True)

    def report(self, text: str, *, error: bool = False) -> None:
        """The one place messages and errors are shown: the status line, and a notification for errors."""
        self.last_status = text
        for status in self.screen.query(StatusLine):  # none when a modal or another screen is on top
            status.show_message(text, error=error)
        if error:
            self.notify(Text(text), title="error", severity="error", markup=False)

    def on_quit(self, flush: Callable[[], None]) -> None:
        self._flushes.append(flush)

    async def action_quit(self) -> None:
        """Let the screens store what they keep (where the grader stopped), then leave once the store thread has run
        every job before (it runs them in order). Grades are already committed, one per key press."""
        self.quitting = True
        for flush in self._flushes:
            flush()
        self.submit("leave", lambda store: None, lambda _: self.exit())

    @property
    def idle(self) -> bool:
        """No store job queued or running, and no other worker (highlighting) busy: tests and benchmarks wait on it."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        return self.store_thread.idle and not any(w.state in busy for w in self.workers if w.name != "store")

    # Help ------------------------------------------------------------------------------------------------------------

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        bindings = [(b.binding, b.enabled) for b in self.active_bindings.values()]
        self.push_screen(HelpScreen(bindings))


def run_desk(store_path: str | Path, run: str | int | None = None, grader: str | None = None, *,
             show_judge: bool | None = None, hide_methods: bool | None = None, recheck: float | None = None) -> None:
    """Check the store and run, then open the desk. Problems raise UserError (one line, before the screen opens)."""
    from gradedesk.core.store.runs import resolve_run
    from gradedesk.core.store.connection import open_store

    if recheck is not None and not 0 < recheck <= 1:
        raise UserError(f"--recheck: {recheck!r} is not a share between 0 and 1 (e.g. 0.1)")
    path = Path(store_path)
    with open_store(path, create=False) as store:
        run_id = resolve_run(store, run)
    config = DeskConfig(path, run_id, grader or grader_name(), show_judge=show_judge,
                        hide_methods=hide_methods, recheck=recheck, recheck_share=recheck or 0.1)
    DeskApp(config).run()
