"""The agreement screen: how far the people and the machine grader agree, for one run.

Leads with the run's headline (core/runs/headline.py: raw vs each bundle budget, recall of the evidence, prompt tokens
and pass rates with their intervals; what answer quality needs when no model graded it), then shows the confusion
matrix (a keyboard-navigable table: Enter on a cell dismisses the screen with
`(human_grade, machine_grade)` so the grading screen filters to those items, Enter on an empty cell says it is empty
and stays; Escape dismisses with None), kappa and AC1
with their intervals, each judge rubric version side by side on the items all of them graded (when the judge graded the
run under more than one), the judge-corrected pass rates, the switch rate, the per-category breakdown, which answer
is better (the pairwise judge's position bias, ties and consistency beside people's left-side share, its agreement
with people's preferences and the win rates of bundled over raw), and a plot of answer quality against prompt tokens
over the run's budget sweep. Once people graded bundled answers at more than one budget (the desk shows any budget
beside raw), the curve follows: pass rate by budget for people and the machine grader, with their intervals as a table
(agree's) and a plot whose bars are the intervals.

The report is computed by core/agreement/report.py as a job on the desk's store thread (the one door, tui/db.py), in the
background (keys do not wait for it); a failure is shown where the desk shows every error. Every text that came
from outside (people's names, categories) goes through `literal`, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual_plotext import PlotextPlot

from gradedesk.core.agreement.pairwise_tables import pairwise_tables
from gradedesk.core.agreement.pass_rates import TokenQuality
from gradedesk.core.agreement.report import AgreementReport, Settings, agreement_report
from gradedesk.core.agreement.tables import headline as pairs_line
from gradedesk.core.agreement.tables import (
    GAIN_HEADERS, Table, budget_tables, group_table, judge_rubrics_table, ppi_table, samples_table, switch_table,
)
from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADES
from gradedesk.core.review.session import Job
from gradedesk.core.runs.headline import Headline, headline, headline_table
from gradedesk.core.stats.measures import texts_once

from gradedesk.tui.db import AgreementComputed, AgreementView
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.widgets.figure_table import FigureTable
from gradedesk.tui.widgets.literal import literal

SUMMARY = (("percent_agreement", "agreement"), ("cohen_kappa", "Cohen's kappa"),
           ("kappa_quadratic", "weighted kappa (quadratic)"), ("gwet_ac1", "Gwet's AC1"))

MARKERS = {("raw", "machine"): "x", ("raw", "person"): "o", ("bundle", "machine"): "X", ("bundle", "person"): "O"}
PASS_RATES: tuple[tuple[str, Callable[[TokenQuality], float | None]], ...] = (
    ("machine", lambda r: r.machine_pass_rate), ("person", lambda r: r.human_pass_rate))


class MatrixTable(DataTable):
    """The confusion matrix; Enter on a cell picks it."""

    BINDINGS = [Binding("enter", "select_cursor", "show these items", id="agreement.cell")]


def rich_table(table: Table) -> FigureTable:
    """A core/agreement/tables.Table as its title over a table fitted to the width (tui/widgets/figure_table.py: a
    figure's interval stays on one line at 80 columns); every cell literal text."""
    return FigureTable(table.title, table.headers, table.rows)


def gains_group(table: Table, names: int = 1) -> Group | FigureTable:
    """A table of prediction-powered figures whose last column is what machine grades bought (a sentence per figure,
    core/agreement/tables.GAIN_HEADERS) drawn as two: the figures with their lambda, then each figure's sentence in a
    column as wide as the screen leaves it, the figure named by its first `names` cells. In one table the sentence got
    the room the figures left: at 80 columns, a word or two a line."""
    if list(table.headers[-len(GAIN_HEADERS):]) != GAIN_HEADERS:
        return rich_table(table)
    figures = rich_table(Table(table.title, table.headers[:-1], [row[:-1] for row in table.rows]))
    said = [row for row in table.rows if row[-1] != "-"]  # '-': no estimate, nothing bought (tables.gain_cells)
    if not said:
        return figures
    bought = Table("", [" ".join(table.headers[:names]), table.headers[-1]],
                   [[" ".join(str(cell) for cell in row[:names]), row[-1]] for row in said])
    return Group(figures, rich_table(bought))


def summary_table(report: AgreementReport) -> Table:
    four, binary = report.four_level, report.binary.estimates
    four_texts = texts_once([four[key] for key, _ in SUMMARY])
    binary_texts = texts_once([binary[key] for key, _ in SUMMARY] + [binary[key] for key in ("tpr", "tnr")])
    rows: list[list[Any]] = [[label, f, b] for (_, label), f, b in zip(SUMMARY, four_texts, binary_texts)]
    rows += [[f"machine {key.upper()}", "", b] for key, b in zip(("tpr", "tnr"), binary_texts[len(SUMMARY):])]
    return Table("Agreement (95% bootstrap intervals)", ["measure", "four grades", "pass / not pass"], rows)


def corrected_summary(report: AgreementReport) -> Table:
    corr = report.corrected_pass_rates
    if corr is None:
        return Table("Corrected pass rates", ["", ""], [["not available", "no machine-graded answers"]])
    diff = corr.bundle_minus_raw
    texts = texts_once([*(a.corrected for a in corr.arms), diff.estimate])
    rows: list[list[Any]] = [[f"{a.method} @ {a.budget}" if a.method == "bundle" else a.method, a.judged,
                              f"{a.observed_rate:.3f}", text] for a, text in zip(corr.arms, texts)]
    rows.append([f"bundle - raw (budget {diff.budget})", diff.paired_questions, "", texts[-1]])
    return Table("Corrected pass rates (Rogan-Gladen)", ["answers", "n", "machine pass", "corrected"], rows)


def pairwise_group(report: AgreementReport) -> Group:
    """Which answer is better: the pairwise judge beside people's left-side share, the win rates of bundled over raw,
    and judge vs people's preferences."""
    tables = pairwise_tables(report.pairwise, report.samples.position_bias.preferred_left, confusion=False)
    return Group(*(part for t in tables for part in (gains_group(t, names=2), Text(" "))))


def headline_group(head: Headline) -> Group | FigureTable:
    """The run's headline table, and the one line on what answer quality needs (when nothing graded it)."""
    headers, rows = headline_table(head)
    table = rich_table(Table(f"{head.title} (means and pass rates, 95% bootstrap intervals)", headers, rows))
    return Group(table, literal(head.quality_note, "dim")) if head.quality_note else table


class AgreementScreen(Screen):
    """Agreement for one run; dismisses with (human_grade, machine_grade) or None."""

    DEFAULT_CSS = """
    AgreementScreen #agreement-top { height: 1; padding: 0 1; background: $primary-background; }
    AgreementScreen #agreement-body { height: 1fr; padding: 0 1; }
    AgreementScreen #agreement-body > Static { height: auto; margin-bottom: 1; }
    AgreementScreen MatrixTable { height: auto; max-height: 8; margin-bottom: 1; }
    AgreementScreen #agreement-plot { height: 16; min-height: 12; }
    AgreementScreen #agreement-budget-plot { height: 16; min-height: 12; }
    """

    BINDINGS = [
        Binding("escape", "back", "back", id="agreement.back"),
        Binding("p", "focus_plot", "plot", show=False, id="agreement.plot"),
        Binding("m", "focus_matrix", "matrix", id="agreement.matrix"),
        # the page keys scroll the whole screen, not the small matrix that has focus: the sections below it
        # (pairwise verdicts, the budget curve) are reached by keyboard; the footer shows pgdn rather than p (plot)
        Binding("pagedown", "page(1)", "more", key_display="pgdn", id="agreement.page_down", priority=True,
                tooltip="the sections below (the matrix keeps focus)"),
        Binding("pageup", "page(-1)", "back up the screen", key_display="pgup", show=False, id="agreement.page_up",
                priority=True),
    ]

    def __init__(self, desk: Desk, run_id: int, settings: Settings | None = None, person: str | None = None) -> None:
        super().__init__()
        self.desk = desk
        self.run_id = run_id
        self.person = person  # opened from this person's desk: the matrix is theirs, named (the desk's queue is too)
        self.matrix: list[list[int]] = []  # the matrix shown
        self.settings = settings or Settings()
        self.report: AgreementReport | None = None

    def compose(self) -> ComposeResult:
        yield Static(literal(f"agreement · run {self.run_id} · computing…"), id="agreement-top")
        with VerticalScroll(id="agreement-body"):
            yield Static(id="agreement-headline")
            yield Static(literal("Confusion matrix (rows: person, columns: machine) · Enter on a cell: its items",
                                 "bold"), id="agreement-matrix-title")
            yield MatrixTable(id="agreement-matrix", cursor_type="cell", zebra_stripes=False)
            yield Static(id="agreement-measures")
            rubrics = Static(id="agreement-rubrics")
            rubrics.display = False  # shown when the judge graded the run under more than one rubric
            yield rubrics
            yield Static(id="agreement-corrected")
            yield Static(id="agreement-switch")
            yield Static(id="agreement-category")
            yield Static(id="agreement-samples")
            yield Static(id="agreement-ppi")
            yield Static(id="agreement-pairwise")
            yield PlotextPlot(id="agreement-plot")
            # shown when people graded bundled answers at more than one budget
            yield Static(id="agreement-budgets")
            yield PlotextPlot(id="agreement-budget-plot")
        yield Footer()

    def action_page(self, direction: int) -> None:
        body = self.query_one("#agreement-body", VerticalScroll)
        (body.scroll_page_down if direction > 0 else body.scroll_page_up)(animate=False)

    def on_mount(self) -> None:
        matrix = self.query_one(MatrixTable)
        matrix.add_column(literal("person \\ machine"), key="person")
        for grade in GRADES:
            matrix.add_column(literal(GRADE_LABELS[grade]), key=grade)
        for curve in ("#agreement-budgets", "#agreement-budget-plot"):
            self.query_one(curve).display = False
        matrix.focus()
        self._load()

    def _load(self) -> None:
        run_id, settings = self.run_id, self.settings
        self.desk.submit(AgreementComputed, Job("compute agreement", lambda store: AgreementView(
            agreement_report(store, run_id, settings), headline(store, run_id)), holds_keys=False), self._loaded,
                         on_failed=self._failed)

    def _failed(self, error: BaseException) -> None:
        self.query_one("#agreement-top", Static).update(literal(f"agreement could not be computed: {error}",
                                                                "bold red"))

    # Messages ---------------------------------------------------------------------------------------------------------

    def _loaded(self, view: AgreementView) -> None:
        report = self.report = view.report
        # several people: the figures pool their grades (the pairs line names whose); a person's desk shows their own
        # matrix, named
        pooled = " · pooled: everyone's grades" if len(report.people) > 1 else ""
        self.query_one("#agreement-top", Static).update(literal(f"agreement · {pairs_line(report)}{pooled}"))
        self.query_one("#agreement-headline", Static).update(headline_group(view.headline))
        self.matrix = report.confusion.matrix
        if pooled and self.person is not None:
            self.matrix = report.confusion_by_person.get(self.person) or [[0] * len(GRADES) for _ in GRADES]
            self.query_one("#agreement-matrix-title", Static).update(literal(
                f"Confusion matrix of {self.person}'s grades (rows: {self.person}, columns: machine) · Enter on a "
                "cell: its items", "bold"))
        self._fill_matrix(self.matrix)
        self.query_one("#agreement-measures", Static).update(rich_table(summary_table(report)))
        if len(report.judge_rubrics.versions) > 1:
            rubrics = self.query_one("#agreement-rubrics", Static)
            rubrics.update(rich_table(judge_rubrics_table(report)))
            rubrics.display = True
        self.query_one("#agreement-corrected", Static).update(rich_table(corrected_summary(report)))
        self.query_one("#agreement-switch", Static).update(rich_table(switch_table(report)))
        self.query_one("#agreement-category", Static).update(
            rich_table(group_table("By category", "category", report.breakdowns["category"])))
        self.query_one("#agreement-samples", Static).update(rich_table(samples_table(report)))
        if report.samples.pass_rates:
            self.query_one("#agreement-ppi", Static).update(gains_group(ppi_table(report)))
        self.query_one("#agreement-pairwise", Static).update(pairwise_group(report))
        self._plot(report.quality_by_tokens)
        if report.by_budget.drawn:
            self._plot_budgets(report)

    # Widgets ----------------------------------------------------------------------------------------------------------

    def _fill_matrix(self, matrix: list[list[int]]) -> None:
        table = self.query_one(MatrixTable)
        table.clear()
        for grade, row in zip(GRADES, matrix):
            table.add_row(literal(GRADE_LABELS[grade], "bold"),
                          *(Text(str(v), justify="right") for v in row), key=grade)
        table.move_cursor(row=0, column=1)

    def _plot(self, rows: list[TokenQuality]) -> None:
        plt = self.query_one(PlotextPlot).plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("pass rate against mean prompt tokens")
        plt.xlabel("prompt tokens")
        plt.ylim(0, 1)
        for method in ("raw", "bundle"):
            points = [r for r in rows if r.method == method and r.mean_tokens_in is not None]
            for who, rate in PASS_RATES:
                xy = [(r.mean_tokens_in, rate(r)) for r in points if rate(r) is not None]
                if xy:
                    plt.plot([x for x, _ in xy], [y for _, y in xy], label=f"{method} ({who})",
                             marker=MARKERS[(method, who)])
        self.query_one(PlotextPlot).refresh()

    def _plot_budgets(self, report: AgreementReport) -> None:
        """The budget curve: agree's table, and people's and the machine grader's pass rates at raw and each budget,
        each with its interval as a bar."""
        table = self.query_one("#agreement-budgets", Static)
        table.update(rich_table(budget_tables(report)[0]))
        points = report.by_budget.points
        plot = self.query_one("#agreement-budget-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("pass rate by budget (bars: 95% intervals)")
        plt.ylim(0, 1)
        plt.xlim(-0.5, len(points) - 0.5)
        plt.xticks(list(range(len(points))), [p.method for p in points])
        for who, shift, color, marker in (("people", -0.06, "blue", "o"), ("machine", 0.06, "orange", "x")):
            estimates = [getattr(p, who) for p in points]
            for i, (e, after) in enumerate(zip(estimates, estimates[1:])):  # lines only between neighbouring figures
                if e.value is not None and after.value is not None:
                    plt.plot([i + shift, i + 1 + shift], [e.value, after.value], marker="braille", color=color)
            shown = [(i + shift, e) for i, e in enumerate(estimates) if e.value is not None]
            for x, e in shown:
                if e.low is not None and e.high is not None:
                    plt.plot([x, x], [e.low, e.high], marker="│", color=color)
            if shown:
                plt.scatter([x for x, _ in shown], [e.value for _, e in shown], label=who, marker=marker, color=color)
        table.display = plot.display = True
        plot.refresh()

    @on(DataTable.CellSelected, "#agreement-matrix")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        row, column = event.coordinate.row, event.coordinate.column
        if column == 0:  # the row label column: no cell
            return
        person, machine = GRADES[row], GRADES[column - 1]
        if self.report is not None and self.matrix[row][column - 1] == 0:
            # a filter to it would match no graded pair: say so here rather than leave the desk on an unrelated item
            self.query_one("#agreement-matrix-title", Static).update(literal(
                f"No graded pair in this cell (person {GRADE_LABELS[person]}, machine {GRADE_LABELS[machine]}): "
                "pick another cell, or esc to go back", "bold yellow"))
            return
        self.dismiss((person, machine))

    def action_back(self) -> None:
        self.dismiss(None)

    def action_focus_plot(self) -> None:
        self.query_one("#agreement-body").scroll_end(animate=False)

    def action_focus_matrix(self) -> None:
        self.query_one("#agreement-body").scroll_home(animate=False)
        self.query_one(MatrixTable).focus()
