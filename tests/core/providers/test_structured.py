"""Structured outputs: the probe finds the strongest response_format form an endpoint takes, the judge's calls send
their reply schema in it, and what was found is recorded on the run and not asked again (the chat stand-in plays
servers that take only one form, or none)."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.judge import parse_verdict
from gradedesk.core.grading.llm_io import ReplyError
from gradedesk.core.grading.pairwise_judge import parse_pairwise_reply
from gradedesk.core.grading.pairwise_rubric import REPLY_SHAPE as PAIRWISE_SHAPE
from gradedesk.core.grading.rubric_format import REPLY_SHAPE
from gradedesk.core.grading.scorers import PARSERS, SHAPES
from gradedesk.core.providers.chat import ProviderError
from gradedesk.core.providers.probes import refuses_form
from gradedesk.core.providers.structured import response_format
from gradedesk.core.store.connection import open_store
from tests.fixtures.chat_server import response_form
from tests.fixtures.cli import cli

VERDICT = '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, "reasoning": "Same facts."}'
SCORE = {"faithfulness": '{"claims": [{"claim": "It parses.", "supported": true}]}',
         "answer_relevance": '{"score": 1, "reason": "It answers."}'}


def judge_reply(body: dict) -> str:
    """A judge that follows each rubric's format: a verdict, a faithfulness list or a relevance score."""
    system = body["messages"][0]["content"]
    if "grounded in the evidence" in system:
        return SCORE["faithfulness"]
    if "addresses the question" in system:
        return SCORE["answer_relevance"]
    return VERDICT


@pytest.mark.parametrize("takes, chosen", [
    ({"json_schema", "json_object_schema", "json_object"}, "json_schema"),
    ({"json_schema"}, "json_schema"),
    ({"json_object_schema", "json_object"}, "json_object_schema"),  # llama-cpp-python's server
    ({"json_object"}, "json_object"),
    (set(), None),
])
def test_the_probe_picks_the_strongest_form_the_server_takes_and_every_call_uses_it(project, chat_server, capsys,
                                                                                    takes, chosen):
    db, questions = map(str, project)
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint)[0] == 0
    chat_server.requests.clear()
    chat_server.response_formats = takes
    chat_server.responder = judge_reply
    code, out, err = cli(capsys, "judge", "--store", db, *endpoint)
    assert code == 0, err
    tried = [response_form(r["response_format"]) for r in chat_server.probe_requests if "response_format" in r]
    order = ["json_schema", "json_object_schema", "json_object"]
    assert tried == order[:order.index(chosen) + 1] if chosen else order  # strongest first, until one is taken
    calls = chat_server.answer_requests
    assert len(calls) == 18  # 6 answers: a verdict, faithfulness and relevance each
    shapes = {"verdict": REPLY_SHAPE, "faithfulness": SHAPES["faithfulness"],
              "answer_relevance": SHAPES["answer_relevance"]}
    for call in calls:
        if chosen is None:
            assert "response_format" not in call
            continue
        sent = call["response_format"]
        name = sent["json_schema"]["name"] if chosen == "json_schema" else None
        shape = shapes[name] if name else next(s for s in shapes.values() if response_format(chosen, s) == sent)
        assert sent == response_format(chosen, shape)
    assert "0 unusable replies" in out and "0 failed calls" in out
    named = {"json_schema": "json_schema (strict)", "json_object_schema": "json_object with its schema",
             "json_object": "json_object without a schema", None: "no response_format"}[chosen]
    assert f"replies as {named}" in err  # said before the first call
    with open_store(db) as store:
        probes = json.loads(store._scalar("SELECT config FROM runs WHERE id = 1"))["endpoint_probes"]
    assert probes[f"judge judge-m @ {chat_server.base_url}"]["structured_form"] == (chosen or "none")


def test_a_form_refused_with_http_500_is_refused_not_busy(project, chat_server, capsys):
    """llama-cpp-python's server refuses OpenAI's json_schema form with HTTP 500 (its request validator's message
    names response_format): the probe goes on to json_object with the schema, and every call sends it."""
    db, questions = map(str, project)
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint)[0] == 0
    chat_server.response_formats, chat_server.form_refusal = {"json_object_schema", "json_object"}, 500
    chat_server.responder = judge_reply
    chat_server.requests.clear()
    code, out, err = cli(capsys, "judge", "--store", db, "--no-scores", *endpoint)
    assert code == 0, err
    assert [r.get("response_format", {}).get("type") for r in chat_server.probe_requests if "response_format" in r] \
        == ["json_schema", "json_object"]  # refused (HTTP 500), then taken
    assert "replies as json_object with its schema" in err
    calls = chat_server.answer_requests
    assert calls and all(c["response_format"] == response_format("json_object_schema", REPLY_SHAPE) for c in calls)
    # a 500 that names nothing is a busy or broken server, not a refusal: the probe learns nothing from it
    assert not refuses_form(ProviderError("HTTP 500: upstream busy", kind="status", retryable=True, status=500))


def test_the_schema_forms_carry_each_shape(chat_server):
    """json_schema is OpenAI's strict form (an object at the root), json_object_schema llama-cpp-python's."""
    strict = response_format("json_schema", REPLY_SHAPE)
    assert strict["json_schema"]["strict"] is True and strict["json_schema"]["schema"]["type"] == "object"
    assert set(strict["json_schema"]["schema"]["required"]) == {"grade", "failure_label", "confidence", "reasoning"}
    loose = response_format("json_object_schema", REPLY_SHAPE)
    assert loose["type"] == "json_object" and len(loose["schema"]["anyOf"]) == 2  # pass with null label, or a label
    assert response_format("json_object", PAIRWISE_SHAPE) == {"type": "json_object"}


