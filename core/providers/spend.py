"""What a command is about to spend, said before its first call: the calls (exact), the prompt tokens (an estimate)
and the price, where the model has one.

The prompt tokens are counted with the provider's counting tokenizer (the model's own encoding when tiktoken knows it,
else the default, core/providers/openai_compat.py). A server with another tokenizer and its own chat template counts
differently (SmolLM2 on llama-cpp-python counted 12-13% more than o200k_base), so where the endpoint was probed for
it (core/providers/probes.py `probe_counts`: two one-token calls cut from the command's first prompt) each call is
estimated as the server counts: a + b x our count (b: the tokenizers' ratio, a: the template's tokens a call), and
the line says it is calibrated on the server's count. Otherwise (a dry run sends nothing; a server without usage
counts) it is our count plus the tokens a chat template adds around each message (TEMPLATE_TOKENS, as ChatML and
Llama templates do), and the line says it is not calibrated and why. The reply tokens are at most --max-tokens a
call; the price is the estimate's prompt cost plus every reply at its most (core/providers/pricing.py), None without
a price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.providers.chat import messages_text
from gradedesk.core.providers.pricing import cost_of
from gradedesk.core.providers.system_role import fold_system
from gradedesk.core.text.tokens import Tokenizer, get_tokenizer

TEMPLATE_TOKENS = 5  # a chat template's tokens around one message (role markers, separators)
REPLY_START = 3      # and before the reply (the assistant's role marker)


@dataclass(frozen=True)
class Spend:
    calls: int
    prompt_tokens: int       # an estimate (see the module docstring)
    reply_tokens: int        # at most: calls x max_tokens
    tokenizer: str
    cost_usd: float | None   # at most: the estimated prompts and every reply at max_tokens; None without a price
    fit: tuple[float, float] | None = None  # (a, b): the server's count of a call = a + b x ours; None: not calibrated
    uncalibrated: str = "not calibrated"    # why not, when fit is None


def counting_tokenizer(provider: Any) -> Tokenizer:
    """The tokenizer our counts of the provider's prompts use."""
    return get_tokenizer(str(getattr(provider, "tokenizer_id", None) or DEFAULT_ENCODING))


def sent(provider: Any, messages: list[dict]) -> list[dict]:
    """The messages as the provider sends them (a system message folded into the user message with --system-role
    user)."""
    return fold_system(messages) if getattr(provider, "system_role", "system") == "user" else messages


def our_count(tok: Tokenizer, messages: list[dict]) -> int:
    """Our count of a prompt as sent: its messages' text, without the chat template's tokens."""
    return tok.count(messages_text(messages))


def estimate(provider: Any, prompts: list[list[dict]], max_tokens: int | None,
             fit: tuple[float, float] | None = None, uncalibrated: str = "not calibrated") -> Spend:
    """The spend of sending each of `prompts` once through `provider`; with `fit` (a, b), each call's prompt tokens
    as the server counts them, a + b x ours."""
    tok = counting_tokenizer(provider)
    tokens = 0.0
    for messages in prompts:
        out = sent(provider, messages)
        ours = our_count(tok, out)
        tokens += fit[0] + fit[1] * ours if fit else ours + TEMPLATE_TOKENS * len(out) + REPLY_START
    total = max(0, round(tokens))
    replies = len(prompts) * (max_tokens or 0)
    prices = getattr(provider, "prices", None)
    cost = cost_of(prices, provider.model, total, replies) if prices is not None and max_tokens else None
    return Spend(len(prompts), total, replies, tok.id, cost, fit, uncalibrated)


def spend_line(what: str, model: str, spend: Spend, max_tokens: int | None) -> str:
    """'run gpt-4o-mini: 24 calls, about 31,200 prompt tokens (estimate calibrated on the server's count: 1.13 x tiktoken/
    o200k_base + 25 a call), replies at most 12,288 tokens (--max-tokens 512), at most $0.012'."""
    price = (f", at most ${spend.cost_usd:.4g}" if spend.cost_usd is not None
             else f", no price for {model} (--price IN,OUT gives one)")
    replies = f", replies at most {spend.reply_tokens:,} tokens (--max-tokens {max_tokens})" if max_tokens else ""
    return (f"{what} {model}: {spend.calls:,} call{'' if spend.calls == 1 else 's'}, about "
            f"{spend.prompt_tokens:,} prompt tokens ({estimate_label(spend)}){replies}{price}")


def estimate_label(spend: Spend) -> str:
    """What the prompt-token figure is: calibrated on the server's own count, or our count and why it is not."""
    if spend.fit is None:
        return f"estimate, {spend.tokenizer}, {spend.uncalibrated}"
    a, b = spend.fit
    return f"estimate calibrated on the server's count: {b:.3g} x {spend.tokenizer} {'+' if a >= 0 else '-'} {abs(a):.3g} a call"
