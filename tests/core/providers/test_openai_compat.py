"""Providers against the local chat-completions server (real openai client, real HTTP): every fault retried or reported."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.providers import (
    EndpointRejected,
    EndpointStalled,
    EndpointUnreachable,
    OpenAICompatibleProvider,
    ProviderError,
    endpoint_host,
    run_bounded,
)
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


# real servers: bounded output, stalls, helpful errors, secrets ------------------------------------------------------
def calls(p, n: int, concurrency: int) -> None:
    """`n` calls as the runner and the judge make them: a failed call is recorded and the others go on."""
    async def one(_):
        try:
            await p.complete(MESSAGES)
        except ProviderError:
            pass

    async def many():
        try:
            await run_bounded(range(n), one, concurrency)
        finally:
            await p.aclose()

    asyncio.run(many())


def test_a_one_slot_server_is_sent_no_more_than_it_answers_within_the_timeout(chat_server):
    """Stands in for llama.cpp with one slot: 0.25 s a reply, one at a time, the rest queued. With 4 in flight and a
    0.6 s timeout the third and fourth would time out in every wave, and the server would go on computing replies
    nobody waits for; the provider learns to keep fewer in flight, so every call succeeds and little is wasted."""
    chat_server.one_slot, chat_server.fixed_delay = True, 0.25
    p = provider(chat_server, timeout=0.6, concurrency=4, max_retries=4)
    results: list = []

    async def one(_):
        results.append(await p.complete(MESSAGES))

    async def many():
        try:
            await run_bounded(range(12), one, 4)
        finally:
            await p.aclose()

    asyncio.run(many())
    assert len(results) == 12  # with 4 kept in flight, 10 of the 12 failed after 52 requests
    retried = sum(r.attempts - 1 for r in results)
    assert len(chat_server.requests) == 12 + retried <= 20  # the first waves' timeouts, then none
    assert p._slots.limit <= 2


def test_a_rambling_model_is_cut_at_max_tokens_and_says_so(chat_server):
    chat_server.rambles = True  # stands in for a base model that never stops (llama.cpp with gemma3-270m)
    result = complete(provider(chat_server), max_tokens=40)
    assert result.finish_reason == "length" and result.truncated
    assert result.tokens_out == 40 == count_tokens(result.text)
    assert chat_server.requests[0]["max_tokens"] == 40


def test_a_normal_reply_records_its_finish_reason(chat_server):
    result = complete(provider(chat_server), max_tokens=100)
    assert result.finish_reason == "stop" and not result.truncated


@pytest.mark.parametrize("concurrency, max_retries", [(1, 4), (4, 4), (1, 0)])
def test_a_server_that_never_answers_stops_within_three_timeouts(chat_server, concurrency, max_retries):
    chat_server.never_answers = True  # accepts the connection, reads the request, never replies
    p = provider(chat_server, timeout=0.5, fail_fast=True, max_retries=max_retries, concurrency=concurrency)
    started = time.perf_counter()
    with pytest.raises(ExceptionGroup) as info:
        calls(p, 8, concurrency)
    elapsed = time.perf_counter() - started
    stalled = info.value.exceptions[0]
    assert isinstance(stalled, EndpointStalled) and isinstance(stalled, UserError)
    assert chat_server.base_url in str(stalled) and "--timeout 0.5s" in str(stalled)
    assert elapsed < 3 * 0.5 + 1.5  # three timeouts and the backoff between them, not 8 calls x 5 attempts
    assert len(chat_server.requests) <= 3 + concurrency


def test_a_server_that_answered_and_then_stalls_is_retried_as_before(chat_server):
    p = provider(chat_server, timeout=0.3, fail_fast=True, max_retries=4)

    async def go():
        try:
            first = await p.complete(MESSAGES)
            chat_server.delay_next(1.0, times=4)
            return first, await p.complete(MESSAGES)
        finally:
            await p.aclose()

    first, second = asyncio.run(go())
    assert second.text == first.text and second.attempts == 5


def test_calls_that_all_fail_the_same_way_stop_the_command(chat_server):
    chat_server.fail_next(400, times=20, message="unsupported parameter: temperature")
    with pytest.raises(ExceptionGroup) as info:
        calls(provider(chat_server, fail_fast=True), 20, 1)
    assert isinstance(info.value.exceptions[0], EndpointStalled)
    assert "unsupported parameter: temperature" in str(info.value.exceptions[0])
    assert len(chat_server.requests) == 10


def test_a_context_length_rejection_is_not_retried_and_names_the_prompt_size(chat_server):
    chat_server.fail_next(400, message="This model's maximum context length is 2048 tokens. However, you requested "
                                       "5000 tokens.")
    with pytest.raises(ProviderError) as info:
        complete(provider(chat_server))
    prompt = count_tokens("\n".join(m["content"] for m in MESSAGES))
    assert info.value.kind == "context" and not info.value.retryable and len(chat_server.requests) == 1
    assert str(info.value).startswith(f"prompt of {prompt} tokens (tiktoken/o200k_base) exceeds the model's context")
    assert str(info.value).endswith("use smaller --budgets")


def test_an_unknown_model_names_the_models_the_server_has(chat_server):
    chat_server.models = ["gemma3-270m", "qwen2.5-0.5b"]
    with pytest.raises(EndpointRejected, match=r"HTTP 404 \(The model `gpt-4o-mini` does not exist\): is model "
                                               r"'gpt-4o-mini' served there\? It serves: gemma3-270m, qwen2.5-0.5b"):
        complete(provider(chat_server))


@pytest.mark.parametrize("status", [401, 429, 500])
def test_a_server_echoing_the_key_never_gets_it_into_an_error(chat_server, monkeypatch, status):
    monkeypatch.setenv("MY_KEY", "sk-live-abcdef123456")
    chat_server.echo_auth_next(status, times=3)
    with pytest.raises((ProviderError, EndpointRejected)) as info:
        complete(provider(chat_server, api_key_env="MY_KEY", max_retries=2))
    assert chat_server.headers[0]["authorization"] == "Bearer sk-live-abcdef123456"  # the key was sent ...
    assert "sk-live" not in str(info.value) and "abcdef123456" not in str(info.value)  # ... and never shown
    assert "upstream failed for key Bearer [redacted]" in str(info.value)


def test_reasoning_is_kept_apart_from_the_answer(chat_server):
    chat_server.reasoning = "The user asks about open_store; {not json}"
    chat_server.responder = lambda body: '<think>more thinking {"grade": 1}</think>{"grade": "wrong"}'
    result = complete(provider(chat_server))
    assert result.text == '{"grade": "wrong"}'
    assert result.reasoning == 'The user asks about open_store; {not json}\n\nmore thinking {"grade": 1}'
    chat_server.usage = False  # counted here: the reasoning is output the model produced
    counted = complete(provider(chat_server))
    assert counted.tokens_out == count_tokens(counted.text) + count_tokens(counted.reasoning)


def test_the_recorded_host_never_holds_a_user_or_password():
    assert endpoint_host("http://bob:hunter22@127.0.0.1:8088/v1") == "127.0.0.1:8088"
    assert endpoint_host("https://api.example.com/v1?key=x") == "api.example.com"
    assert endpoint_host(None) == "api.openai.com"
