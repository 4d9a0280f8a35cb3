"""Issue 26's rough edges of the command line, end to end through the real CLI (stderr captured, not a terminal):
judge announces its calls, empty results say why, ask names the fused score, help text, a foreign benchmark refused."""

from __future__ import annotations


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
    assert err.splitlines()[0] == ("gradedesk: judge judge-model: 18 calls for 6 answers (6 verdicts, "
                                   "6 faithfulness, 6 relevance); --no-scores skips the 12 scorer calls")
    assert len(chat_server.answer_requests) == 18
    code, _, err = cli(capsys, "judge", "--repeat", "2", "--no-scores", *endpoint)
    assert code == 0, err
    assert err.splitlines()[0] == ("gradedesk: judge judge-model: 6 calls for 6 answers (6 verdicts); "
                                   "LLM faithfulness and relevance skipped (--no-scores)")
    assert len(chat_server.answer_requests) == 24
