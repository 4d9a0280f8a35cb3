"""The hostile corpus at the desk: a run read from traces whose side labels, questions, answers and evidence carry
markup, CSI, OSC 0/8/52, C1 controls, bidi overrides and NUL. Every screen the desk opens is drawn, and no character
of those sequences is in what the compositor sends to the terminal (pane titles included); the text shows escaped.
One desk opens every screen in turn (each was a desk of its own)."""

from __future__ import annotations

import pytest

from tests.core.cli.test_hostile_corpus import CORPUS, FORBIDDEN
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, running
from tests.fixtures.langfuse_export import hostile_traces

pytestmark = pytest.mark.anyio


def drawn(app) -> str:
    """The text of every segment the screen's compositor draws now (styles apart: they are gradedesk's own)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip if not seg.control) for strip in strips)


def hostile_store(tmp_path, capsys):
    db = tmp_path / "store.db"
    code, _, err = cli(capsys, "import-traces", "--langfuse", hostile_traces(tmp_path / "t.json", CORPUS),
                       "--side-by", "variant", "--pair-by", "case", "--store", db)
    assert code == 0, err
    return db


KEYS = ["b", "c", "q", "v", "question_mark", "a", "p", "slash", "f", "exclamation_mark"]  # each screen the desk opens


def forbidden(app, what: str) -> None:
    text = drawn(app)
    found = FORBIDDEN.search(text)
    assert found is None, f"{what}: {type(app.screen).__name__} draws {found.group()!r}: " \
                          f"{text[max(0, found.start() - 80):found.end() + 40]!r}"


async def test_no_control_sequence_from_the_corpus_is_drawn(tmp_path, capsys):
    """The grading screen, then each key's screen (or message) opened from it, on one desk: escape leads back."""
    path = hostile_store(tmp_path, capsys)
    async with running(path, size=(120, 40)) as (app, pilot):
        grading = app.screen
        main_screen = drawn(app)
        assert "\\x1b" in main_screen and "\\u202e" in main_screen  # shown, escaped: in titles and bodies
        forbidden(app, "the grading screen")
        for key in KEYS:
            await keys(pilot, key)
            forbidden(app, key)
            if app.screen is not grading:
                await keys(pilot, "escape")
            assert app.screen is grading, key
