"""What a command is about to spend, said before its first call: the calls (exact), the prompt tokens (an estimate)
and the price, where the model has one.

The prompt tokens are counted with the provider's counting tokenizer (the model's own encoding when tiktoken knows it,
else the default, core/providers/openai_compat.py), plus the tokens a chat template adds around each message
(TEMPLATE_TOKENS, as ChatML and Llama templates do); a server with another tokenizer counts differently, so the line
says it is an estimate and names the tokenizer. The reply tokens are at most --max-tokens a call; the price is the
estimate's prompt cost plus every reply at its most (core/providers/pricing.py), None without a price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.providers.chat import messages_text
from gradedesk.core.providers.pricing import cost_of
from gradedesk.core.providers.system_role import fold_system
from gradedesk.core.text.tokens import get_tokenizer

TEMPLATE_TOKENS = 5  # a chat template's tokens around one message (role markers, separators)
REPLY_START = 3      # and before the reply (the assistant's role marker)


@dataclass(frozen=True)
class Spend:
    calls: int
    prompt_tokens: int       # an estimate (see the module docstring)
    reply_tokens: int        # at most: calls x max_tokens
    tokenizer: str
    cost_usd: float | None   # at most: the estimated prompts and every reply at max_tokens; None without a price


def estimate(provider: Any, prompts: list[list[dict]], max_tokens: int | None) -> Spend:
    """The spend of sending each of `prompts` once through `provider`."""
    tok = get_tokenizer(str(getattr(provider, "tokenizer_id", None) or DEFAULT_ENCODING))
    folded = getattr(provider, "system_role", "system") == "user"
    tokens = 0
    for messages in prompts:
        sent = fold_system(messages) if folded else messages
        tokens += tok.count(messages_text(sent)) + TEMPLATE_TOKENS * len(sent) + REPLY_START
    replies = len(prompts) * (max_tokens or 0)
    prices = getattr(provider, "prices", None)
    cost = cost_of(prices, provider.model, tokens, replies) if prices is not None and max_tokens else None
    return Spend(len(prompts), tokens, replies, tok.id, cost)


def spend_line(what: str, model: str, spend: Spend, max_tokens: int | None) -> str:
    """'run gpt-4o-mini: 24 calls, about 31,200 prompt tokens (estimate, o200k_base), replies at most 12,288
    tokens (--max-tokens 512), at most $0.012'."""
    price = (f", at most ${spend.cost_usd:.4g}" if spend.cost_usd is not None
             else f", no price for {model} (--price IN,OUT gives one)")
    replies = f", replies at most {spend.reply_tokens:,} tokens (--max-tokens {max_tokens})" if max_tokens else ""
    return (f"{what} {model}: {spend.calls:,} call{'' if spend.calls == 1 else 's'}, about "
            f"{spend.prompt_tokens:,} prompt tokens (estimate, {spend.tokenizer}){replies}{price}")
