"""The run / runs / export / import commands end to end: a real store, a small repository, the real CLI."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

from gradedesk.core.store.connection import open_store
from tests.fixtures import REPO_ROOT
from tests.fixtures.shop import QUESTIONS
from tests.fixtures.cli import cli



def test_run_list_export_and_import_round_trip(project, tmp_path, capsys):
    db, questions = map(str, project)
    code, out, _ = cli(capsys, "run", "--questions", questions, "--budgets", "300,600", "--store", db)
    assert code == 0
    assert out.startswith("run 1 (created, offline-extractive): 3 questions, 9 answers: 0 done before, 9 answered now")
    code, out, _ = cli(capsys, "run", "--questions", questions, "--budgets", "600,300", "--store", db)
    assert code == 0 and "run 1 (resumed" in out and "9 done before, 0 answered now" in out

    code, out, _ = cli(capsys, "runs", "--store", db)
    header, row = out.splitlines()
    assert header.split() == ["id", "created", "source", "provider", "model", "benchmark", "label", "questions",
                              "answered", "failed", "pending"]
    assert row.split()[:4] == ["1", row.split()[1], "run", "offline-extractive"]
    assert row.split()[-4:] == ["3", "9", "0", "0"]
    code, out, _ = cli(capsys, "runs", "--store", db, "--json")
    assert json.loads(out)[0]["model"] == "extractive/2"

    code, out, _ = cli(capsys, "export", "latest", "--jsonl", "--store", db)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [ln["question_id"] for ln in lines] == ["q1", "q2", "q3"]
    for ln in lines:
        assert {"question", "category", "raw_answer", "raw_chunks", "bundle_answer", "bundle_chunks",
                "bundle_tokens", "bundle_coverage", "raw_grade", "bundle_grade", "grading_notes", "timestamp",
                "raw_evidence_files", "bundle_evidence_files"} <= set(ln)
        assert ln["bundle_budget"] == 600 and ln["bundle_tokens"] <= 600
        assert [s["budget"] for s in ln["budget_sweep"]] == [300, 600]
        assert "grades" not in ln  # nothing graded yet
    exported = tmp_path / "exported.jsonl"
    code, _, err = cli(capsys, "export", "1", "--store", db, "-o", exported)
    assert code == 0 and "3 questions written" in err

    other = tmp_path / "other.db"
    code, out, _ = cli(capsys, "import", exported, "--store", other)
    assert code == 0 and out.startswith(f"{exported}: imported as run 1: 3 lines, 6 answers, 0 imported grades")
    code, out, _ = cli(capsys, "import", exported, "--store", other)
    assert "already imported as run 1; nothing added" in out
    code, out, _ = cli(capsys, "export", "latest", "--store", other)
    back = [json.loads(line) for line in out.splitlines()]
    assert [(b["raw_answer"], b["bundle_answer"]) for b in back] == [(a["raw_answer"], a["bundle_answer"])
                                                                     for a in lines]
    assert [b["bundle_tokens"] for b in back] == [a["bundle_tokens"] for a in lines]
    with open_store(other) as store:
        assert store._query("SELECT source, provider, benchmark FROM runs") == [
            {"source": "import", "provider": "imported", "benchmark": "shop-questions"}]


def test_user_errors_are_one_line_and_exit_2(project, tmp_path, capsys):
    db, questions = map(str, project)
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "1000,lots", "--store", db)
    assert (code, out) == (2, "") and err == "gradedesk: error: --budgets: 'lots' is not a whole number of tokens\n"
    code, _, err = cli(capsys, "run", "--questions", questions, "--repo", "nope", "--store", db)
    assert code == 2 and "no repository named 'nope'" in err and len(err.splitlines()) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(QUESTIONS[0]) + "\n" + '{"id": "x", "question": 3}\n', encoding="utf-8")
    code, _, err = cli(capsys, "run", "--questions", bad, "--store", db)
    assert code == 2 and f"{bad}:2: question: must be a string, got int" in err
    code, _, err = cli(capsys, "export", "7", "--store", db)
    assert code == 2 and "no run 7" in err
    code, _, err = cli(capsys, "runs", "--store", tmp_path / "missing.db")
    assert code == 2 and "no such store" in err
    code, _, err = cli(capsys, "run", "--questions", questions, "--base-url", "http://127.0.0.1:9/v1",
                       "--store", db)
    assert code == 2 and "needs --model" in err
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM answers") == 0


def test_import_reports_bad_lines_and_skip_invalid(tmp_path, capsys):
    log = tmp_path / "harness.jsonl"
    good = {"question_id": "h1", "question": "Where is unit_price?", "category": "code_lookup",
            "answer": "shop/prices.py", "evidence_files": ["shop/prices.py"], "grade": "fully_correct",
            "failure_label": None, "grading_notes": "ok"}
    log.write_text(json.dumps(good) + "\n" + json.dumps({**good, "question_id": "h2", "grade": "meh"}) + "\n",
                   encoding="utf-8")
    db = tmp_path / "s.db"
    code, out, err = cli(capsys, "import", log, "--store", db)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"{log}:2: grade: 'meh' is not one of fully_correct, partially_correct, "
                                f"unsupported, wrong", "gradedesk: 1 problem(s); nothing was stored"]
    code, out, err = cli(capsys, "import", log, "--skip-invalid", "--store", db, "--json")
    assert code == 0 and f"skipped {log}:2: grade" in err
    report = json.loads(out)
    assert (report["answers"], report["grades"], len(report["skipped"])) == (1, 1, 1)


def test_endpoint_failures_exit_1_and_the_same_command_retries(project, chat_server, capsys):
    db, questions = map(str, project)
    chat_server.fail_next(500, times=2)
    args = ["run", "--questions", questions, "--budgets", "500", "--model", "gpt-4o-mini", "--base-url",
            chat_server.base_url, "--max-retries", "0", "--concurrency", "1", "--store", db]
    code, out, err = cli(capsys, *args)
    assert code == 1 and "2 failed" in out and "run the same command again to retry" in err
    code, out, _ = cli(capsys, *args)
    assert code == 0 and "4 done before, 2 answered now, 0 failed" in out
    assert len(chat_server.answer_requests) == 8


def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(project, chat_server, capsys):
    db, questions = map(str, project)
    chat_server.fixed_delay = 0.5  # slow replies, so the signal lands while calls are still to come
    args = ["run", "--questions", questions, "--budgets", "300,500", "--model", "gpt-4o-mini", "--base-url",
            chat_server.base_url, "--concurrency", "1", "--store", db]
    # the child gets the default SIGINT disposition: one inherited as ignored (other tests in this process may set
    # that) would make Python ignore Ctrl-C entirely
    proc = subprocess.Popen([sys.executable, "-m", "gradedesk.tui", *args], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and done < 1:
        time.sleep(0.05)
        conn = sqlite3.connect(db)
        try:
            done = conn.execute("SELECT count(*) FROM answers WHERE status = 'ok'").fetchone()[0]
        except sqlite3.OperationalError:  # the run has not made its tables yet
            done = 0
        finally:
            conn.close()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted; run the same command again to resume run 1" in err and "Traceback" not in err
    with open_store(db) as store:
        statuses = dict(store._conn.execute("SELECT status, count(*) FROM answers GROUP BY status").fetchall())
    ok = statuses["ok"]
    assert statuses.get("error") is None and 1 <= ok < 9 and ok + statuses["pending"] == 9
    asked_before = len(chat_server.answer_requests)
    chat_server.fixed_delay = 0.0
    code, out, _ = cli(capsys, *args)
    assert code == 0 and f"{ok} done before, {9 - ok} answered now" in out
    # nothing answered twice: only what was pending is asked again
    assert len(chat_server.answer_requests) - asked_before == 9 - ok


def test_demo_builds_offline_and_building_again_reuses_everything(tmp_path, capsys):
    db = tmp_path / "demo.db"
    code, out, _ = cli(capsys, "demo", "--store", db, "--no-desk", "--json")
    first = json.loads(out)["run"]
    assert code == 0 and first["created"] and first["failed_now"] == 0
    assert first["questions"] >= 30 and first["answers_total"] == first["answered_now"] == 4 * first["questions"]
    code, out, _ = cli(capsys, "demo", "--store", db, "--no-desk", "--json")
    second = json.loads(out)
    assert code == 0 and second["run"]["run_id"] == first["run_id"]
    assert second["run"]["answered_now"] == 0 and second["rule_graded"] == 0
    with open_store(db) as store:
        assert store._scalar("SELECT provider FROM runs") == "offline-extractive"
        assert store._scalar("SELECT count(*) FROM auto_grades WHERE grader_kind = 'rule'") == first["answers_total"]
        # the benchmark's own answer key is indexed but never shown as evidence
        assert store._scalar("SELECT count(*) FROM answers WHERE evidence_files LIKE '%benchmark-questions%'") == 0


def test_a_rejected_key_stops_the_run_with_one_line(project, chat_server, capsys, monkeypatch):
    db, questions = map(str, project)
    monkeypatch.setenv("TEAM_KEY", "sk-wrong")
    chat_server.fail_next(401)
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--model", "gpt-4o-mini",
                         "--base-url", chat_server.base_url, "--api-key-env", "TEAM_KEY", "--concurrency", "1",
                         "--store", db)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "HTTP 401" in err and "$TEAM_KEY" in err and "sk-wrong" not in err
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM answers WHERE status <> 'pending'") == 0
        assert store._scalar("SELECT count(*) FROM runs") == 0  # a new run that got no answer is not kept
        assert "sk-wrong" not in (store._scalar("SELECT group_concat(config) FROM runs") or "")
