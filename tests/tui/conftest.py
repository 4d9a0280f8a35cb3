"""Fixtures for the desk's tests: a fixture store and a hostile one (helpers to drive a desk: tests/fixtures/desk.py),
and a test process that keeps what earlier tests left out of each desk's garbage collections."""

from __future__ import annotations

import gc

import pytest
from textual._styles_cache import StylesCache

from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture(autouse=True)
def lean_heap():
    """A desk collects and freezes what is alive once it has opened (tui/collector.py): in a test process that is
    also everything the run holds (pytest, every module, earlier tests), 0.3-0.5 s of CPU per desk opened, and more as
    the run goes on. So what the process holds when a test starts is frozen first (the desk's own objects are still
    collected and frozen as in a desk process; the desk unfreezes all when it closes, as here after the test).
    Textual keeps the StylesCache of up to 1,024 closed widgets, with their rendered lines, in an lru_cache on an
    instance method (StylesCache.get_inner_outer: about 9,000 objects a desk); emptied after each test."""
    gc.freeze()
    yield
    gc.unfreeze()
    StylesCache.get_inner_outer.cache_clear()


@pytest.fixture
def fixture_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db")


@pytest.fixture
def hostile_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db", hostile=True)
