"""Help: the page a person learns the desk from. First the workflow (blind first and what is revealed when, what
--hide-methods hides and what it cannot, how items are ordered and why that matters for the estimates), then the keys
by task: the grading screen's from its key table (tui/screens/grading/keys.py, by each row's `task`), claim mode's and
the agreement screen's from their bindings, and those of the screen help was opened over when it is another one.

Only the desk's own keys are listed (bindings with an id): not Textual's scrolling keys nor its ctrl+c copy, and no
action ids, which teach a person nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from gradedesk.tui.screens.claims import ClaimScreen
from gradedesk.tui.screens.grading.keys import BY_ID, KEYS, Task, When
from gradedesk.tui.screens.modals import QUIT

WORKFLOW = (
    ("Blind first. ", "Grade the focused answer (1-4) before you see the machine grade (the judge's, or the rule "
     "grader's, always named): it appears once your grade of that answer is saved, and stays seen after an undo. "
     "A label, scores, a note or a preference may come first, blind too; each event records what was on screen. "
     "--show-judge shows it from the start; a recheck pass (ctrl+p) hides it and your earlier grades. The machine's "
     "faithfulness verdicts appear once you have marked every claim of the answer (c)."),
    ("Methods hidden. ", "Which side is raw and which bundled is a coin per question. With --hide-methods the desk "
     "does not say until both answers are graded: both show evidence as file:lines and text, citations as "
     "[source: …], and no counts, roles, reasons or scores. Tells it cannot hide: how many snippets each answer has "
     "and how long they are, and which lines are marked ‹changed› (w shows the answer as written, which may tell)."),
    ("Order. ", "j/k walk the run in question order (filters narrow it); n and d skip to the next ungraded item or "
     "disagreement. \"Most useful first\" (ctrl+p) draws items, likelier where the machine is least sure or its "
     "confusion cell is rare, and stores each draw's probability: agree weighs the draws by it, so its estimates "
     "hold for the whole run. Items reached by a filter or a jump are a convenience sample and question order gives "
     "the run's first questions: agree reports those apart, never mixed in."),
)

EVERYWHERE = (("?", "this help (esc closes it)"), ("ctrl+p", "command palette: the order, a recheck pass, blind or "
              "open, method names hidden or shown, the judge rubric shown"), ("esc", "back, or cancel a dialog"),
              ("ctrl+q", "quit (every grade is already saved; ctrl+c does not quit)"))

_KEY_NAMES = {"left_square_bracket": "[", "right_square_bracket": "]", "equals_sign": "=", "question_mark": "?",
              "slash": "/", "escape": "esc", "exclamation_mark": "!", "pagedown": "pgdn",
              "pageup": "pgup"}

Row = tuple[str, str, bool]  # key, what it does, available now


def _key(b: Binding) -> str:
    return ", ".join(_KEY_NAMES.get(k, k) for k in b.key.split(","))


def _does(b: Binding) -> str:
    return b.tooltip or b.description or ""


def workflow() -> Text:
    t = Text("How the desk works\n", style="bold")
    for n, (lead, rest) in enumerate(WORKFLOW, start=1):
        t.append(f"{n}. {lead}", style="bold")
        t.append(rest + "\n")
    return t


def section(title: str, rows: Iterable[Row]) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", show_header=False, show_edge=False,
                  box=None, expand=True, padding=(0, 1, 0, 0))
    table.add_column(style="bold cyan", no_wrap=True, min_width=9)  # one width in every section: keys line up
    table.add_column(ratio=1)  # the text takes the rest of the width
    for key, does, enabled in rows:
        table.add_row(Text(key), Text(does + ("" if enabled else "  (needs an item on screen)"),
                                      style="" if enabled else "dim"))
    return table


def _bindings_rows(bindings: Iterable[object]) -> list[Row]:
    return [(_key(b), _does(b), True) for b in bindings if isinstance(b, Binding) and b.id is not None]


def desk_sections(enabled: dict[str, bool]) -> list[Table]:
    """The grading screen's keys by task (`enabled`: by binding id, those active now; a key needing an item is dimmed
    when there is none), then claim mode's and the agreement screen's (imported here: it pulls in numpy, which
    opening the desk need not wait for)."""
    from gradedesk.tui.screens.agreement import AgreementScreen, MatrixTable

    out = []
    for task in Task:
        rows = [(_KEY_NAMES.get(k.key, k.key), k.help or k.description, enabled.get(k.id, k.when is When.ALWAYS))
                for k in KEYS if k.task is task]
        if rows:
            out.append(section(task.value, rows))
    out.append(section("claim mode (c): mark the focused answer's claims one by one",
                       _bindings_rows(ClaimScreen.BINDINGS)))
    out.append(section("agreement (a)", _bindings_rows([*MatrixTable.BINDINGS, *AgreementScreen.BINDINGS])))
    return out


def help_page(active: list[tuple[Binding, bool]]) -> Group:
    """The whole page; `active`: the bindings active when help was asked for, with whether each is enabled."""
    enabled = {b.id: on for b, on in active if b.id is not None}
    parts: list[RenderableType] = [workflow()]
    if not any(i in BY_ID for i in enabled):  # opened over another screen: its keys first
        here = [b for b, _ in active if b.id and not b.system and b.id not in ("app.help", "app.quit", "modal.quit",
                                                                                 "modal.help")]
        if here:
            parts.append(section("on this screen", _bindings_rows(here)))
    parts.extend(desk_sections(enabled))
    parts.append(section("everywhere", ((k, d, True) for k, d in EVERYWHERE)))
    return Group(*(p for part in parts for p in (part, Text(""))))


class HelpScreen(ModalScreen):
    # the page is longer than a 24-line terminal: the footer says how to read on (priority: the scroll view's own
    # pgdn binding, not shown, would hide it; the arrows and pgup stay the scroll view's)
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close help", id="help.close"),
                Binding("pagedown", "more", "more", key_display="pgdn", id="help.more", priority=True), QUIT]

    def __init__(self, bindings: list[tuple[Binding, bool]]) -> None:
        super().__init__()
        self.key_rows = bindings

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Static(help_page(self.key_rows), markup=False)
        yield Footer()

    def action_more(self) -> None:
        self.query_one(VerticalScroll).scroll_page_down(animate=False)
