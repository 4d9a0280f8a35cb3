"""The agreement screen: a Pilot test of the matrix (Enter on a cell dismisses with it), the desk's `a` key, a
markup-hostile category shown literally, a failure shown on the screen and notified, and a snapshot at a fixed size."""

from __future__ import annotations

import asyncio
import functools
import io

import pytest
from pathlib import Path

from textual.widgets import Static

from gradedesk.core.agreement.report import Settings
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import (add_auto, add_human, add_rubric, build_sampling_run, grade_sampled,
                                     graded_at_two_budgets)
from tests.fixtures.desk_store import HOSTILE, build_fixture_store
from tests.fixtures.desk import make_app, rendered_text, screen_text, settle
from gradedesk.tui.app import DeskApp, DeskConfig
from gradedesk.tui.screens.agreement import AgreementScreen, MatrixTable

FAST = Settings(boot=200, seed=1)
SIZE = (110, 60)


def sync(test):
    """Run an async test on a fresh event loop (no pytest plugin needed)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        asyncio.run(test(*args, **kwargs))
    return run


def graded_store(path):
    info = build_fixture_store(path)
    with open_store(path) as store:
        for n, (_key, aid) in enumerate(sorted(info.answer_ids.items())):
            add_human(store, aid, "alice", GRADES[(n * 3) % 4], rubric="rubric-1")
            if n % 3 == 0:
                add_human(store, aid, "bob", GRADES[(n + 1) % 4], rubric="rubric-1")
        store._conn.execute("UPDATE questions SET category = ? WHERE id = ?", (f"odd {HOSTILE}", info.question_pks[0]))
    return info


class Host(DeskApp):
    """A desk that opens on the agreement screen, as the desk's `a` does, and keeps what it dismissed with (the
    screen's own styles only, as the snapshots were taken)."""

    CSS_PATH = None

    def __init__(self, path, run_id: int, person: str | None = None) -> None:
        super().__init__(DeskConfig(Path(path), run_id, "alice", cursor_blink=False))
        self.run_id = run_id
        self.person = person  # the desk the screen was opened from (None: the pooled figures only)
        self.result: object = "not dismissed"

    def on_mount(self, event) -> None:
        event.prevent_default()  # not the desk's grading screen
        self._store_worker = self._run_store_thread()
        self.push_screen(AgreementScreen(self, self.run_id, FAST, person=self.person), self._dismissed)

    def _dismissed(self, result) -> None:
        self.result = result


async def loaded(pilot, timeout: float = 10.0) -> AgreementScreen:
    screen = pilot.app.screen
    assert isinstance(screen, AgreementScreen)
    for _ in range(int(timeout / 0.02)):
        await pilot.pause()
        if screen.report is not None:
            await settle(pilot)  # and whatever the report's arrival started (under load, a pause was not enough)
            return screen
        await asyncio.sleep(0.02)
    raise TimeoutError("agreement report did not arrive")


@pytest.fixture
def store(tmp_path):
    return graded_store(tmp_path / "store.db")


