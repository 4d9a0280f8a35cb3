"""The status line under the answers: the grader's progress, the person's flag on the item on screen, then the last
message or error (untrusted text: literal)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gradedesk.tui.widgets.literal import literal


class StatusLine(Static):
    def __init__(self, text: str = "", **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.progress = text
        self.flag = ""  # the person's flag on the item on screen ("" when none)
        self._message: Text | None = None

    def _line(self) -> Text:
        line = Text(self.progress, style="bold")
        if self.flag:
            line.append("  │  ")
            line.append_text(literal(f"⚑ {self.flag}", "bold yellow"))
        if self._message is not None:
            line.append("  │  ")
            line.append_text(self._message)
        return line

    def show_progress(self, text: str) -> None:
        """New progress figures; the message shown beside the old ones goes."""
        self.progress = text
        self._message = None
        self.update(self._line())

    def show_flag(self, text: str) -> None:
        """The flag of the item now on screen ("" for none); the message stays."""
        if text != self.flag:
            self.flag = text
            self.update(self._line())

    def show_message(self, text: str, *, error: bool = False) -> None:
        self._message = literal(text, "bold red" if error else "italic")
        self.update(self._line())
