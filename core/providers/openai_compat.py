"""The OpenAI-compatible transport: any server speaking `POST /v1/chat/completions` (OpenAI, vLLM, Ollama, llama.cpp).

`OpenAICompatibleProvider` talks through the `openai` package (AsyncOpenAI). Temperature is 0. The client's own retries
are off: we retry here (exponential backoff with jitter on 429, 5xx, timeouts, connection errors, malformed or
wrong-shaped replies) so every attempt is counted and recorded. The API key comes from the environment only, and is never
stored or logged; a local endpoint (base_url given) works without one. Token usage comes from the reply, or is counted
exactly with tiktoken when the server sends none (`tokens_counted=True`). Cost comes from the price table
(providers/pricing.py). Reasoning is split from the answer text (providers/replies.py).

Every text that came back from the server is redacted (core/text/redact.py) before it becomes an error message: servers
echo request headers, and the key must never reach the store or the screen. A context-length rejection is not retried
and says how large the prompt was; an unknown model names the models the server lists (GET /models).

`system_role="user"` sends the system message as the start of the user message, and a reply's prompt count that
falls short by most of the system message leaves a warning in `system_dropped` (core/providers/system_role.py). The
commands probe the endpoint before their first call (core/providers/probes.py) and hand the facts to `adopt`: a local
chat template that drops system messages, the structured-output form a shaped reply is sent in (`complete(shape=)`),
and how many requests the server computes at once.

With `fail_fast` (what the commands use), a server that accepts connections but never answers is found within about
STALL_TIMEOUTS timeouts: while no call has succeeded yet, that many timed-out attempts (or STALL_SAME_FAILURES attempts
that failed the same way) stop the command with EndpointStalled. Once a call has succeeded, failures are retried as
usual: a server that answered and then stalls is busy, not misconfigured.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from typing import Any
from urllib.parse import urlparse

from gradedesk.core.config import DEFAULT_API_KEY_ENV, DEFAULT_ENCODING, api_key
from gradedesk.core.errors import UserError
from gradedesk.core.providers.chat import (
    ChatResult,
    EndpointRejected,
    EndpointStalled,
    EndpointUnreachable,
    ProviderError,
    messages_text,
    short,
)
from gradedesk.core.providers.concurrency import AdaptiveLimit
from gradedesk.core.providers.probes import EndpointFacts
from gradedesk.core.providers.pricing import DEFAULT_PRICES, cost_of
from gradedesk.core.providers.replies import read_reply
from gradedesk.core.providers.structured import Shape, response_format
from gradedesk.core.providers.system_role import SYSTEM_ROLES, dropped_system, fold_system
from gradedesk.core.text.redact import redact, remove_secrets
from gradedesk.core.text.tokens import TokenizerError, get_tokenizer
from gradedesk.core.jsonl import loads

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
LOCAL_KEY_PLACEHOLDER = "no-key-needed"  # sent to local endpoints that take no key (the openai client wants one)
STALL_TIMEOUTS = 3         # timed-out attempts, none answered yet: the server takes connections but does not answer
STALL_SAME_FAILURES = 10   # identical failed attempts, none succeeded yet: every later call would fail the same way
MODEL_LIST_TIMEOUT = 10.0  # seconds for GET /models when naming the models a server has
# how servers word a prompt that does not fit: OpenAI/vLLM "maximum context length is", llama.cpp "exceed context
# window" / "exceeds the available context size", Ollama/TGI "too many tokens", "n_ctx"
_CONTEXT_RE = re.compile(r"context[ _](length|window|size)|maximum (context )?length|too many (input )?tokens|n_ctx",
                         re.IGNORECASE)
_UNKNOWN_MODEL_RE = re.compile(r"model\b.{0,120}\b(not found|does not exist|not exist|is not available)"
                               r"|\b(unknown|invalid) model\b|no such model", re.IGNORECASE)


def endpoint_url(base_url: str | None) -> str:
    """The base URL without a user or password (what probes are recorded under): scheme, host, port and path."""
    if not base_url:
        return "https://api.openai.com/v1"
    url = urlparse(base_url)
    return url._replace(netloc=endpoint_host(base_url) or "").geturl() if url.hostname else redact(base_url) or ""


def endpoint_host(base_url: str | None) -> str | None:
    """What a run records about where it sent requests: the host (and port), never a user, password or path."""
    if not base_url:
        return "api.openai.com"
    url = urlparse(base_url)
    if not url.hostname:
        return redact(base_url)
    host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
    return f"{host}:{url.port}" if url.port else host


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = DEFAULT_API_KEY_ENV,
                 timeout: float = 60.0, max_retries: int = 4, concurrency: int = 4,
                 prices: dict[str, tuple[float, float]] | None = None, tokenizer: str | None = None,
                 backoff_base: float = 0.5, backoff_max: float = 20.0, fail_fast: bool = False,
                 system_role: str = "system"):
        if not model:
            raise UserError("--model: a model name is required for an OpenAI-compatible endpoint")
        if system_role not in SYSTEM_ROLES:
            raise UserError(f"--system-role: {system_role!r} is not one of {', '.join(SYSTEM_ROLES)}")
        self.system_role = system_role
        # set once a reply's prompt count could tell: None when the server keeps system messages, else a warning
        self.system_dropped: str | None = None
        self._system_told = system_role != "system"
        self._usage_seen = False  # some reply gave the server's own token counts
        # the strongest response_format form the endpoint takes (core/providers/structured.py); None: not probed
        self.structured_form: str | None = None
        self.facts: EndpointFacts | None = None  # what the probes found, once they ran
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
        self._secrets = [key] if key else []
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: AdaptiveLimit | None = None
        self.fail_fast = fail_fast
        self._answered = False  # some call has succeeded: later failures are retried, never a reason to stop
        self._streak: tuple[tuple, int] = ((), 0)  # (how the last attempts failed, how many in a row)

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
            self._slots = AdaptiveLimit(self.concurrency)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None,
                       json_mode: bool = False, shape: Shape | None = None) -> ChatResult:
        """One reply. `shape`: the reply's schema, sent in the form the probe found (`structured_form`); before a
        probe, or without a shape, `json_mode` asks for JSON mode as servers have long taken it."""
        client = self._client_here()
        if self.system_role == "user":
            messages = fold_system(messages)
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        form = self.structured_form if shape is not None and self.structured_form else (
            "json_object" if json_mode or shape is not None else None)
        wanted = response_format(form, shape)
        if wanted is not None:
            kwargs["response_format"] = wanted
        return await self._call(client, messages, kwargs)

    async def _call(self, client: Any, messages: list[dict], kwargs: dict[str, Any]) -> ChatResult:
        """One call with the provider's retries and its in-flight limit."""
        slots = self._slots
        assert slots is not None
        attempt = 0
        while True:
            attempt += 1
            try:
                started_under = await slots.acquire()
                ok = timed_out = False
                try:
                    started = time.perf_counter()
                    body = await self._post(client, kwargs)
                    latency = (time.perf_counter() - started) * 1000
                    ok = True
                except ProviderError as exc:
                    timed_out = exc.kind == "timeout"
                    raise
                finally:
                    slots.release(ok=ok, timed_out=timed_out, started_under=started_under)
                result = self._result(messages, body, latency, attempt)
                self._answered = True
                return result
            except ProviderError as exc:
                exc.attempts = attempt
                if self.fail_fast:
                    self._stop_if_stalled(exc)
                if not exc.retryable or attempt > self.max_retries:
                    if exc.kind == "connection":
                        raise EndpointUnreachable(f"{self.endpoint}: cannot connect ({exc}) "
                                                  f"after {attempt} attempt{'' if attempt == 1 else 's'}") from None
                    raise
                await asyncio.sleep(self._backoff(attempt))

    async def ask_once(self, request: dict[str, Any]) -> dict:
        """One attempt of a request to the endpoint (the probes': no retries, no slot), the model and temperature 0
        filled in; its reply body, or the ProviderError it failed with."""
        return await self._post(self._client_here(), {"model": self.model, "temperature": 0, **request})

    async def model_list(self, seconds: float) -> list[dict[str, Any]]:
        """The server's GET /models entries as it sent them; empty when it has none or says nothing in `seconds`."""
        try:
            page = await asyncio.wait_for(self._client_here().models.list(), min(self.timeout, seconds))
            return [m.model_dump() for m in page.data]
        except Exception:  # a server without GET /models still answers chats: nothing learnt
            return []

    def adopt(self, facts: EndpointFacts) -> None:
        """Take what the probes found (core/providers/probes.py): the structured-output form, whether the chat
        template keeps system messages, and how many requests the server computes at once (no more are sent, so a
        request's --timeout counts the model's work, not its wait in the server's queue)."""
        self.facts = facts
        self.structured_form = facts.structured_form
        if facts.system_dropped:  # said before the calls; a probe that found them kept leaves the replies to tell
            self._system_told, self.system_dropped = True, facts.system_dropped
        if facts.slots:
            self.concurrency = min(self.concurrency, facts.slots)

    def _stop_if_stalled(self, exc: ProviderError) -> None:
        """Count failed attempts in a row that failed alike; stop the command when no call has ever succeeded."""
        if self._answered or exc.kind in ("connection", "context"):  # those have their own one-line stops
            return
        how = ("timeout",) if exc.kind == "timeout" else (exc.kind, exc.status, str(exc))
        same, count = self._streak
        self._streak = (how, count + 1 if how == same else 1)
        count = self._streak[1]
        if exc.kind == "timeout" and count >= STALL_TIMEOUTS:
            raise EndpointStalled(
                f"{self.endpoint}: no reply within --timeout {self.timeout:g}s to {count} requests and none answered "
                f"yet: is the server up and the model loaded (a first reply can be slow: raise --timeout), and is "
                f"--base-url right?") from None
        if exc.kind != "timeout" and count >= STALL_SAME_FAILURES:
            raise EndpointStalled(f"{self.endpoint}: {count} requests failed the same way and none succeeded "
                                  f"({exc}): check --base-url, --model and the server's log") from None

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
            cause = self._redact(str(exc.__cause__ or exc))
            raise ProviderError(f"connection error: {cause}", kind="connection", retryable=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = self._redact(short(exc.body.get("message") if isinstance(exc.body, dict) else exc.message))
            # every later call would fail the same way: stop with one line rather than record N identical errors
            if status in (401, 403):
                raise EndpointRejected(f"{self.endpoint}: HTTP {status} ({detail}): check the API key in "
                                       f"${self.api_key_env}") from None
            if status == 404 or (status == 400 and _UNKNOWN_MODEL_RE.search(detail)):
                raise EndpointRejected(f"{self.endpoint}: HTTP {status} ({detail}): is model {self.model!r} served "
                                       f"there?{await self._served_models(client)}") from None
            if status in (400, 413) and _CONTEXT_RE.search(detail):
                tokens = get_tokenizer(self.tokenizer_id).count(messages_text(kwargs["messages"]))
                also = " or --max-tokens" if "max_tokens" in kwargs else ""  # servers count the reply's room too
                raise ProviderError(f"prompt of {tokens} tokens ({self.tokenizer_id}) exceeds the model's context "
                                    f"(HTTP {status}: {detail}); use smaller --budgets{also}", kind="context",
                                    retryable=False, status=status) from None
            raise ProviderError(f"HTTP {status}: {detail}", kind="status",
                                retryable=status in RETRYABLE_STATUS or status >= 500, status=status) from None
        try:
            body = loads(text)
        except json.JSONDecodeError as exc:
            raise ProviderError(f"malformed reply: not JSON ({exc.msg} at char {exc.pos})", kind="malformed",
                                retryable=True) from None
        return body

    async def _served_models(self, client: Any) -> str:
        """" It serves: a, b." from the server's model list, or "" when it cannot say."""
        try:
            page = await asyncio.wait_for(client.models.list(), min(self.timeout, MODEL_LIST_TIMEOUT))
            ids = sorted({str(m.id) for m in page.data})
        except Exception:  # the list only helps the message; any failure leaves it out
            return ""
        if not ids:
            return ""
        shown = ", ".join(ids[:20]) + (f" (and {len(ids) - 20} more)" if len(ids) > 20 else "")
        return f" It serves: {self._redact(shown)} (pass one as --model)"

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets) or ""

    def _scrub(self, text: str | None) -> str | None:
        return remove_secrets(text, self._secrets)

    def _result(self, messages: list[dict], body: Any, latency_ms: float, attempts: int) -> ChatResult:
        reply = read_reply(body)
        text, reasoning = self._scrub(reply.text) or "", self._scrub(reply.reasoning)
        usage = body.get("usage") if isinstance(body, dict) else None
        tokens_in = _int_or_none(usage, "prompt_tokens")
        tokens_out = _int_or_none(usage, "completion_tokens")
        counted = tokens_in is None or tokens_out is None
        self._usage_seen = self._usage_seen or not counted
        if tokens_in is None or tokens_out is None:  # counted: the server gave no usage, so we count
            tok = get_tokenizer(self.tokenizer_id)
            tokens_in = tok.count(messages_text(messages))
            tokens_out = tok.count(text) + (tok.count(reasoning) if reasoning else 0)
        elif not self._system_told:
            self._system_told, self.system_dropped = dropped_system(messages, tokens_in, self.tokenizer_id)
        model = body.get("model") if isinstance(body.get("model"), str) and body.get("model") else self.model
        return ChatResult(text, tokens_in, tokens_out, counted, latency_ms,
                          cost_of(self.prices, self.model, tokens_in, tokens_out), model, attempts,
                          reply.finish_reason, reasoning)


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
