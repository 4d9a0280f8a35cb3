"""Reading a chat-completions reply body: the final text, the model's reasoning kept apart, and why it stopped.

Reasoning models put their thinking in `<think>…</think>` blocks inside the content (an unterminated block, cut at the
token limit, runs to the end; some templates open the block in the prompt, so only `</think>` appears) or in a
`reasoning_content` / `reasoning` field beside it. Either way the stored answer and the text a grader parses is the
final text alone; the reasoning is returned apart. `finish_reason` is "stop", "length" (cut at max_tokens), or
whatever the server says; None when it says nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gradedesk.core.providers.chat import TRUNCATED, ProviderError

_THINK = re.compile(r"<think>(.*?)(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_CLOSE = "</think>"


@dataclass(frozen=True)
class Reply:
    text: str
    reasoning: str | None
    finish_reason: str | None


def read_reply(body: Any) -> Reply:
    """The reply's parts; a body without a first choice's message is a wrong-shaped reply (retryable: proxies and
    overloaded servers send them)."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
        content = message.get("content")
        field = message.get("reasoning_content") or message.get("reasoning")
    except (TypeError, KeyError, IndexError, AttributeError):
        content, field, choice = None, None, None
    field = field if isinstance(field, str) and field.strip() else None
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    finish = finish if isinstance(finish, str) and finish else None
    if content is None and choice is not None and (field or finish == TRUNCATED):
        content = ""  # the model only reasoned, or was cut before its answer: an empty answer, not a broken reply
    if choice is None or (content is None and "content" not in message):
        keys = ", ".join(sorted(body)) if isinstance(body, dict) else type(body).__name__
        raise ProviderError(f"wrong reply schema: no choices[0].message.content (got {keys})",
                            kind="schema", retryable=True)
    if not isinstance(content, str):
        raise ProviderError("wrong reply schema: message content is not text", kind="schema", retryable=True)
    text, thought = split_reasoning(content)
    parts = [p for p in (field, thought) if p]
    return Reply(text, "\n\n".join(parts) if parts else None, finish)


def split_reasoning(content: str) -> tuple[str, str | None]:
    """(final text, reasoning) of a content that may hold think blocks; a content without any is returned as is."""
    lowered = content.lower()
    if "<think>" not in lowered and _CLOSE not in lowered:
        return content, None
    thoughts: list[str] = []
    close = lowered.find(_CLOSE)
    if close != -1 and "<think>" not in lowered[:close]:  # the template opened the block: all before </think>
        thoughts.append(content[:close].strip())
        content = content[close + len(_CLOSE):]

    def keep(match: re.Match) -> str:
        thoughts.append(match.group(1).strip())
        return ""

    text = _THINK.sub(keep, content).strip()
    return text, "\n\n".join(t for t in thoughts if t) or None
