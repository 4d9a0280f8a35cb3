"""The team's progress on one run (gradedesk assign): per person assigned, graded and adjudicated items, the disputed
items, alpha between people with its interval, and how many more overlap items the interval needs (the figures of
`gradedesk progress`, core/review/team.py). Counted as a job on the desk's store thread (the one door, tui/db.py);
names are literal text."""

from __future__ import annotations

from rich.console import Group
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from gradedesk.core.agreement.tables import Table
from gradedesk.core.review.session import Job
from gradedesk.core.review.team import TeamProgress, team_progress

from gradedesk.tui.db import TeamCounted
from gradedesk.tui.desk_protocol import Desk
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

    def __init__(self, desk: Desk, run_id: int) -> None:
        super().__init__()
        self.desk = desk
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(literal(f"team progress · run {self.run_id} · counting…"), id="team-progress")
        yield Footer()

    def on_mount(self) -> None:
        run_id = self.run_id
        self.desk.submit(TeamCounted, Job("count the team's progress", lambda store: team_progress(store, run_id),
                                          holds_keys=False),
                         lambda report: self.query_one("#team-progress", Static).update(progress_group(report)))

    def action_back(self) -> None:
        self.dismiss(None)
