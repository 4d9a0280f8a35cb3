"""The served desk (gradedesk serve): its first screen asks the person's name, which is only ever stored text; the
command textual-serve runs holds no input; serving refuses what it cannot do and warns off loopback."""

from __future__ import annotations

import os
import shlex
import socket
import sys

import pytest

from gradedesk.tui.commands.serve_cmd import served_command
from gradedesk.tui.screens.name import NameScreen
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, rows, running, screen_text
from tests.fixtures.embeddings_server import free_port
from tests.fixtures.served import Served


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["ann;echo x", "[bold]bo[/] $(touch y)"])
async def test_the_name_screen_stores_a_hostile_name_as_text(fixture_store, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    async with running(fixture_store.path, grader="", ask_name=True) as (app, pilot):
        assert isinstance(app.screen, NameScreen)
        await keys(pilot, "enter")
        assert isinstance(app.screen, NameScreen) and "a name is needed" in screen_text(app)
        await keys(pilot, *name, "enter")
        assert not isinstance(app.screen, NameScreen) and app.config.grader == name
        await keys(pilot, "1")
    assert [r["grader"] for r in rows(fixture_store.path, "SELECT grader FROM human_grades")] == [name]
    assert not {"x", "y"} & set(os.listdir(tmp_path))  # nothing ran it


def test_the_served_command_holds_only_the_store_and_the_run_each_quoted(tmp_path):
    store = str(tmp_path / "a b;$(touch z)'.db")
    command = served_command(store, 3)
    assert shlex.split(command) == ["exec", sys.executable, "-m", "gradedesk.tui.served", "--store", store, "--run", "3"]


@pytest.mark.parametrize("argv, line", [
    (["--store", "{tmp}/none.db"], "gradedesk: error: {tmp}/none.db: no such store; build one with `gradedesk demo`, "
                                   "`gradedesk run` or `gradedesk import`"),
    (["--run", "9"], "gradedesk: error: RUN: no run 9 in {store} (see `gradedesk runs`)"),
    (["--port", "0"], "gradedesk: error: --port 0: a port from 1 to 65535"),
    (["--host", "203.0.113.9"], "gradedesk: error: --host 203.0.113.9 --port {port}: cannot listen there "
                                "(Cannot assign requested address)"),
])
def test_serve_refuses_in_one_line(fixture_store, tmp_path, capsys, argv, line):
    port = free_port()
    argv = [a.format(tmp=tmp_path) for a in argv]
    code, out, err = cli(capsys, "serve", "--store", fixture_store.path, "--port", port, *argv)
    assert (code, out, err) == (2, "", line.format(tmp=tmp_path, store=fixture_store.path, port=port) + "\n")


def test_serve_refuses_a_taken_port(fixture_store, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, _, err = cli(capsys, "serve", "--store", fixture_store.path, "--port", port)
    assert code == 2 and err.startswith(f"gradedesk: error: --host 127.0.0.1 --port {port}: cannot listen there")
    assert err.count("\n") == 1


@pytest.mark.parametrize("host, warns", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_serve_says_where_it_serves_and_warns_in_one_line_off_loopback(fixture_store, host, warns):
    with Served(fixture_store.path, host) as served:
        pass
    warning = (f"gradedesk: serving on {host}:{served.port} beyond this machine: only the URL below opens a desk; give "
               "it only to people who may grade (a typed name is not a login: anyone with the URL may grade under any "
               "name)\n")
    assert (warning in served.stderr) is warns
    assert served.stderr.count("serving the desk at") == 1 and served.stderr.count("\n") == 1 + warns


def test_serve_refuses_no_desks(fixture_store, capsys):
    code, out, err = cli(capsys, "serve", "--store", fixture_store.path, "--max-desks", "0")
    assert (code, out, err) == (2, "", "gradedesk: error: --max-desks 0: at least 1 desk\n")


@pytest.mark.anyio
@pytest.mark.parametrize("served", [False, True])
async def test_a_desk_under_a_name_whose_desk_is_open_never_opens_the_run(fixture_store, served):
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.leases import take_lease

    with open_store(fixture_store.path) as store:
        take_lease(store, "ann", "the-other-desk", 1)
    async with running(fixture_store.path, grader="" if served else "ann", ask_name=served) as (app, pilot):
        if served:
            await keys(pilot, *"ann", "enter")
            assert isinstance(app.screen, NameScreen)  # asked again, saying why
            assert "'ann' already has a desk open on this store" in screen_text(app)
            await keys(pilot, "1")
            assert app.screen.query_one("#name").value == "1"  # the key went to the name, not to a grade
        else:
            assert app.return_code == 2 and "'ann' already has a desk open on this store" in str(app._exit_renderables)
    assert rows(fixture_store.path, "SELECT grader FROM desk_state") == []  # not even where ann stopped was written
    assert rows(fixture_store.path, "SELECT grader FROM human_grades") == []
