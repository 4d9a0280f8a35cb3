"""The explore screen driven by its keys on a real indexed store: asking moves the keys to the results, budget steps mark
snippets by chunk id and line range against the compiler's own output, the ranks are `retrieve --json`'s, a desk item
opens it with its bundle's budget, and a kept question lands in a file that `gradedesk questions check` accepts."""

from __future__ import annotations

import gc
import json
from collections import Counter
from pathlib import Path

import pytest

from gradedesk.core.evidence.compile import CANDIDATE_HITS, DID_NOT_FIT, compile_context
from gradedesk.core.retrieval.hybrid import retrieve
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.question import analyse_question
from gradedesk.tui.app import DeskApp, DeskConfig
from gradedesk.tui.screens.explore import ExploreScreen
from gradedesk.tui.screens.grading import GradingScreen
from gradedesk.tui.widgets.text_column import TextColumn
from tests.fixtures.cli import cli
from tests.fixtures.desk import count_layouts, keys, make_app, rendered_text, screen_text, settle
from tests.fixtures.explore_repo import QUESTION, build_explore_store, write_questions

pytestmark = pytest.mark.anyio


def explore_app(path: Path, question: str = "", **options) -> DeskApp:
    return DeskApp(DeskConfig(path, 0, "alice", cursor_blink=False),
                   lambda desk: ExploreScreen(desk, question, **options))


def drawn(app, which: str) -> str:
    """The text of a results column as the screen drew it (the whole column, not only its visible part)."""
    return rendered_text(app.screen.query_one(f"#{which}" if which.startswith("explore") else f"#explore-{which}").content)


def compiled(path: Path, budget: int) -> dict[str, tuple[int, int]]:
    """The compiler's own bundle at `budget`, run apart from the screen: chunk id -> line range."""
    with open_store(path) as store:
        info = analyse_question(QUESTION)
        pack = compile_context(info, retrieve(store, info, k=CANDIDATE_HITS), budget)
    return {s.chunk_id: (s.start_line, s.end_line) for s in pack.snippets}


def budget_left_out(path: Path, budget: int) -> set[str]:
    with open_store(path) as store:
        info = analyse_question(QUESTION)
        pack = compile_context(info, retrieve(store, info, k=CANDIDATE_HITS), budget)
    return {d.chunk_id for d in pack.dropped if d.why == DID_NOT_FIT}


