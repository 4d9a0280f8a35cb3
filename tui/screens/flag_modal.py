"""The flag dialog: why an item needs fixing in the benchmark (bad gold answer, ambiguous question, other) and a
note. Dismisses with (reason, note), or None when the person pressed Escape (nothing is stored then).

A digit (or arrows and Enter) picks the reason and saves; "other" needs a note, so picking it moves to the note
first. Tab moves to the note at any time; Enter there saves with the reason highlighted (or picked).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label, OptionList
from textual.widgets.option_list import Option

from gradedesk.core.grading.vocabulary import FLAG_REASONS

from gradedesk.tui.screens.modals import QUIT, _Modal

REASONS = tuple(FLAG_REASONS)
NOTE_HINT = "note (optional; needed for other) · Tab moves here · Enter saves"


class FlagModal(_Modal):
    DEFAULT_CSS = "#flag-reasons { height: auto; }"
    # ^q shown, ? not: the note field takes typed characters
    BINDINGS = [*(Binding(str(i), f"pick({i})", show=False) for i in range(1, len(REASONS) + 1)), QUIT]

    def __init__(self, blink: bool = True) -> None:
        super().__init__()
        self.blink = blink
        self.reason: str | None = None  # picked, waiting for its note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Flag the question  (number or ↑↓ Enter · Esc cancels)",
                        classes="dialog-title")
            yield OptionList(*[Option(f"{i}  {FLAG_REASONS[r]}", id=r) for i, r in enumerate(REASONS, start=1)],
                             id="flag-reasons")
            yield Label(NOTE_HINT, id="flag-hint")
            yield Input(placeholder="why (the gold is wrong because …)", id="flag-note", select_on_focus=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = self.blink
        self.query_one(OptionList).focus()

    def _choose(self, reason: str) -> None:
        note = self.query_one(Input).value.strip()
        if reason == "other" and not note:
            self.reason = reason
            self.query_one("#flag-hint", Label).update("other: say why in the note, then Enter")
            self.query_one(Input).focus()
            return
        self.dismiss((reason, note or None))

    def action_pick(self, number: int) -> None:
        self._choose(REASONS[number - 1])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(str(event.option.id))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        highlighted = self.query_one(OptionList).highlighted
        self._choose(self.reason or REASONS[highlighted or 0])
