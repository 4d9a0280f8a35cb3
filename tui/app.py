"""The grading desk app: `run_desk(store_path, run=None, grader=None)` opens it.

The app owns the store thread (tui/db.py), the one place worker errors are shown (a status line plus a notification),
help built from the bindings, and the command palette entries. Screens hold what is on screen and nothing else.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import WorkerState

from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store

from gradedesk.tui.db import Job, JobDone, JobFailed, StoreThread
from gradedesk.tui.widgets.literal import literal

AGREEMENT_MODULE = "gradedesk.tui.screens.agreement"  # the agreement engineer's AgreementScreen(store_path, run_id)


@dataclass(frozen=True)
class DeskConfig:
    store_path: Path
    run_id: int
    grader: str
    show_judge: bool | None = None  # None: as this grader left it (desk_state)
    hide_methods: bool | None = None
    recheck: float | None = None  # open in a recheck pass over this share of graded items
    recheck_share: float = 0.1  # the share the command palette's recheck uses
    cursor_blink: bool = True  # tests switch it off for stable snapshots


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

    def on_mount(self) -> None:
        from gradedesk.tui.screens.grading import GradingScreen

        self._run_store_thread()
        self.push_screen(GradingScreen())

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
        try:
            status = self.screen.query_one("#progress")
        except Exception:  # a modal or another screen is on top: the notification is enough
            status = None
        if status is not None:
            line = Text(getattr(self.screen, "progress_text", ""), style="bold")
            line.append("  │  ")
            line.append_text(literal(text, "bold red" if error else "italic"))
            status.update(line)
        if error:
            self.notify(Text(text), title="error", severity="error", markup=False)

    async def action_quit(self) -> None:
        """Store where the grader stopped, then leave (grades are already committed, one per key press)."""
        from gradedesk.tui.screens.grading import GradingScreen

        self.quitting = True
        desk = next((s for s in self.screen_stack if isinstance(s, GradingScreen)), None)
        if desk is None or not desk.save_state(lambda _: self.exit()):
            self.exit()

    @property
    def idle(self) -> bool:
        """No store job queued or running, and no other worker (highlighting) busy: tests and benchmarks wait on it."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        waiting = any(getattr(screen, "highlight_pending", False) for screen in self.screen_stack)
        return self.store_thread.idle and not waiting and not any(
            w.state in busy for w in self.workers if w.name != "store")

    # Hooks for other screens -----------------------------------------------------------------------------------------

    def agreement_screen(self) -> type[Screen] | None:
        try:
            module = importlib.import_module(AGREEMENT_MODULE)
        except ImportError:
            return None
        return getattr(module, "AgreementScreen", None)

    def most_useful_available(self) -> bool:
        return importlib.util.find_spec("gradedesk.core.agreement.priority") is not None

    # Help and command palette ----------------------------------------------------------------------------------------

    def action_help(self) -> None:
        from gradedesk.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        bindings = [(b.binding, b.enabled) for b in self.active_bindings.values()]
        self.push_screen(HelpScreen(bindings))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        commands = getattr(screen, "commands", None)
        if callable(commands):
            for title, help_text, callback in commands():
                yield SystemCommand(title, help_text, callback)


def run_desk(store_path: str | Path, run: str | int | None = None, grader: str | None = None, *,
             show_judge: bool | None = None, hide_methods: bool | None = None, recheck: float | None = None) -> None:
    """Check the store and run, then open the desk. Problems raise UserError (one line, before the screen opens)."""
    from gradedesk.core.review import queue as review
    from gradedesk.core.store.runs import resolve_run
    from gradedesk.core.store.connection import open_store

    if recheck is not None and not 0 < recheck <= 1:
        raise UserError(f"--recheck: {recheck!r} is not a share between 0 and 1 (e.g. 0.1)")
    path = Path(store_path)
    with open_store(path, create=False) as store:
        run_id = resolve_run(store, run)
    config = DeskConfig(path, run_id, grader or review.default_grader(), show_judge=show_judge,
                        hide_methods=hide_methods, recheck=recheck, recheck_share=recheck or 0.1)
    DeskApp(config).run()
