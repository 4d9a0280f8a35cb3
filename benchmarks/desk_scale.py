"""Desk at scale: a store of 1,000,000 answers, the desk driven headless, figures printed.

    python benchmarks/desk_scale.py                 # build (cached under /tmp) then measure
    python benchmarks/desk_scale.py --answers 100000 --rebuild

The store: QUESTIONS = answers / 4 questions, each answered raw and bundled at three budgets (the desk shows raw and the
primary budget), with realistic sizes: code snippets cut from the CPython standard library (exact tiktoken counts),
5 raw hits per raw answer, 3-5 bundle snippets per bundled answer, a judge grade for every answer, and 2,000 human
grades (of the first shown answers; half of them in a store of fewer than 2,000 questions, so `n` has ungraded items
ahead). The grader resumes in the middle of the graded part; a store too small for --steps is refused (exit 2). The measurement runs in a fresh process (so peak RSS is the desk's, not the builder's), opens the real
DeskApp with `run_test()`, and reports:
  open       importing the desk → first item shown (store checks, Textual start, desk_state resume, first item)
  next       key `j` pressed → next item shown (store thread query + item load + widgets updated), p50/p95,
             and → the screen's compositor refresh that draws both answers' panes of that item (what the terminal
             gets; a refresh of the status line alone, in between, does not count)
  ungraded   key `n` (next ungraded) likewise
  bursts     the same keys typed in bursts of BURST at TYPEAHEAD_RATE a second (a pause to read between bursts): each
             key → the screen painted with its item or a later key's of the burst (drawing an item the next key
             leaves at once may be skipped); which item each key leads to is what the desk session itself gives
             (core/review/session), driven inline on the same store
  peak RSS   of the measuring process (ru_maxrss), before the type-ahead phase
  queue      the queue filtered to disagreeing, then to graded, read page by page to its end as the queue screen reads
             it (core/review/queue.py queue_page, run inline on the store): each page's time, the slowest, the last
  type-ahead 200 keys (j k 1-4 tab, seeded) sent at 20 a second to a desk whose store thread waits 50 ms before every
             job (a busy machine), as grader "typeahead" from question 5,000 (earlier in a store too small for the
             keys); the grades stored are then checked one by one against the same keys pressed slowly through a
             desk session driven inline (misfiled: a grade missing, extra or on another answer; the side a grade key
             acts on is the desk's own focus rule), and the time from the last key to its item shown is taken
Every wait for the desk gives up after WAIT_LIMIT seconds, saying on stderr what it was waiting for.
Goals (issue 40): open ≤ 1 s; next and next ungraded → painted p95 ≤ 35 ms, single keys and bursts; memory ≤ 300 MB;
(issue 13) 0 misfiled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = Path("/tmp/gradedesk-bench")
BUDGETS = (1000, 2000, 4000)
CREATED = "2026-01-05T10:00:00+00:00"
CATEGORIES = ("code_lookup", "explanation", "relationship", "architecture", "general")
GRADES = ("fully_correct", "partially_correct", "unsupported", "wrong")
HUMAN_GRADED = 2000
POOL = 3000
WAIT_LIMIT = 120.0  # seconds any wait for the desk may last before the benchmark says what it waited for


def busy_parts(app) -> str:
    """What keeps the desk from being idle (app.idle's parts), for a wait that gave up."""
    from gradedesk.tui.idle_work import IdleWork

    parts = {"keys waiting or travelling": not app.gate.idle, "store jobs": not app.store_thread.idle,
             "workers": [w.name for w in app.workers if w.name != "store" and w.state.name in ("PENDING", "RUNNING")],
             "work between keys": [f"{type(w.owner).__name__}#{w.owner.id}: {len(w._steps)} steps"
                                   for w in IdleWork._all if w.pending and w.app is app and w.owner.is_attached]}
    return "; ".join(f"{k}: {v}" for k, v in parts.items() if v) or "nothing"


class Stalled(Exception):
    """The desk did not get where the benchmark waited for it to get, within WAIT_LIMIT."""


class TooSmall(Exception):
    """The store has too few questions for the key presses asked for."""


async def wait_until(done: Callable[[], bool], what: Callable[[], str], poll: float) -> None:
    """Poll `done` every `poll` seconds; past WAIT_LIMIT, raise Stalled naming `what()` was awaited (never wait
    silently: a stuck desk or a wrong model of it must say so, not hang until the caller's time runs out)."""
    deadline = time.perf_counter() + WAIT_LIMIT
    while not done():
        if time.perf_counter() > deadline:
            raise Stalled(f"gave up after {WAIT_LIMIT:.0f} s waiting for {what()}")
        await asyncio.sleep(poll)


def snippet_pool(seed: int = 1) -> list[tuple[str, str, int, int, int]]:
    """(path, text, start, end, tokens): slices of 8-40 lines of real stdlib code, with exact token counts."""
    from gradedesk.core.text.tokens import get_tokenizer

    tok = get_tokenizer("o200k_base")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.glob("*.py"))[:120]
    rng = random.Random(seed)
    sources = [(f.relative_to(stdlib).as_posix(), f.read_text(encoding="utf-8", errors="replace").splitlines())
               for f in files]
    sources = [s for s in sources if len(s[1]) > 60]
    pool = []
    for _ in range(POOL):
        path, lines = rng.choice(sources)
        start = rng.randrange(0, len(lines) - 45)
        length = rng.randrange(8, 40)
        text = "\n".join(lines[start:start + length])
        pool.append((path, text, start + 1, start + length, tok.count(text)))
    return pool


