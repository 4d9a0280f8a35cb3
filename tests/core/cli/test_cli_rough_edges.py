"""Issue 26's rough edges of the command line, end to end through the real CLI (stderr captured, not a terminal):
judge announces its calls, empty results say why, ask names the fused score, help text, a foreign benchmark refused."""

from __future__ import annotations


import json

import pytest

from gradedesk.tui.cli import main
from tests.fixtures.cli import cli

VERDICT = '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, "reasoning": "fine"}'


def test_judge_first_line_counts_its_calls_by_kind(project, capsys, chat_server):
    db, questions = map(str, project)
    assert cli(capsys, "run", "--questions", questions, "--budgets", "300", "--store", db)[0] == 0
    chat_server.responder = lambda body: VERDICT if "grade" in body["messages"][0]["content"] else \
        '{"score": 1, "reason": "ok"}'
    endpoint = ["--model", "judge-model", "--base-url", chat_server.base_url, "--max-retries", "0", "--store", db]
    code, _, err = cli(capsys, "judge", *endpoint)
    assert code == 0, err
    assert err.splitlines()[1] == ("gradedesk: judge judge-model: 18 calls for 6 answers (6 verdicts, "
                                   "6 faithfulness, 6 relevance); --no-scores skips the 12 scorer calls")
    assert err.splitlines()[0].startswith("gradedesk: judge endpoint ")  # what the probes found, first
    assert len(chat_server.answer_requests) == 18
    code, _, err = cli(capsys, "judge", "--repeat", "2", "--no-scores", *endpoint)
    assert code == 0, err
    assert err.splitlines()[1] == ("gradedesk: judge judge-model: 6 calls for 6 answers (6 verdicts); "
                                   "LLM faithfulness and relevance skipped (--no-scores)")
    assert len(chat_server.answer_requests) == 24


def test_retrieve_without_hits_says_why(project, tmp_path, capsys):
    db, _ = map(str, project)
    code, out, err = cli(capsys, "retrieve", "zebra quokka", "--store", db)
    assert code == 0 and out.splitlines() == ["rank  score  method  location  symbol  tokens"]
    assert err == "gradedesk: no hits: no indexed term of 'shop' matched the question (its terms: quokka, zebra)\n"
    other = tmp_path / "zoo"
    other.mkdir()
    (other / "zoo.py").write_text("def feed_quokka():\n    return 'zebra'\n", encoding="utf-8")
    for name in ("keeper", "gate", "shop"):  # BM25 weighs a term by its rarity: a term in half the files weighs 0
        (other / f"{name}.py").write_text(f"def {name}_duty():\n    return 'broom'\n", encoding="utf-8")
    assert cli(capsys, "index", other, "--store", db)[0] == 0
    code, _, err = cli(capsys, "retrieve", "zebra quokka", "--repo", "shop", "--store", db)
    assert code == 0
    assert err == ("gradedesk: no hits: no hits in 'shop' (the --repo filter); the question matches in zoo: "
                   "pass --repo zoo\n")


def test_index_of_an_empty_folder_is_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "index", empty, "--store", db)
    assert (code, out) == (2, "")
    assert err == (f"gradedesk: error: {empty}: no file to index (the folder is empty or every file in it is "
                   f"ignored); nothing was indexed\n")
    code, _, err = cli(capsys, "retrieve", "anything", "--store", db)
    assert code == 2 and err.count("\n") == 1  # no empty repository was stored to answer from


def test_ask_names_the_fused_score_and_keeps_each_methods_own(project, capsys):
    db, _ = map(str, project)
    code, out, err = cli(capsys, "ask", "Where is unit_price defined?", "--store", db)
    assert code == 0, err
    headers = [line for line in out.splitlines() if line.startswith("[Evidence ")]
    assert headers and "score:" not in out
    first = headers[0]
    assert first.startswith("[Evidence 1] shop/prices.py:6-8 :: unit_price [") and ", fused 0.0" in first
    reason = out.splitlines()[out.splitlines().index(first) + 1]
    assert reason.startswith("Reason included: Fused rank 1") and "(score " in reason


def test_align_help_shows_a_plain_percent(capsys):
    with pytest.raises(SystemExit) as done:
        main(["align", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "%%" not in out and "80% agreement target" in " ".join(out.split())


def _questions(tmp_path, name: str, expected: list[list[str]]):
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": f"What does part {i} do?", "category": "explanation",
                                        "gold_answer": "It works.", "expected_files": files}) + "\n"
                            for i, files in enumerate(expected, start=1)), encoding="utf-8")
    return path


def test_a_questions_file_about_another_repository_is_refused(project, tmp_path, capsys, monkeypatch):
    db, _ = map(str, project)
    _questions(tmp_path, "benchmark-questions.jsonl",
               [["core/store/index.py"], ["core/cli/run_cmd.py", "shop/cart.py"], ["tui/app.py"]])
    monkeypatch.chdir(tmp_path)  # no --questions: ./benchmark-questions.jsonl, here another repository's
    code, out, err = cli(capsys, "run", "--store", db)
    assert (code, out) == (2, "")
    assert err == ("gradedesk: error: benchmark-questions.jsonl: 3 of the 4 files its questions expect are not "
                   "indexed in repository 'shop' (e.g. core/cli/run_cmd.py): these questions are about another "
                   "repository; pass --questions with this repository's questions, or index theirs\n")
    code, out, _ = cli(capsys, "runs", "--store", db)
    assert code == 0 and len(out.splitlines()) <= 1  # no run was made


def test_a_few_unindexed_expected_files_are_warned_about(project, tmp_path, capsys):
    db, _ = map(str, project)
    mostly = _questions(tmp_path, "shop.jsonl", [["shop/cart.py"], ["shop/prices.py", "shop/gone.py"],
                                                  ["shop/receipt.py"]])
    code, out, err = cli(capsys, "run", "--questions", mostly, "--budgets", "300", "--store", db)
    assert code == 0 and out.startswith("run 1 (created")
    assert err == (f"gradedesk: warning: {mostly}: 1 expected file(s) not indexed in repository 'shop': "
                   f"shop/gone.py\n")
