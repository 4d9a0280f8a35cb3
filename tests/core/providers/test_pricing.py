"""Prices: the table, its JSON override and the --price flag, applied to calls against the local chat-completions server."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.providers import load_prices, make_provider, parse_price
from tests.fixtures.providers import complete, provider


def test_price_table_override_and_unknown_model(tmp_path, chat_server):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"local-llama": {"input": 1.0, "output": 2.0}}))
    table = load_prices(prices)
    result = complete(provider(chat_server, model="local-llama", prices=table))
    assert result.cost_usd == pytest.approx((result.tokens_in + 2 * result.tokens_out) / 1e6)
    assert complete(provider(chat_server, model="mystery-model")).cost_usd is None
    prices.write_text(json.dumps({"x": {"input": "cheap"}}))
    with pytest.raises(UserError, match="prices.json: x: price must be"):
        load_prices(prices)


def test_price_flag_overrides_the_table_for_the_model(chat_server):
    p = make_provider("gpt-4o-mini", chat_server.base_url, price="1,3", backoff_base=0.005)
    result = complete(p)
    assert result.cost_usd == pytest.approx((result.tokens_in + 3 * result.tokens_out) / 1e6)
    assert parse_price("0.15, 0.6") == (0.15, 0.6)
    for bad in ("1", "a,b", "1,-2"):
        with pytest.raises(UserError, match="--price"):
            parse_price(bad)
