"""Secrets out of text: an API key, and anything that looks like a bearer token or a key, become "[redacted]".

Servers echo request headers back in error bodies (a proxy's "upstream failed for key Bearer sk-…"), so every text
that came from a server is passed through `redact` before it is stored, exported or printed. The key itself is
removed wherever it appears; the patterns catch keys we were not told about (another variable's, an old store's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6  # a shorter "key" (e.g. a placeholder like "x") would blank ordinary words
_PATTERNS = (
    # a credential has a digit somewhere: "Bearer sk-1a2b…" goes, "token budget" and "Basic auth" stay
    re.compile(r"(?i)\b(bearer|basic|token)(\s+)(?=[A-Za-z._~+/=:-]*\d)[A-Za-z0-9._~+/=:-]{6,}"),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{6,}"),
    re.compile(r"""(?i)((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|authorization|password|secret)"""
               r"""["']?\s*[:=]\s*["']?)(?!\[redacted\]|bearer\b|basic\b|token\b)[^\s"',;}&]{6,}"""),
    re.compile(r"(?i)(://[^/\s:@]+:)[^/\s@]+(@)"),  # user:password@host in a URL
)


def redact(text: str | None, secrets: Iterable[str | None] = ()) -> str | None:
    """`text` with every given secret and every key-looking string replaced by [redacted] (None stays None)."""
    text = remove_secrets(text, secrets)
    if not text:
        return text
    text = _PATTERNS[0].sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _PATTERNS[1].sub(REDACTED, text)
    text = _PATTERNS[2].sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    return _PATTERNS[3].sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", text)


def remove_secrets(text: str | None, secrets: Iterable[str | None]) -> str | None:
    """`text` with the given secrets replaced, nothing else (for a model's own text, where key-like patterns would
    also hit code it quotes)."""
    for secret in secrets:
        if text and secret and len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, REDACTED)
    return text


def redact_json(value: Any) -> Any:
    """A JSON value (a stored detail) with `redact` applied to every string in it, keys left as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_json(v) for k, v in value.items()}
    return value
