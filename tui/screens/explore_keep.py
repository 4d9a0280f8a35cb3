"""Keep a question: the explore screen's dialog for its optional gold answer and expected files.

Dismisses with (gold answer, expected files), or None on Escape (nothing is written then).
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from gradedesk.tui.widgets.literal import literal


class KeepModal(ModalScreen[tuple[str, list[str]] | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel", id="keep.cancel")]

    def __init__(self, question: str, *, blink: bool = True) -> None:
        super().__init__()
        self.question, self.blink = question, blink

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Keep this question  (Enter: next field, then save · Esc cancels)", classes="dialog-title")
            yield Static(literal(self.question, "italic"))
            yield Label("gold answer (optional)")
            yield Input(placeholder="what a right answer says", id="keep-gold")
            yield Label("expected files (optional; spaces or commas between)")
            yield Input(placeholder="e.g. core/store.py core/cli/main.py", id="keep-files")
        yield Footer()

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = self.blink

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "keep-gold":
            self.query_one("#keep-files", Input).focus()
            return
        files = [f for f in re.split(r"[\s,]+", event.value) if f]
        self.dismiss((self.query_one("#keep-gold", Input).value.strip(), files))

    def action_cancel(self) -> None:
        self.dismiss(None)
