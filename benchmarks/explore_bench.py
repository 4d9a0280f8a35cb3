"""Explore screen speed on the CPython standard library: the real screen driven headless, figures printed.

    python benchmarks/explore_bench.py               # index the stdlib once (cached under /tmp), then measure
    python benchmarks/explore_bench.py --rebuild

The store: this machine's standard library indexed as repository `stdlib` (no vectors), kept in --cache. The questions:
benchmarks/stdlib_questions.jsonl's 40 and the 10 below, 50 in all. The measurement opens the real DeskApp on the
explore screen with `run_test()` and, per question:
  first bundle   the question set in the input, Enter pressed → its first bundle (500 tokens) drawn, and → the screen's
                 next compositor refresh after that (painted): retrieval (a store job), compiling (a thread worker),
                 both columns drawn
  budget key     five budget changes → the new bundle painted: `+` four times (1,000, 2,000, 4,000, 8,000), then a
                 typed 3,000 (timed from its Enter); each a bundle not compiled before for that question
Then the same work without Textual's event loop (compile + render), for the same 50 x 5 budget changes and 50 first
bundles: retrieval (first bundles only), compile_at, the two columns' Rich Text (tui/widgets/explore_view.py) and their
layout into lines at the screen's column width, timed as wall clock and as this process's CPU time. On a machine shared
with other work the wall figures grow with the load (printed beside them); the CPU figures much less.
One question is asked first to load the index (its BM25 postings and symbol tables, cached per process) and is not
counted; the screen then freezes the index out of later garbage collections, and the collector waits from each key
until the bundle it asked for is painted, running right after (tui/collector.py), as it does in use. Without vectors no query is embedded: the figures hold no embedding time (retrieval_bench.py --natural
--vectors reports that apart). Every wait gives up after WAIT_LIMIT seconds, saying on stderr what it waited for.
Goals (issue 28): budget key → new bundle painted p95 ≤ 150 ms; a new question's first bundle painted p95 ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = Path("/tmp/gradedesk-bench")
WAIT_LIMIT = 60.0
EXTRA_QUESTIONS = (
    "How does heapq.heappush keep the heap invariant?",
    "What does functools.lru_cache store for each call?",
    "How does textwrap.wrap break long words?",
    "Where does argparse format the usage message?",
    "How does collections.OrderedDict.move_to_end work?",
    "What calls _siftdown in heapq?",
    "How does pathlib.Path.glob match patterns?",
    "How does the logging module find the handlers of a logger?",
    "How does base64.b64decode validate its input?",
    "What does csv.Sniffer use to guess the delimiter?",
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def wait_until(done: Callable[[], bool], what: str, poll: float = 0.0005) -> None:
    deadline = time.perf_counter() + WAIT_LIMIT
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"waited {WAIT_LIMIT:.0f} s for {what}")
        await asyncio.sleep(poll)


def build_store(path: Path, rebuild: bool) -> None:
    from gradedesk.core.index.indexer import index_repository
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.index import find_repo

    if rebuild and path.exists():
        path.unlink()
    with open_store(path) as store:
        if find_repo(store, "stdlib") is None:
            started = time.perf_counter()
            index_repository(store, sysconfig.get_paths()["stdlib"], name="stdlib")
            print(f"indexed the standard library in {time.perf_counter() - started:.1f} s", file=sys.stderr)


async def measure(path: Path, questions: list[str]) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(first bundle painted per question, budget key → new bundle painted per budget change): (wall ms, CPU ms)."""
    from textual.widgets import Input

    from gradedesk.tui.app import DeskApp, DeskConfig
    from gradedesk.tui.screens.explore import ExploreScreen

    drawn: list[float] = []
    painted: list[float] = []
    painted_cpu: list[float] = []  # the process's CPU time at each paint (all its threads)
    original_draw, original_refresh = ExploreScreen._draw, ExploreScreen._compositor_refresh

    def timed_draw(self) -> None:
        original_draw(self)
        if self.shown is not None:
            drawn.append(time.perf_counter())

    def timed_refresh(self) -> None:
        original_refresh(self)
        painted.append(time.perf_counter())
        painted_cpu.append(time.process_time())

    ExploreScreen._draw = timed_draw  # type: ignore[method-assign]
    ExploreScreen._compositor_refresh = timed_refresh  # type: ignore[method-assign]
    app = DeskApp(DeskConfig(path, 0, "bench", cursor_blink=False),
                  lambda desk: ExploreScreen(desk, budget=500, repo="stdlib"))
    first: list[tuple[float, float]] = []
    steps: list[tuple[float, float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.screen

        async def timed(*keys: str, what: str) -> tuple[float, float]:
            """Press the keys; ms from the last key to the screen painted after the new bundle was drawn, as wall
            clock and as the process's CPU time."""
            await pilot.press(*keys[:-1])
            before = len(drawn)
            started, started_cpu = time.perf_counter(), time.process_time()
            await pilot.press(keys[-1])
            await wait_until(lambda: len(drawn) > before, f"{what} to be drawn")
            await wait_until(lambda: any(p > drawn[before] for p in painted), f"{what} to be painted")
            at = next(i for i, p in enumerate(painted) if p > drawn[before])
            ms = 1000 * (painted[at] - started), 1000 * (painted_cpu[at] - started_cpu)
            await wait_until(lambda: app.idle, f"the screen to go idle after {what}")
            painted.clear()
            painted_cpu.clear()
            return ms

        for i, question in enumerate(["How does json.loads parse numbers?", *questions]):
            await pilot.press("slash")
            screen.query_one(Input).value = question
            ms = await timed("enter", what=f"question {i}'s first bundle")
            if i:
                first.append(ms)
            for keys in (("plus",), ("plus",), ("plus",), ("plus",), ("3", "0", "0", "0", "enter")):
                ms = await timed(*keys, what=f"question {i}'s bundle after {''.join(keys)}")
                if i:
                    steps.append(ms)
            await pilot.press("minus", "minus", "minus", "minus", "minus")  # back to 500 for the next question
            await wait_until(lambda: app.idle, "the screen to go idle")
    return first, steps


def render_only(path: Path, questions: list[str]) -> dict[str, list[float]]:
    """Wall and CPU ms of compile + render per budget change, and of retrieve + compile + render per first bundle."""
    import io

    from rich.console import Console

    from gradedesk.core.evidence.explore import compile_at, retrieve_question, step
    from gradedesk.core.store.connection import open_store
    from gradedesk.tui.widgets.explore_view import bundle_text, raw_text

    console = Console(width=76, file=io.StringIO())  # a column of the 160-column screen
    out: dict[str, list[float]] = {"first_wall": [], "first_cpu": [], "step_wall": [], "step_cpu": []}

    def render(retrieval, compiled, moved) -> None:
        for text in (raw_text(retrieval, compiled), bundle_text(retrieval, compiled, moved)):
            console.render_lines(text, console.options)

    with open_store(path, create=False) as store:
        for i, question in enumerate(["How does json.loads parse numbers?", *questions]):
            wall, cpu = time.perf_counter(), time.process_time()
            retrieval = retrieve_question(store, question, "stdlib")
            before = compile_at(retrieval, 500)
            render(retrieval, before, step(None, before))
            if i:
                out["first_wall"].append(1000 * (time.perf_counter() - wall))
                out["first_cpu"].append(1000 * (time.process_time() - cpu))
            for budget in (1000, 2000, 4000, 8000, 3000):
                wall, cpu = time.perf_counter(), time.process_time()
                after = compile_at(retrieval, budget)
                render(retrieval, after, step(before, after))
                before = after
                if i:
                    out["step_wall"].append(1000 * (time.perf_counter() - wall))
                    out["step_cpu"].append(1000 * (time.process_time() - cpu))
    return out


def figures(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.0f} ms   p95 {percentile(values, 0.95):.0f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=CACHE, help=f"where the indexed store is kept (default {CACHE})")
    ap.add_argument("--rebuild", action="store_true", help="index the standard library again")
    args = ap.parse_args()
    from gradedesk.core.runs.questions import load_questions

    args.cache.mkdir(parents=True, exist_ok=True)
    path = args.cache / "explore-stdlib.db"
    build_store(path, args.rebuild)
    questions = [q.question for q in load_questions(ROOT / "benchmarks" / "stdlib_questions.jsonl")]
    questions += list(EXTRA_QUESTIONS)
    load = os.getloadavg()[0]
    first, steps = asyncio.run(measure(path, questions))
    plain = render_only(path, questions)
    cores = os.cpu_count()
    print(f"explore on the CPython standard library: {len(questions)} questions x 5 budgets, no vectors (no query "
          f"embedding); load average {load:.1f} → {os.getloadavg()[0]:.1f} on {cores} cores")
    print("the real screen headless at 160x50, key → bundle drawn → screen painted (wall clock | CPU time of this "
          "process):")
    print(f"  budget key → new bundle painted      {figures([w for w, _ in steps])} | "
          f"{figures([c for _, c in steps])}   (goal p95 ≤ 150 ms)")
    print(f"  new question → first bundle painted  {figures([w for w, _ in first])} | "
          f"{figures([c for _, c in first])}   (goal p95 ≤ 300 ms)")
    print("compile + render of the columns' content, no event loop (wall clock | CPU time of this process):")
    print(f"  budget change → new bundle rendered  {figures(plain['step_wall'])} | {figures(plain['step_cpu'])}   "
          "(goal p95 ≤ 150 ms)")
    print(f"  new question → first bundle rendered {figures(plain['first_wall'])} | {figures(plain['first_cpu'])}   "
          "(goal p95 ≤ 300 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
