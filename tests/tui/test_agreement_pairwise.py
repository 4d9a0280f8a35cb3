"""The agreement screen's "Which answer is better" section: the pairwise judge (always answering "1") beside people's
left-side share, its agreement with their preferences, and the win rates with the judge's not defined, saying why; a
run read from traces names its sides and the reference-free rubric its gold-less pairs were judged under."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from gradedesk.core.grading.pairwise_judge import pairwise_run
from gradedesk.core.grading.pairwise_rubric import REFERENCE_FREE_FILE, builtin_pairwise_rubric
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import rendered_text
from tests.fixtures.pairwise import build_pairwise_run, content_judge, first_judge, import_two_sided, prefer_sampled
from tests.tui.test_agreement_screen import Host, loaded, sync

SIZE = (100, 30)


@pytest.fixture
def store(tmp_path, chat_server):
    path = tmp_path / "store.db"
    chat_server.responder = first_judge
    with open_store(path) as s:
        run, _ = build_pairwise_run(s)
        pairwise_run(s, run, OpenAICompatibleProvider("pair-judge", base_url=chat_server.base_url, max_retries=0,
                                                      timeout=5, concurrency=1))
        prefer_sampled(s, run, "alice", 6)
    return path, run


async def _at_section(pilot) -> None:
    screen = await loaded(pilot)
    screen.query_one("#agreement-body").scroll_to_widget(screen.query_one("#agreement-pairwise"), animate=False,
                                                         top=True)
    await pilot.pause()


@sync
async def test_the_section_shows_position_bias_and_why_the_judge_has_no_win_rate(store):
    path, run = store
    app = Host(path, run)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        plain = rendered_text(screen.query_one("#agreement-pairwise", Static).content)
    assert "judge chose ANSWER 1 (position bias; fair 0.5)  1.000" in plain
    assert "people chose the left answer" in plain and "0 / 6 / 0" in plain
    assert "no consistent verdict: the judge contradicted itself across the two orders on all 6" in plain


def test_snapshot(store, snap_compare):
    path, run = store
    assert snap_compare(Host(path, run), terminal_size=SIZE, run_before=_at_section)


@pytest.fixture
def traces_store(tmp_path, capsys, chat_server):
    """Run 1 read from traces of two variants (baseline vs rag-v2, no gold answers), judged pairwise."""
    path = import_two_sided(capsys, tmp_path)
    chat_server.responder = content_judge
    with open_store(path) as s:
        pairwise_run(s, 1, OpenAICompatibleProvider("pair-judge", base_url=chat_server.base_url, max_retries=0,
                                                    timeout=5, concurrency=1))
    return path


@sync
async def test_a_run_read_from_traces_names_its_sides_and_the_reference_free_rubric(traces_store):
    app = Host(traces_store, 1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        plain = rendered_text(screen.query_one("#agreement-pairwise", Static).content)
    free = builtin_pairwise_rubric(REFERENCE_FREE_FILE).version
    assert "the pairwise judge pair-judge (3 pair(s) without a gold answer:" in plain and free in plain
    assert "Win rate of rag-v2 over baseline" in plain and "0 / 6 / 0" not in plain and "3 / 0 / 0" in plain
    assert "baseline vs rag-v2" in plain and "baseline, rag-v2, tie" in plain
