"""The status line under the answers: the last message or error (untrusted text: literal), the flags on the item on
screen, then the person's figures. When they do not fit on one line (80 columns, a message and a flag), the figures
take a second line of their own, and a line longer than the width wraps (up to MAX_LINES rows), rather than lose
its end past the edge."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gradedesk.tui.widgets.literal import literal


MAX_LINES = 3  # the line grows to this many rows at most (a long message, a flag and the figures at 80 columns)


class StatusLine(Static):
    def __init__(self, text: str = "", **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.progress = text
        self.short = ""  # the figures in fewer words, for a narrow terminal
        self.flag = ""  # the person's flag on the item on screen ("" when none)
        self._message: Text | None = None
        self._shown: Text | None = None  # the line last given to update()

    def _line(self) -> Text:
        """The message first (it answers the key just pressed, and a long progress line would push it past the edge
        of an 80-column terminal), then the flag, then the progress figures: on one line when they fit the width, else
        the figures on a second line."""
        parts = [self._message] if self._message is not None else []
        if self.flag:
            parts.append(literal(f"⚑ {self.flag}", "bold yellow"))
        sep = Text("  │  ")
        head = sep.join(parts)
        if not self.progress:
            return head if parts else Text(self.progress, style="bold")
        width = self.content_region.width
        figures = Text(self.progress, style="bold")
        if width and self.short and figures.cell_len > width:  # the same figures in fewer words
            figures = Text(self.short, style="bold")
        if not parts:
            return figures
        if width and head.cell_len + sep.cell_len + figures.cell_len > width:
            return Text("\n").join([head, figures])
        return Text.assemble(head, sep, figures)

    def _show(self) -> None:
        """Update the line only if it changed: the grading screen clears the message on every key, and a repaint of
        this line alone just before an item's panes are drawn put their paint off to the next frame."""
        line = self._line()
        if line != self._shown:
            self._shown = line
            width = self.content_region.width
            height = min(MAX_LINES, len(line.wrap(self.app.console, width))) if width else 1
            if self.styles.height is None or self.styles.height.value != height:
                self.styles.height = height  # the figures wrap rather than run past the edge (a layout)
            self.update(line, layout=False)  # its height is set above: a new text alone lays nothing out

    def on_resize(self) -> None:
        self._shown = None
        self._show()  # as many rows as the width needs

    def show_progress(self, text: str, short: str = "") -> None:
        """New progress figures (`short`: the same in fewer words, shown when they do not fit the width); the message
        stays (it is what the key that changed them had to say)."""
        self.progress, self.short = text, short
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
