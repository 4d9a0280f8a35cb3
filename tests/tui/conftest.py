"""Fixtures for the desk's tests: a fixture store and a hostile one (helpers to drive a desk: tests/fixtures/desk.py)."""

from __future__ import annotations

import pytest

from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture
def fixture_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db")


@pytest.fixture
def hostile_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db", hostile=True)
