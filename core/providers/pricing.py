"""What a call costs: a per-1M-token price table (defaults, a JSON file, the --price flag) and the cost of a call.

A model without a price has cost None, never a guess.
"""

from __future__ import annotations

import json
from pathlib import Path

from gradedesk.core.errors import UserError
from gradedesk.core.jsonl import loads

# USD per 1M tokens (input, output). Override with a JSON file: {"model": {"input": 0.15, "output": 0.6}, ...}.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
}


def load_prices(path: str | Path | None = None) -> dict[str, tuple[float, float]]:
    """The default price table, overridden model by model by a JSON file."""
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    p = Path(path)
    try:
        data = loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{p}: cannot read price file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{p}:{exc.lineno}: price file is not JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: price file is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{p}: price file must be an object of model: {{input, output}}")
    for model, entry in data.items():
        try:
            prices[model] = (float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise UserError(f"{p}: {model}: price must be {{\"input\": USD per 1M, \"output\": USD per 1M}}") from None
    return prices


def parse_price(text: str) -> tuple[float, float]:
    """"0.15,0.60" → (0.15, 0.6): USD per 1M input and output tokens."""
    try:
        inp, out = (float(part) for part in text.split(","))
    except ValueError:
        raise UserError(f"--price: {text!r} must be INPUT,OUTPUT in USD per 1M tokens, e.g. 0.15,0.60") from None
    if inp < 0 or out < 0:
        raise UserError(f"--price: {text!r}: prices cannot be negative")
    return inp, out


def cost_of(prices: dict[str, tuple[float, float]], model: str, tokens_in: int, tokens_out: int) -> float | None:
    price = prices.get(model)
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
