"""What every provider returns or raises: one chat reply (`ChatResult`) and the ways a call fails."""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.errors import UserError


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


def messages_text(messages: list[dict]) -> str:
    """The text of a chat's messages, one after another (what is counted when a server reports no usage)."""
    return "\n".join(str(m.get("content") or "") for m in messages)


def short(text: str, limit: int = 200) -> str:
    """One line of at most `limit` characters (server messages and quoted lines are shown this way)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
