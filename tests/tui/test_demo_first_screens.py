"""The demo's first screens as a new user sees them: the desk's palette and the agreement screen name the rule grader
as such (the demo has no judge), and the agreement screen leads with the raw-vs-bundles headline (definitions present
and code coverage first), a figure not defined for one reason saying so once; at 80x24 and 100x30."""

from __future__ import annotations

import shutil

import pytest
from textual.widgets import Static

from gradedesk.core.demo import build_demo_store
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.answers import answers_of_run
from tests.fixtures.agreement import add_human
from tests.fixtures.desk import palette, rendered_text, running, screen_text
from tests.tui.test_agreement_screen import Host, loaded, sync

SIZES = [(80, 24), (100, 30)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    report = build_demo_store(path)
    return path, report.run.run_id


@pytest.fixture(scope="module")
def graded_demo(demo, tmp_path_factory):
    """The demo with eight desk grades by one person: enough for the agreement screen to have pairs."""
    path = tmp_path_factory.mktemp("graded") / "demo.db"
    shutil.copy(demo[0], path)
    with open_store(path) as store:
        for n, a in enumerate(answers_of_run(store, demo[1])[:8]):
            add_human(store, a["id"], "alice", GRADES[n % 4])
    return path, demo[1]


@sync
async def test_the_palette_names_the_rule_grader(demo):
    path, run_id = demo
    async with running(path, size=(100, 30)) as (app, pilot):
        titles = set(await palette(app.screen))
    assert "Show the rule grader from the start" in titles
    assert not [t for t in titles if "judge" in t.lower()]


@pytest.mark.parametrize("size", SIZES)
@sync
async def test_the_agreement_screen_leads_with_the_headline_and_names_the_rule_grader(graded_demo, size):
    path, run_id = graded_demo
    app = Host(path, run_id)
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        first = screen_text(app)
        statics = [w for w in screen.query(Static) if w.id and w.id.startswith("agreement-")]
        plain = rendered_text(*(w.content for w in statics), width=size[0])
        head = rendered_text(screen.query_one("#agreement-headline", Static).content, width=size[0])
    assert "vs rule grader (rules/1)" in first and "Raw vs bundles" in first
    assert "the judge" not in plain and "judge does" not in plain
    assert "pass: rule" in head and "answer quality needs a model" in head
    # the benchmark names symbols: the code the evidence shows comes first, before file recall (breadth can raise it)
    assert head.index("definitions present") < head.index("code coverage") < head.index("file recall")
    assert plain.count("TPR + TNR") == 1  # the corrected pass rates' reason, once for every arm
