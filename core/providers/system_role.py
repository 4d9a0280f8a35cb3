"""Where the instructions go: a system message, or the start of the user message for servers that drop system messages.

gradedesk puts its instructions (the answer prompt, the judge's rubric) in a system message. Some chat templates have
no system role and drop it without a word (llama-cpp-python's `gemma` chat format does): the model then answers or
judges without them. `--system-role user` folds the system text into the first user message instead (fold_system).

A server that reports usage tells on itself: its prompt count falls short by about the size of the system message.
dropped_system(...) says so in one line when the shortfall is plain: the system message is a large share of the prompt
(SYSTEM_SHARE) and the count is short by most of it (SHORTFALL). Tokenizers differ, so smaller gaps say nothing. When
no prompt of a command could tell (a long evidence context dwarfs the instructions), a local endpoint is asked twice
with one token to reply: PROBE with its system message and without; equal prompt counts mean the system message never
reached the model (probe_dropped).
"""

from __future__ import annotations

from gradedesk.core.providers.chat import messages_text
from gradedesk.core.text.tokens import get_tokenizer

SYSTEM_ROLES = ("system", "user")
SYSTEM_SHARE = 0.35  # the system message's share of the prompt below which a shortfall cannot be told from tokenizers
SHORTFALL = 0.6  # of the system message's tokens missing from the server's count


def fold_system(messages: list[dict]) -> list[dict]:
    """The messages with the system text put at the start of the first user message (a user message when none)."""
    system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{system}\n\n{m.get('content') or ''}"
            return rest
    return [{"role": "user", "content": system}, *rest]


# what the probe sends: a system message long enough that keeping it adds tens of tokens under any tokenizer
PROBE_SYSTEM = ("You are a code assistant answering questions about a software repository. Answer only from the "
                "context you are given, cite the files you rely on, and say so when the context is insufficient.")
PROBE = [{"role": "system", "content": PROBE_SYSTEM}, {"role": "user", "content": "Reply with OK."}]
PROBE_GAP = 10  # prompt tokens the system message must add to count as kept


def probe_dropped(with_system: int | None, without_system: int | None) -> str | None:
    """The one-line warning when the probe's prompt counts say the system message was dropped; None when it was kept
    or the server gave no counts."""
    if with_system is None or without_system is None or with_system - without_system >= PROBE_GAP:
        return None
    return (f"the server counted {with_system} prompt tokens for a short prompt with a system message and "
            f"{without_system} without it: its chat template drops system messages, so the instructions (and a "
            f"judge's rubric) never reached the model; run again with --system-role user")


def dropped_system(messages: list[dict], prompt_tokens: int, tokenizer: str) -> tuple[bool, str | None]:
    """(whether this prompt can tell, the one-line warning when the server's prompt count says it dropped the system
    message). A prompt whose system message is a small share of it cannot tell: tokenizers differ by more."""
    tok = get_tokenizer(tokenizer)
    system = tok.count(messages_text([m for m in messages if m.get("role") == "system"]))
    whole = tok.count(messages_text(messages))  # as a reply without usage is counted
    if not whole or system < SYSTEM_SHARE * whole:
        return False, None
    if prompt_tokens >= whole - SHORTFALL * system:
        return True, None
    return True, (f"the server counted {prompt_tokens} prompt tokens for a prompt of about {whole} ({tok.id}), "
                  f"{system} of them in the system message: its chat template seems to drop system messages, so the "
                  f"instructions (and a judge's rubric) never reached the model; run again with --system-role user")
