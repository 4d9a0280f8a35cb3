"""Reliability figures for issue 39 ("nothing lost, nothing injected"): per item of the issue's list, how many hostile
inputs were tried and how many failed (0 expected). Every try runs the real `gradedesk` command line on a real store.

    python benchmarks/reliability_bench.py [--seed N] [--fuzz N]

1. outputs: every output option the parser declares, pointed at the store, its -wal/-shm, a hard link and a symlink
   to it, and at another output: exit 2 and the store byte-identical.
2. escapes: each hostile sequence alone and all together in a run log's question, answer, label and judge model, then
   runs, summary, export, export-scores and agree (text and --json): no control or bidi character on stdout or stderr;
   and terminal_safe on random strings mixing controls, bidi, emoji and right-to-left text.
3. store faults: a store cut at many lengths (a cut that removes only zeros leaves the store whole: not counted),
   overwritten with text, and locked past the busy timeout, under reading and writing commands: one `gradedesk:
   error:` line naming the store, exit 2, no traceback. And nothing received thrown away: `run`, `judge` (verdicts
   and LLM scores) and `judge --pairwise` against the chat stand-in with the store locked from their first call on end
   in one line naming the file of kept replies, which holds every reply; the next `run` or `judge` takes them all in
   and asks the model nothing again (two tries each).
4. deep JSON: nesting depths just over the bound up to 100,000 in a questions file, a run log, a trace export and a
   bundle: one line naming file, line and "nested too deeply", exit 2.
5. served desk: real `gradedesk serve` processes (loopback, and 0.0.0.0 with its token) met through aiohttp as a
   browser would: foreign, look-alike and missing Origins refused (403) and the desk's own accepted; paths without the
   token, with a wrong one, a cut or a changed one answer 404 and the printed URL 200; past --max-desks the page and
   the websocket answer 503, and the freed desk opens again; every address the page loads is the server's own and the
   Content-Security-Policy says 'self'; a second desk under a name whose desk is open is refused and never shows the
   first's item nor stores a grade; serve stopped by SIGTERM, ctrl-c (SIGINT) or killed (SIGKILL) with a desk open:
   no desk process outlives it; the hostile corpus through a served desk's stream: none of its sequences.
6. smaller: `--api-key KEY` in its spellings (never echoed), grader names with control characters (--grader,
   $GRADEDESK_GRADER, import --grader).
The desk keeping grades typed while the store is locked is a Pilot test (tests/tui/test_locked_store_desk.py), not
measured here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gradedesk.core.store import connection
from gradedesk.core.text.terminal import terminal_safe
from gradedesk.tui.cli import main
from gradedesk.core.store import kept_replies as kept
from tests.fixtures.chat_server import ChatServer
from tests.fixtures.cli import STORE_TARGETS, store_target
from tests.fixtures.kept import ANSWER, PAIRWISE, calls, judge_reply, kept_error, locked_once_asked
from tests.fixtures.langfuse_export import hostile_traces
from tests.fixtures.served import Served, desk, desk_processes, handshake, outliving, page_links

FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
TEXTUAL_POINTER = re.compile("\x1b\\]22;[a-z-]*\x07")  # Textual's own OSC 22 (pointer shape), ended by a bell
SEQUENCES = {"csi-clear": "\x1b[2J\x1b[H", "osc0-title": "\x1b]0;TITLE\x07", "osc8-link": "\x1b]8;;http://e/\x1b\\x",
             "osc52-clipboard": "\x1b]52;c;cHduZWQ=\x07", "c1-csi": "\x9b31m", "c1-osc": "\x9d0;T\x9c",
             "bidi-override": "\u202eevil\u202c", "bidi-isolate": "\u2066x\u2069", "nul": "a\x00b", "bell": "\x07",
             "markup": "[bold red]x[/]", "cr": "over\rwrite"}


def gradedesk(*argv: object, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in argv])
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def one_error_line(code: int, err: str, name: str) -> bool:
    errors = [line for line in err.splitlines() if line.startswith("gradedesk:")]
    return code == 2 and "Traceback" not in err and len(errors) == 1 and name in errors[0]


def graded_log(path: Path, text: str = "", n: int = 3) -> Path:
    lines = [{"question_id": f"q{i}", "question": f"What is {i}? {text}", "category": "lookup", "answer": f"{i} {text}",
              "evidence_files": [f"f{i}.py"], "grade": "partially_correct", "failure_label": None,
              "grading_notes": text, "judge_confidence": 0.5, "judge_model": f"judge {text}"} for i in range(n)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def new_store(folder: Path, text: str = "") -> Path:
    db = folder / "s.db"
    code, _, err = gradedesk("import", graded_log(folder / "log.jsonl", text), "--store", db, "--label", f"L {text}",
                             "--grader", "ann")
    assert code == 0, err
    return db


def outputs(tmp: Path) -> tuple[int, int]:
    from gradedesk.core.cli import build_parser, command_modules
    from gradedesk.tui import commands

    parser = build_parser(command_modules(commands.__name__, commands.__path__))
    options = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                options += [(name, flag) for flag, _ in (sub.get_default("_output_files") or ())]
    tried = failed = 0
    for n, (command, flag) in enumerate(options):
        for target in STORE_TARGETS:
            folder = tmp / f"out{n}-{target}"
            folder.mkdir()
            db = new_store(folder)
            path = store_target(db, folder, target)
            before = db.read_bytes()
            extra = ["--format", "langfuse"] if flag == "--configs" else []
            code, _, err = gradedesk(command, flag, path, *extra, "--store", db)
            tried += 1
            failed += not (code == 2 and db.read_bytes() == before)
    folder = tmp / "two-outputs"
    folder.mkdir()
    db = new_store(folder)
    code, _, _ = gradedesk("export-scores", "--out", folder / "x", "--withdrawn", folder / "x", "--store", db)
    tried, failed = tried + 1, failed + (code != 2)
    return tried, failed


def escapes(tmp: Path, rng: random.Random, fuzz: int) -> tuple[int, int]:
    tried = failed = 0
    for n, (_name, seq) in enumerate([*SEQUENCES.items(), ("all", "".join(SEQUENCES.values()))]):
        folder = tmp / f"esc{n}"
        folder.mkdir()
        db = new_store(folder, seq)
        for argv in (["runs"], ["summary"], ["export"], ["export-scores"], ["agree"], ["questions", "flags"]):
            for flags in ([], ["--json"]):
                code, out, err = gradedesk(*argv, *flags, "--store", db)
                tried += 1
                failed += bool(FORBIDDEN.search(out + err)) or "Traceback" in err
    alphabet = [*map(chr, range(0, 0xA0)), *"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\ufeff",
                *"שלום مرحبا 你好 é👩‍👩‍👧"]
    for _ in range(fuzz):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
        shown = terminal_safe(text)
        tried += 1
        kept = all(c in shown for c in text if not FORBIDDEN.match(c) and c != "\\")
        failed += bool(FORBIDDEN.search(shown)) or not kept
    return tried, failed


def store_faults(tmp: Path) -> tuple[int, int]:
    tried = failed = 0
    commands = (["summary"], ["runs"], ["export"], ["agree"], ["grade-offline"], ["import", "{log}"])
    folder = tmp / "faults-source"
    folder.mkdir()
    source = new_store(folder)
    assert gradedesk("summary", "--store", source)[0] == 0  # checkpointed
    whole = source.read_bytes()
    size = len(whole)
    for cut in (0, 1, 50, 100, 512, 1024, 4096, size // 2, size - 1, "text"):
        for argv in commands:
            db = tmp / f"cut-{cut}-{argv[0]}.db"
            shutil.copy(source, db)
            if cut == "text":
                db.write_text("not a store\n" * 100)
            else:
                with open(db, "r+b") as fh:
                    fh.truncate(int(cut))
            if cut == 0 or (cut != "text" and not whole[int(cut):].strip(b"\0")):
                continue  # an empty file is an empty SQLite database, and cutting only zeros (the end of a last page)
                # leaves the store whole (SQLite reads a short page as zeros): no fault
            log = graded_log(tmp / f"new-{cut}.jsonl", "x")
            code, _, err = gradedesk(*[str(log) if a == "{log}" else a for a in argv], "--store", db)
            tried += 1
            failed += not one_error_line(code, err, str(db))
            if not one_error_line(code, err, str(db)):
                print(f"store cut at {cut}, {argv[0]}: exit {code}: {err.strip()[-300:]}", file=sys.stderr)
    saved = connection.BUSY_TIMEOUT_MS
    connection.BUSY_TIMEOUT_MS = 200
    try:
        for argv in (["grade-offline"], ["import", "{log}"]):
            db = tmp / f"locked-{argv[0]}.db"
            shutil.copy(source, db)
            holder = sqlite3.connect(db, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            log = graded_log(tmp / "locked.jsonl", "y")
            code, _, err = gradedesk(*[str(log) if a == "{log}" else a for a in argv], "--store", db)
            holder.execute("ROLLBACK")
            holder.close()
            tried += 1
            failed += not one_error_line(code, err, str(db))
    finally:
        connection.BUSY_TIMEOUT_MS = saved
    return tried, failed


def kept_replies(tmp: Path) -> tuple[int, int]:
    """A command whose replies meet a locked store, then the next command (the same one, or `run` after a pairwise
    judge): every reply kept, taken in, none asked again."""
    from tests.fixtures.shop import build_project

    tried = failed = 0
    saved = connection.BUSY_TIMEOUT_MS, kept.STORE_RETRIES
    connection.BUSY_TIMEOUT_MS, kept.STORE_RETRIES = 200, (0.05, 0.1)
    try:
        for first, reply, then in ((["run"], lambda body: ANSWER, ["run"]), (["judge"], judge_reply, ["judge"]),
                                   (["judge", "--pairwise"], lambda body: PAIRWISE, ["run"])):
            folder = tmp / f"kept-{'-'.join(first)}"
            folder.mkdir()
            db, questions = build_project(folder)
            run = ["run", "--questions", questions, "--budgets", "300", "--store", db]
            with ChatServer() as server:
                endpoint = ["--model", "m", "--base-url", server.base_url, "--store", db]
                if first != ["run"]:
                    assert gradedesk(*run)[0] == 0  # answers to judge (offline)
                argv = [*(run if first == ["run"] else first), *endpoint]
                with locked_once_asked(str(db), server, reply):
                    code, _, err = gradedesk(*argv)
                asked = len(server.answer_requests)
                path = kept.kept_path(db)
                held = len(path.read_text().splitlines()) if path.exists() else 0
                why = kept_error(code, err, str(path), " ".join(first)) or (
                    None if held == calls(server) else f"{calls(server)} replies, the file holds {held}")
                tried, failed = tried + 1, failed + (why is not None)
                if why:
                    print(f"kept replies, {' '.join(first)}: {why}", file=sys.stderr)
                # the next command: the same one, or the offline run of these answers after the pairwise judge
                nxt = [*run, *endpoint] if first == ["run"] else [*then, *endpoint] if then != ["run"] else run
                code, _, err = gradedesk(*nxt)
                taken = f"took in {held} repl" in err and not path.exists()
                ok = code == 0 and taken and len(server.answer_requests) == asked
                tried, failed = tried + 1, failed + (not ok)
                if not ok:
                    print(f"kept replies, {' '.join(then)} after {' '.join(first)}: exit {code}, "
                          f"{len(server.answer_requests) - asked} new calls: {err[-300:]!r}", file=sys.stderr)
    finally:
        connection.BUSY_TIMEOUT_MS, kept.STORE_RETRIES = saved
    return tried, failed


def deep_json(tmp: Path) -> tuple[int, int]:
    tried = failed = 0
    for depth in (65, 100, 1_000, 10_000, 100_000):
        for argv in (["questions", "check"], ["import"], ["import-traces", "--langfuse"], ["validate-bundle"]):
            path = tmp / f"deep-{depth}-{argv[0]}.json"
            path.write_text("\n" + "[" * depth + "]" * depth + "\n", encoding="utf-8")
            code, _, err = gradedesk(*argv, path, "--store", tmp / f"deep-{depth}.db")
            first = err.splitlines()[0] if err else ""
            tried += 1
            failed += not (code == 2 and str(path) in first and ":2" in first and "nested too deeply" in first)
    return tried, failed


def smaller(tmp: Path) -> tuple[int, int]:
    tried = failed = 0
    for argv in (["judge", "--api-key", "sk-SECRET"], ["run", "--api-key=sk-SECRET"], ["align", "--api-key", "sk-SECRET"]):
        code, out, err = gradedesk(*argv)
        tried += 1
        failed += not (code == 2 and "--api-key-env" in err and "SECRET" not in out + err)
    folder = tmp / "names"
    folder.mkdir()
    db = new_store(folder)
    for bad in ("ann\x1b[2J", "ann\nbob", "a\x00", "\u202eann", "x\x9b"):
        for argv, env in ((["grade", "--grader", bad], None), (["grade"], {"GRADEDESK_GRADER": bad}),
                          (["import", graded_log(folder / "n.jsonl", "n"), "--grader", bad], None)):
            if env and "\x00" in bad:
                continue  # no environment variable can hold a NUL
            code, _, err = gradedesk(*argv, "--store", db, env=env)
            tried += 1
            failed += not (code == 2 and "a name has no control characters" in err)
    return tried, failed


def _foreign_origins(port: int) -> list[str]:
    return [f"http://evil.example:{port}", "http://evil.example", f"https://127.0.0.1:{port}",
            f"http://127.0.0.1:{port + 1}", f"http://127.0.0.1.evil.example:{port}", f"http://localhost.evil:{port}",
            f"http://evil.example:{port}/127.0.0.1", f"http://0.0.0.0:{port}", f"http://127.0.0.2:{port}",
            f"ws://127.0.0.1:{port}", "null", "", f"file://127.0.0.1:{port}", f"http://[::2]:{port}",
            f"http://evil.example#http://127.0.0.1:{port}", f"http://127.0.0.1:{port}.evil.example"]


async def free(session: Any, served: Served) -> bool:
    """Whether the page opens again within 30 s, once the desks closed have stopped."""
    for _ in range(300):
        async with session.get(served.local) as page:
            if page.status == 200:
                return True
        await asyncio.sleep(0.1)
    return False


async def _served_guards(db: Path, hostile_db: Path) -> tuple[int, int]:
    import aiohttp

    tried = failed = 0

    def count(ok: bool, what: str) -> None:
        nonlocal tried, failed
        tried, failed = tried + 1, failed + (not ok)
        if not ok:
            print(f"served desk: failed: {what}", file=sys.stderr)

    async with aiohttp.ClientSession() as session:
        with Served(db, "127.0.0.1", "--max-desks", "2") as served:  # a server of its own: a desk closed is
            # counted until its process has ended
            async with desk(session, served), desk(session, served):
                for _ in range(5):
                    async with session.get(served.local) as page:
                        count(page.status == 503 and "desks of this server are in use" in await page.text(),
                              f"page past the cap: {page.status}")
                    count(await handshake(session, served, {"Origin": served.origin}) == 503, "a desk past the cap")
            count(await free(session, served), "closed desks were never freed")
        with Served(db) as served:
            question = "Which function opens the store"
            for name in ("ann", "bob"):
                async with desk(session, served) as first, desk(session, served) as second:
                    await first.until("the name screen", lambda d=first: "Enter to start grading" in d.shown)
                    await first.type(f"{name}\r")
                    await first.until("the desk", lambda d=first: question in d.shown)
                    await second.until("the name screen", lambda d=second: "Enter to start grading" in d.shown)
                    await second.type(f"{name}\r")
                    await second.until("the refusal", lambda d=second: "already has a desk open" in d.shown)
                    await second.type("1")
                    await asyncio.sleep(1)
                    with sqlite3.connect(db) as conn:
                        grades = conn.execute("SELECT count(*) FROM human_grades WHERE grader = ?", (name,)).fetchone()
                    count(question not in second.shown and "press 1-4" not in second.shown and grades == (0,),
                          f"a second desk under {name!r} saw or changed the first's items")
            for origin in _foreign_origins(served.port):
                status = await handshake(session, served, {"Origin": origin})
                count(status == 403, f"Origin {origin!r}: {status}, not refused")
            count(await handshake(session, served, {}) == 403, "no Origin opened a desk")
            for origin in (served.origin, f"http://localhost:{served.port}", f"http://[::1]:{served.port}",
                           f"HTTP://LOCALHOST:{served.port}"):
                count(await handshake(session, served, {"Origin": origin}) == 101, f"own Origin {origin!r} refused")
            async with session.get(served.local) as page:
                html, csp = await page.text(), page.headers.get("Content-Security-Policy", "")
            count("default-src 'self'" in csp and "font-src 'self'" in csp, "no Content-Security-Policy of 'self'")
            for link in page_links(html):
                count(link.startswith(served.url), f"the page loads {link}")
        with Served(db, "0.0.0.0") as served:
            token = served.url.split("/")[3]
            base = f"http://127.0.0.1:{served.port}/"
            changed = token[:-1] + ("A" if token[-1] != "A" else "B")
            wrong = ["", "ws", "static/js/textual.js", f"{token[:-1]}/", f"x{token}/", f"{token}x/", f"{changed}/",
                     f"{token.swapcase()}/", f"{changed}/ws", f"{changed}/static/js/textual.js",
                     *(f"{random.Random(n).randbytes(24).hex()}/" for n in range(10))]
            for path in wrong:
                async with session.get(base + path, headers={"Origin": served.origin}) as response:
                    count(response.status == 404, f"without the token, /{path} answered {response.status}")
            async with session.get(served.local) as page:
                count(page.status == 200, "the printed URL did not open the page")
            count(await handshake(session, served, {"Origin": served.origin}) == 101, "the printed URL's desk refused")
        count(served.stderr.count(token) == 1, "the token was not printed exactly once")
        for how in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):  # no desk outlives the serve that started it
            with Served(db) as served:
                async with desk(session, served) as ann:
                    await ann.until("the name screen", lambda d=ann: "Enter to start grading" in d.shown)
                    await ann.type("ann\r")
                    await ann.until("the desk", lambda d=ann: "press 1-4" in d.shown)
                    running = desk_processes(db)
                    served.stop(how)
                    left = outliving(db)
            count(len(running) == 1 and left == [], f"serve stopped by {how.name}: desks {left} outlived it")
        with Served(hostile_db) as served:
            async with desk(session, served) as opened:
                await opened.until("the name screen", lambda: "Enter to start grading" in opened.shown)
                await opened.type("ann\r")
                await opened.until("the hostile item", lambda: "question c1" in opened.shown and "\\u202e" in opened.shown)
                await opened.type("b")
                await opened.until("the evidence", lambda: opened.shown.count("\\x1b") > 20)
            raw = TEXTUAL_POINTER.sub("", opened.raw)
            for sequence in SEQUENCES.values():
                if sequence == "[bold red]x[/]":
                    continue  # markup is text: shown as typed
                count(sequence not in raw, f"the served stream carries {sequence!r}")
            count(not FORBIDDEN.search(opened.shown), "a control or bidi character in the served stream")
    return tried, failed


def served_desk(tmp: Path) -> tuple[int, int]:
    from tests.fixtures.desk_store import build_fixture_store

    folder = tmp / "served"
    folder.mkdir()
    db = build_fixture_store(folder / "store.db").path
    hostile = folder / "hostile.db"
    text = "".join(SEQUENCES.values())
    code, _, err = gradedesk("import-traces", "--langfuse", hostile_traces(folder / "t.json", text), "--side-by",
                             "variant", "--pair-by", "case", "--store", hostile)
    assert code == 0, err
    return asyncio.run(_served_guards(db, hostile))


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--fuzz", type=int, default=10_000, help="random strings through terminal_safe")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        rows = [("1 outputs never the store or an input", outputs(tmp)),
                ("2 escape sequences never reach the terminal", escapes(tmp, rng, args.fuzz)),
                ("3 store faults: one line, exit 2", store_faults(tmp)),
                ("3 replies kept beside a locked store", kept_replies(tmp)),
                ("4 deeply nested JSON: one line, exit 2", deep_json(tmp)),
                ("5 served desk: Origin, token, cap, page, names, ends", served_desk(tmp)),
                ("6 --api-key refused, grader names checked", smaller(tmp))]
    print(f"{'item':<54} {'tried':>7} {'failed':>7}")
    for name, (tried, failed) in rows:
        print(f"{name:<54} {tried:>7,} {failed:>7,}")


if __name__ == "__main__":
    main_bench()
