"""The reply formats the graders are given: nothing a model could copy into a string when the reply's schema goes with
the call, a filled example it can follow when it does not, and a parser that refuses a copy of either (SmolLM2-135M,
decoding under the schema's grammar, wrote the old formats' `"reasoning": "..."` and `"claim": "<short claim>"`)."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.judge import parse_verdict
from gradedesk.core.grading.llm_io import ReplyError
from gradedesk.core.grading.pairwise_judge import parse_pairwise_reply
from gradedesk.core.grading.pairwise_rubric import REPLY as PAIRWISE
from gradedesk.core.grading.reply_format import EXAMPLE_MARK, FORMAT_HEAD
from gradedesk.core.grading.rubric_format import REPLY as VERDICT
from gradedesk.core.grading.scorers import FORMATS, parse_faithfulness, parse_relevance
from tests.fixtures.cli import cli

# each format, its parser, and where its texts of the model's own sit in a reply (a top-level key, or claims' claim)
KINDS = {
    "verdict": (VERDICT, parse_verdict, "reasoning"),
    "pairwise": (PAIRWISE, parse_pairwise_reply, "reasoning"),
    "faithfulness": (FORMATS["faithfulness"], parse_faithfulness, "claim"),
    "answer_relevance": (FORMATS["answer_relevance"], parse_relevance, "reason"),
}
OWN = "It names open_store, as the gold answer does."  # a text a model wrote itself
# texts the old formats showed, which a small model copied into the strings its grammar opened
PLACEHOLDERS = ('"..."', "<short claim>", "<one sentence>", "1|2|tie", "fully_correct|partially_correct")


def kind_of(system: str) -> str:
    for words, kind in (("grounded in the evidence", "faithfulness"), ("addresses the question", "answer_relevance"),
                        ("compare two answers", "pairwise")):
        if words in system:
            return kind
    return "verdict"


def with_text(reply: dict, field: str, text: str) -> dict:
    """`reply` with every text of the model's own (`field`) set to `text`."""
    if field == "claim":
        return {"claims": [{**c, "claim": text} for c in reply["claims"]]}
    return {**reply, field: text}


def follows_the_example(body: dict) -> str:
    """A model that fills the example's shape with text of its own (what the example is for)."""
    system = body["messages"][0]["content"]
    reply, _, field = KINDS[kind_of(system)]
    example = json.loads(system.split(FORMAT_HEAD, 1)[1].strip().splitlines()[-1])
    return json.dumps(with_text(example, field, OWN)) if EXAMPLE_MARK in json.dumps(example) else "{}"


def answers_in_words(body: dict) -> str:
    kind = kind_of(body["messages"][0]["content"])
    return {"verdict": '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, "reasoning": "Same."}',
            "pairwise": '{"winner": "tie", "reasoning": "Both say it."}',
            "faithfulness": '{"claims": [{"claim": "It parses.", "supported": true}]}',
            "answer_relevance": '{"score": 1, "reason": "It answers."}'}[kind]


@pytest.mark.parametrize("takes, schema", [
    ({"json_schema", "json_object_schema", "json_object"}, True),
    ({"json_object_schema", "json_object"}, True),  # llama-cpp-python's server: json_object with the schema
    ({"json_object"}, False),
    (set(), False),
])
def test_every_grader_is_shown_no_value_under_a_schema_and_an_example_to_follow_without_one(
        project, chat_server, capsys, takes, schema):
    db, questions = map(str, project)
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint)[0] == 0
    chat_server.response_formats = takes
    chat_server.responder = answers_in_words if schema else follows_the_example
    chat_server.requests.clear()
    for command in (["judge"], ["judge", "--pairwise"]):
        code, out, err = cli(capsys, *command, "--store", db, *endpoint)
        assert code == 0, err
        assert "0 unusable" in out and "0 failed calls" in out  # the replies the formats led to were all usable
    systems = [c["messages"][0]["content"] for c in chat_server.answer_requests]
    assert {kind_of(s) for s in systems} == set(KINDS)
    for system in systems:
        assert not any(p in system for p in PLACEHOLDERS), system
        fmt = system.split(f"\n\n{FORMAT_HEAD}\n", 1)[1]  # the format closes the system message
        if schema:
            assert "{" not in fmt and '"' not in fmt.replace('"1"', "").replace('"2"', "").replace('"tie"', "")
        else:
            assert EXAMPLE_MARK in fmt.splitlines()[-1]


@pytest.mark.parametrize("kind", KINDS)
def test_a_copy_of_the_example_or_of_a_fields_words_is_unusable_and_the_example_with_own_text_is_not(kind):
    reply, parse, field = KINDS[kind]
    with pytest.raises(ReplyError, match="example"):
        parse(json.dumps(reply.example))
    words = next(what for key, what in reply.fields if key.strip() == field)
    with pytest.raises(ReplyError, match="words"):
        parse(json.dumps(with_text(reply.example, field, words)))
    parse(json.dumps(with_text(reply.example, field, OWN)))  # the shape itself is one the parser takes
