"""run_bounded: results in order, a bound on calls in flight, and a prompt stop when one call fails."""

from __future__ import annotations

import asyncio

import pytest

from gradedesk.core.providers import run_bounded


def test_run_bounded_keeps_order_and_bounds_concurrency():
    in_flight, peak, done = 0, 0, []

    async def work(n: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01 * (n % 3))
        in_flight -= 1
        return n * n

    results = asyncio.run(run_bounded(range(10), work, 3, on_done=lambda item, r: done.append(item)))
    assert results == [n * n for n in range(10)]
    assert peak == 3 and sorted(done) == list(range(10))


def test_run_bounded_stops_on_error():
    started = []

    async def work(n: int) -> int:
        started.append(n)
        if n == 1:
            raise ValueError("boom")
        await asyncio.sleep(0.05)
        return n

    with pytest.raises(ExceptionGroup):
        asyncio.run(run_bounded(range(20), work, 2))
    assert len(started) < 20
