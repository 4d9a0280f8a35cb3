"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A local OpenAI-compatible chat-completions server (see tests/chat_server.py) on 127.0.0.1, a free port."""
    with ChatServer() as server:
        yield server
