"""Fixtures for the desk's tests: a fixture store, a desk app on it, and `settle` (wait until the store thread is idle
and every reply has been handled)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.fixtures_store` under plain `pytest` too
    sys.path.insert(0, str(ROOT))

from tests.fixtures_store import build_fixture_store  # noqa: E402
from tui.app import DeskApp, DeskConfig  # noqa: E402


async def settle(pilot, timeout: float = 10.0) -> None:
    """Wait until no store job is queued or running and the replies were handled (replies may submit more jobs)."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    quiet = 0
    while quiet < 3:
        await pilot.pause()
        if app.idle:
            quiet += 1
        else:
            quiet = 0
            await asyncio.sleep(0.005)
        if loop.time() > deadline:
            raise TimeoutError("the desk's store thread did not go idle")


async def keys(pilot, *names: str) -> None:
    """Press each key and wait until the desk has handled it (store jobs included)."""
    for name in names:
        await pilot.press(name)
        await settle(pilot)


def make_app(path: Path, run_id: int = 1, grader: str = "alice", **settings) -> DeskApp:
    return DeskApp(DeskConfig(Path(path), run_id, grader, cursor_blink=False, **settings))


@asynccontextmanager
async def running(path: Path, size: tuple[int, int] = (140, 44), **settings) -> AsyncIterator[tuple[DeskApp, object]]:
    """A desk on `path`, headless, opened and settled: `async with running(path) as (app, pilot):`."""
    app = make_app(path, **settings)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield app, pilot


@pytest.fixture
def fixture_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db")


@pytest.fixture
def hostile_store(tmp_path):
    return build_fixture_store(tmp_path / "store.db", hostile=True)


@pytest.fixture
def anyio_backend():
    return "asyncio"  # async tests run under anyio's pytest plugin (`pytestmark = pytest.mark.anyio`)
