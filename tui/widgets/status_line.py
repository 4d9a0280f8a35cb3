"""The status line under the answers: the grader's progress, then the last message or error (untrusted text: literal)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gradedesk.tui.widgets.literal import literal


class StatusLine(Static):
    def __init__(self, text: str = "", **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.progress = text

    def show_progress(self, text: str) -> None:
        """New progress figures; the message shown beside the old ones goes."""
        self.progress = text
        self.update(Text(text, style="bold"))

    def show_message(self, text: str, *, error: bool = False) -> None:
        line = Text(self.progress, style="bold")
        line.append("  │  ")
        line.append_text(literal(text, "bold red" if error else "italic"))
        self.update(line)
