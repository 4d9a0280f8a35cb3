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


def test_adaptive_limit_halves_on_a_timeout_caps_below_it_and_grows_back_by_successes():
    from gradedesk.core.providers.concurrency import AdaptiveLimit

    async def scenario() -> list[tuple[int, int]]:
        slots = AdaptiveLimit(4)
        seen = []
        cuts = [await slots.acquire() for _ in range(4)]  # four in flight
        slots.release(ok=False, timed_out=True, started_under=cuts[0])  # one of four timed out: limit 2, ceiling 3
        seen.append((slots.limit, slots.ceiling))
        slots.release(ok=False, timed_out=True, started_under=cuts[1])  # sent before the cut: no second cut
        seen.append((slots.limit, slots.ceiling))
        for c in cuts[2:]:
            slots.release(ok=True, started_under=c)  # two successes at limit 2: up to 3, the ceiling
        seen.append((slots.limit, slots.ceiling))
        for _ in range(6):
            slots.release(ok=True, started_under=await slots.acquire())
        seen.append((slots.limit, slots.ceiling))  # never above the ceiling
        alone = await slots.acquire()
        slots.release(ok=False, timed_out=True, started_under=alone)  # timed out alone: one at a time from now on
        seen.append((slots.limit, slots.ceiling))
        return seen

    assert asyncio.run(scenario()) == [(2, 3), (2, 3), (3, 3), (3, 3), (1, 1)]


def test_adaptive_limit_makes_callers_wait_and_a_cancelled_waiter_passes_its_turn_on():
    from gradedesk.core.providers.concurrency import AdaptiveLimit

    async def scenario() -> list[str]:
        slots, log = AdaptiveLimit(1), []
        first = await slots.acquire()

        async def second() -> None:
            slots.release(ok=True, started_under=await slots.acquire())
            log.append("second ran")

        cancelled = asyncio.create_task(slots.acquire())
        waiting = asyncio.create_task(second())
        await asyncio.sleep(0.01)
        assert not waiting.done() and slots.in_flight == 1
        cancelled.cancel()
        slots.release(ok=True, started_under=first)
        await asyncio.wait_for(waiting, 1)
        return log

    assert asyncio.run(scenario()) == ["second ran"]
