"""Choosing a provider from the endpoint flags, and refusing flags that would fail every call."""

from __future__ import annotations

from urllib.parse import urlsplit

from gradedesk.core.config import DEFAULT_API_KEY_ENV, DEFAULT_ENCODING
from gradedesk.core.errors import UserError
from gradedesk.core.providers.offline import OfflineExtractiveProvider
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.providers.pricing import load_prices, parse_price

Provider = OpenAICompatibleProvider | OfflineExtractiveProvider


def make_provider(model: str | None, base_url: str | None, *, api_key_env: str = DEFAULT_API_KEY_ENV,
                  timeout: float = 60.0, max_retries: int = 4, concurrency: int = 4,
                  prices_file: str | None = None, price: str | None = None, tokenizer: str | None = None,
                  backoff_base: float = 0.5, fail_fast: bool = True, system_role: str = "system") -> Provider:
    """No model and no URL → the offline provider; otherwise an OpenAI-compatible endpoint.

    `system_role`: "user" folds the system message into the user message (core/providers/system_role.py).

    `fail_fast` (on for commands): a server that takes connections but never answers stops the command within about
    three timeouts instead of costing every call its timeout and retries (see openai_compat.STALL_TIMEOUTS).

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
                                    tokenizer=tokenizer, backoff_base=backoff_base, fail_fast=fail_fast,
                                    system_role=system_role)


def check_endpoint_flags(base_url: str | None, timeout: float, max_retries: int, flags: str = "--") -> None:
    """Flags that would otherwise fail every call (stored as errors, retried with backoff) are refused up front.
    `flags` is how the command's flags start (--embeddings- for the embeddings endpoint)."""
    if base_url is not None:
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise UserError(f"{flags}base-url: {base_url!r} is not an http:// or https:// URL, "
                            f"e.g. http://localhost:11434/v1")
    if not timeout > 0:
        raise UserError(f"{flags}timeout: must be a positive number of seconds, got {timeout:g}")
    if max_retries < 0:
        raise UserError(f"{flags}max-retries: must be 0 or more, got {max_retries}")
