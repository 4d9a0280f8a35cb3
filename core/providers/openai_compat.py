"""The OpenAI-compatible transport: any server speaking `POST /v1/chat/completions` (OpenAI, vLLM, Ollama, llama.cpp).

`OpenAICompatibleProvider` talks through the `openai` package (AsyncOpenAI). Temperature is 0. The client's own retries
are off: we retry here (exponential backoff with jitter on 429, 5xx, timeouts, connection errors, malformed or
wrong-shaped replies) so every attempt is counted and recorded. The API key comes from the environment only, and is never
stored or logged; a local endpoint (base_url given) works without one. Token usage comes from the reply, or is counted
exactly with tiktoken when the server sends none (`tokens_counted=True`). Cost comes from the price table
(providers/pricing.py).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any
from urllib.parse import urlparse

from gradedesk.core.config import DEFAULT_API_KEY_ENV, DEFAULT_ENCODING, api_key
from gradedesk.core.errors import UserError
from gradedesk.core.providers.chat import (
    ChatResult,
    EndpointRejected,
    EndpointUnreachable,
    ProviderError,
    messages_text,
    short,
)
from gradedesk.core.providers.pricing import DEFAULT_PRICES, cost_of
from gradedesk.core.text.tokens import TokenizerError, get_tokenizer

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
LOCAL_KEY_PLACEHOLDER = "no-key-needed"  # sent to local endpoints that take no key (the openai client wants one)


def endpoint_host(base_url: str | None) -> str | None:
    """What a run records about where it sent requests: the host (and port), never a key or path secrets."""
    if not base_url:
        return "api.openai.com"
    return urlparse(base_url).netloc or base_url


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = DEFAULT_API_KEY_ENV,
                 timeout: float = 60.0, max_retries: int = 4, concurrency: int = 4,
                 prices: dict[str, tuple[float, float]] | None = None, tokenizer: str | None = None,
                 backoff_base: float = 0.5, backoff_max: float = 20.0):
        if not model:
            raise UserError("--model: a model name is required for an OpenAI-compatible endpoint")
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.concurrency = max(1, concurrency)
        self.prices = DEFAULT_PRICES if prices is None else prices
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.tokenizer_id = _counting_tokenizer(model, tokenizer)
        self.api_key_env = api_key_env
        key = api_key(api_key_env)
        if not key and not base_url:
            raise UserError(f"{api_key_env} is not set: export it to use {model} at api.openai.com, "
                            f"or pass --base-url for a local endpoint")
        self._api_key = key or LOCAL_KEY_PLACEHOLDER
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sem: asyncio.Semaphore | None = None

    @property
    def endpoint(self) -> str:
        return self.base_url or "https://api.openai.com/v1"

    def _client_here(self) -> Any:
        """One AsyncOpenAI client per event loop (its connection pool belongs to the loop that made it)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout,
                                       max_retries=0)
            self._loop = loop
            self._sem = asyncio.Semaphore(self.concurrency)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None,
                       json_mode: bool = False) -> ChatResult:
        client = self._client_here()
        assert self._sem is not None
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self._sem:
                    started = time.perf_counter()
                    body = await self._post(client, kwargs)
                    latency = (time.perf_counter() - started) * 1000
                return self._result(messages, body, latency, attempt)
            except ProviderError as exc:
                exc.attempts = attempt
                if not exc.retryable or attempt > self.max_retries:
                    if exc.kind == "connection":
                        raise EndpointUnreachable(f"{self.endpoint}: cannot connect ({exc}) "
                                                  f"after {attempt} attempt{'' if attempt == 1 else 's'}") from None
                    raise
                await asyncio.sleep(self._backoff(attempt))

    def _backoff(self, attempt: int) -> float:
        delay = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        return delay * (0.5 + random.random() / 2)  # jitter: concurrent callers do not retry in lockstep

    async def _post(self, client: Any, kwargs: dict[str, Any]) -> dict:
        """One HTTP attempt; every way it can fail becomes a ProviderError saying whether a retry may help."""
        import openai

        try:
            raw = await client.chat.completions.with_raw_response.create(**kwargs)
            text = raw.text  # with_raw_response has read the body; we parse it ourselves to catch bad JSON
        except openai.APITimeoutError:
            raise ProviderError(f"timeout after {self.timeout:g}s", kind="timeout", retryable=True) from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ProviderError(f"connection error: {cause}", kind="connection", retryable=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = short(exc.body.get("message") if isinstance(exc.body, dict) else exc.message)
            # every later call would fail the same way: stop with one line rather than record N identical errors
            if status in (401, 403):
                raise EndpointRejected(f"{self.endpoint}: HTTP {status} ({detail}): check the API key in "
                                       f"${self.api_key_env}") from None
            if status == 404:
                raise EndpointRejected(f"{self.endpoint}: HTTP 404 ({detail}): is model {self.model!r} served "
                                       f"there?") from None
            raise ProviderError(f"HTTP {status}: {detail}", kind="status",
                                retryable=status in RETRYABLE_STATUS or status >= 500, status=status) from None
        try:
            body = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProviderError(f"malformed reply: not JSON ({exc.msg} at char {exc.pos})", kind="malformed",
                                retryable=True) from None
        return body

    def _result(self, messages: list[dict], body: Any, latency_ms: float, attempts: int) -> ChatResult:
        content = _reply_content(body)
        usage = body.get("usage") if isinstance(body, dict) else None
        tokens_in = _int_or_none(usage, "prompt_tokens")
        tokens_out = _int_or_none(usage, "completion_tokens")
        counted = tokens_in is None or tokens_out is None
        if counted:
            tok = get_tokenizer(self.tokenizer_id)
            tokens_in = tok.count(messages_text(messages))
            tokens_out = tok.count(content)
        model = body.get("model") if isinstance(body.get("model"), str) and body.get("model") else self.model
        return ChatResult(content, tokens_in, tokens_out, counted, latency_ms,
                          cost_of(self.prices, self.model, tokens_in, tokens_out), model, attempts)


def _reply_content(body: Any) -> str:
    """The assistant's text; a reply without it is a wrong-shaped reply (retryable: proxies and overloaded servers do this)."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (TypeError, KeyError, IndexError):
        keys = ", ".join(sorted(body)) if isinstance(body, dict) else type(body).__name__
        raise ProviderError(f"wrong reply schema: no choices[0].message.content (got {keys})",
                            kind="schema", retryable=True) from None
    if not isinstance(content, str):
        raise ProviderError("wrong reply schema: message content is not text", kind="schema", retryable=True)
    return content


def _int_or_none(usage: Any, key: str) -> int | None:
    value = usage.get(key) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and value >= 0 else None


def _counting_tokenizer(model: str, tokenizer: str | None) -> str:
    """The tokenizer for counts the server did not give: the user's choice, the model's own encoding, or the default."""
    if tokenizer:
        return get_tokenizer(tokenizer).id
    try:
        return get_tokenizer(model).id
    except TokenizerError:  # a local model tiktoken does not know: counts are exact under the named default
        return get_tokenizer(DEFAULT_ENCODING).id
