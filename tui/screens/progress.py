"""The team's progress on one run (gradedesk assign): per person assigned, graded and adjudicated items, the disputed
items, alpha between people with its interval, and how many more overlap items the interval needs (the figures of
`gradedesk progress`, core/review/team.py). Computed in a thread worker with its own store connection (read-only work
beside the desk's store thread); names are literal text."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from gradedesk.core.agreement.tables import Table
from gradedesk.core.review.team import TeamProgress, team_progress

from gradedesk.tui.screens.agreement import rich_table
from gradedesk.tui.widgets.literal import literal


def progress_group(report: TeamProgress) -> Group:
    if not report.people:
        return Group(literal(f"run {report.run_id}: nothing assigned yet; assign items with `gradedesk assign`"))
    people = Table(f"run {report.run_id}: {report.items} items assigned, {report.overlap_items} to two or more people",
                   ["grader", "assigned", "graded", "adjudicated", "flagged"],
                   [[p.grader, p.assigned, p.graded, p.adjudicated, p.flagged] for p in report.people])
    lines = [f"{report.disputed} items where people disagree, {report.adjudicated} of them adjudicated",
             f"alpha between people ({report.alpha_items} overlap items graded by two or more): {report.alpha.text()}"]
    if report.more_for_width is not None:
        lines.append(f"{report.more_for_width} more overlap items for an interval width of {report.target_width:g}")
    return Group(rich_table(people), *(literal(line) for line in lines))


class ProgressScreen(Screen):
    """The team's progress; escape goes back."""

    BINDINGS = [Binding("escape", "back", "back", id="progress.back")]

    class Loaded(Message):
        def __init__(self, report: TeamProgress | None, error: str = "") -> None:
            super().__init__()
            self.report = report
            self.error = error

    def __init__(self, store_path: str | Path, run_id: int) -> None:
        super().__init__()
        self.store_path = Path(store_path)
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(literal(f"team progress · run {self.run_id} · counting…"), id="team-progress")
        yield Footer()

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        from gradedesk.core.store.connection import open_store

        try:
            with open_store(self.store_path, create=False) as store:
                report = team_progress(store, self.run_id)
        except Exception as exc:  # shown on the screen; the desk keeps going
            self.post_message(self.Loaded(None, f"team progress could not be counted: {exc}"))
            return
        self.post_message(self.Loaded(report))

    def on_progress_screen_loaded(self, message: Loaded) -> None:
        shown = progress_group(message.report) if message.report else literal(message.error, "bold red")
        self.query_one("#team-progress", Static).update(shown)

    def action_back(self) -> None:
        self.dismiss(None)
