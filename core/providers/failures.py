"""Why calls failed, grouped: one line per reason with a count and one example, where the user looks.

A failed call is stored with the provider's message (core/providers/openai_compat.py words every failure the same
way: "prompt of N tokens ... exceeds the model's context", "timeout after ...", "HTTP 503: ...", ...). `reason_of`
reads the reason back from that message, so every reader (`run`, `judge`, `summary`) groups the same failures alike,
and says whether running the command again can help: a prompt over the model's context fails the same way every
time, so it is not retried and not offered for retry (a refusal, a timeout or a broken reply may be gone by then). For those, `context_note` says which prompts, by how much, and the largest
token budget that would fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CONTEXT = "context"  # the reason of a prompt over the model's context
CALL_FAILED = "judge call failed"  # how a judge's failed call is stored (its reasoning, a pairwise reply's error)
UNUSABLE = "unusable judge reply"  # how a judge reply the parser refused is stored
_PROMPT_RE = re.compile(r"^prompt of (\d+) tokens \(([^)]*)\) exceeds the model's context")
# how servers say how long their context is: OpenAI/vLLM "maximum context length is N", llama-cpp-python "context
# window of N", llama.cpp "context size (N)" / "n_ctx: N"
_LIMIT_RE = re.compile(r"maximum context length is (\d+)|context window of (\d+)|context size \(?(\d+)|n_ctx\D{0,3}(\d+)",
                       re.IGNORECASE)
_REASONS = (("timeout", re.compile(r"^timeout after")), ("connection", re.compile(r"^connection error")),
            ("malformed reply", re.compile(r"^malformed reply")), ("wrong reply schema", re.compile(r"^wrong reply")))
_STATUS_RE = re.compile(r"^HTTP (\d{3})")


@dataclass(frozen=True)
class Reason:
    name: str        # context, timeout, connection, HTTP 503, malformed reply, wrong reply schema, other
    retryable: bool  # whether trying again can help


def reason_of(message: str | None) -> Reason:
    """The reason of a stored failure message (a judge's "judge call failed: ..." prefix is skipped)."""
    text = (message or "").removeprefix(f"{CALL_FAILED}: ")
    if _PROMPT_RE.match(text):
        return Reason(CONTEXT, False)
    status = _STATUS_RE.match(text)
    if status:  # a server's refusal may be mended (its settings, its load) before the command runs again
        return Reason(f"HTTP {status.group(1)}", True)
    for name, pattern in _REASONS:
        if pattern.match(text):
            return Reason(name, True)
    return Reason("other", True)


def prompt_tokens(message: str | None) -> int | None:
    """The prompt's size a context failure's message gives."""
    found = _PROMPT_RE.match((message or "").removeprefix(f"{CALL_FAILED}: "))
    return int(found.group(1)) if found else None


def context_limit(message: str | None) -> int | None:
    """The context length a server's context-failure message gives, when it does."""
    found = _LIMIT_RE.search(message or "")
    return next((int(g) for g in found.groups() if g), None) if found else None


@dataclass
class FailureGroup:
    reason: Reason
    count: int = 0
    example: str = ""  # where the first one failed and its message
    where: list[str] = field(default_factory=list)  # where each failed (a context failure lists its prompts)


def group_failures(failures: list[tuple[str, str]]) -> list[FailureGroup]:
    """(where, message) pairs grouped by reason, largest group first, each with its first failure as the example."""
    groups: dict[str, FailureGroup] = {}
    for where, message in failures:
        reason = reason_of(message)
        group = groups.setdefault(reason.name, FailureGroup(reason, example=f"{where}: {message}"))
        group.count += 1
        group.where.append(where)
    return sorted(groups.values(), key=lambda g: -g.count)


def group_lines(groups: list[FailureGroup], what: str, retry: str) -> list[str]:
    """One line per reason: '2 answers failed: timeout (e.g. q1 raw: timeout after 60s); run the same command again
    to retry' (`what` names a failed thing; `retry` ends the retryable ones, the others say a retry cannot help)."""
    out = []
    for g in groups:
        tail = retry if g.reason.retryable else "a retry cannot fix that, so it is not retried"
        out.append(f"{g.count} {what}{'' if g.count == 1 else 's'} failed: {g.reason.name} (e.g. {g.example}); {tail}")
    return out


def context_note(failed: list[tuple[str, int | None, int]], context: int | None, max_tokens: int | None) -> str:
    """Which prompts went over the context and by how much, and the largest budget that fits: `failed` is (where,
    the tokens of its bundle's evidence or None for raw, the prompt's tokens) of each; `context` the model's length
    when known. A bundle's evidence less what its prompt was over by is a budget that fits (the tokenizers may
    differ a little: it is rounded down to hundreds)."""
    shown = ", ".join(f"{where} ({tokens:,} tokens)" for where, _, tokens in failed[:8])
    more = f" and {len(failed) - 8} more" if len(failed) > 8 else ""
    if context is None:
        return f"over the model's context: {shown}{more}; the server did not say how long its context is"
    room = context - (max_tokens or 0)  # servers count the reply's room as part of the context
    over = [(where, budget, tokens - room) for where, budget, tokens in failed]
    worst = max(o for _, _, o in over)
    budgets = [evidence - o for _, evidence, o in over if evidence is not None]
    fits = (f"; the largest budget that fits is about {max(0, min(budgets)) // 100 * 100:,} tokens"
            if budgets else "")
    return (f"over the model's context of {context:,} tokens ({room:,} for the prompt after --max-tokens "
            f"{max_tokens or 0}): {shown}{more}; by up to {worst:,} tokens{fits}")


def judge_lines(failures: list[tuple[str, str]], model: str) -> list[str]:
    """A judge command's failed calls by reason, then its unusable replies by what the parser refused (the field, or
    'reply is not JSON', or the cut), each group with a count and one example."""
    calls = [(where, why.removeprefix(f"{CALL_FAILED}: ")) for where, why in failures if why.startswith(CALL_FAILED)]
    lines = group_lines(group_failures(calls), "judge call", "run the same command again to retry")
    unusable: dict[str, list[tuple[str, str]]] = {}
    for where, why in failures:
        if why.startswith(UNUSABLE):
            detail = why.removeprefix(f"{UNUSABLE}: ")
            unusable.setdefault(detail.split(":")[0].split(" (")[0], []).append((where, detail))
    for what, items in sorted(unusable.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(items)} repl{'y' if len(items) == 1 else 'ies'} unusable: {what} (e.g. {items[0][0]}: "
                     f"{items[0][1]}); stored with the reply as grading_error; does {model} follow the reply format?")
    return lines
