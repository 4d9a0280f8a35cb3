"""Small modal pickers with typed results: failure label, dimension scores, note, question id, filters; and a text to
read (an answer as written).

Each dismisses with its value, or with None when the person pressed Escape (nothing changes then). Each footer says
how to leave it (esc), and `? help` and `^q quit` where the keys are not typed into a field: a modal screen hides
the app's own keys from the footer (they still work), so each modal names them again.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option
from rich.text import Text

from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADE_LABELS, GRADES
from gradedesk.core.review import queue as review
from gradedesk.core.review.queue import Filters, STATUSES
from gradedesk.core.review.session import Job

from gradedesk.tui.db import CategoriesListed
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.widgets.literal import literal

NO_LABEL = ""  # the label picker's "no label" choice (clears the label)
CONFIDENCE_LIMITS = (0.5, 0.7, 0.9)


QUIT = Binding("ctrl+q", "app.quit", "quit", id="modal.quit")  # the app's binding runs first (priority); shown here
HELP = Binding("question_mark", "app.help", "help", key_display="?", id="modal.help")
QUIT_HELP = [QUIT, HELP]  # last in a footer, as on the grading screen


class _Modal(ModalScreen):
    BINDINGS = [Binding("escape", "cancel", "cancel", id="modal.cancel")]

    def action_cancel(self) -> None:
        self.dismiss(None)


class LabelModal(_Modal):
    """Pick one of the six failure labels (or none) with arrows/Enter or its number."""

    BINDINGS = [*(Binding(str(i), f"pick({i})", show=False) for i in range(len(FAILURE_LABELS) + 1)), *QUIT_HELP]

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Failure label  (number or ↑↓ Enter · Esc cancels)", classes="dialog-title")
            options = [Option(f"{i}  {label}", id=label) for i, label in enumerate(FAILURE_LABELS, start=1)]
            options.append(Option("0  no label", id="__none__"))
            yield OptionList(*options, id="labels")
        yield Footer()

    def on_mount(self) -> None:
        labels = self.query_one(OptionList)
        if self.current in FAILURE_LABELS:
            labels.highlighted = FAILURE_LABELS.index(self.current)

    def action_pick(self, number: int) -> None:
        self.dismiss(NO_LABEL if number == 0 else FAILURE_LABELS[number - 1])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(NO_LABEL if event.option.id == "__none__" else event.option.id)


class ScoresModal(_Modal):
    """Score the four dimensions 1-5: a digit sets the highlighted one and moves on; Enter saves."""

    BINDINGS = [
        *[Binding(str(i), f"score({i})", show=False) for i in range(1, 6)],
        Binding("0", "score(0)", "clear", show=False),
        Binding("up,k", "move(-1)", "previous", show=False),
        Binding("down,j,tab", "move(1)", "next", show=False),
        Binding("enter", "save", "save", id="scores.save"),
        *QUIT_HELP,
    ]

    def __init__(self, current: dict[str, int | None]) -> None:
        super().__init__()
        self.scores = dict(current)
        self.row = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Scores 1-5  (digit sets · ↑↓ move · 0 clears · Enter saves · Esc cancels)",
                        classes="dialog-title")
            yield Static(self._render_rows(), id="score-rows")
        yield Footer()

    def _render_rows(self) -> Text:
        t = Text()
        for i, dim in enumerate(DIMENSIONS):
            value = self.scores.get(dim)
            marker = "▶ " if i == self.row else "  "
            t.append(f"{marker}{dim:<13}", style="bold reverse" if i == self.row else "")
            t.append(" ".join("●" if value and n <= value else "○" for n in range(1, 6)))
            t.append(f"  {value if value else '—'}\n")
        return t

    def _refresh(self) -> None:
        self.query_one("#score-rows", Static).update(self._render_rows())

    def action_score(self, value: int) -> None:
        self.scores[DIMENSIONS[self.row]] = value or None
        self.row = min(self.row + 1, len(DIMENSIONS) - 1)
        self._refresh()

    def action_move(self, step: int) -> None:
        self.row = (self.row + step) % len(DIMENSIONS)
        self._refresh()

    def action_save(self) -> None:
        self.dismiss(dict(self.scores))


class TextModal(_Modal):
    """One line of text (a note, a question id); Enter saves. `?` is typed into the field: no help key here."""

    BINDINGS = [QUIT]

    def __init__(self, title: str, value: str = "", placeholder: str = "", blink: bool = True) -> None:
        super().__init__()
        self.title_text, self.value, self.placeholder, self.blink = title, value, placeholder, blink

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.title_text), classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, id="text", select_on_focus=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = self.blink

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)


class ReadingModal(_Modal):
    """A text to read, scrolled with the arrows; Esc closes."""

    DEFAULT_CSS = """
    ReadingModal VerticalScroll { height: auto; max-height: 80vh; }
    """
    BINDINGS = [*QUIT_HELP]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.styles.width = "90%"  # wider than a picker: an answer's lines (the stylesheet's .dialog is 72)
            yield Label(literal(self.title_text), classes="dialog-title")
            with VerticalScroll():
                yield Static(self.body, markup=False)
        yield Footer()


class FiltersModal(_Modal):
    """Choose queue filters with Tab and the arrow keys; Enter on "apply" (or ctrl+s) applies, Esc cancels."""

    BINDINGS = [Binding("ctrl+s", "apply", "apply", id="filters.apply"),
                Binding("ctrl+r", "reset", "reset", id="filters.reset"), *QUIT_HELP]

    def __init__(self, filters: Filters, categories: list[str], judge_rubric: str | None = None) -> None:
        super().__init__()
        self.filters = filters
        self.categories = categories
        self.judge_rubric = judge_rubric  # the machine grades filtered on are the judge's under it (None: newest)

    def compose(self) -> ComposeResult:
        f = self.filters
        grades = [(GRADE_LABELS[g], g) for g in GRADES]
        with Vertical(classes="dialog filters"):
            yield Label("Filters  (Tab moves · Enter opens a list · ctrl+s applies · ctrl+r resets · Esc cancels)",
                        classes="dialog-title")
            yield Label("status")
            yield Select([(s, s) for s in STATUSES], value=f.status, allow_blank=False, id="status")
            yield Label("category")
            yield Select([(literal(c), c) for c in self.categories], value=f.category or Select.NULL,
                         prompt="any category", id="category")
            yield Label("method")
            yield Select([("raw", "raw"), ("bundle", "bundle")], value=f.method or Select.NULL,
                         prompt="any method", id="method")
            yield Label("your grade")
            yield Select(grades, value=f.grade or Select.NULL, prompt="any grade", id="grade")
            yield Label("machine grade (judge, else rule grader)" if self.judge_rubric is None else
                        Text("machine grade (judge under rubric ").append_text(literal(self.judge_rubric)).append(")"))
            yield Select(grades, value=f.judge_grade or Select.NULL, prompt="any machine grade", id="judge_grade")
            yield Label("machine confidence")
            yield Select([(f"at most {c:g}", c) for c in CONFIDENCE_LIMITS],
                         value=f.max_confidence if f.max_confidence in CONFIDENCE_LIMITS else Select.NULL,
                         prompt="any confidence", id="max_confidence")
        yield Footer()

    def _value(self, name: str):
        value = self.query_one(f"#{name}", Select).value
        return None if value is Select.NULL else value

    def action_apply(self) -> None:
        self.dismiss(Filters(category=self._value("category"), method=self._value("method"),
                             grade=self._value("grade"), judge_grade=self._value("judge_grade"),
                             max_confidence=self._value("max_confidence"), status=self._value("status") or "all"))

    def action_reset(self) -> None:
        self.dismiss(Filters())


def open_filters(app: App[Any], desk: Desk, run_id: int, filters: Filters, chosen,
                 judge_rubric: str | None = None) -> None:
    """Load the run's categories in the store thread, then show the filters dialog over the screen on top; `chosen`
    gets the result."""
    desk.submit(CategoriesListed, Job("list categories", lambda store: review.run_categories(store, run_id)),
                lambda categories: app.push_screen(FiltersModal(filters, categories, judge_rubric), chosen))
