"""Cutting an answer into claims and reading what each cites, on the shapes answers take: both prompt styles (the
offline answerer's quoted lines, an LLM's prose), markdown lists, fenced code, quotes, citations mid-sentence."""

from __future__ import annotations

from gradedesk.core.text.matching import find_citations, mask_code, pieces, sentences


def cut(text: str) -> list[tuple[str, str]]:
    return [(p.kind, text[p.start:p.end]) for p in pieces(text)]


def cites(text: str) -> list[tuple]:
    return [(c.text, c.labels, c.path, c.first_line, c.last_line) for c in find_citations(text)]


LLM_BUNDLED = """`open_store` opens the store and applies the schema [Evidence 1]. With `create=False` a missing file \
raises `StoreError` instead (see [Evidence 1, 3]).

It also:
- sets WAL mode and a busy timeout [Evidence 2];
- refuses a store made by a newer gradedesk. [Evidence 4]
1. Nested transactions join the outer one [E5].

```python
store = open_store(path, create=False)  # raises StoreError [Evidence 9]
```

> The evidence does not show who calls it.
> Nor what happens on a locked file.

## Summary
The evidence is insufficient to say more."""


def test_llm_answer_is_cut_into_sentences_items_code_and_quotes():
    assert cut(LLM_BUNDLED) == [
        ("sentence", "`open_store` opens the store and applies the schema [Evidence 1]."),
        ("sentence", "With `create=False` a missing file raises `StoreError` instead (see [Evidence 1, 3])."),
        ("sentence", "It also:"),
        ("item", "sets WAL mode and a busy timeout [Evidence 2];"),
        ("item", "refuses a store made by a newer gradedesk. [Evidence 4]"),  # a trailing label joins its sentence
        ("item", "Nested transactions join the outer one [E5]."),
        ("code", "```python\nstore = open_store(path, create=False)  # raises StoreError [Evidence 9]\n```"),
        ("quote", "> The evidence does not show who calls it.\n> Nor what happens on a locked file."),
        ("sentence", "The evidence is insufficient to say more."),  # the heading is not a claim
    ]


def test_citations_mid_sentence_lists_and_ranges():
    assert cites("Cart.total [Evidence 2] calls apply_discount [Evidence 1, 3-4] and [E 7; Evidence 8].") == [
        ("[Evidence 2]", (2,), None, None, None), ("[Evidence 1, 3-4]", (1, 3, 4), None, None, None),
        ("[E 7; Evidence 8]", (7, 8), None, None, None)]


def test_file_citations_of_the_raw_prompt_and_bare_path_lines():
    text = ("apply_discount (File: shop/cart.py) takes ten percent off (File: `shop/cart.py:22-24`); "
            "unit_price is at shop/prices.py:6, see File: shop/prices.py (lines 5-7).")
    assert cites(text) == [
        ("File: shop/cart.py", (), "shop/cart.py", None, None),
        ("File: `shop/cart.py:22-24`", (), "shop/cart.py", 22, 24),
        ("shop/prices.py:6", (), "shop/prices.py", 6, 6),
        ("File: shop/prices.py (lines 5-7)", (), "shop/prices.py", 5, 7),
    ]
    assert cites("See File: shop/cart.py.") == [("File: shop/cart.py", (), "shop/cart.py", None, None)]


def test_what_is_quoted_as_code_is_neither_cut_nor_read_as_a_citation():
    # the offline answerer quotes evidence lines; a quoted line may hold sentences and citation-like text
    item = ('- `Cite every claim by its label, for example "[Evidence 2]". Do not guess.` [Evidence 3] '
            'core/runs/prompts.py:40')
    assert cut(item) == [("item", item[2:])]
    assert cites(item) == [("[Evidence 3]", (3,), None, None, None),
                           ("core/runs/prompts.py:40", (), "core/runs/prompts.py", 40, 40)]
    assert cites("```\nx = 'File: a.py:3'  # [Evidence 1]\n```") == []
    # a span holding nothing but a citation is one
    assert cites("as `shop/cart.py:12` shows") == [("shop/cart.py:12", (), "shop/cart.py", 12, 12)]
    # CommonMark spans: a double-backtick span may quote a backtick
    assert mask_code("x ``a ` [Evidence 1]`` y") == "x ``                `` y"


def test_offline_answerer_shapes():
    raw = ("From the retrieved context, the most relevant lines are:\n"
           "- `def apply_discount(amount):` (File: shop/cart.py:21)\n"
           "- `return amount * 0.9 if amount >= 100 else amount` (File: shop/cart.py:23)")
    assert [k for k, _ in cut(raw)] == ["sentence", "item", "item"]
    assert cites(cut(raw)[2][1]) == [("File: shop/cart.py:23", (), "shop/cart.py", 23, 23)]
    bundled = "- `def unit_price(sku):` [Evidence 2] shop/prices.py:6"
    assert cites(cut(bundled)[0][1]) == [("[Evidence 2]", (2,), None, None, None),
                                         ("shop/prices.py:6", (), "shop/prices.py", 6, 6)]


def test_wrapped_lines_and_item_bodies_stay_one_claim():
    assert cut("Cart.total sums the prices\nand applies the discount.\nThen it returns.") == [
        ("sentence", "Cart.total sums the prices\nand applies the discount."), ("sentence", "Then it returns.")]
    assert cut("- Cart.add adds items.\n  Quantities accumulate.\n- Next") == [
        ("item", "Cart.add adds items."), ("item", "Quantities accumulate."), ("item", "Next")]
    assert cut("") == [] and cut("---\n\n| a | b |\n|---|---|") == [("sentence", "| a | b |")]


def test_sentences_are_the_same_pieces_without_citations():
    assert sentences(LLM_BUNDLED)[:2] == [
        "`open_store` opens the store and applies the schema .",
        "With `create=False` a missing file raises `StoreError` instead (see ).",
    ]
    assert "It also" not in sentences(LLM_BUNDLED)  # under three words
