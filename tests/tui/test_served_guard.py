"""`gradedesk serve` as a browser's page meets it, through aiohttp against a real served process on a real port: a page
at another address cannot open a desk; past --max-desks the page says the desk is full; the page asks no other host for
anything; beyond loopback nothing is served without the token in the printed URL; a second connection under a name in
use never sees nor changes the first's items; the hostile corpus reaches the websocket only escaped; no desk outlives
the serve that started it, however serve ends; a closed tab's desk stores what it was still waiting to store."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time

import aiohttp
import pytest

from tests.core.cli.test_hostile_corpus import CORPUS, FORBIDDEN
from tests.fixtures.desk import rows
from tests.fixtures.served import WAIT, Served, desk, desk_processes, handshake, outliving, page_links
from tests.tui.test_hostile_screens import hostile_store

pytestmark = pytest.mark.anyio


async def refusal(session: aiohttp.ClientSession, served: Served, headers: dict[str, str]) -> tuple[int, str]:
    status = await handshake(session, served, headers)
    async with session.get(f"{served.local}ws", headers=headers) as response:  # the same refusal, read as a page
        return status, await response.text()


@pytest.fixture(scope="module")
def loopback(tmp_path_factory):
    """One loopback server for the tests that start no desk of their own (a refusal, the page)."""
    from tests.fixtures.desk_store import build_fixture_store

    store = build_fixture_store(tmp_path_factory.mktemp("served") / "store.db")
    with Served(store.path) as served:
        yield served


async def test_a_page_from_another_origin_opens_no_desk(loopback):
    served = loopback
    async with aiohttp.ClientSession() as session:
        for origin in ("http://evil.example", f"http://evil.example:{served.port}", "null",
                       f"https://127.0.0.1:{served.port}", f"http://127.0.0.1:{served.port + 1}",
                       f"http://127.0.0.1:{served.port}.evil.example"):
            status, text = await refusal(session, served, {"Origin": origin})
            assert status == 403 and "may not open a desk" in text, origin
        status, text = await refusal(session, served, {})
        assert (status, text) == (403, "gradedesk: no Origin: a desk opens only from its own page")
        for origin in (served.origin, f"http://localhost:{served.port}"):  # this machine's other name for it too
            ws = await session.ws_connect(f"{served.local}ws", headers={"Origin": origin})
            await ws.close()


async def test_past_max_desks_the_page_says_the_desk_is_full(fixture_store):
    full = ("gradedesk: all 1 desks of this server are in use. Try again once someone closes theirs (the person "
            "serving can allow more with `gradedesk serve --max-desks N`).")
    with Served(fixture_store.path, "127.0.0.1", "--max-desks", "1") as served:
        async with aiohttp.ClientSession() as session:
            async with desk(session, served):  # a desk from its handshake on, before its process has drawn
                async with session.get(served.local) as page:
                    assert (page.status, await page.text()) == (503, full)
                assert await refusal(session, served, {"Origin": served.origin}) == (503, full)
            deadline = time.monotonic() + WAIT
            while True:  # the first desk's socket is closed: its desk is free again
                async with session.get(served.local) as page:
                    if page.status == 200:
                        break
                assert time.monotonic() < deadline, "the closed desk was never freed"
                await asyncio.sleep(0.1)


async def test_the_page_asks_no_other_host_for_anything(loopback):
    served = loopback
    async with aiohttp.ClientSession() as session, session.get(served.local) as page:
        html, csp = await page.text(), page.headers["Content-Security-Policy"]
        links = page_links(html)
        assert links and "fonts.googleapis" not in html
        for link in links:  # every address the page loads is the server's own
            assert link.startswith(f"{served.url}static/"), link
            async with session.get(link.replace(served.url, served.local)) as asset:
                assert asset.status == 200, link
        assert "default-src 'self'" in csp and "connect-src 'self' ws://127.0.0.1:" in csp
        assert "@font-face" in html  # the terminal's font comes from the static folder


async def test_beyond_loopback_nothing_is_served_without_the_token(fixture_store):
    with Served(fixture_store.path, "0.0.0.0") as served:
        async with aiohttp.ClientSession() as session:
            token = served.url.split("/")[3]
            assert len(token) >= 32
            base = f"http://127.0.0.1:{served.port}/"
            for path in ("", "ws", "static/js/textual.js", f"{token[:-1]}/", f"x{token}/", f"{token}x/ws"):
                async with session.get(base + path, headers={"Origin": served.origin}) as response:
                    assert response.status == 404, path
            async with session.get(served.local) as page:
                assert page.status == 200 and f"/{token}/ws" in await page.text()
            ws = await session.ws_connect(f"{served.local}ws", headers={"Origin": served.origin})
            await ws.close()
    assert served.stderr.count(token) == 1  # printed once


async def test_a_second_desk_under_a_name_in_use_neither_sees_nor_changes_the_first(fixture_store):
    question = "Which function opens the store"
    with Served(fixture_store.path) as served:
        async with aiohttp.ClientSession() as session, desk(session, served) as ann, desk(session, served) as other:
            await ann.until("the name screen", lambda: "Enter to start grading" in ann.shown)
            await ann.type("ann\r")
            await ann.until("ann's desk", lambda: question in ann.shown and "press 1-4" in ann.shown)
            await other.until("the name screen", lambda: "Enter to start grading" in other.shown)
            await other.type("ann\r")
            await other.until("the refusal", lambda: "already has a desk open" in other.shown)
            await other.type("2")  # on the name screen again: a key grades nothing
            await other.type("\r")
            await other.until("the refusal, again", lambda: other.shown.count("already has a desk open") >= 2)
            assert question not in other.shown and "press 1-4" not in other.shown
            assert rows(fixture_store.path, "SELECT grader, grade FROM human_grades") == []
            await ann.type("1")
            deadline = time.monotonic() + WAIT
            while not (graded := rows(fixture_store.path, "SELECT grader, grade FROM human_grades")):
                assert time.monotonic() < deadline, "ann's grade never reached the store"
                await asyncio.sleep(0.1)
            assert graded == [{"grader": "ann", "grade": "fully_correct"}]
            assert rows(fixture_store.path, "SELECT grader FROM desk_state WHERE grader != 'ann'") == []


async def test_the_hostile_corpus_reaches_the_websocket_only_escaped(tmp_path, capsys):
    path = hostile_store(tmp_path, capsys)
    with Served(path) as served:
        async with aiohttp.ClientSession() as session, desk(session, served) as opened:
            await opened.until("the name screen", lambda: "Enter to start grading" in opened.shown)
            await opened.type("ann\r")
            await opened.until("the hostile item", lambda: "question c1" in opened.shown and "\\u202e" in opened.shown)
            await opened.type("b")  # the bundle screen: evidence text and file names
            await opened.until("the evidence", lambda: opened.shown.count("\\x1b") > 20)
    for sequence in ("\x1b[2J", "\x1b]0;", "\x1b]8;;http", "\x1b]52;", "TITLE\x07", "\x9b", "\x9d", "\x9c"):
        assert sequence not in opened.raw, repr(sequence)
    found = FORBIDDEN.search(opened.shown)  # gradedesk's own styling apart, no control or bidi character at all
    assert found is None, repr(opened.shown[max(0, found.start() - 80):found.end() + 40])
    assert CORPUS not in opened.raw


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
async def test_no_desk_outlives_serve(fixture_store, how):
    """Stopped (SIGTERM, ctrl-c), serve closes its desks' sockets and ends their processes; killed outright, each desk
    quits as its input closes. A browser still connected does not keep serve waiting."""
    with Served(fixture_store.path) as served:
        async with aiohttp.ClientSession() as session, desk(session, served) as ann:
            await ann.until("the name screen", lambda: "Enter to start grading" in ann.shown)
            await ann.type("ann\r")
            await ann.until("ann's desk", lambda: "press 1-4" in ann.shown)
            assert len(desk_processes(fixture_store.path)) == 1
            started = time.monotonic()
            served.stop(how)
            assert outliving(fixture_store.path) == []
            if how != signal.SIGKILL:  # the browser was told, at once
                await ann.until("the socket closed", lambda: ann.ws.closed)
                assert time.monotonic() - started < 20
    assert rows(fixture_store.path, "SELECT person FROM desk_leases") == []  # the desk quit as desks do: lease freed


async def test_a_grade_waiting_for_a_locked_store_is_stored_after_the_tab_closes(fixture_store):
    """A closed tab tells the desk to quit; it leaves as ctrl-q does: the grade still waiting for the store first."""
    with Served(fixture_store.path) as served:
        async with aiohttp.ClientSession() as session:
            async with desk(session, served) as ann:
                await ann.until("the name screen", lambda: "Enter to start grading" in ann.shown)
                await ann.type("ann\r")
                await ann.until("ann's desk", lambda: "press 1-4" in ann.shown)
                holder = sqlite3.connect(fixture_store.path, isolation_level=None)
                holder.execute("BEGIN IMMEDIATE")
                await ann.type("1")
                await asyncio.sleep(1.0)  # the grade reached the desk, and waits for the store
            await asyncio.sleep(3.0)  # the tab is closed, the store still locked
            assert rows(fixture_store.path, "SELECT grade FROM human_grades") == []
            holder.execute("ROLLBACK")
            holder.close()
            assert outliving(fixture_store.path) == []  # the desk ended once it had stored the grade
    assert rows(fixture_store.path, "SELECT grader, grade FROM human_grades") == [
        {"grader": "ann", "grade": "fully_correct"}]
