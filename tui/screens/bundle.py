"""The evidence browser: the snippets of one answer's bundle (or its raw hits) as a list, the selected snippet's text,
a bar of tokens against the budget, and the raw JSON. Keyboard only: ↑↓ pick, r toggles JSON, Esc goes back.

It shows the AnswerView the grading screen already loaded, so it needs no store call of its own. With method names
hidden it shows what the panes show then: each piece's file, lines and text, nothing that tells raw from bundled.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.review.item import AnswerView

from gradedesk.tui.widgets.answer_pane import snippet_block
from gradedesk.tui.widgets.literal import clean, literal, token_bar


class BundleScreen(Screen):
    BINDINGS = [
        Binding("r", "toggle_json", "raw JSON", id="bundle.json"),
        Binding("tab", "switch", "list/text", id="bundle.switch"),
        Binding("escape,q", "app.pop_screen", "back", id="bundle.close"),
    ]

    def __init__(self, answer: AnswerView, title: str, *, methods_visible: bool = True) -> None:
        super().__init__()
        self.answer = answer
        self.title_text = title
        self.neutral = not methods_visible
        self.snippets: list[Evidence] = answer.bundle.snippets if answer.bundle else answer.evidence
        self.show_json = False

    def compose(self) -> ComposeResult:
        yield Static(self._header(), id="bundle-header", markup=False)
        with Horizontal(id="bundle-body"):
            options = [Option(self._label(s)) for s in self.snippets] or [Option("(no evidence)", disabled=True)]
            yield OptionList(*options, id="snippets")
            with VerticalScroll(id="snippet-view"):
                yield Static("", id="snippet", markup=False)
        yield Footer()

    def _header(self) -> Text:
        a, b = self.answer, self.answer.bundle
        if self.neutral:
            return Text.assemble("Evidence │ ", literal(self.title_text), f" │ {len(self.snippets)} pieces (how they "
                                 "were chosen is shown once both answers are graded)", style="bold")
        t = Text.assemble("Evidence │ ", literal(self.title_text), f" │ answer {a.id}", style="bold")
        if b is not None:
            t.append(f" │ bundle {b.id} · ")
            t.append_text(literal(b.question_type))
            t.append("\n")
            t.append_text(token_bar(b.total_tokens, b.token_budget, width=40))
            t.append(f"  {clean(b.tokenizer)} · {clean(b.compiler_version)}", style="dim")
            for note in b.coverage_notes:
                t.append("\ncoverage: ", style="bold")
                t.append_text(literal(note))
            for warning in b.warnings:
                t.append("\nwarning: ", style="bold yellow")
                t.append_text(literal(warning))
        else:
            t.append(f" │ {len(self.snippets)} retrieved hits (raw top-k: no bundle)")
        return t

    def _label(self, s: Evidence) -> Text:
        t = Text(f"{s.position:>2} ", style="bold cyan")
        t.append_text(literal(s.location))
        if s.symbol_name:
            t.append(" ")
            t.append_text(literal(s.symbol_name, "dim"))
        if s.evidence_role and not self.neutral:
            t.append(" ")
            t.append_text(literal(s.evidence_role, "italic"))
        return t

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if self.snippets:
            options.highlighted = 0
        self._show()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show()

    def _json(self) -> str:
        a = self.answer
        if a.bundle is not None:
            return json.dumps(a.bundle.record, indent=2, ensure_ascii=False)
        if a.evidence_raw is not None:  # unreadable evidence: as stored
            return a.evidence_raw
        return json.dumps([asdict(s) for s in a.evidence], indent=2, ensure_ascii=False)

    def _show(self) -> None:
        view = self.query_one("#snippet", Static)
        if self.show_json and self.neutral:
            view.update(Text("The stored record names the method: it is shown once both answers are graded.", style="dim"))
            return
        if self.show_json:
            view.update(Syntax(clean(self._json()), "json", theme="ansi_dark", word_wrap=True,
                               background_color="default"))
            return
        index = self.query_one(OptionList).highlighted
        if index is None or not self.snippets:
            view.update(Text("No evidence stored for this answer.", style="dim"))
            return
        label = "Evidence" if self.answer.bundle or self.neutral else "Hit"
        view.update(Group(snippet_block(self.snippets[index], label, neutral=self.neutral)))
        self.query_one("#snippet-view", VerticalScroll).scroll_home(animate=False)

    def action_toggle_json(self) -> None:
        self.show_json = not self.show_json
        self._show()

    def action_switch(self) -> None:
        target = "#snippet-view" if self.query_one(OptionList).has_focus else "#snippets"
        self.query_one(target).focus()
