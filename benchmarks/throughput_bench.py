"""Answer/judge call throughput against a local chat-completions server with a fixed reply delay.

Every LLM call gradedesk makes (answers in `gradedesk run`, verdicts in the judge) goes through
OpenAICompatibleProvider.complete under run_bounded. With a server that takes DELAY seconds per reply and CONCURRENCY
calls in flight, the ideal rate is CONCURRENCY / DELAY calls per second; this prints the achieved rate as a share of it
(goal: >= 90%), the median over several rounds. The server runs in its own process, as a real endpoint does, so
its threads do not share gradedesk's interpreter. Run: python benchmarks/throughput_bench.py [--concurrency 8]

--one-slot makes the server answer one request at a time and queue the rest (llama.cpp with one slot), and prints per
round the calls that succeeded and failed and the requests sent under --timeout: with more in flight than the server
answers within the timeout, the provider must learn to send fewer (core/providers/concurrency.py AdaptiveLimit).
    python benchmarks/throughput_bench.py --one-slot --concurrency 4 --delay 0.25 --timeout 0.6 --calls 12
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the chat stand-in lives in tests/fixtures

from tests.fixtures.chat_server import ChatServer

from gradedesk.core.providers import OpenAICompatibleProvider, ProviderError, run_bounded

MESSAGES = [{"role": "system", "content": "Answer from the evidence."},
            {"role": "user", "content": "Question: what does open_store do?\n\nContext:\n\nFile: core/store.py"}]


def serve(delay: float, conn, one_slot: bool = False) -> None:
    """Child process: run the chat server until the parent says stop."""
    with ChatServer(fixed_delay=delay) as server:
        server.one_slot = one_slot
        conn.send(server.base_url)
        conn.recv()


async def one_round(base_url: str, calls: int, concurrency: int) -> float:
    provider = OpenAICompatibleProvider("gpt-4o-mini", base_url, concurrency=concurrency, timeout=30)
    # one call first so connection setup is not counted, as in a long run
    await provider.complete(MESSAGES)
    started = time.perf_counter()
    results = await run_bounded(range(calls), lambda _i: provider.complete(MESSAGES), concurrency)
    elapsed = time.perf_counter() - started
    await provider.aclose()
    assert all(r.text for r in results)
    return calls / elapsed


async def one_slot_round(base_url: str, calls: int, concurrency: int, timeout: float) -> tuple[int, int, int, float]:
    """(calls that succeeded, calls that failed, requests sent, seconds) against a one-slot server."""
    provider = OpenAICompatibleProvider("gpt-4o-mini", base_url, concurrency=concurrency, timeout=timeout,
                                        backoff_base=0.05)
    ok, failed, sent = 0, 0, 0

    async def one(_i: int) -> None:
        nonlocal ok, failed, sent
        try:
            result = await provider.complete(MESSAGES)
            sent += result.attempts
            ok += 1
        except ProviderError as exc:
            sent += exc.attempts
            failed += 1

    started = time.perf_counter()
    await run_bounded(range(calls), one, concurrency)
    elapsed = time.perf_counter() - started
    await provider.aclose()
    return ok, failed, sent, elapsed


def one_slot(args: argparse.Namespace) -> int:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(args.delay, child, True), daemon=True)
    server.start()
    base_url = parent.recv()
    walls = []
    try:
        for i in range(args.rounds):
            ok, failed, sent, wall = asyncio.run(one_slot_round(base_url, args.calls, args.concurrency, args.timeout))
            walls.append(wall)
            print(f"round {i + 1}: {ok} of {args.calls} calls succeeded, {failed} failed, {sent} requests sent, "
                  f"{wall:.1f} s")
            time.sleep(args.delay * args.concurrency)  # let the server finish what nobody waits for
    finally:
        parent.send("stop")
        server.join(timeout=5)
    print(f"one-slot server, {args.delay:g} s a reply, concurrency {args.concurrency}, timeout {args.timeout:g} s: "
          f"median {statistics.median(walls):.1f} s for {args.calls} calls (ideal {args.calls * args.delay:.1f} s)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--calls", type=int, default=80, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--one-slot", action="store_true", help="a server that answers one request at a time")
    parser.add_argument("--timeout", type=float, default=0.6, help="--one-slot: the provider's timeout (seconds)")
    args = parser.parse_args()
    if args.one_slot:
        return one_slot(args)
    ideal = args.concurrency / args.delay
    ratios = []
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(args.delay, child), daemon=True)
    server.start()
    base_url = parent.recv()
    try:
        for i in range(args.rounds):
            rate = asyncio.run(one_round(base_url, args.calls, args.concurrency))
            ratios.append(rate / ideal)
            print(f"round {i + 1}: {rate:.1f} calls/s = {rate / ideal:.1%} of ideal", file=sys.stderr)
    finally:
        parent.send("stop")
        server.join(timeout=5)
    median = statistics.median(ratios)
    print(f"throughput: concurrency {args.concurrency}, delay {args.delay:g}s, {args.calls} calls x {args.rounds} "
          f"rounds: median {median * ideal:.1f} calls/s of ideal {ideal:.1f} = {median:.1%} (goal >= 90%: "
          f"{'met' if median >= 0.9 else 'NOT met'})")
    return 0 if median >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
