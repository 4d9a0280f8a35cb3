"""The served desk's first screen: the person types their name, the name every grade of theirs is stored under.

`gradedesk serve` runs one fixed command for every browser (textual-serve passes nothing from the URL), so the desk
asks who is grading. The name is only ever text: checked by core/review/grader_names.py, stored as typed, shown with
markup off; it never reaches a command line.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static

from gradedesk.core.review.grader_names import MAX_NAME, name_problem
from gradedesk.tui.widgets.literal import literal


class NameScreen(Screen[str]):
    """Asks for the grader's name; dismisses with it once it is a valid name."""

    def __init__(self, title: str, *, blink: bool = True, problem: str = "") -> None:
        super().__init__()
        self.desk_title = title
        self.blink = blink
        self.problem = problem  # why the last name did not open a desk (its desk is open elsewhere)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.desk_title), classes="dialog-title")
            yield Label("Your name (it is stored with every grade you give):")
            yield Input(placeholder="e.g. ann", max_length=MAX_NAME, id="name")
            yield Static(literal(self.problem, "bold red"), id="name-problem")
            yield Label("Enter to start grading")
        yield Footer()

    def on_mount(self) -> None:
        name = self.query_one(Input)
        name.cursor_blink = self.blink
        name.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        problem = name_problem(name)
        if problem:
            self.query_one("#name-problem", Static).update(Text(problem, style="bold red"))
            return
        self.dismiss(name)
