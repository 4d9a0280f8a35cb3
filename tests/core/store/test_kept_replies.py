"""Nothing already received is thrown away: replies a locked store will not take (a run's answers, a judge's verdicts
and LLM scores, pairwise replies) are retried, then kept beside the store; the command ends in one line naming the
file (exit 2); the next `run` or `judge` takes them in, says so, and asks the model nothing again."""

from __future__ import annotations

import sqlite3

import pytest

from gradedesk.core.store import connection, kept_replies
from gradedesk.core.store.kept_replies import kept_path
from tests.fixtures.cli import cli
from tests.fixtures.kept import ANSWER, PAIRWISE, calls, judge_reply, kept_error, locked_once_asked


@pytest.fixture(autouse=True)
def quick_faults(monkeypatch):
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(kept_replies, "STORE_RETRIES", (0.05, 0.1))


def ends_naming_the_file(code: int, err: str, db: str, command: str) -> None:
    assert kept_error(code, err, str(kept_path(db)), command) is None


def count(db: str, sql: str) -> int:
    with sqlite3.connect(db) as check:
        return check.execute(sql).fetchone()[0]


def test_replies_a_locked_store_refuses_are_kept_and_taken_in_by_the_next_run(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--concurrency", "1", "--budgets", "300",
                "--store", db]
    with locked_once_asked(db, chat_server, lambda body: ANSWER):
        code, out, err = cli(capsys, "run", "--questions", questions, *endpoint)
    asked = len(chat_server.answer_requests)
    ends_naming_the_file(code, err, db, "run")
    assert calls(chat_server) == 6 and len(kept_path(db).read_text().splitlines()) == 6

    code, out, err = cli(capsys, "run", "--questions", questions, *endpoint)
    assert code == 0, err
    assert "took in 6 replies" in err and not kept_path(db).exists()
    assert len(chat_server.answer_requests) == asked  # nothing asked twice
    assert count(db, "SELECT count(*) FROM answers WHERE status = 'ok' AND text LIKE 'an answer%'") == 6


def test_verdicts_and_scores_a_locked_store_refuses_are_kept_and_taken_in_by_the_next_judge(project, chat_server,
                                                                                             capsys):
    db, questions = map(str, project)
    assert cli(capsys, "run", "--questions", questions, "--budgets", "300", "--store", db)[0] == 0  # offline: 6
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url, "--store", db]
    with locked_once_asked(db, chat_server, judge_reply):
        code, _, err = cli(capsys, "judge", *endpoint)
    asked = len(chat_server.answer_requests)
    ends_naming_the_file(code, err, db, "judge")
    assert calls(chat_server) == 18 and len(kept_path(db).read_text().splitlines()) == 18  # 6 verdicts, 6 + 6 scores
    assert count(db, "SELECT count(*) FROM auto_grades WHERE grader_kind = 'judge'") == 0

    code, out, err = cli(capsys, "judge", *endpoint)
    assert code == 0, err
    assert "took in 18 replies" in err and not kept_path(db).exists()
    assert "judge judge-m: 0 calls" in err and len(chat_server.answer_requests) == asked  # nothing asked twice
    assert count(db, "SELECT count(*) FROM auto_grades WHERE grader_kind = 'judge' AND grade = 'partially_correct' "
                     "AND raw_response IS NOT NULL") == 6
    assert count(db, "SELECT count(*) FROM answer_scores WHERE method LIKE '%judge-m%' AND value = 0.5") == 12


def test_pairwise_replies_are_kept_and_the_next_run_takes_them_in(project, chat_server, capsys):
    db, questions = map(str, project)
    assert cli(capsys, "run", "--questions", questions, "--budgets", "300", "--store", db)[0] == 0
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url, "--store", db]
    with locked_once_asked(db, chat_server, lambda body: PAIRWISE):
        code, _, err = cli(capsys, "judge", "--pairwise", *endpoint)
    asked = len(chat_server.answer_requests)
    ends_naming_the_file(code, err, db, "judge --pairwise")
    assert calls(chat_server) == 6 and len(kept_path(db).read_text().splitlines()) == 6  # 3 pairs, both orders

    code, _, err = cli(capsys, "run", "--questions", questions, "--budgets", "300", "--store", db)  # any run or judge
    assert code == 0 and "took in 6 replies" in err and not kept_path(db).exists()
    assert count(db, "SELECT count(*) FROM pairwise_verdicts WHERE preferred IS NOT NULL") == 6
    code, _, err = cli(capsys, "judge", "--pairwise", *endpoint)
    assert code == 0 and "pairwise judge judge-m: 0 calls" in err and len(chat_server.answer_requests) == asked
