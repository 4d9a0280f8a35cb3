"""Instructions that reach the model: a system message folded into the user message, and a server whose chat template
drops system messages told by its own prompt count (the chat stand-in plays llama-cpp-python's gemma format)."""

from __future__ import annotations

from gradedesk.core.providers.system_role import dropped_system, fold_system
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.tokens import count_tokens
from tests.fixtures.cli import cli

RUBRIC = "You are a strict judge. " * 40
CHAT = [{"role": "system", "content": RUBRIC}, {"role": "user", "content": "Grade this answer: it parses."}]


def test_the_system_text_goes_first_in_the_first_user_message():
    folded = fold_system(CHAT + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "again"}])
    assert [m["role"] for m in folded] == ["user", "assistant", "user"]
    assert folded[0]["content"] == RUBRIC + "\n\nGrade this answer: it parses." and folded[2]["content"] == "again"
    assert CHAT[1]["content"] == "Grade this answer: it parses."  # the caller's messages are left as they were
    assert fold_system([{"role": "system", "content": "Be brief."}]) == [{"role": "user", "content": "Be brief."}]
    assert fold_system(CHAT[1:]) == CHAT[1:]


def test_a_prompt_count_short_by_the_system_message_is_told_and_a_small_system_message_cannot_tell():
    whole, user = sum(count_tokens(m["content"]) for m in CHAT), count_tokens(CHAT[1]["content"])
    told, warning = dropped_system(CHAT, user + 4, "o200k_base")  # what the gemma template leaves, plus its markers
    assert told and f"counted {user + 4} prompt tokens for a prompt of about {whole}" in warning
    assert "--system-role user" in warning
    assert dropped_system(CHAT, whole + 12, "o200k_base") == (True, None)  # the template's own tokens on top
    assert dropped_system(CHAT, int(whole * 0.8), "o200k_base") == (True, None)  # a leaner tokenizer is no drop
    small = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "word " * 300}]
    assert dropped_system(small, 5, "o200k_base") == (False, None)


def test_judge_warns_when_the_server_dropped_the_rubric_and_system_role_user_sends_it(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "gemma3-270m", "--base-url", chat_server.base_url]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint)[0] == 0
    verdict = '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, "reasoning": "Same facts."}'
    chat_server.responder = lambda body: verdict
    code, _, err = cli(capsys, "judge", "--store", db, "--no-scores", *endpoint)  # a server that keeps the rubric
    assert code == 0 and "system" not in err

    chat_server.no_system_role = True
    chat_server.requests.clear()
    code, _, err = cli(capsys, "judge", "--store", db, "--no-scores", "--rubric", "builtin", "--repeat", "2", *endpoint)
    assert code == 0 and err.count("--system-role user") == 1  # once per command, naming the way out
    assert f"{chat_server.base_url}: the server counted" in err and "never reached the model" in err
    assert all(r["messages"][0]["role"] == "system" for r in chat_server.answer_requests)
    rubric = chat_server.answer_requests[0]["messages"][0]["content"]  # the built-in rubric, as the judge sends it

    chat_server.requests.clear()
    code, _, err = cli(capsys, "judge", "--store", db, "--no-scores", "--repeat", "3", "--system-role", "user",
                       *endpoint)
    assert code == 0 and "--system-role" not in err
    sent = chat_server.answer_requests
    assert sent and all([m["role"] for m in r["messages"]] == ["user"] for r in sent)
    assert all(r["messages"][0]["content"].startswith(rubric + "\n\n") for r in sent)
    with open_store(db) as store:  # the third repeat was graded with the rubric in view
        assert store._scalar("SELECT count(*) FROM auto_grades WHERE grader_kind = 'judge' AND repeat_index = 2 "
                            "AND grade = 'fully_correct'") == 6


def test_a_run_with_the_instructions_in_the_user_message_is_its_own_run(project, chat_server, capsys):
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "500", "--store", db, "--model", "m", "--base-url",
            chat_server.base_url]
    code, out, _ = cli(capsys, *args)
    assert code == 0 and out.startswith("run 1 (created")
    code, out, _ = cli(capsys, *args, "--system-role", "user")
    assert code == 0 and out.startswith("run 2 (created")
    assert all(r["messages"][0]["role"] == "user" for r in chat_server.requests[-6:])
    code, out, _ = cli(capsys, *args)
    assert code == 0 and out.startswith("run 1 (resumed")


def test_a_local_server_is_probed_before_the_first_call_and_a_dropped_system_message_is_told_first(project,
                                                                                                     chat_server,
                                                                                                     capsys):
    """`run`'s instructions are a small share of a prompt full of evidence, so its prompt counts cannot tell a dropped
    system message from another tokenizer: two one-token calls, with and without a system message, can, and they are
    made before any answer is asked for, so the warning comes before the calls are spent."""
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "4000", "--store", db, "--model", "gemma3-270m",
            "--base-url", chat_server.base_url]
    code, _, err = cli(capsys, *args)  # a server that keeps system messages: probed, nothing to say
    probes = chat_server.probe_requests
    assert code == 0 and "system" not in err
    assert [[m["role"] for m in r["messages"]] for r in probes[:2]] == [["system", "user"], ["user"]]
    assert chat_server.requests[:len(probes)] == probes  # before the first answer (then the prompt-count probes)

    chat_server.no_system_role = True
    chat_server.requests.clear()
    code, _, err = cli(capsys, *args, "--label", "again")  # another run on a server that drops them
    assert code == 0 and err.count("--system-role user") == 1
    assert "a short prompt with a system message" in err and "never reached the model" in err
    assert err.index("never reached the model") < err.index("gradedesk: run gemma3-270m: 6 calls")  # told first
    assert [r.get("max_tokens") for r in chat_server.requests[:2]] == [1, 1]
