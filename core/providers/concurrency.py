"""Running many provider calls with a bound on how many are in flight."""

from __future__ import annotations

import asyncio
from collections import deque
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


class AdaptiveLimit:
    """At most `limit` calls in flight to one server, where `limit` learns what the server can take.

    A local server (llama.cpp, Ollama) often answers one request at a time and queues the rest, and a client's timeout
    counts the time queued: with 4 in flight to a one-slot server, the fourth waits for three replies and times out,
    and the server goes on computing the reply nobody waits for. So a timeout halves the limit (never below 1) and sets
    a ceiling one below the number in flight when it happened; every `limit` successes in a row raise it by one, up to
    the ceiling. Timeouts of calls started before the last cut do not cut again: they were sent under the old limit.
    `release` does not wait, so it is safe in a `finally` of a cancelled call.
    """

    def __init__(self, limit: int) -> None:
        self.limit = self.ceiling = max(1, limit)
        self.in_flight = 0
        self._cuts = 0  # how many times the limit was cut: a call remembers the count it started under
        self._successes = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> int:
        """Wait for a free slot; returns the cut count the call starts under (give it back to `release`)."""
        while self.in_flight >= self.limit:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)
                self._wake()  # a wake-up this waiter took goes to the next one
                raise
        self.in_flight += 1
        return self._cuts

    def release(self, *, ok: bool, timed_out: bool = False, started_under: int = 0) -> None:
        self.in_flight -= 1
        if timed_out and started_under == self._cuts:
            # self.in_flight now counts the others: one below how many were in flight with this call
            self.ceiling = max(1, min(self.ceiling, self.in_flight))
            self.limit = max(1, min(self.limit // 2, self.ceiling))
            self._cuts += 1
            self._successes = 0
        elif ok:
            self._successes += 1
            if self._successes >= self.limit and self.limit < self.ceiling:
                self.limit += 1
                self._successes = 0
        self._wake()

    def _wake(self) -> None:
        free = self.limit - self.in_flight
        while free > 0 and self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1
