"""Answer/judge call throughput against a local chat-completions server with a fixed reply delay.

Every LLM call gradedesk makes (answers in `gradedesk run`, verdicts in the judge) goes through
OpenAICompatibleProvider.complete under run_bounded. With a server that takes DELAY seconds per reply and CONCURRENCY
calls in flight, the ideal rate is CONCURRENCY / DELAY calls per second; this prints the achieved rate as a share of it
(goal: >= 90%), the median over several rounds. The server runs in its own process, as a real endpoint does, so
its threads do not share gradedesk's interpreter. Run: python benchmarks/throughput_bench.py [--concurrency 8]
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

from tests.fixtures.chat_server import ChatServer  # noqa: E402

from gradedesk.core.providers import OpenAICompatibleProvider, run_bounded  # noqa: E402


def serve(delay: float, conn) -> None:
    """Child process: run the chat server until the parent says stop."""
    with ChatServer(fixed_delay=delay) as server:
        conn.send(server.base_url)
        conn.recv()


async def one_round(base_url: str, calls: int, concurrency: int) -> float:
    provider = OpenAICompatibleProvider("gpt-4o-mini", base_url, concurrency=concurrency, timeout=30)
    messages = [{"role": "system", "content": "Answer from the evidence."},
                {"role": "user", "content": "Question: what does open_store do?\n\nContext:\n\nFile: core/store.py"}]
    # one call first so connection setup is not counted, as in a long run
    await provider.complete(messages)
    started = time.perf_counter()
    results = await run_bounded(range(calls), lambda _i: provider.complete(messages), concurrency)
    elapsed = time.perf_counter() - started
    await provider.aclose()
    assert all(r.text for r in results)
    return calls / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--calls", type=int, default=80, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
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
