"""The queue: every shown answer of the run in a table (status, the question with ⚑ when the person flagged it, the
person's grade, the machine grade), with filters.

Rows come in keyset pages of PAGE rows from the store thread; the next page loads when the cursor nears the end, so a
run of a million answers opens as fast as one of ten. Blind first holds here too: the machine grade of an answer the
person has not graded is shown as "hidden". Machine grades are the desk's: under the judge rubric version chosen on
the grading screen, if one is (core/store/machine_grades.py). Enter opens the item (dismisses with (question_pk, side,
filters)).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from gradedesk.core.review import queue as review
from gradedesk.core.review.item import MACHINE_NAMES
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.review.queue import Filters, QueueRow
from gradedesk.core.review.session import Job, RunInfo

from gradedesk.tui.db import QueuePaged
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.screens.modals import open_filters
from gradedesk.tui.widgets.answer_pane import grade_text
from gradedesk.tui.widgets.literal import literal

PAGE = 200
# (key, header) of every column; narrower screens show fewer, with shorter words (grades in a word each), so no column
# is cut at its edge (at 100 columns "confidence" read `co`, its figures `0.`)
COLUMNS = (("status", "status"), ("question", "question"), ("category", "category"), ("answer", "answer"),
           ("human", "your grade"), ("machine", "machine grade"), ("by", "by"), ("confidence", "confidence"))
MEDIUM = {"confidence": "conf."}  # below FULL_WIDTH: these headers, and grades in a word
NARROW_DROPS = ("category", "by")  # below MEDIUM_WIDTH: these columns go (the filters still choose by category)
FULL_WIDTH, MEDIUM_WIDTH = 112, 96  # what each layout takes with the longest grade, grader name and category words


class QueueScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "open item", id="queue.open", priority=True),
        Binding("slash", "filters", "filters", key_display="/", id="queue.filters"),
        Binding("escape,q", "close", "back", id="queue.close"),
    ]

    def __init__(self, desk: Desk, run: RunInfo, filters: Filters, current: int | None, *, show_judge: bool,
                 recheck: bool, hide_methods: bool, judge_rubric: str | None = None, kind: str | None = None) -> None:
        super().__init__()
        self.desk = desk
        self.run, self.filters, self.current = run, filters, current
        self.show_judge, self.recheck, self.hide_methods = show_judge, recheck, hide_methods
        self.judge_rubric = judge_rubric
        self.kind = kind  # the kind of machine grader the person's figures compare: their disagreements are with it
        self.rows: list[QueueRow] = []
        self.done = False
        self._fetching = False
        self._seq = 0
        self.width_class = ""  # full, medium or narrow: the columns the screen's width takes (set on mount)

    def compose(self) -> ComposeResult:
        yield Static("", id="queue-title", markup=False)
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.width_class = self._width_class()
        table = self.query_one(DataTable)
        table.add_columns(*self._headers())
        table.focus()
        self._restart()

    def _width_class(self) -> str:
        width = self.app.size.width
        return "full" if width >= FULL_WIDTH else "medium" if width >= MEDIUM_WIDTH else "narrow"

    def _headers(self) -> list[str]:
        short = self.width_class != "full"
        return [MEDIUM.get(key, header) if short else header for key, header in COLUMNS
                if self.width_class != "narrow" or key not in NARROW_DROPS]

    def on_resize(self) -> None:
        """A width that takes other columns: the table again, with the rows loaded so far and the cursor kept."""
        if not self.width_class or self._width_class() == self.width_class:
            return
        self.width_class = self._width_class()
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        table.add_columns(*self._headers())
        for r in self.rows:
            table.add_row(*self._cells(r), key=str(r.answer_id))
        if self.rows:
            table.move_cursor(row=min(row, len(self.rows) - 1), animate=False)

    def _restart(self) -> None:
        self._seq += 1
        self.rows, self.done, self._fetching = [], False, False
        self.query_one(DataTable).clear()
        self._title()
        self._more()

    def _title(self) -> None:
        t = Text("Queue", style="bold")
        t.append(" │ ")
        t.append_text(literal(self.run.title))
        t.append(f" │ {len(self.rows):,}{'' if self.done else '+'} rows │ filters: ")
        t.append_text(literal(self.filters.describe()))
        if self.judge_rubric is not None:
            t.append(" │ judge under rubric ")
            t.append_text(literal(self.judge_rubric))
        self.query_one("#queue-title", Static).update(t)

    def _more(self) -> None:
        if self.done or self._fetching:
            return
        self._fetching = True
        seq, run, grader, filters = self._seq, self.run, self.desk.config.grader, self.filters
        rubric, kind = self.judge_rubric, self.kind
        after = self.rows[-1].key if self.rows else None
        self.desk.submit(QueuePaged, Job("load queue page", lambda store: review.queue_page(
            store, run, grader, filters, after=after, limit=PAGE, judge_rubric=rubric, kind=kind)),
                         lambda page: self._page(seq, page))

    def _page(self, seq: int, page: list[QueueRow]) -> None:
        if seq != self._seq:
            return
        self._fetching = False
        self.done = len(page) < PAGE
        table = self.query_one(DataTable)
        first = not self.rows
        for row in page:
            table.add_row(*self._cells(row), key=str(row.answer_id))
        self.rows.extend(page)
        self._title()
        if first and self.current is not None:
            for i, row in enumerate(self.rows):
                if row.question_pk == self.current:
                    table.move_cursor(row=i, animate=False)
                    break

    def _cells(self, row: QueueRow) -> list[Text]:
        cells = self._all_cells(row)
        return [cells[key] for key, _ in COLUMNS if self.width_class != "narrow" or key not in NARROW_DROPS]

    def _all_cells(self, row: QueueRow) -> dict[str, Text]:
        graded = row.human_grade is not None
        if row.disagrees:
            status = Text("≠ disagree", style="bold red")
        elif graded:
            status = Text("✓ graded", style="green")
        else:
            status = Text("· ungraded", style="dim")
        if row.status != "ok":
            status = literal(f"! {row.status}", "yellow")
        letter = "A" if row.side == "left" else "B"
        answer = literal(f"{letter} {row.method}" if not self.hide_methods else letter)
        if row.machine_grade is None:
            machine, by, conf = Text("—", style="dim"), Text(""), Text("")
        elif not Blindness(self.show_judge, self.recheck).judge(row.question_pk, has_machine=True,
                                                                 seen=row.judge_seen):
            machine, by, conf = Text("hidden", style="dim italic"), Text(""), Text("")
        else:
            machine = grade_text(row.machine_grade, short=self.width_class != "full")
            by = Text(MACHINE_NAMES.get(row.machine_kind or "", row.machine_kind or ""))
            conf = Text("—" if row.confidence is None else f"{row.confidence:.2f}")
        question = literal(row.question_id)
        if row.flag:  # the person flagged the item (core/review/flags.py): a mark before its id
            question = Text("⚑ ", style="bold yellow").append_text(question)
        return {"status": status, "question": question, "category": literal(row.category), "answer": answer,
                "human": grade_text(row.human_grade, short=self.width_class != "full"), "machine": machine, "by": by,
                "confidence": conf}

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= len(self.rows) - 20:
            self._more()

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return
        row = self.rows[table.cursor_row]
        self.dismiss((row.question_pk, row.side, self.filters))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_filters(self) -> None:
        run = self.run

        def chosen(filters: Filters | None) -> None:
            if filters is not None:
                self.filters = filters
                self._restart()
        open_filters(self.app, self.desk, run.id, self.filters, chosen, self.judge_rubric)
