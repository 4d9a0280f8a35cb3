"""Evidence bundles: exact JSON round trip, the prompt format, and every contract violation."""

from __future__ import annotations

import hashlib
import json

import pytest

from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet, prompt_context, validate
from gradedesk.core.text.hashing import content_hash, normalize_text
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR
from gradedesk.core.text.tokens import ENCODINGS, count_tokens, get_tokenizer


def snippet(text: str, **kw) -> EvidenceSnippet:
    base = dict(chunk_id="c1", content_hash=content_hash(text), text=text, token_count=count_tokens(text),
                file_path="core/store.py", start_line=10, end_line=12, symbol_name="open_store",
                retrieval_method="bm25", relevance_score=1.23456, retrieval_rank=1,
                selection_reason="Defines open_store, named in the question.", evidence_role="definition")
    base.update(kw)
    return EvidenceSnippet(**base)


def bundle(*snippets: EvidenceSnippet, budget: int = 1000) -> EvidenceBundle:
    b = EvidenceBundle(question="How is the store opened?", question_type="code_lookup", snippets=list(snippets),
                       total_tokens=0, token_budget=budget, retrieval_strategies_used=["bm25"],
                       coverage_notes=["definition of open_store found"], created_at="2026-11-23T00:00:00+00:00")
    b.total_tokens = count_tokens(b.to_prompt_context())
    return b


def test_round_trip_is_exact():
    b = bundle(snippet("def open_store(path):\n    return Store(path)"),
               snippet("x = 1", chunk_id="c2", symbol_name=None, selection_reason=None, evidence_role="context"))
    again = EvidenceBundle.from_json(b.to_json())
    assert again == b
    assert again.to_dict() == b.to_dict()
    assert json.loads(again.to_json()) == json.loads(b.to_json())
    assert b.tokenizer == "tiktoken/o200k_base"


def test_prompt_context_format():
    """Another pipeline's reason rides whole on its line; the compiler's goes in brief into the header's brackets (the
    stored reason keeps every detail); a prompt's header names no fused score, `ask`'s scored header does."""
    a = snippet("line one\nline two")
    b = snippet("other", chunk_id="c2", file_path="README.md", symbol_name=None, start_line=0, end_line=0,
                retrieval_method="path", relevance_score=0.5, selection_reason=None)
    full = ("Fused rank 3 as callee evidence, found by call graph rank 1: subclassed by Blueprint; BM25 rank 10 "
            "(score 9.26) on terms 'static', 'serve'; cut from lines 52-73 to the 15 lines that best match the "
            "question.")
    c = snippet("class Blueprint(Scaffold):", chunk_id="c3", symbol_name="Blueprint", start_line=52, end_line=66,
                retrieval_method="graph", evidence_role="callee", selection_reason=full)
    text = bundle(a, b, c).to_prompt_context()
    assert text == (
        "[Evidence 1] core/store.py:10-12 :: open_store\n"
        "Reason included: Defines open_store, named in the question.\n"
        "line one\nline two"
        "\n\n---\n\n"
        "[Evidence 2] README.md\n"
        "other"
        "\n\n---\n\n"
        "[Evidence 3] core/store.py:52-66 [callee via call graph (subclassed by Blueprint), BM25]\n"
        "class Blueprint(Scaffold):"
    )
    assert c.selection_reason == full
    assert a.scored_header(1) == "[Evidence 1] core/store.py:10-12 :: open_store [bm25, fused 1.2346]"


def test_valid_bundle_has_no_violations():
    assert validate(bundle(snippet("def f():\n    pass"))) == []


def rules(b: EvidenceBundle) -> list[tuple[str, int | None]]:
    return [(v.rule, v.snippet) for v in validate(b)]


@pytest.mark.parametrize("field,value", [("file_path", ""), ("retrieval_method", " ")])
def test_provenance_missing(field, value):
    assert ("provenance", 1) in rules(bundle(snippet("x", **{field: value})))