@pytest.mark.parametrize("shape, parse, reply", [
    (REPLY_SHAPE, parse_verdict, {"grade": "fully_correct", "failure_label": None, "confidence": 0.5, "reasoning": ""}),
    (PAIRWISE_SHAPE, parse_pairwise_reply, {"winner": "tie", "reasoning": ""}),
])
def test_a_schema_rules_out_the_empty_reasoning_its_parser_refuses(shape, parse, reply):
    """SmolLM2 under llama-cpp-python's grammar wrote `"reasoning": ""` in 3 of 8 verdicts when the schema allowed it;
    the parser refuses it, so the schema (where bounds are sent) says at least one character."""
    with pytest.raises(ReplyError, match="reasoning: empty"):
        parse(json.dumps(reply))
    sent = json.dumps(response_format("json_object_schema", shape)["schema"])
    assert sent.count('"reasoning": {"type": "string", "maxLength": 400, "minLength": 1}') == sent.count('"reasoning": {') > 0
    assert "minLength" not in json.dumps(response_format("json_schema", shape))  # strict mode takes no bounds
    assert response_format("none", PAIRWISE_SHAPE) is None


VERDICT_OF = {"grade": "fully_correct", "failure_label": None, "confidence": 0.9}


def test_the_verdicts_schema_allows_only_confidences_its_parser_takes():
    """SmolLM2-135M under llama-cpp-python's grammar wrote confidences of 100.59 and 10.53, which the parser refuses;
    that grammar (like llama.cpp's) ignores a number's minimum and maximum, so the schema lists twentieths instead."""
    for form in ("json_schema", "json_object_schema"):
        sent = response_format(form, REPLY_SHAPE)
        schemas = [sent["json_schema"]["schema"]] if form == "json_schema" else sent["schema"]["anyOf"]
        allowed = {c for s in schemas for c in s["properties"]["confidence"]["enum"]}
        assert min(allowed) == 0 and max(allowed) == 1 and len(allowed) == 21
        for confidence in allowed:
            parse_verdict(json.dumps({**VERDICT_OF, "confidence": confidence, "reasoning": "It names open_store."}))
    with pytest.raises(ReplyError, match="confidence"):
        parse_verdict(json.dumps({**VERDICT_OF, "confidence": 10.53, "reasoning": "It names open_store."}))


@pytest.mark.parametrize("parse, reply, refused", [
    (parse_verdict, {**VERDICT_OF, "reasoning": "..."}, "reasoning: only dots"),
    (parse_verdict, {**VERDICT_OF, "reasoning": " \u2026 "}, "reasoning: only dots"),
    (parse_pairwise_reply, {"winner": "1", "reasoning": "..."}, "reasoning: only dots"),
    (PARSERS["faithfulness"], {"claims": [{"claim": "It opens the store.", "supported": True},
                                          {"claim": "<short claim>", "supported": False}]},
     r"claims\[1\].claim: the reply format's placeholder '<short claim>'"),
    (PARSERS["faithfulness"], {"claims": [{"claim": "<short claim_1234567890", "supported": True}]},
     r"claims\[0\].claim: the reply format's placeholder"),
    (PARSERS["faithfulness"], {"claims": [{"claim": " ", "supported": True}]}, r"claims\[0\].claim: empty"),
])
def test_a_reply_that_copies_its_formats_placeholder_is_unusable(parse, reply, refused):
    """Under a JSON schema SmolLM2-135M filled the strings with what the reply format showed: "reasoning": "..." in
    3 of 5 verdicts, "claim": "<short claim>" (whole, cut or suffixed) in 4 of 5 faithfulness replies
    (real_server_bench). A copy is not the model's reply, so it is not a usable one; the model's own words are."""
    with pytest.raises(ReplyError, match=refused):
        parse(json.dumps(reply))
    assert parse_verdict(json.dumps({**VERDICT_OF, "reasoning": "1"})).reasoning == "1"  # poor, but its own
    assert parse_pairwise_reply(json.dumps({"winner": "2", "reasoning": "...it names the file."})) == \
        ("2", "...it names the file.")
    score = PARSERS["faithfulness"](json.dumps({"claims": [{"claim": "short claims are fine", "supported": True}]}))
    assert score.value == 1.0
    claim = SHAPES["faithfulness"].schema["properties"]["claims"]["items"]["properties"]["claim"]
    assert claim["minLength"] == 1  # the schema rules out the empty claim the parser refuses


def test_a_second_judge_command_asks_nothing_again_and_pairwise_uses_the_form(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "judge-m", "--base-url", chat_server.base_url]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint)[0] == 0
    chat_server.response_formats = {"json_object_schema", "json_object"}
    chat_server.responder = lambda body: VERDICT
    assert cli(capsys, "judge", "--store", db, "--no-scores", *endpoint)[0] == 0
    chat_server.requests.clear()
    chat_server.responder = lambda body: '{"winner": "tie", "reasoning": "Both say it."}'
    code, out, err = cli(capsys, "judge", "--pairwise", "--store", db, *endpoint)
    assert code == 0, err
    assert chat_server.probe_requests == []  # recorded on the run: the same endpoint and model are not probed again
    calls = chat_server.answer_requests
    assert len(calls) == 6 and all(c["response_format"] == response_format("json_object_schema", PAIRWISE_SHAPE)
                                   for c in calls)
