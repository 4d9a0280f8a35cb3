"""Providers against the local chat-completions server (real openai client, real HTTP): every fault retried or reported."""

from __future__ import annotations

import json
import time

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.providers import EndpointRejected, EndpointUnreachable, OpenAICompatibleProvider, ProviderError
from gradedesk.core.text.tokens import count_tokens
from tests.fixtures.providers import MESSAGES, complete, provider


def test_success_reports_usage_cost_and_sends_temperature_zero(chat_server):
    result = complete(provider(chat_server))
    assert result.text == "echo: What is open_store?"
    assert result.attempts == 1 and not result.tokens_counted
    body = chat_server.requests[0]
    assert body["temperature"] == 0 and body["model"] == "gpt-4o-mini" and body["messages"] == MESSAGES
    assert result.tokens_in == sum(count_tokens(m["content"]) for m in MESSAGES)
    assert result.tokens_out == count_tokens(result.text)
    assert result.cost_usd == pytest.approx((result.tokens_in * 0.15 + result.tokens_out * 0.60) / 1e6)
    assert result.latency_ms > 0


def test_missing_usage_is_counted_with_tiktoken(chat_server):
    chat_server.usage = False
    result = complete(provider(chat_server))
    assert result.tokens_counted
    assert result.tokens_out == count_tokens(result.text)
    assert result.tokens_in == count_tokens("\n".join(m["content"] for m in MESSAGES))


@pytest.mark.parametrize("inject", [
    lambda s: s.fail_next(429),
    lambda s: s.fail_next(500),
    lambda s: s.fail_next(503),
    lambda s: s.malformed_next(),
    lambda s: s.wrong_schema_next(),
    lambda s: s.delay_next(2.0),
], ids=["429", "500", "503", "malformed", "wrong-schema", "slow-timeout"])
def test_each_fault_is_retried(chat_server, inject):
    inject(chat_server)
    result = complete(provider(chat_server, timeout=0.5))
    assert result.text == "echo: What is open_store?"
    assert result.attempts == 2
    assert len(chat_server.requests) == 2


@pytest.mark.parametrize("inject, kind", [
    (lambda s: s.fail_next(429, times=3), "status"),
    (lambda s: s.malformed_next(times=3), "malformed"),
    (lambda s: s.wrong_schema_next(times=3), "schema"),
    (lambda s: s.delay_next(2.0, times=3), "timeout"),
])
def test_exhausted_retries_raise_with_the_attempt_count(chat_server, inject, kind):
    inject(chat_server)
    with pytest.raises(ProviderError) as info:
        complete(provider(chat_server, timeout=0.3, max_retries=2))
    assert info.value.kind == kind and info.value.retryable and info.value.attempts == 3
    assert len(chat_server.requests) == 3


def test_client_errors_are_not_retried(chat_server):
    chat_server.fail_next(400)
    with pytest.raises(ProviderError) as info:
        complete(provider(chat_server))
    assert info.value.status == 400 and not info.value.retryable and info.value.attempts == 1
    assert "injected HTTP 400" in str(info.value)
    assert len(chat_server.requests) == 1


@pytest.mark.parametrize("status, match", [
    (401, r"/v1: HTTP 401 \(injected HTTP 401\): check the API key in \$MY_KEY"),
    (403, r"HTTP 403 .*check the API key"),
    (404, r"HTTP 404 .*is model 'gpt-4o-mini' served there\?"),
])
def test_rejections_that_every_call_would_hit_stop_with_one_line(chat_server, status, match):
    chat_server.fail_next(status)
    with pytest.raises(EndpointRejected, match=match):
        complete(provider(chat_server, api_key_env="MY_KEY"))
    assert len(chat_server.requests) == 1


def test_backoff_grows_between_attempts(chat_server):
    chat_server.fail_next(500, times=3)
    started = time.perf_counter()
    result = complete(provider(chat_server, backoff_base=0.1))
    # waits of at least 0.05, 0.1, 0.2 (jitter keeps half of each)
    assert time.perf_counter() - started >= 0.35 and result.attempts == 4


def test_unreachable_endpoint_is_one_user_error_naming_the_url():
    p = OpenAICompatibleProvider("m", "http://127.0.0.1:9/v1", max_retries=1, backoff_base=0.005)
    with pytest.raises(EndpointUnreachable, match=r"http://127\.0\.0\.1:9/v1: cannot connect"):
        complete(p)


def test_api_key_from_environment_or_placeholder_for_local(chat_server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test-secret")
    complete(provider(chat_server, api_key_env="MY_KEY"))
    assert chat_server.headers[-1]["authorization"] == "Bearer sk-test-secret"
    monkeypatch.delenv("MY_KEY")
    complete(provider(chat_server, api_key_env="MY_KEY"))
    assert chat_server.headers[-1]["authorization"] == "Bearer no-key-needed"
    with pytest.raises(UserError, match="MY_KEY is not set"):
        OpenAICompatibleProvider("gpt-4o-mini", None, api_key_env="MY_KEY")


def test_json_mode_and_max_tokens_are_sent(chat_server):
    chat_server.responder = lambda body: json.dumps({"grade": "wrong"})
    result = complete(provider(chat_server), json_mode=True, max_tokens=50)
    assert json.loads(result.text) == {"grade": "wrong"}
    assert chat_server.requests[0]["response_format"] == {"type": "json_object"}
    assert chat_server.requests[0]["max_tokens"] == 50
