"""What the grading screen's keys ask of it (`GradingHost`): the desk session that holds the state, the desk (store
jobs, messages), the focused side, and the few things only the screen can do (show a job's item, focus a side, draw
again, open a screen over itself). The key modules (grades.py, moves.py, opens.py, settings.py) are functions of a
host and import no screen: the screen (screen.py) sits above them, never in a circle with them."""

from __future__ import annotations

from typing import Any, Protocol

from textual.app import App
from textual.screen import Screen

from gradedesk.core.review.item import AnswerView
from gradedesk.core.review.queue import Filters
from gradedesk.core.review.session import DeskSession, Plan

from gradedesk.tui.desk_protocol import Desk


class GradingHost(Protocol):
    desk: Desk
    session: DeskSession
    side: str  # the focused answer's side: left (A) or right (B)

    @property
    def app(self) -> App[Any]: ...

    def show(self, plan: Plan, focus: str | None = None) -> None:
        """Run a session job that shows an item (or say why nothing moves); then focus the answer on `focus`."""

    def focus_side(self, side: str) -> None: ...

    def focused_answer(self) -> AnswerView | None:
        """The answer in the focused pane; for an empty pane, says why nothing happens."""

    def pane_title(self, side: str) -> str: ...

    def redraw(self) -> None: ...

    def render_topbar(self) -> None: ...

    def recount(self) -> None:
        """Count the answers shown, the figures and the question order again (another budget shown)."""

    def refresh_progress(self) -> None: ...

    def save_state(self) -> None: ...

    def apply_filters(self, filters: Filters) -> None: ...

    def scroll_question(self, step: int) -> None: ...

    def push(self, screen: Screen[Any], callback: Any = None) -> None:
        """Open a screen over the grading screen; `callback` takes what it dismisses with."""
