"""Running many provider calls with a bound on how many are in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


async def run_bounded(items: Iterable[T], fn: Callable[[T], Awaitable[R]], concurrency: int,
                      on_done: Callable[[T, R], None] | None = None) -> list[R]:
    """Apply `fn` to every item with at most `concurrency` in flight; results in item order.

    `on_done(item, result)` runs in the event loop as each finishes (progress, storing). If `fn` raises, the other
    workers are cancelled and the error propagates (asyncio.TaskGroup), so Ctrl-C and fatal errors stop promptly.
    """
    work = list(enumerate(items))
    results: list[Any] = [None] * len(work)
    queue: asyncio.Queue[tuple[int, T]] = asyncio.Queue()
    for entry in work:
        queue.put_nowait(entry)

    async def worker() -> None:
        while True:
            try:
                index, item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await fn(item)
            results[index] = result
            if on_done is not None:
                on_done(item, result)

    async with asyncio.TaskGroup() as group:
        for _ in range(max(1, min(concurrency, len(work)))):
            group.create_task(worker())
    return results