def expected_marks(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> dict[str, str]:
    out = {}
    for chunk, (a, b) in after.items():
        if chunk not in before:
            out[chunk] = "new"
        elif before[chunk] == (a, b):
            out[chunk] = "same"
        else:
            old = before[chunk][1] - before[chunk][0]
            out[chunk] = "grown" if b - a > old else "cut" if b - a < old else "shifted"
    return out


async def test_plus_right_after_asking_steps_the_budget_not_the_input(tmp_path):
    path = build_explore_store(tmp_path)
    app = explore_app(path, budget=500)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.focused is app.screen.query_one("#explore-question")
        await pilot.press(*[c if c != " " else "space" for c in QUESTION])
        await pilot.press("enter", "plus")  # no wait between: the + must reach the results, not the input
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#explore-question").value == QUESTION
        assert screen.budget == 1000
        assert screen.shown.compiled.budget == 1000
        assert "Bundle at 1,000" in drawn(app, "bundle")
        await keys(pilot, "slash")  # back to the input: now + is text
        await keys(pilot, "plus")
        assert screen.query_one("#explore-question").value == QUESTION + "+"
        assert screen.budget == 1000


async def test_budget_steps_mark_snippets_by_chunk_id_and_line_range(tmp_path, capsys):
    """Opened at 500 tokens, one explore screen: left-out candidates say why, the raw column's ranks and scores are
    those of `retrieve --json`, then budget steps mark the snippets by chunk id and line range."""
    path = build_explore_store(tmp_path)
    at_500, at_2000, at_1000 = compiled(path, 500), compiled(path, 2000), compiled(path, 1000)
    left_out = budget_left_out(path, 500) & at_2000.keys()
    assert left_out  # the fixture makes some hit miss 500 tokens and fit 2,000
    code, out, _ = cli(capsys, "retrieve", QUESTION, "--store", path, "--json")
    assert code == 0
    hits = json.loads(out)["hits"]
    app = explore_app(path, QUESTION, budget=500)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        text = drawn(app, "bundle")  # left-out candidates say why
        assert "did not fit: its smallest cut needs" in text and "were free of 500" in text
        assert "duplicate of evidence" in text  # legacy/prices.py repeats shop/prices.py's unit_price
        assert "cut to lines" in text
        assert f"the compiler takes up to {CANDIDATE_HITS}" in text
        lines = drawn(app, "raw").replace("\n", " ")  # the ranks and scores of retrieve --json
        for hit in hits:
            where = f"{hit['rank']:>2} {hit['file_path']}:{hit['start_line']}-{hit['end_line']}"
            start = lines.index(where)
            end = lines.index(f"fused #{hit['rank']} {hit['score']}", start)
            entry = lines[start:end]
            for method, rank in hit["method_ranks"].items():
                assert f"{method} #{rank} {hit['method_scores'][method]}" in entry
            if "graph" in hit["matches"]:
                assert hit["matches"]["graph"] in entry  # the edge: "called by X", "used by Y"

        assert {c: (s.start_line, s.end_line) for c, s in
                ((s.chunk_id, s) for s in screen.shown.compiled.bundle.snippets)} == at_500
        used_500 = screen.shown.compiled.bundle.total_tokens
        await keys(pilot, "2", "0", "0", "0", "enter")  # a typed budget
        assert screen.budget == 2000
        marks = screen.shown.moved.marks
        assert marks == expected_marks(at_500, at_2000)
        assert all(marks[c] == "new" for c in left_out)
        assert "grown" in marks.values()
        head = drawn(app, "explore-head")  # the step's line: what it added and what it cost
        assert "500 → 2,000: " in head
        assert all(f"{n} {mark}" in head for mark, n in Counter(marks.values()).items())
        assert f"cost +{screen.shown.compiled.bundle.total_tokens - used_500:,} tokens" in head
        text = drawn(app, "bundle")
        by_chunk = {s.chunk_id: (i, s) for i, s in enumerate(screen.shown.compiled.bundle.snippets, start=1)}
        for chunk in left_out:
            i, s = by_chunk[chunk]
            assert f"new E{i} {s.file_path}:{s.start_line}-{s.end_line}" in text
        await keys(pilot, "minus")
        assert screen.budget == 1000
        assert screen.shown.moved.marks == expected_marks(at_2000, at_1000)
        gone = set(at_2000) - set(at_1000)
        assert {s.chunk_id for s in screen.shown.moved.gone} == gone
        assert drawn(app, "bundle").count("   gone ") == len(gone)
        assert "cut" in screen.shown.moved.marks.values()  # a snippet may take less of 1,000 tokens than of 2,000
        await keys(pilot, "minus")
        assert screen.budget == 500
        assert screen.shown.moved.marks == expected_marks(at_1000, at_500)


@pytest.fixture
def answered(tmp_path) -> tuple[Path, int]:
    """The explore store with a run over its question, answered offline at 1,000 tokens: (store, run id)."""
    from gradedesk.core.providers.offline import OfflineExtractiveProvider
    from gradedesk.core.runs.runner import run_benchmark

    path = build_explore_store(tmp_path)
    questions = write_questions(tmp_path / "shop-questions.jsonl")
    with open_store(path) as store:
        return path, run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[1000]).run_id


async def test_x_on_a_desk_item_opens_explore_at_its_bundle_budget(answered):
    path, run_id = answered
    app = make_app(path, run_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GradingScreen)
        stored = app.screen.session.item.answers["bundle"].bundle
        await keys(pilot, "x")
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        assert screen.query_one("#explore-question").value == QUESTION
        assert screen.budget == 1000
        # the same candidates and budget as the run: the same snippets as the stored bundle
        assert [(s.chunk_id, s.start_line, s.end_line) for s in screen.shown.compiled.bundle.snippets] == \
            [(s.chunk_id, s.start_line, s.end_line) for s in stored.snippets]
        await keys(pilot, "escape")
        assert isinstance(app.screen, GradingScreen)


async def test_keep_appends_a_valid_question_and_rewrites_nothing(tmp_path, capsys):
    path = build_explore_store(tmp_path)
    questions = write_questions(tmp_path / "kept.jsonl")
    before = questions.read_bytes()
    app = explore_app(path, QUESTION, questions=questions)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "s")
        await keys(pilot, *"ten", "space", *"percent", "enter")
        await keys(pilot, *"shop/cart.py", "space", *"shop/ledger.py", "enter")
        assert "kept as explore-2" in app.last_status
    data = questions.read_bytes()
    assert data.startswith(before)
    added = json.loads(data[len(before):])
    assert added == {"id": "explore-2", "question": QUESTION, "category": "explanation",
                     "gold_answer": "ten percent", "expected_files": ["shop/cart.py", "shop/ledger.py"]}
    code, _, err = cli(capsys, "questions", "check", questions)
    assert code == 0, err
    assert "2 questions valid" in err


