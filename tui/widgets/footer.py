"""The explore screen's footer: the screen's keys on one line of text, redrawn in place when they change.

Textual's Footer mounts a widget per key and rebuilds them all whenever a focus change changes which keys act. The
explore screen's focus moves between the question input (which takes the letter keys for itself) and the columns
twice per question: two rebuilds, each laying out the whole screen again, about 250 ms of CPU between Enter and the
first bundle on the screen. This footer shows the same keys, in the same theme colours, as one line: a new focus
updates its text, with no widget mounted and no layout. A click on a key presses it, as on Textual's footer.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from rich.text import Text


class DeskFooter(Static):
    ALLOW_SELECT = False
    DEFAULT_CSS = """
    DeskFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    DeskFooter > .desk-footer--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    DeskFooter > .desk-footer--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    """
    COMPONENT_CLASSES = {"desk-footer--key", "desk-footer--description"}

    def __init__(self) -> None:
        super().__init__("", markup=False)
        self._spans: list[tuple[int, int, str, bool]] = []  # (first cell, end cell, key, enabled) of each key shown

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen:
            self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _keys(self) -> tuple[list[tuple[Binding, bool]], tuple[Binding, bool] | None]:
        """The keys Textual's Footer would show now, one per action, in its order; and the command palette's key,
        shown at the right end."""
        active = self.screen.active_bindings
        shown: dict[str, tuple[Binding, bool]] = {}
        for _, binding, enabled, _ in active.values():
            if binding.show:
                shown.setdefault(binding.action, (binding, enabled))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING) if self.app.ENABLE_COMMAND_PALETTE else None
        return list(shown.values()), None if palette is None else (palette[1], palette[2])

    def _key_text(self, binding: Binding, enabled: bool, pad: str = " ") -> Text:
        key_style = self.get_component_rich_style("desk-footer--key")
        description_style = self.get_component_rich_style("desk-footer--description")
        text = Text.assemble((f"{pad}{self.app.get_key_display(binding)} ", key_style),
                             (f"{binding.description}{pad}", description_style))
        if not enabled:
            text.stylize("dim")
        return text

    def _draw(self) -> None:
        keys, palette = self._keys()
        width = self.size.width
        line, spans = Text(no_wrap=True, overflow="crop"), []
        for binding, enabled in keys:
            start = line.cell_len
            line.append_text(self._key_text(binding, enabled))
            spans.append((start, line.cell_len, binding.key, enabled))
        if palette is not None and width:
            right = Text("▏", style="dim").append_text(self._key_text(*palette, pad=""))  # as Textual's, at the end
            line.truncate(max(0, width - right.cell_len), pad=True)
            spans = [s for s in spans if s[1] <= line.cell_len]
            spans.append((line.cell_len + 1, line.cell_len + right.cell_len, palette[0].key, palette[1]))
            line.append_text(right)
        self._spans = spans
        self.update(line, layout=False)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for start, end, key, enabled in self._spans:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(key)
                else:
                    self.app.bell()
                return
