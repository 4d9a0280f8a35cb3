"""Providers against the local chat-completions server (real openai client, real HTTP): every fault retried or reported."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.providers.openai_compat import (
    EndpointRejected,
    EndpointUnreachable,
    OfflineExtractiveProvider,
    OpenAICompatibleProvider,
    ProviderError,
    extractive_answer,
    load_prices,
    make_provider,
    parse_price,
    run_bounded,
)
from gradedesk.core.text.tokens import count_tokens

MESSAGES = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "What is open_store?"}]


def provider(server, **kw) -> OpenAICompatibleProvider:
    kw.setdefault("backoff_base", 0.005)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatibleProvider(kw.pop("model", "gpt-4o-mini"), server.base_url, **kw)


def complete(p, messages=MESSAGES, **kw):
    async def go():
        try:
            return await p.complete(messages, **kw)
        finally:
            await p.aclose()
    return asyncio.run(go())


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


def test_price_table_override_and_unknown_model(tmp_path, chat_server):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"local-llama": {"input": 1.0, "output": 2.0}}))
    table = load_prices(prices)
    result = complete(provider(chat_server, model="local-llama", prices=table))
    assert result.cost_usd == pytest.approx((result.tokens_in + 2 * result.tokens_out) / 1e6)
    assert complete(provider(chat_server, model="mystery-model")).cost_usd is None
    prices.write_text(json.dumps({"x": {"input": "cheap"}}))
    with pytest.raises(UserError, match="prices.json: x: price must be"):
        load_prices(prices)


def test_price_flag_overrides_the_table_for_the_model(chat_server):
    p = make_provider("gpt-4o-mini", chat_server.base_url, price="1,3", backoff_base=0.005)
    result = complete(p)
    assert result.cost_usd == pytest.approx((result.tokens_in + 3 * result.tokens_out) / 1e6)
    assert parse_price("0.15, 0.6") == (0.15, 0.6)
    for bad in ("1", "a,b", "1,-2"):
        with pytest.raises(UserError, match="--price"):
            parse_price(bad)


def test_make_provider_chooses_offline_without_model_or_url(chat_server):
    assert isinstance(make_provider(None, None), OfflineExtractiveProvider)
    assert make_provider("gpt-4o-mini", chat_server.base_url).name == "openai-compatible"
    with pytest.raises(UserError, match="needs --model"):
        make_provider(None, chat_server.base_url)


BUNDLE_CONTEXT = """Question: How does open_store apply the schema?

[Evidence 1] core/store.py :: open_store (lines 40-43) [symbol, score: 0.9000]
Reason included: defines open_store
def open_store(path):
    conn = _connect(path)
    for statement in _statements(schema_sql()):
        conn.execute(statement)

---

[Evidence 2] core/tokens.py (lines 1-2) [bm25, score: 0.1000]
import tiktoken
VALUE = 1"""

RAW_CONTEXT = """Question: How does open_store apply the schema?

File: core/tokens.py (lines 1-2)
import tiktoken
VALUE = 1"""


def test_offline_provider_cites_labels_and_lines_deterministically():
    p = OfflineExtractiveProvider()
    messages = [{"role": "system", "content": "x"}, {"role": "user", "content": BUNDLE_CONTEXT}]
    first = complete(p, messages)
    assert first.text == complete(p, messages).text
    assert "`def open_store(path):` [Evidence 1] core/store.py:40" in first.text
    assert "for statement in _statements(schema_sql()):` [Evidence 1] core/store.py:42" in first.text
    assert "tiktoken" not in first.text  # unrelated evidence is not quoted
    assert first.tokens_counted and first.cost_usd == 0.0
    assert first.tokens_out == count_tokens(first.text)


def test_offline_answers_differ_as_the_evidence_differs():
    bundled = extractive_answer(BUNDLE_CONTEXT)
    raw = extractive_answer(RAW_CONTEXT)
    assert bundled != raw
    assert raw.startswith("The retrieved context is insufficient")
    with_file = extractive_answer(RAW_CONTEXT.replace("VALUE = 1", "def open_store(): apply schema"))
    assert "(File: core/tokens.py:2)" in with_file


def test_run_bounded_keeps_order_and_bounds_concurrency():
    in_flight, peak, done = 0, 0, []

    async def work(n: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01 * (n % 3))
        in_flight -= 1
        return n * n

    results = asyncio.run(run_bounded(range(10), work, 3, on_done=lambda item, r: done.append(item)))
    assert results == [n * n for n in range(10)]
    assert peak == 3 and sorted(done) == list(range(10))


def test_run_bounded_stops_on_error():
    started = []

    async def work(n: int) -> int:
        started.append(n)
        if n == 1:
            raise ValueError("boom")
        await asyncio.sleep(0.05)
        return n

    with pytest.raises(ExceptionGroup):
        asyncio.run(run_bounded(range(20), work, 2))
    assert len(started) < 20
