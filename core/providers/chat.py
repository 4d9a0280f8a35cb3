"""What every provider returns or raises: one chat reply (`ChatResult`) and the ways a call fails."""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.store.answers import TRUNCATED  # the store owns the answers' finish_reason; re-exported here


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
    finish_reason: str | None = None  # "stop", "length" (cut at max_tokens), ...; None when the server said nothing
    reasoning: str | None = None      # a reasoning model's thinking, kept apart from the answer text

    @property
    def truncated(self) -> bool:
        return self.finish_reason == TRUNCATED


class ProviderError(Exception):
    """A call that failed after its retries (or at once, when retrying cannot help)."""

    def __init__(self, message: str, *, kind: str, retryable: bool, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.kind = kind  # timeout, connection, status, context, malformed, schema
        self.retryable = retryable
        self.status = status
        self.attempts = attempts


class EndpointUnreachable(UserError):
    """No connection could be made at all: the run stops, naming the URL."""


class EndpointRejected(UserError):
    """The endpoint refuses every call (bad key, unknown model): the run stops, naming the URL and the setting."""


class EndpointStalled(UserError):
    """The first calls of a command all timed out (or all failed the same way) and none succeeded: the command stops
    instead of spending every call's timeout and retries on a server that does not answer."""


def messages_text(messages: list[dict]) -> str:
    """The text of a chat's messages, one after another (what is counted when a server reports no usage)."""
    return "\n".join(str(m.get("content") or "") for m in messages)


def short(text: object, limit: int = 200) -> str:
    """One line of at most `limit` characters (server messages and quoted lines are shown this way). Anything is
    shown as its str(): a server's error body may carry no message, or not a string."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