@sync
async def test_enter_on_a_cell_dismisses_with_it(store):
    app = Host(store.path, store.run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        report = screen.report
        assert report["machine"]["label"] == "judge (gpt-4o-mini)"
        matrix = screen.query_one("#agreement-matrix")
        assert matrix.row_count == 4
        assert report.confusion.matrix[1][0] == 2
        await pilot.press("down", "enter")  # from (fully correct, fully correct)
    assert app.result == (GRADES[1], GRADES[0])


@sync
async def test_the_screen_shows_its_sections_literally_says_so_of_an_empty_cell_and_escape_dismisses_with_none(store):
    """One screen: the samples each figure rests on, no rubric table for one rubric, a markup-hostile category shown
    literally; Enter on an empty cell says so and stays; escape dismisses with None."""
    app = Host(store.path, store.run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        plain = rendered_text(screen.query_one("#agreement-samples", Static).content,
                              screen.query_one("#agreement-ppi", Static).content)
        assert "sampled (drawn with known probabilities" in plain and "unrecorded" in plain
        assert "Prediction-powered pass rates" in plain
        assert not screen.query_one("#agreement-rubrics", Static).display  # one rubric: the table stays out of the way
        plain = rendered_text(screen.query_one("#agreement-category", Static).content)
        assert "[bold]not bold[/]" in plain and "\\x1b[31m" in plain and "\x1b" not in plain

        assert screen.report.confusion.matrix[1][1] == 0
        await pilot.press("down", "right", "enter")
        await pilot.pause()
        assert app.screen is screen and app.result == "not dismissed"
        assert "No graded pair in this cell (person partially correct, machine partially correct)" in " ".join(
            screen_text(app).split())
        await pilot.press("escape")
    assert app.result is None


@sync
async def test_a_run_that_is_not_there_is_reported_not_raised(store):
    app = Host(store.path, 99)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause()
            top = str(app.screen.query_one("#agreement-top").render())
            if "could not be computed" in top:
                break
            await asyncio.sleep(0.02)
        assert "could not be computed" in top and "99" in top and "99" in app.last_status


@sync
async def test_desk_a_key_opens_it_and_the_cell_filters(store):
    app = make_app(store.path, store.run_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        screen = await loaded(pilot)
        assert isinstance(screen, AgreementScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, AgreementScreen)
        grading = app.screen
        assert grading.session.filters.grade == GRADES[0] and grading.session.filters.judge_grade == GRADES[0]


def test_snapshot(store, snap_compare):
    async def run_before(pilot) -> None:
        await loaded(pilot)

    assert snap_compare(Host(store.path, store.run_id), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
@pytest.mark.parametrize("section", ["headline", "measures"])
def test_snapshot_at_small_sizes(store, snap_compare, size, section):
    """At the sizes terminals open at, each figure's interval on one line: at 80 columns the headline's columns go into
    two tables (each naming the method) with each interval under its value; the agreement measures fit as they are."""
    async def run_before(pilot) -> None:
        screen = await loaded(pilot)
        if section == "measures":
            screen.query_one("#agreement-body").scroll_to_widget(screen.query_one("#agreement-measures"), top=True,
                                                                 animate=False, immediate=True)
            await pilot.pause()

    assert snap_compare(Host(store.path, store.run_id), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("width", [60, 78, 98, 140])
def test_every_interval_is_on_one_line_at_any_width(store, width):
    """Each table of the screen, drawn as wide as the screen's body at 80 and 100 columns (and narrower and wider):
    every estimate's value and its whole interval are on the screen, the interval on one line; no row name is lost."""
    from rich.console import Console

    from gradedesk.core.agreement.report import agreement_report
    from gradedesk.core.agreement.tables import group_table, samples_table, switch_table
    from gradedesk.core.runs.headline import headline, headline_table
    from gradedesk.tui.screens.agreement import corrected_summary, headline_group, rich_table, summary_table
    from gradedesk.tui.widgets.figure_table import FIGURE

    with open_store(store.path) as s:
        report, head = agreement_report(s, store.run_id, FAST), headline(s, store.run_id)
    tables = [summary_table(report), corrected_summary(report), switch_table(report), samples_table(report),
              group_table("By category", "category", report.breakdowns["category"])]
    shown = [(headline_group(head), headline_table(head)[1]), *((rich_table(t), t.rows) for t in tables)]
    for renderable, rows in shown:
        console = Console(width=width, record=True, color_system=None, file=io.StringIO())
        console.print(renderable)
        lines = console.export_text().splitlines()
        assert all(len(line.rstrip()) <= width for line in lines)
        figures = [f for f in (FIGURE.fullmatch(str(c)) for row in rows for c in row) if f]
        assert figures
        for figure in figures:
            assert any(figure.group(2) in line for line in lines), (width, figure.group(0))
            assert any(figure.group(1) in line for line in lines)
        for row in rows:
            assert str(row[0]).split()[0] in "\n".join(lines)


@sync
async def test_each_prediction_powered_figure_shows_its_lambda_and_what_the_judge_bought(tmp_path):
    """Raw, bundled (per budget) and the paired bundle - raw."""
    path = tmp_path / "sampled.db"
    with open_store(path) as store:
        run, answers = build_sampling_run(store)
        grade_sampled(store, run, answers, "carol", 10)
    app = Host(path, run)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        plain = rendered_text(screen.query_one("#agreement-ppi", Static).content)
        report = screen.report
    rates = {r.method: r for r in report.samples.pass_rates + [report.samples.bundle_minus_raw]}
    for method in ("raw", "bundle", "bundle - raw"):
        bought = rates[method].judge_bought
        assert bought is not None and f"{bought.lam:.2f}" in plain and bought.line in " ".join(plain.split())
    assert "what machine grades bought" in plain and "bundle - raw @ 2000" in plain


@pytest.mark.parametrize("width", [78, 98])
def test_what_the_judge_bought_gets_the_width_the_figures_leave(tmp_path, width):
    """The sentences go under the figures in a table of their own (in the figures' table they got the room the
    figures left: at 80 columns a word or two a line): each starts on its figure's row and takes at most two lines."""
    from rich.console import Console

    from gradedesk.core.agreement.report import agreement_report
    from gradedesk.core.agreement.tables import ppi_table
    from gradedesk.tui.screens.agreement import gains_group

    path = tmp_path / "sampled.db"
    with open_store(path) as s:
        run, answers = build_sampling_run(s)
        grade_sampled(s, run, answers, "carol", 10)
        report = agreement_report(s, run, FAST)
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(gains_group(ppi_table(report)))
    lines = console.export_text().splitlines()
    assert all(len(line.rstrip()) <= width for line in lines)
    head = next(i for i, line in enumerate(lines) if "what machine grades bought" in line)
    rows = lines[head + 1:]
    labels = ["raw ", "bundle @ 2000 ", "bundle - raw @ 2000 "]
    starts = [next(i for i, line in enumerate(rows) if line.startswith(label)) for label in labels]
    assert all(rows[i].split(maxsplit=len(label.split()))[-1].startswith("the machine grades")
               for i, label in zip(starts, labels))
    assert all(b - a <= 2 for a, b in zip(starts, starts[1:] + [len(rows)]))


@sync
async def test_two_judge_rubrics_are_shown_side_by_side(store):
    """(With one rubric the table is not shown: test_the_screen_shows_its_sections_literally_... above.)"""
    with open_store(store.path) as s:
        add_rubric(s, "rubric-2", "2030-01-01T00:00:00+00:00")
        for n, aid in enumerate(sorted(store.answer_ids.values())[:4]):
            add_auto(s, aid, GRADES[n % 2], model="gpt-4o-mini", rubric="rubric-2")
        both = s._scalar(  # person grades of answers the judge graded under both rubrics
            "SELECT count(*) FROM current_human_grades h WHERE (SELECT count(DISTINCT rubric_version) FROM auto_grades "
            "g WHERE g.answer_id = h.answer_id AND g.grader_kind = 'judge') = 2")
    app = Host(store.path, store.run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        shown = screen.query_one("#agreement-rubrics", Static)
        assert shown.display
        plain = rendered_text(shown.content)
        assert both > 0 and f"side by side on the {both} pair(s) every version graded" in plain
        assert "gpt-4o-mini rubric-1" in plain and "gpt-4o-mini rubric-2" in plain


def toast_text(app) -> str:
    """The notifications on screen (their lines start with the toast's bar), as one line."""
    lines = (line.strip("▌ ") for line in screen_text(app).splitlines() if line.startswith("▌"))
    return " ".join(line for line in lines if line)


@sync
async def test_a_failure_is_notified_literally(tmp_path):
    app = Host(tmp_path / "gone [run 1].db", 1)
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # run_test hides notifications by default
        for _ in range(100):
            await pilot.pause()
            if "no such store" in toast_text(app):
                break
            await asyncio.sleep(0.02)
        toast = toast_text(app)
        assert toast.startswith("error the store could not be used:") and "[run 1].db: no such store" in toast
    assert app.return_code in (None, 0)


@sync
async def test_the_budget_curve_is_shown_once_people_graded_at_two_budgets(tmp_path, store):
    app = Host(store.path, store.run_id)
    async with app.run_test(size=SIZE) as pilot:  # people graded at one budget: no curve
        screen = await loaded(pilot)
        assert not screen.query_one("#agreement-budgets", Static).display
    path = tmp_path / "budgets.db"
    graded_at_two_budgets(path)
    app = Host(path, 1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        shown = screen.query_one("#agreement-budgets", Static)
        assert shown.display and screen.query_one("#agreement-budget-plot").display
        plain = rendered_text(shown.content)
        assert "Pass rate by budget" in plain
        assert "bundle@1000  3" in plain and "0.333 [" in plain and "1000: 3, 2000: 3" in plain


def test_snapshot_budget_curve_100x30(tmp_path, snap_compare):
    path = tmp_path / "budgets.db"
    graded_at_two_budgets(path)

    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("p")  # to the end: the budget curve
        await pilot.pause()

    assert snap_compare(Host(path, 1), terminal_size=(100, 30), run_before=run_before)


@sync
async def test_page_keys_scroll_the_screen_while_the_matrix_has_focus(store):
    """pgdn/pgup reach the sections below the matrix by keyboard (the matrix keeps focus), and the footer says so."""
    app = Host(store.path, store.run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        body = screen.query_one("#agreement-body")
        assert body.scroll_y == 0 and body.max_scroll_y > 0
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert body.scroll_y > 0 and isinstance(app.focused, MatrixTable)
        await pilot.press("pageup", "pageup", "pageup")
        await pilot.pause()
        assert body.scroll_y == 0


@sync
async def test_a_persons_desk_shows_their_own_matrix_named(store):
    """Two people graded: opened from bob's desk, the matrix is bob's pairs (named), not the pooled ones, so a cell
    opens exactly the rows it counts in his queue; the top line says the figures pool everyone's grades."""
    app = Host(store.path, store.run_id, person="bob")
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await loaded(pilot)
        report = screen.report
        assert report.people == ["alice", "bob"] and screen.matrix == report.confusion_by_person["bob"]
        assert screen.matrix != report.confusion.matrix
        text = screen_text(app)
        assert "Confusion matrix of bob's grades (rows: bob, columns: machine)" in text
        assert "pooled: everyone's grades" in text
