"""Providers: a chat (a list of messages) goes in, a `ChatResult` comes out (the reply text, tokens in and out, latency,
cost, attempts) or a `ProviderError` / endpoint error saying what failed. `make_provider(model, base_url, ...)` chooses
from the endpoint flags: with neither a model nor a URL it returns the offline extractive answerer (offline.py: no
model, quotes the context lines that match the question); otherwise an OpenAI-compatible endpoint (openai_compat.py:
the transport, its retries and errors), priced from the table in pricing.py. `run_bounded` runs many calls with a
bound on how many are in flight.
"""

from __future__ import annotations

from gradedesk.core.providers.chat import (
    TRUNCATED,
    ChatResult,
    EndpointRejected,
    EndpointStalled,
    EndpointUnreachable,
    ProviderError,
)
from gradedesk.core.providers.concurrency import run_bounded
from gradedesk.core.providers.factory import Provider, check_endpoint_flags, make_provider
from gradedesk.core.providers.offline import OFFLINE_MODEL, OfflineExtractiveProvider, extractive_answer
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider, endpoint_host, endpoint_url
from gradedesk.core.providers.pricing import load_prices, parse_price

__all__ = [
    "OFFLINE_MODEL", "TRUNCATED", "ChatResult", "EndpointRejected", "EndpointStalled", "EndpointUnreachable", "OfflineExtractiveProvider",
    "OpenAICompatibleProvider", "Provider", "ProviderError", "check_endpoint_flags", "endpoint_host", "endpoint_url",
    "extractive_answer", "load_prices", "make_provider", "parse_price", "run_bounded",
]
