"""Context-pack policies (Biblicus's behaviour): join, order, metadata, character and token budgets."""

from __future__ import annotations

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.evidence.policy import (ContextPackPolicy, build_budgeted_pack, build_context_pack,
                                            fit_to_character_budget, fit_to_token_budget, pack_items_from_retrieval)
from gradedesk.core.text.tokens import count_tokens


def hits(*items):
    out = []
    for n, item in enumerate(items, start=1):
        text, score, path = item
        out.append({"chunk_id": f"item-{n}", "text": text, "score": score, "rank": n, "file_path": path,
                    "start_line": n * 10, "end_line": n * 10 + 2, "method": "bm25", "symbol_name": f"sym{n}"})
    return pack_items_from_retrieval({"hits": out})


def test_join_and_blank_evidence_left_out():
    evidence = hits(("The favourite color is magenta.", 1.0, "a.py"), ("   \n ", 0.5, "b.py"), ("", 0.2, "c.py"),
                    ("Second.", 0.1, "d.py"))
    pack = build_context_pack(evidence, ContextPackPolicy(join_with="\n\n"))
    assert pack.text == "The favourite color is magenta.\n\nSecond."
    assert pack.evidence_count == 2 and [b.evidence_item_id for b in pack.blocks] == ["item-1", "item-4"]


def test_orderings():
    evidence = hits(("low", 1.0, "b.py"), ("high", 9.0, "c.py"), ("mid", 5.0, "a.py"))
    def text(ordering):
        return build_context_pack(evidence, ContextPackPolicy(join_with="|", ordering=ordering)).text

    assert text("rank") == "low|high|mid"
    assert text("score") == "high|mid|low"
    assert text("source") == "mid|low|high"
    with pytest.raises(UserError, match="ordering"):
        ContextPackPolicy(ordering="random")


def test_metadata_lines_and_field_filter():
    evidence = hits(("alpha", 10.0, "source-a.py"))
    pack = build_context_pack(evidence, ContextPackPolicy(ordering="score", include_metadata=True,
                                                          metadata_fields=["symbol_name"]))
    assert pack.text == ("item_id: item-1\nsource_uri: source-a.py:10-12\nscore: 10.0\nstage: bm25\n"
                         "symbol_name: sym1\nalpha")
    assert pack.blocks[0].metadata["source_uri"] == "source-a.py:10-12"


def test_character_budget_drops_trailing_blocks():
    policy = ContextPackPolicy(join_with="\n\n")
    pack = build_context_pack(hits(("alpha", 1, "a"), ("beta", 1, "b")), policy)
    fitted = fit_to_character_budget(pack, policy, 6)
    assert fitted.text == "alpha" and fitted.dropped_blocks == ["item-2"] and fitted.max_characters == 6
    assert fit_to_character_budget(pack, policy, 3).text == ""


def test_token_budget_counts_exactly_and_is_recorded():
    policy = ContextPackPolicy(join_with="\n\n")
    pack = build_context_pack(hits(("one two three", 1, "a"), ("four five six", 1, "b")), policy)
    budget = count_tokens("one two three")
    fitted = fit_to_token_budget(pack, policy, budget)
    assert fitted.text == "one two three" and fitted.tokenizer == "tiktoken/o200k_base"
    full = build_budgeted_pack(hits(("one two three", 1, "a"), ("four five six", 1, "b")), policy, max_tokens=500,
                               max_characters=1000)
    assert full.evidence_count == 2 and full.total_tokens == count_tokens(full.text)
    data = full.to_dict()
    assert data["policy"]["join_with"] == "\n\n" and data["max_tokens"] == 500 and data["max_characters"] == 1000


def test_bad_retrieval_json_is_named():
    with pytest.raises(UserError, match="hits"):
        pack_items_from_retrieval({"question": "q"})
    with pytest.raises(UserError, match=r"hits\[0\]: chunk_id: missing"):
        pack_items_from_retrieval([{"text": "x"}])
    with pytest.raises(UserError, match=r"hits\[0\]: score: must be a number"):
        pack_items_from_retrieval([{"chunk_id": "c", "text": "x", "score": "high"}])
    with pytest.raises(UserError, match="max-tokens"):
        build_budgeted_pack([], ContextPackPolicy(), max_tokens=0)
