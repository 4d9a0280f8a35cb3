"""Answer A against answer B, word by word (core/text/word_diff.py): the words only A has struck out in red, the words
only B has underlined in green, the rest as B writes it. For two long answers that are nearly the same, where the
panes side by side hide the few words that differ.

It shows the texts the panes show (with method names hidden, their neutral form), so it tells no more than they do.
The answers are untrusted text: literal, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from gradedesk.core.text.word_diff import WordDiff, word_diff

from gradedesk.tui.widgets.literal import literal

STYLES = {"same": "", "deleted": "bold red strike", "inserted": "bold green underline"}


def diff_text(diff: WordDiff) -> Text:
    out = Text()
    for part in diff.parts:
        out.append_text(literal(part.text, STYLES[part.kind]))
    return out


def summary(diff: WordDiff, title_a: str, title_b: str) -> Text:
    """'Answer A against Answer B · 312 words against 320 · 4 only in A (struck out) · 12 only in B (underlined) ·
    96% the same'."""
    t = literal(f"{title_a} against {title_b}", "bold")
    t.append(f" · {diff.words_a:,} words against {diff.words_b:,} · ")
    t.append(f"{diff.deleted:,} only in A", style=STYLES["deleted"])
    t.append(" · ")
    t.append(f"{diff.inserted:,} only in B", style=STYLES["inserted"])
    t.append(f" · {diff.same_share:.0%} the same")
    return t


class DiffScreen(Screen):
    DEFAULT_CSS = """
    DiffScreen #diff-header { height: auto; padding: 0 1; background: $primary-background; }
    DiffScreen #diff-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,v", "app.pop_screen", "back", tooltip="back to the grading screen", id="diff.close")]

    def __init__(self, text_a: str, text_b: str, title_a: str, title_b: str) -> None:
        super().__init__()
        self.diff = word_diff(text_a, text_b)
        self.titles = (title_a, title_b)

    def compose(self) -> ComposeResult:
        yield Static(summary(self.diff, *self.titles), id="diff-header", markup=False)
        with VerticalScroll(id="diff-body"):
            yield Static(diff_text(self.diff), id="diff", markup=False)
        yield Footer(show_command_palette=False)  # as the grading screen's: ? help and ^q quit at 80 columns