async def test_results_of_an_older_question_or_budget_are_dropped(tmp_path):
    path = build_explore_store(tmp_path)
    app = DeskApp(DeskConfig(path, 0, "alice", cursor_blink=False, job_delay=2.0),  # a slow store: replies come late
                  lambda desk: ExploreScreen(desk, "Where is unit_price defined?", budget=500))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        shown: list[tuple[str, int]] = []  # every bundle the screen drew: (question, budget)
        draw = screen._draw

        def logged() -> None:
            shown.append((screen.shown.compiled.bundle.question, screen.shown.compiled.budget))
            draw()
        screen._draw = logged
        await pilot.press("slash")
        screen.query_one("#explore-question").value = QUESTION
        await pilot.press("enter", "plus", "plus", "plus")  # while the first question is still being retrieved
        await settle(pilot)
        assert shown == [(QUESTION, 4000)]  # neither the first question's bundle nor the budgets passed by
        assert screen.retrieval.info.text == QUESTION
        assert screen.budget == screen.shown.compiled.budget == 4000
        assert screen.shown.compiled.bundle.question == QUESTION
        assert "Bundle at 4,000" in drawn(app, "bundle")


async def test_the_bundle_column_draws_its_last_rows_when_scrolled_there_and_rewraps_on_resize(tmp_path):
    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=8000)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        column = app.screen.query_one("#explore-bundle")
        assert column.virtual_size.height > column.size.height  # longer than the screen: only part of it drawn
        assert "Coverage" not in screen_text(app)
        made = [column._starts[i] for i, key in enumerate(column._keys) if key in column._made]
        assert made and max(made) < column.size.height  # the lines below the view were never made into strips
        await keys(pilot, "end")
        assert column.scroll_offset.y > 0
        assert "Coverage" in screen_text(app)
        rows_wide = column.virtual_size.height
        await pilot.resize_terminal(80, 30)
        await settle(pilot)
        assert column.virtual_size.height > rows_wide  # the narrower column wraps into more rows
        await keys(pilot, "end")
        assert "Coverage" in screen_text(app)


async def test_asking_again_mounts_nothing_and_lays_nothing_out_the_footer_line_changes_in_place(tmp_path):
    """A new question moves focus to the input and back: the footer redraws its line (the letter keys hidden while
    the input takes them), mounting no widget and laying out nothing (Textual's Footer rebuilt its keys twice per
    question, each time a layout of the whole screen: about 250 ms of CPU before the first bundle)."""
    from gradedesk.tui.widgets.footer import DeskFooter

    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=500)
    async with app.run_test(size=(100, 30)) as pilot:
        await keys(pilot, "slash", "enter")  # the first focus of each column styles its scrollbar: one layout, once
        screen = app.screen
        footer = screen.query_one(DeskFooter)
        widgets = len(list(screen.walk_children()))
        layouts = count_layouts(screen)
        for _ in range(3):
            await keys(pilot, "slash")
            typing = footer.content.plain
            await keys(pilot, "enter")
            reading = footer.content.plain
            assert "v code" not in typing and "back" in typing and "^p palette" in typing
            assert reading.startswith(" +/- budget  / question  v code  s keep ") and "^p palette" in reading
        assert len(list(screen.walk_children())) == widgets
        assert layouts == [0]


async def test_the_loaded_index_is_left_out_of_later_garbage_collections(tmp_path):
    """Once a question's first bundle is painted, what is alive (the loaded index above all) is frozen, so a full
    collection between a budget key and its bundle does not walk it."""
    path = build_explore_store(tmp_path)
    app = explore_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        frozen = gc.get_freeze_count()
        await pilot.press(*[c if c != " " else "space" for c in QUESTION])
        await keys(pilot, "enter")
        assert app.screen.shown is not None
        assert gc.get_freeze_count() > frozen


async def test_the_columns_rows_are_their_whole_texts_wrapped(tmp_path):
    """Rows counted line by line and drawn only in view are the rows of the whole text wrapped, code included."""
    from textual.content import Content
    from textual.visual import Visual

    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=8000)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "v")  # the snippets' code too
        for column in app.screen.query(TextColumn):
            width = column.scrollable_content_region.width
            whole = Visual.to_strips(column, Content.from_rich_text(column.content), width, None, column.visual_style)
            assert column.virtual_size.height == len(whole)
            for first in (0, 7, len(whole) - 5):  # from the top, from inside a line, at the end
                column._made.clear()
                drawn_rows = [column._strip(first + i, 20 - i) for i in range(min(20, len(whole) - first))]
                assert [looks(s) for s in drawn_rows] == [looks(s) for s in whole[first:first + 20]]