def test_line_range_reversed_or_missing():
    assert ("provenance", 1) in rules(bundle(snippet("x", start_line=9, end_line=3)))
    assert ("provenance", 1) in rules(bundle(snippet("x", start_line=0, end_line=3)))


def test_snippet_token_count_wrong():
    s = snippet("def f(): pass")
    s.token_count += 1
    assert rules(bundle(s)) == [("token_count", 1)]


def test_total_tokens_wrong():
    b = bundle(snippet("def f(): pass"))
    b.total_tokens -= 1
    assert rules(b) == [("token_count", None)]


def test_duplicate_content_even_with_other_chunk_id_and_whitespace():
    a = snippet("def f():\n    return 1\n")
    b = snippet("def f():   \r\n    return 1", chunk_id="c9", file_path="other.py")
    assert ("duplicate", 2) in rules(bundle(a, b))
    assert normalize_text(a.text) == normalize_text(b.text)


def test_hash_is_checked_for_consistency_whatever_made_it():
    md5 = hashlib.md5(b"abc").hexdigest()
    assert rules(bundle(snippet("abc", content_hash=md5))) == []  # any hash function: dedup is what the contract asks
    one_hash_two_texts = bundle(snippet("abc", content_hash=md5), snippet("xyz", chunk_id="c2", content_hash=md5))
    assert rules(one_hash_two_texts) == [("content_hash", 2)]
    same_text = bundle(snippet("abc", content_hash=md5), snippet("abc ", chunk_id="c2", content_hash="other"))
    assert rules(same_text) == [("duplicate", 2)]
    assert rules(bundle(snippet("abc", content_hash=""))) == [("content_hash", 1)]


def test_budget_exceeded():
    b = bundle(snippet("word " * 50), budget=10)
    assert rules(b) == [("budget", None)]


def test_reason_and_role_required_and_role_known():
    assert set(rules(bundle(snippet("a", selection_reason="", evidence_role=None)))) == {
        ("selection_reason", 1), ("evidence_role", 1)}
    assert rules(bundle(snippet("a", evidence_role="vibes"))) == [("evidence_role", 1)]


def test_every_violation_is_reported_not_just_the_first():
    bad = snippet("dup", file_path="", selection_reason=None)
    dup = snippet("dup", chunk_id="c2", evidence_role=None)
    found = rules(bundle(bad, dup))
    assert {("provenance", 1), ("selection_reason", 1), ("duplicate", 2), ("evidence_role", 2)} <= set(found)


def test_recount_makes_counts_exact():
    s = snippet("def g():\n    return 2", token_count=999)
    b = bundle(s)
    b.total_tokens = 0
    assert validate(b.recount()) == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_context_counts_as_its_blocks_counted_apart_with_their_separators(encoding):
    """The compiler counts a context in parts (each block once, compile._Packer.exact_free): a tiktoken encoding
    never joins a newline and the non-space character after it into one token, and every block starts `[Evidence`
    after the separator's last newline. Texts that end or start in spaces, tabs and newlines, digits, punctuation,
    other scripts and special-token text are where a join would show."""
    tok = get_tokenizer(encoding)
    texts = ["def f():\n    return 1   ", "x = 1\n\n\n", "   indented\t\n", "9999", "]]]\n/", "письмо 名前 \u00a0",
             "<|endoftext|>", "'s\n", "", "  \n  \n"]
    snippets = [snippet(t, chunk_id=f"c{i}", symbol_name=None) for i, t in enumerate(texts)]
    blocks = [s.prompt_block(i) for i, s in enumerate(snippets, start=1)]
    assert all(b.startswith("[Evidence ") for b in blocks)
    for n in range(1, len(blocks) + 1):
        parts = sum(tok.count(b + SNIPPET_SEPARATOR) for b in blocks[:n - 1]) + tok.count(blocks[n - 1])
        assert parts == tok.count(prompt_context(snippets[:n])), n