def build(path: Path, answers: int) -> None:
    from gradedesk.core.text.hashing import content_hash
    from gradedesk.core.store.connection import open_store

    questions = answers // 4
    pool = snippet_pool()
    hashes = [content_hash(p[1]) for p in pool]
    rng = random.Random(7)
    tmp = path.with_suffix(".building")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    store = open_store(tmp)
    conn = store._conn
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO rubrics (version, text, created_at) VALUES ('rubric-1', 'Grade against the gold answer.', ?)", (CREATED,))
    conn.execute("INSERT INTO runs (id, created_at, provider, model, benchmark, budgets, primary_budget, raw_k, "
                 "tokenizer, order_seed) VALUES (1, ?, 'openai-compatible', 'gpt-4o-mini', 'scale', ?, 4000, 5, "
                 "'tiktoken/o200k_base', 11)", (CREATED, json.dumps(BUDGETS)))
    answer_id = bundle_id = 0
    chunk = 5000
    started = time.perf_counter()
    for base in range(0, questions, chunk):
        q_rows, a_rows, b_rows, s_rows, g_rows = [], [], [], [], []
        for qpk in range(base + 1, min(base + chunk, questions) + 1):
            words = " ".join(rng.choice(pool)[1].split()[:14])
            q_rows.append((qpk, "scale", f"q{qpk:07d}", f"What does this code do and who calls it: {words}?",
                           CATEGORIES[qpk % len(CATEGORIES)], f"It {words[:160]}", CREATED))
            hits = [rng.randrange(POOL) for _ in range(5)]
            evidence = json.dumps([{"chunk_id": f"c{h}", "file_path": pool[h][0], "start_line": pool[h][2],
                                    "end_line": pool[h][3], "symbol_name": None, "retrieval_method": "bm25",
                                    "relevance_score": round(1 / (r + 1), 4), "retrieval_rank": r + 1,
                                    "text": pool[h][1]} for r, h in enumerate(hits)])
            answer_id += 1
            text = f"From [Evidence 1] {pool[hits[0]][0]}: " + " ".join(pool[hits[0]][1].split()[:90])
            a_rows.append((answer_id, qpk, "raw", 0, text, evidence, None))
            g_rows.append((answer_id, GRADES[rng.randrange(4)], round(rng.random(), 2)))
            for budget in BUDGETS:
                bundle_id += 1
                picks = [rng.randrange(POOL) for _ in range(3 if budget < 4000 else 5)]
                total = sum(pool[p][4] for p in picks) + 25 * len(picks)
                b_rows.append((bundle_id, budget, total))
                for pos, p in enumerate(picks, start=1):
                    s_rows.append((bundle_id, pos, f"c{p}", hashes[p], pool[p][1], pool[p][4], pool[p][0],
                                   pool[p][2], pool[p][3], None, "bm25", round(0.9 - 0.1 * pos, 4), pos,
                                   "matches the question's terms", ("definition", "caller", "related")[pos % 3]))
                answer_id += 1
                text = f"Per [Evidence 1] {pool[picks[0]][0]}: " + " ".join(pool[picks[0]][1].split()[:80])
                a_rows.append((answer_id, qpk, "bundle", budget, text, None, bundle_id))
                g_rows.append((answer_id, GRADES[rng.randrange(4)], round(rng.random(), 2)))
        conn.executemany("INSERT INTO questions (id, benchmark, question_id, question, category, gold_answer, "
                         "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", q_rows)
        conn.executemany("INSERT INTO bundles (id, question, question_type, total_tokens, token_budget, "
                         "retrieval_strategies_used, coverage_notes, created_at, compiler_version, warnings, "
                         "tokenizer) VALUES (?, 'q', 'explanation', ?3, ?2, '[\"bm25\",\"symbol\"]', "
                         "'[\"definition found\"]', '" + CREATED + "', 'gradedesk-compiler/1', '[]', "
                         "'tiktoken/o200k_base')", b_rows)
        conn.executemany("INSERT INTO bundle_snippets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", s_rows)
        conn.executemany("INSERT INTO answers (id, run_id, question_pk, method, budget, status, text, evidence, "
                         "bundle_id, tokens_in, tokens_out, created_at) VALUES (?, 1, ?, ?, ?, 'ok', ?, ?, ?, 1500, "
                         "120, '" + CREATED + "')", a_rows)
        conn.executemany("INSERT INTO auto_grades (answer_id, grader_kind, grader_model, rubric_version, grade, "
                         "confidence, reasoning, created_at) VALUES (?, 'judge', 'gpt-4o-mini', 'rubric-1', ?, ?, "
                         "'The answer names the right function but misses one caller; evidence 2 supports the "
                         "rest.', '" + CREATED + "')", g_rows)
        print(f"  built {min(base + chunk, questions):,}/{questions:,} questions "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    # a grader part-way through: the first HUMAN_GRADED shown answers graded (two a question; at most half the store)
    shown = conn.execute("SELECT id FROM answers WHERE run_id = 1 AND (method = 'raw' OR budget = 4000) "
                         "ORDER BY question_pk, method LIMIT ?", (min(HUMAN_GRADED, questions),)).fetchall()
    conn.executemany("INSERT INTO human_grades (uuid, answer_id, grader, action, grade, mode, created_at) "
                     "VALUES (?, ?, 'bench', 'set', ?, 'blind', ?)",
                     [(f"u{aid}", aid, GRADES[aid % 4], CREATED) for (aid,) in shown])
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    store.close()
    tmp.rename(path)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


BURST = 5  # keys a burst


class SessionModel:
    """Where keys lead, as the desk session (core/review/session) says when driven inline on the store: every job
    run at once, every answer taken in (a grade key is noted, not stored: in question order without filters it moves
    no item)."""

    def __init__(self, path: Path, run_id: int, grader: str) -> None:
        from gradedesk.core.review.session import DeskSession, run_job
        from gradedesk.core.store.connection import open_store

        self.store = open_store(path, create=False)
        self.session = DeskSession(grader, run_id)
        self.run_job = run_job
        self.session.opened(run_job(self.store, self.session.open()))

    def act(self, plan: object) -> None:
        from gradedesk.core.review.session import Job

        if isinstance(plan, Job):
            plan = self.run_job(self.store, plan)
        if plan is not None and not isinstance(plan, str):
            self.session.landed(plan)  # type: ignore[arg-type]

    def keys(self, start: int, keys: list[str]) -> list[int]:
        """From question `start`, the item each of `keys` (j, k, n) leads to."""
        self.act(self.session.show_question(start))
        out = []
        for key in keys:
            self.press(key)
            out.append(self.session.item.question_pk)
        return out

    def press(self, key: str) -> None:
        s = self.session
        moves = {"j": lambda: s.step(1), "k": lambda: s.step(-1), "n": s.next_ungraded}
        self.act(moves[key]())

    def typed(self, keys: list[str]) -> tuple[int, list[tuple[int, str, str]]]:
        """What `keys` (j k 1-4 tab) do pressed one after the other from where the grader stopped: (the question shown
        at the end, [(question, method, grade)]). The side a grade key acts on is the desk's own rule (side_on_show,
        as the grading screen applies it); a grade is noted, not stored."""
        from gradedesk.core.review.item import SIDES, side_on_show

        grades = {"1": "fully_correct", "2": "partially_correct", "3": "unsupported", "4": "wrong"}
        s, side, out = self.session, "left", []
        for key in keys:
            if key in ("j", "k"):
                before = s.item.question_pk
                self.press(key)
                item = s.item
                side = side_on_show(side, moved=item.question_pk != before,
                                    answered=[x for x in SIDES if item.at(x) is not None])
            elif key == "tab":
                side = "right" if side == "left" else "left"
            elif (answer := s.answer_at(side)) is not None:
                out.append((s.item.question_pk, answer.method, grades[key]))
        return s.item.question_pk, out

    def close(self) -> None:
        self.store.close()


async def measure(path: Path, steps: int, bursts: int) -> dict:
    from gradedesk.core.review import queue as review
    from gradedesk.core.store.connection import open_store

    with open_store(path, create=False) as store:  # the grader resumes inside the graded part, the same every run
        questions = store._scalar("SELECT count(*) FROM questions")
        graded = store._scalar("SELECT count(DISTINCT a.question_pk) FROM human_grades h JOIN answers a "
                               "ON a.id = h.answer_id WHERE h.grader = 'bench'")
        resume = graded // 2
        ahead = steps + bursts * BURST  # `j` steps on, then `n` needs as many ungraded ahead (single keys and bursts)
        if questions - max(graded, resume + ahead) < ahead:
            raise TooSmall(f"{path}: {questions:,} questions ({graded:,} graded) are too few for --steps {steps}: "
                           f"use fewer steps, more --answers, or --rebuild")
        review.save_desk_state(store, "bench", 1, resume, {})
    t0 = time.perf_counter()  # from here: importing the desk, checking the store, starting Textual, first item
    from gradedesk.core.store.run_records import resolve_run
    from gradedesk.tui.app import DeskApp, DeskConfig
    from textual import events

    from gradedesk.tui.screens.grading import GradingScreen

    with open_store(path, create=False) as store:  # what run_desk checks before the screen opens
        run_id = resolve_run(store, "latest")
    from gradedesk.tui.widgets.answer_pane import AnswerPane

    shown: list[float] = []
    drawn: list[int | None] = []
    original = GradingScreen._draw
    # the sides whose pane the compositor has drawn since the last item was drawn; None once that item's paint is
    # counted
    panes_drawn: set[str] | None = None

    def timed_draw(self):  # the item is on screen (drawn; painted at the next refresh)
        nonlocal panes_drawn
        original(self)
        shown.append(time.perf_counter())
        drawn.append(self.session.item.question_pk if self.session.item else None)
        panes_drawn = set()

    GradingScreen._draw = timed_draw
    original_lines = AnswerPane.render_lines

    def timed_lines(self, crop):  # called by the compositor for a pane in a repaint that covers it: the first one after
        # an item is drawn (which refreshes both panes) draws its content (in rows painted ahead, or line by line)
        if panes_drawn is not None:
            panes_drawn.add(self.side)
        return original_lines(self, crop)

    AnswerPane.render_lines = timed_lines
    painted: list[float] = []
    painted_items: list[int | None] = []  # the item each paint drew
    original_refresh = GradingScreen._compositor_refresh

    def timed_refresh(self):  # the item is painted when the repaint has drawn both panes' new content: a repaint of
        # the status line alone (a key's message), between the item drawn and its panes reaching the screen, is not it
        nonlocal panes_drawn
        original_refresh(self)
        if panes_drawn is not None and len(panes_drawn) == 2:
            painted.append(time.perf_counter())
            painted_items.append(drawn[-1])
            panes_drawn = None

    GradingScreen._compositor_refresh = timed_refresh
    app = DeskApp(DeskConfig(path, run_id, "bench", cursor_blink=False))
    out: dict = {}
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(lambda: bool(shown), lambda: "the desk's first item", 0.001)
        out["open_s"] = shown[0] - t0
        # the one-off count of shown answers for the progress line
        await wait_until(lambda: app.idle, lambda: f"the desk to go idle after opening (busy: {busy_parts(app)})",
                         0.005)
        await pilot.pause()
        async def reading(what: str) -> None:
            """Let the item finish (highlighting, the rest of the panes, and whatever the desk does once it is painted),
            as while the person reads it."""
            for _ in range(2):  # what runs after the paint may start more work
                await wait_until(lambda: app.idle, lambda: f"the desk to go idle {what} (busy: {busy_parts(app)})",
                                 0.001)
                await pilot.pause()
            await asyncio.sleep(0.05)

        async def press(key: str) -> tuple[float, float]:
            """Press `key`: (seconds to the next item shown, seconds to the screen painted after that)."""
            before = len(shown)
            t = time.perf_counter()
            await pilot.press(key)
            await wait_until(lambda: len(shown) > before, lambda: f"the item after key {key!r} to be shown", 0.0005)
            shown_at = shown[-1]
            await wait_until(lambda: any(p > shown[before] for p in painted),
                             lambda: f"the screen to be painted after key {key!r}", 0.0005)
            timed = shown_at - t, next(p for p in painted if p > shown[before]) - t
            await reading(f"after key {key!r}")
            painted.clear()
            painted_items.clear()
            return timed

        for key, name in (("j", "next"), ("n", "ungraded")):
            times, paints = [], []
            for _ in range(steps):
                shown_s, painted_s = await press(key)
                times.append(shown_s)
                paints.append(painted_s)
            out[f"{name}_ms"] = [1000 * x for x in times]
            out[f"{name}_paint_ms"] = [1000 * x for x in paints]

        model = SessionModel(path, run_id, "bench")

        async def burst(key: str) -> list[float]:
            """Type BURST `key`s at TYPEAHEAD_RATE a second: for each, seconds to the screen painted with its item
            (or a later key's of the burst)."""
            targets = model.keys(app.screen.session.item.question_pk, [key] * BURST)
            painted.clear()
            painted_items.clear()
            t0, sent = time.perf_counter(), []
            for i in range(BURST):  # as a terminal delivers them: no waiting for the desk between keys
                await asyncio.sleep(max(0.0, t0 + i / TYPEAHEAD_RATE - time.perf_counter()))
                sent.append(time.perf_counter())
                app.post_message(events.Key(key, key))
            await wait_until(lambda: app.idle and targets[-1] in painted_items,
                             lambda: f"question {targets[-1]}, the burst's last item, painted (painted: "
                                     f"{painted_items[-3:]}; busy: {busy_parts(app)})", 0.001)
            timed = [next(p for p, pk in zip(painted, painted_items) if p > t and pk in targets[i:]) - t
                     for i, t in enumerate(sent)]
            await reading("after a burst")
            return timed

        for key, name in (("j", "next"), ("n", "ungraded")):
            paints = [t for _ in range(bursts) for t in await burst(key)]
            out[f"{name}_burst_paint_ms"] = [1000 * x for x in paints]
        model.close()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["queue"] = measure_queue(path, run_id)
    out["typeahead"] = await measure_typeahead(path, run_id, shown, drawn)
    return out


def measure_queue(path: Path, run_id: int) -> dict:
    """The queue filtered to the bench grader's disagreements, then to their graded answers, read page by page to the
    end (the last page is the one that finds nothing more): rows, pages, and each page's milliseconds."""
    import inspect

    from gradedesk.core.review.queue import Filters, progress, queue_page
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import run_info
    from gradedesk.tui.screens.queue import PAGE

    out = {}
    with open_store(path, create=False) as store:
        run = run_info(store, run_id)
        # the kind compared, as the desk counted it before the queue opens (a base commit whose queue_page does not
        # take it counts it again for every page, as its queue screen did)
        known = {"kind": progress(store, run, "bench", 0).kind} if "kind" in inspect.signature(queue_page).parameters \
            else {}
        for status in ("disagreeing", "graded"):
            after, rows, pages = None, 0, []
            while True:
                t = time.perf_counter()
                page = queue_page(store, run, "bench", Filters(status=status), after=after, limit=PAGE, **known)
                pages.append(1000 * (time.perf_counter() - t))
                rows += len(page)
                if len(page) < PAGE:
                    break
                after = page[-1].key
            out[status] = {"rows": rows, "pages_ms": pages}
    return out


TYPEAHEAD_KEYS, TYPEAHEAD_RATE, TYPEAHEAD_DELAY = 200, 20.0, 0.05
TYPEAHEAD_START = 5000  # the question the "typeahead" grader starts at, or earlier in a store too small for the keys


def typeahead_start(pks: Sequence[int]) -> int:
    """Where in the queue `pks` the type-ahead grader starts: question TYPEAHEAD_START, or earlier so that the keys
    (at most TYPEAHEAD_KEYS `j`) cannot run past the store's last question."""
    return max(0, min(TYPEAHEAD_START, len(pks) - TYPEAHEAD_KEYS) - 1)


async def measure_typeahead(path: Path, run_id: int, shown: list[float], drawn: list[int | None]) -> dict:
    from itertools import zip_longest

    from textual import events

    from gradedesk.core.review import queue as review
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.desk import shown_question_pks
    from gradedesk.core.store.run_records import run_info
    from gradedesk.tui.app import DeskApp, DeskConfig

    grader = "typeahead"
    with open_store(path, create=False) as store:
        run = run_info(store, run_id)
        pks = shown_question_pks(store, run)  # the desk's queue for a grader with no grades and no filters
        start = typeahead_start(pks)
        review.save_desk_state(store, grader, run_id, pks[start], {})
        before = store._scalar("SELECT coalesce(max(id), 0) FROM human_grades")
    keys = random.Random(5).choices(["j", "k", "1", "2", "3", "4", "tab"], weights=[5, 1, 2, 2, 2, 2, 2],
                                    k=TYPEAHEAD_KEYS)
    model = SessionModel(path, run_id, grader)  # the same keys pressed slowly, through the desk session itself
    final, expected = model.typed(keys)
    model.close()
    app = DeskApp(DeskConfig(path, run_id, grader, cursor_blink=False, job_delay=TYPEAHEAD_DELAY))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(lambda: app.idle and app.screen.session.item is not None,
                         lambda: f"the type-ahead desk to open on question {pks[start]}", 0.005)
        await pilot.pause()
        t0 = time.perf_counter()
        for i, key in enumerate(keys):  # as a terminal delivers them: no waiting for the desk between keys
            await asyncio.sleep(max(0.0, t0 + i / TYPEAHEAD_RATE - time.perf_counter()))
            app.post_message(events.Key(key, "\t" if key == "tab" else key))
        last_key = time.perf_counter()
        sent_rate = (len(keys) - 1) / (last_key - t0)
        try:  # the last key's item, drawn
            await wait_until(lambda: app.idle and bool(drawn) and drawn[-1] == final,
                             lambda: f"question {final}, the last key's item, shown with the desk idle (last shown: "
                                     f"question {drawn[-1] if drawn else None}; desk idle: {app.idle})", 0.005)
        except Stalled as stalled:  # the grades stored so far are still checked and reported
            print(f"  type-ahead: {stalled}", file=sys.stderr)
        caught_up = max(0.0, shown[-1] - last_key)
        final_shown = bool(drawn) and drawn[-1] == final
    with open_store(path, create=False) as store:
        stored = store._query("SELECT a.question_pk, a.method, h.grade FROM human_grades h JOIN answers a "
                             "ON a.id = h.answer_id WHERE h.grader = ? AND h.id > ? ORDER BY h.id", (grader, before))
    stored_rows = [(r["question_pk"], r["method"], r["grade"]) for r in stored]
    misfiled = sum(a != b for a, b in zip_longest(stored_rows, expected))
    for i, (got, want) in enumerate(zip_longest(stored_rows, expected)):  # say which, should any be misfiled
        if got != want:
            print(f"  misfiled grade {i + 1}: stored {got}, expected {want} (question, method, grade)",
                  file=sys.stderr)
    return {"keys": len(keys), "rate": sent_rate, "grades": len(expected), "stored": len(stored_rows),
            "misfiled": misfiled, "caught_up_ms": 1000 * caught_up, "delay_ms": 1000 * TYPEAHEAD_DELAY,
            "final_shown": final_shown}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=1_000_000)
    ap.add_argument("--steps", type=int, default=200, help="key presses measured per kind")
    ap.add_argument("--bursts", type=int, default=40, help=f"bursts of {BURST} keys measured per kind")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--cache", type=Path, default=CACHE, help=f"where built stores are kept (default {CACHE})")
    ap.add_argument("--measure", metavar="STORE", help=argparse.SUPPRESS)  # the fresh measuring process
    args = ap.parse_args()
    if args.measure:
        try:
            print(json.dumps(asyncio.run(measure(Path(args.measure), args.steps, args.bursts))))
        except Stalled as stalled:
            print(f"desk scale: {stalled}", file=sys.stderr)
            return 1
        except TooSmall as small:
            print(f"desk scale: {small}", file=sys.stderr)
            return 2
        return 0
    args.cache.mkdir(parents=True, exist_ok=True)
    path = args.cache / f"desk-scale-{args.answers}.db"
    if args.rebuild or not path.exists():
        print(f"building {path} ({args.answers:,} answers)…", file=sys.stderr)
        t = time.perf_counter()
        build(path, args.answers)
        print(f"built in {time.perf_counter() - t:.0f} s, {path.stat().st_size / 2**20:,.0f} MiB", file=sys.stderr)
    result = subprocess.run([sys.executable, __file__, "--measure", str(path), "--steps", str(args.steps),
                             "--bursts", str(args.bursts)],
                            stdout=subprocess.PIPE, text=True)  # its diagnostics go straight to stderr
    if result.returncode:
        print(f"desk scale: the measuring process failed (exit {result.returncode}); no figures", file=sys.stderr)
        return result.returncode
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    answers = args.answers
    print(f"desk scale: {answers:,} answers ({answers // 4:,} questions), store {path.stat().st_size / 2**20:,.0f} MiB")
    print(f"  open (import → first item shown):  {1000 * figures['open_s']:.0f} ms   (goal ≤ 1000 ms)")
    for name in ("next", "ungraded"):
        ms = figures[f"{name}_ms"]
        paint = figures[f"{name}_paint_ms"]
        print(f"  {name:<9} key → item shown:      p50 {statistics.median(ms):.1f} ms   "
              f"p95 {percentile(ms, 0.95):.1f} ms   (n={len(ms)})")
        print(f"  {name:<9} key → screen painted:  p50 {statistics.median(paint):.1f} ms   "
              f"p95 {percentile(paint, 0.95):.1f} ms   (goal p95 ≤ 35 ms)")
    for name in ("next", "ungraded"):
        paint = figures[f"{name}_burst_paint_ms"]
        print(f"  {name:<9} in bursts of {BURST} at {TYPEAHEAD_RATE:.0f}/s, key → screen painted:  "
              f"p50 {statistics.median(paint):.1f} ms   p95 {percentile(paint, 0.95):.1f} ms   "
              f"(n={len(paint)}; goal p95 ≤ 35 ms)")
    print(f"  peak RSS of the desk process:      {figures['peak_rss_mb']:.0f} MB   (goal ≤ 300 MB)")
    for status, queue in figures.get("queue", {}).items():
        pages = queue["pages_ms"]
        print(f"  queue filtered to {status}: {queue['rows']:,} rows in {len(pages)} pages, page p50 "
              f"{statistics.median(pages):.0f} ms, slowest {max(pages):.0f} ms (the last: {pages[-1]:.0f} ms)")
    ta = figures["typeahead"]
    print(f"  type-ahead: {ta['keys']} keys at {ta['rate']:.1f}/s, store jobs slowed by {ta['delay_ms']:.0f} ms: "
          f"{ta['grades']} grades expected, {ta['stored']} stored, misfiled {ta['misfiled']}   (goal 0)")
    print(f"  type-ahead: last key → its item shown:  {ta['caught_up_ms']:.0f} ms"
          + ("" if ta["final_shown"] else "   (the desk never reached the last key's item)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
