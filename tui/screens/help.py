"""Help, built from the bindings that were active when `?` was pressed: key and what it does (the binding's tooltip,
else its description); no action ids, which teach a person nothing and cost a third of an 80-column screen. The grading screen's bindings are its key table's rows
(tui/screens/grading/keys.py); the other screens declare theirs."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


_KEY_NAMES = {"left_square_bracket": "[", "right_square_bracket": "]", "equals_sign": "=", "question_mark": "?",
              "slash": "/", "exclamation_mark": "!"}


def _key(b: Binding) -> str:
    return ", ".join(_KEY_NAMES.get(k, k) for k in b.key.split(","))


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close help", id="help.close")]

    def __init__(self, bindings: list[tuple[Binding, bool]]) -> None:
        super().__init__()
        self.key_rows = bindings

    def compose(self) -> ComposeResult:
        table = Table(title="Keys (ctrl+p: command palette for rarer actions)", expand=True, show_edge=False)
        table.add_column("key", style="bold cyan", no_wrap=True)
        table.add_column("does")
        seen: set[str] = set()
        # the desk's own keys (they have ids) first, then the widgets' scrolling and focus keys
        ordered = sorted(self.key_rows, key=lambda row: row[0].id is None)
        for binding, enabled in ordered:
            if binding.system or binding.key in seen:
                continue
            seen.add(binding.key)
            does = Text(binding.tooltip or binding.description or binding.action, style="" if enabled else "dim")
            if not enabled:
                does.append("  (not available here)")
            table.add_row(Text(_key(binding)), does)
        with VerticalScroll(classes="dialog help"):
            yield Static(table, markup=False)
