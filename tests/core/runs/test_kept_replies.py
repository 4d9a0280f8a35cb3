"""Nothing already received is thrown away: replies a locked store will not take are retried, then kept beside the
store; the run ends in one line naming the file (exit 2); the next run takes them in, says so, and asks the model
nothing again."""

from __future__ import annotations

import sqlite3
import threading

from gradedesk.core.runs import runner
from gradedesk.core.runs.kept_replies import kept_path
from gradedesk.core.store import connection
from tests.fixtures.cli import cli


def test_replies_a_locked_store_refuses_are_kept_and_taken_in_by_the_next_run(project, chat_server, capsys,
                                                                              monkeypatch):
    db, questions = map(str, project)
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(runner, "STORE_RETRIES", (0.05, 0.1))
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locked = threading.Event()

    def lock_then_answer(body: dict) -> str:  # the store is locked once the first call is under way
        if not locked.is_set():
            holder.execute("BEGIN IMMEDIATE")
            locked.set()
        return "an answer citing shop/cart.py"

    chat_server.responder = lock_then_answer
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--concurrency", "1", "--budgets", "300",
                "--store", db]
    try:
        code, out, err = cli(capsys, "run", "--questions", questions, *endpoint)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    asked = len(chat_server.answer_requests)
    errors = [line for line in err.splitlines()  # the plan before the first call is not an error
              if line.startswith("gradedesk:") and "prompt tokens (estimate" not in line]
    assert code == 2 and len(errors) == 1 and str(kept_path(db)) in errors[0] and "next `gradedesk run`" in errors[0]
    assert asked == 6 and len(kept_path(db).read_text().splitlines()) == 6

    code, out, err = cli(capsys, "run", "--questions", questions, *endpoint)
    assert code == 0, err
    assert "took in 6 replies" in err and not kept_path(db).exists()
    assert len(chat_server.answer_requests) == asked  # nothing asked twice
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT count(*) FROM answers WHERE status = 'ok' AND text LIKE 'an answer%'"
                             ).fetchone()[0] == 6
