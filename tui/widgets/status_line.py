"""The status line under the answers: the last message or error (untrusted text: literal), the person's flag on the
item on screen, then the grader's progress."""

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
        self._shown: Text | None = None  # the line last given to update()

    def _line(self) -> Text:
        """The message first (it answers the key just pressed, and a long progress line would push it past the edge
        of an 80-column terminal), then the flag, then the progress figures."""
        parts = [self._message] if self._message is not None else []
        if self.flag:
            parts.append(literal(f"⚑ {self.flag}", "bold yellow"))
        if self.progress or not parts:
            parts.append(Text(self.progress, style="bold"))
        return Text("  │  ").join(parts)

    def _show(self) -> None:
        """Update the line only if it changed: the grading screen clears the message on every key, and a repaint of
        this line alone just before an item's panes are drawn put their paint off to the next frame."""
        line = self._line()
        if line != self._shown:
            self._shown = line
            self.update(line)

    def show_progress(self, text: str) -> None:
        """New progress figures; the message stays (it is what the key that changed them had to say)."""
        self.progress = text
        self._show()

    def clear_message(self) -> None:
        """A key was pressed: the last message goes, so what is shown is what this key (or a later one) had to say."""
        self._message = None
        self._show()

    def show_flag(self, text: str) -> None:
        """The flag of the item now on screen ("" for none); the message stays."""
        self.flag = text
        self._show()

    def show_message(self, text: str, *, error: bool = False) -> None:
        self._message = literal(text, "bold red" if error else "italic")
        self._show()