def looks(strip) -> list[tuple[str, object]]:
    """A strip's text and styles, without the offsets Textual puts in its styles' meta (for mouse selection)."""
    return [(s.text, s.style.clear_meta_and_links() if s.style else None) for s in strip]


async def test_no_garbage_collection_between_a_budget_key_and_its_bundle_painted(tmp_path):
    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=500)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert gc.isenabled()
        paints: list[tuple[int | None, bool]] = []
        original = screen._compositor_refresh

        def refresh() -> None:  # what the paint shows, and whether the collector may run while it is made
            paints.append((screen.shown.compiled.budget if screen.shown else None, gc.isenabled()))
            original()
        screen._compositor_refresh = refresh
        pressed: list[int] = []  # the paints made before the key's action: a repaint left from opening may be one
        action = screen.action_budget

        def budget(direction: int) -> None:
            pressed.append(len(paints))
            action(direction)
        screen.action_budget = budget
        await keys(pilot, "plus")
        after = paints[pressed[0]:]
        budgets = [budget for budget, _ in after]
        assert all(not enabled for _, enabled in after[:budgets.index(1000) + 1])  # paused from the key to the paint
        assert gc.isenabled()  # and back on once the bundle is painted


async def test_tab_moves_between_the_two_columns_and_never_to_a_widget_that_does_not_show_it(tmp_path):
    """Tab and shift+Tab alternate between the raw and the bundle column, each drawn with the focus border and the
    budget keys in the footer; from the question input, Tab goes to the bundle (the input is reached by `/`)."""
    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        raw, bundle = screen.query_one("#explore-raw"), screen.query_one("#explore-bundle")
        assert app.focused is bundle
        for key, expected in (("tab", raw), ("tab", bundle), ("shift+tab", raw), ("shift+tab", bundle)):
            await keys(pilot, key)
            assert app.focused is expected
            assert expected.has_pseudo_class("focus") and expected.region.area > 0
            assert "+/- budget" in screen_text(app).splitlines()[-1]
        bundle.scroll_to(y=0, animate=False, immediate=True)
        await keys(pilot, "pagedown")  # the page keys act on the column in view
        assert bundle.scroll_offset.y > 0
        await keys(pilot, "slash")
        assert app.focused is screen.query_one("#explore-question")
        await keys(pilot, "tab")
        assert app.focused is bundle


async def test_a_new_question_opens_both_columns_at_their_top(tmp_path):
    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=8000)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        raw, bundle = screen.query_one("#explore-raw"), screen.query_one("#explore-bundle")
        await keys(pilot, "end")
        raw.focus()
        await keys(pilot, "end")  # both columns scrolled down the first question's results
        assert bundle.scroll_offset.y > 0 and raw.scroll_offset.y > 0
        await keys(pilot, "minus")  # a budget step keeps the place: the marks are read against what was there
        assert bundle.scroll_offset.y > 0
        await keys(pilot, "slash")
        screen.query_one("#explore-question").value = "Where is unit_price defined?"
        await keys(pilot, "enter")
        assert screen.shown.compiled.bundle.question == "Where is unit_price defined?"
        assert bundle.scroll_offset.y == 0 and raw.scroll_offset.y == 0
        assert "Bundle at 4,000" in screen_text(app)


async def test_budget_steps_repaint_the_rows_that_changed_and_leave_nothing_stale(tmp_path):
    """A new text repaints only the rows in view whose line changed; what the screen then shows of each column is its
    whole text wrapped, row for row (the rows kept from before included), at any scroll position."""
    from textual.content import Content
    from textual.geometry import Region
    from textual.visual import Visual

    path = build_explore_store(tmp_path)
    app = explore_app(path, QUESTION, budget=500)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        columns = list(app.screen.query(TextColumn))
        for step in (("plus",), ("plus",), ("minus",), ("pagedown", "plus"), ("v",), ("minus", "minus")):
            await keys(pilot, *step)
            for column in columns:
                width, height = column.scrollable_content_region.width, column.scrollable_content_region.height
                whole = Visual.to_strips(column, Content.from_rich_text(column.content), width, None,
                                         column.visual_style)
                top = column.scroll_offset.y
                expected = [s.text.rstrip() for s in whole[top:top + height]]
                shown = [s.text[2:2 + width].rstrip()
                         for s in column.render_lines(Region(0, 1, column.size.width, height))]
                assert shown[:len(expected)] == expected, (step, column.id)
