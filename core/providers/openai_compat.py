"""Answer providers: any OpenAI-compatible chat-completions endpoint, or an offline extractive answerer.

`OpenAICompatibleProvider` talks to OpenAI, vLLM, Ollama, llama.cpp server or any server speaking
`POST /v1/chat/completions` through the `openai` package (AsyncOpenAI). Temperature is 0. The client's own retries are
off: we retry here (exponential backoff with jitter on 429, 5xx, timeouts, connection errors, malformed or wrong-shaped
replies) so every attempt is counted and recorded. The API key comes from the environment only, and is never stored or
logged; a local endpoint (base_url given) works without one. Token usage comes from the reply, or is counted exactly with
tiktoken when the server sends none (`tokens_counted=True`). Cost comes from a per-1M-token price table the user can
override; a model without a price has cost None, never a guess.

`OfflineExtractiveProvider` needs no model: it answers with the context lines that best match the question, citing each
by its evidence label (`[Evidence i]`) or file (`File: path`). It is a pure function of (question, context), so a raw and
a bundled answer differ exactly as their evidence differs. Runs record it as "offline-extractive".
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from gradedesk.core.config import DEFAULT_API_KEY_ENV, api_key
from gradedesk.core.errors import UserError
from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.text.codeterms import PROSE_STOPWORDS, identifier_parts
from gradedesk.core.text.tokens import TokenizerError, get_tokenizer

# USD per 1M tokens (input, output). Override with a JSON file: {"model": {"input": 0.15, "output": 0.6}, ...}.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
}
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
LOCAL_KEY_PLACEHOLDER = "no-key-needed"  # sent to local endpoints that take no key (the openai client wants one)
OFFLINE_MODEL = "extractive/1"


@dataclass
class ChatResult:
    text: str
    tokens_in: int
    tokens_out: int
    tokens_counted: bool  # True when counted with tiktoken because the server reported no usage
    latency_ms: float     # of the attempt that succeeded
    cost_usd: float | None
    model: str
    attempts: int = 1


class ProviderError(Exception):
    """A call that failed after its retries (or at once, when retrying cannot help)."""

    def __init__(self, message: str, *, kind: str, retryable: bool, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.kind = kind  # timeout, connection, status, malformed, schema
        self.retryable = retryable
        self.status = status
        self.attempts = attempts


class EndpointUnreachable(UserError):
    """No connection could be made at all: the run stops, naming the URL."""


class EndpointRejected(UserError):
    """The endpoint refuses every call (bad key, unknown model): the run stops, naming the URL and the setting."""


# prices ------------------------------------------------------------------------------------------------------------------
def load_prices(path: str | Path | None = None) -> dict[str, tuple[float, float]]:
    """The default price table, overridden model by model by a JSON file."""
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{p}: cannot read price file ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{p}: price file is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{p}: price file must be an object of model: {{input, output}}")
    for model, entry in data.items():
        try:
            prices[model] = (float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise UserError(f"{p}: {model}: price must be {{\"input\": USD per 1M, \"output\": USD per 1M}}") from None
    return prices


def cost_of(prices: dict[str, tuple[float, float]], model: str, tokens_in: int, tokens_out: int) -> float | None:
    price = prices.get(model)
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


def endpoint_host(base_url: str | None) -> str | None:
    """What a run records about where it sent requests: the host (and port), never a key or path secrets."""
    if not base_url:
        return "api.openai.com"
    return urlparse(base_url).netloc or base_url


def messages_text(messages: list[dict]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


# the OpenAI-compatible provider ------------------------------------------------------------------------------------------
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
            detail = _short(exc.body.get("message") if isinstance(exc.body, dict) else exc.message)
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


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _counting_tokenizer(model: str, tokenizer: str | None) -> str:
    """The tokenizer for counts the server did not give: the user's choice, the model's own encoding, or the default."""
    if tokenizer:
        return get_tokenizer(tokenizer).id
    try:
        return get_tokenizer(model).id
    except TokenizerError:  # a local model tiktoken does not know: counts are exact under the named default
        return get_tokenizer(DEFAULT_ENCODING).id


# the offline extractive provider -----------------------------------------------------------------------------------------
_EVIDENCE_HEADER = re.compile(r"^\[Evidence (\d+)\] (\S+)(?:.*?\(lines (\d+)-(\d+)\))?")
_FILE_HEADER = re.compile(r"^File: (\S+)(?: \(lines (\d+)-(\d+)\))?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
QUESTION_MARK = "Question:"  # core.answer puts the question on a line starting with this
REASON_MARK = "Reason included:"  # core.bundle's line under an evidence header


@dataclass
class _Line:
    text: str
    cite: str
    block: int
    order: int
    terms: frozenset[str]


def _terms(text: str) -> set[str]:
    """Words of a text, with identifiers also split into their snake_case and CamelCase parts."""
    out: set[str] = set()
    for word in _WORD.findall(text):
        out.add(word.lower())
        out.update(identifier_parts(word))
    return {t for t in out if len(t) > 1 and t not in PROSE_STOPWORDS}


def _parse_context(text: str) -> tuple[str, list[_Line], bool]:
    """Question, candidate lines with their citations, and whether the context uses evidence labels."""
    question, lines, labelled = "", [], False
    cite, base, block, in_block = "", 0, 0, False
    offset = 0
    for raw in text.splitlines():
        if raw.startswith(QUESTION_MARK) and not question:
            question = raw[len(QUESTION_MARK):].strip()
            continue
        m = _EVIDENCE_HEADER.match(raw)
        f = None if m else _FILE_HEADER.match(raw)
        if m or f:
            block += 1
            in_block, offset = True, 0
            if m:
                labelled = True
                cite, base = f"[Evidence {m.group(1)}]", int(m.group(3) or 0)
                path = m.group(2)
            else:
                cite, base, path = f"(File: {f.group(1)})", int(f.group(2) or 0), f.group(1)
            cite_path = path
            continue
        if not in_block:
            continue
        if offset == 0 and raw.startswith(REASON_MARK):  # the bundle's selection reason, not a source line
            continue
        offset += 1
        stripped = raw.strip()
        if not stripped:
            continue
        where = f"{cite_path}:{base + offset - 1}" if base else cite_path
        label = f"{cite} {where}" if cite.startswith("[") else f"(File: {where})"
        lines.append(_Line(stripped, label, block, len(lines), frozenset(_terms(stripped))))
    return question, lines, labelled


class OfflineExtractiveProvider:
    """Answers from the given context alone: the lines that best match the question, each with its citation."""

    name = "offline-extractive"
    model = OFFLINE_MODEL
    max_lines = 6

    def __init__(self, tokenizer: str = DEFAULT_ENCODING):
        self.tokenizer_id = get_tokenizer(tokenizer).id

    async def aclose(self) -> None:
        return None

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None,
                       json_mode: bool = False) -> ChatResult:
        started = time.perf_counter()
        user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        text = extractive_answer(user)
        tok = get_tokenizer(self.tokenizer_id)
        if max_tokens is not None:
            ids = tok.encode(text)
            text = tok.decode(ids[:max_tokens]) if len(ids) > max_tokens else text
        latency = (time.perf_counter() - started) * 1000
        return ChatResult(text, tok.count(messages_text(messages)), tok.count(text), True, latency, 0.0,
                          self.model, 1)


def extractive_answer(user_text: str, max_lines: int = OfflineExtractiveProvider.max_lines) -> str:
    """The deterministic answer to a user message holding `Question: ...` and a context of labelled blocks."""
    question, lines, labelled = _parse_context(user_text)
    q_terms = _terms(question)
    if not lines or not q_terms:
        return _insufficient(labelled)
    # inverse document frequency over lines: a word found everywhere says little about where the answer is
    df: dict[str, int] = {}
    for line in lines:
        for t in line.terms & q_terms:
            df[t] = df.get(t, 0) + 1
    n = len(lines)

    def score(line: _Line) -> float:
        hit = line.terms & q_terms
        s = sum(math.log(1 + n / df[t]) for t in hit)
        if hit and re.match(r"(async\s+)?(def|class)\s", line.text):
            s *= 1.5  # a definition line names what the question asks about
        return s

    scored = sorted(((score(line), line) for line in lines), key=lambda p: (-p[0], p[1].order))
    best = [line for s, line in scored[:max_lines] if s > 0]
    if not best:
        return _insufficient(labelled)
    best.sort(key=lambda line: line.order)
    body = "\n".join(f"- `{_short(line.text, 160)}` {line.cite}" for line in best)
    return f"From the {'evidence' if labelled else 'retrieved context'}, the most relevant lines are:\n{body}"


def _insufficient(labelled: bool) -> str:
    what = "evidence" if labelled else "retrieved context"
    return f"The {what} is insufficient to answer this question: no line in it matches the question."


# choosing a provider and running calls -----------------------------------------------------------------------------------
Provider = OpenAICompatibleProvider | OfflineExtractiveProvider


def make_provider(model: str | None, base_url: str | None, *, api_key_env: str = DEFAULT_API_KEY_ENV,
                  timeout: float = 60.0, max_retries: int = 4, concurrency: int = 4,
                  prices_file: str | None = None, price: str | None = None, tokenizer: str | None = None,
                  backoff_base: float = 0.5) -> Provider:
    """No model and no URL → the offline provider; otherwise an OpenAI-compatible endpoint.

    Prices: the defaults, overridden by `prices_file` (JSON), overridden for `model` by `price` ("IN,OUT" in USD per
    1M tokens, the --price flag).
    """
    if model is None and base_url is None:
        return OfflineExtractiveProvider(tokenizer or DEFAULT_ENCODING)
    if model is None:
        raise UserError(f"--base-url {base_url} needs --model (the model name the endpoint serves)")
    check_endpoint_flags(base_url, timeout, max_retries)
    prices = load_prices(prices_file)
    if price is not None:
        prices[model] = parse_price(price)
    return OpenAICompatibleProvider(model, base_url, api_key_env=api_key_env, timeout=timeout,
                                    max_retries=max_retries, concurrency=concurrency, prices=prices,
                                    tokenizer=tokenizer, backoff_base=backoff_base)


def check_endpoint_flags(base_url: str | None, timeout: float, max_retries: int) -> None:
    """Flags that would otherwise fail every call (stored as errors, retried with backoff) are refused up front."""
    from urllib.parse import urlsplit

    if base_url is not None:
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise UserError(f"--base-url: {base_url!r} is not an http:// or https:// URL, "
                            f"e.g. http://localhost:11434/v1")
    if not timeout > 0:
        raise UserError(f"--timeout: must be a positive number of seconds, got {timeout:g}")
    if max_retries < 0:
        raise UserError(f"--max-retries: must be 0 or more, got {max_retries}")


def parse_price(text: str) -> tuple[float, float]:
    """"0.15,0.60" → (0.15, 0.6): USD per 1M input and output tokens."""
    try:
        inp, out = (float(part) for part in text.split(","))
    except ValueError:
        raise UserError(f"--price: {text!r} must be INPUT,OUTPUT in USD per 1M tokens, e.g. 0.15,0.60") from None
    if inp < 0 or out < 0:
        raise UserError(f"--price: {text!r}: prices cannot be negative")
    return inp, out


T = TypeVar("T")
R = TypeVar("R")


async def run_bounded(items: Iterable[T], fn: Callable[[T], Awaitable[R]], concurrency: int,
                      on_done: Callable[[T, R], None] | None = None) -> list[R]:
    """Apply `fn` to every item with at most `concurrency` in flight; results in item order.

    `on_done(item, result)` runs in the event loop as each finishes (progress, storing). If `fn` raises, the other
    workers are cancelled and the error propagates (asyncio.TaskGroup), so Ctrl-C and fatal errors stop promptly.
    """
    work = list(enumerate(items))
    results: list[Any] = [None] * len(work)
    queue: asyncio.Queue[tuple[int, T]] = asyncio.Queue()
    for entry in work:
        queue.put_nowait(entry)

    async def worker() -> None:
        while True:
            try:
                index, item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await fn(item)
            results[index] = result
            if on_done is not None:
                on_done(item, result)

    async with asyncio.TaskGroup() as group:
        for _ in range(max(1, min(concurrency, len(work)))):
            group.create_task(worker())
    return results
