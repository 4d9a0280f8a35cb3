"""The contract of a context pack file (Biblicus's `text, evidence_count, blocks`, or gradedesk's `context-pack build`
output, which adds the policy, budgets and tokenizer): every violation, each with the block it concerns.

A pack is checked as what it is: its blocks are there and none is empty or repeated, evidence_count counts them, the
text is the blocks joined, it keeps the budgets it records, and every token count names the tokenizer that made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from gradedesk.core.evidence.bundle import Violation, field_problems
from gradedesk.core.text.hashing import normalize_text
from gradedesk.core.text.tokens import get_tokenizer

DEFAULT_JOIN = "\n\n"  # Biblicus's and `context-pack build`'s separator when the pack records no policy
PACK_FIELDS: dict[str, tuple[bool, str]] = {
    "text": (True, "str"), "evidence_count": (True, "int"), "blocks": (True, "list"), "policy": (False, "dict"),
    "max_characters": (False, "int | None"), "max_tokens": (False, "int | None"), "tokenizer": (False, "str | None"),
    "total_tokens": (False, "int | None"), "dropped_blocks": (False, "list[str]"),
}
BLOCK_FIELDS: dict[str, tuple[bool, str]] = {
    "evidence_item_id": (True, "str"), "text": (True, "str"), "metadata": (False, "dict | None"),
}


def is_pack(data: Any) -> bool:
    """A context pack has blocks where a bundle has snippets."""
    return isinstance(data, dict) and "blocks" in data and "snippets" not in data


@dataclass
class PackReport:
    violations: list[Violation]
    blocks: int
    characters: int
    tokens: int | None  # counted under `tokenizer` when the pack names one
    tokenizer: str | None
    budgets: dict[str, int]  # the budgets the pack records (max_characters, max_tokens)


def _bad(rule: str, message: str, block: int | None = None, item: str | None = None) -> Violation:
    return Violation(rule, message, block, item, unit="block")


def check_pack(data: dict) -> PackReport:
    out = [_bad("schema", f"{name}: {why}") for name, why in field_problems(data, PACK_FIELDS, set())]
    blocks: list[Any] = found if isinstance(found := data.get("blocks"), list) else []
    for i, b in enumerate(blocks, start=1):
        if not isinstance(b, dict):
            out.append(_bad("schema", f"must be an object, got {type(b).__name__}", i))
            continue
        item = b.get("evidence_item_id") if isinstance(b.get("evidence_item_id"), str) else None
        out += [_bad("schema", f"{name}: {why}", i, item) for name, why in field_problems(b, BLOCK_FIELDS, set())]
    budgets = {k: data[k] for k in ("max_characters", "max_tokens") if isinstance(data.get(k), int)}
    tokenizer = data.get("tokenizer") if isinstance(data.get("tokenizer"), str) else None
    if out:
        return PackReport(out, len(blocks), 0, None, tokenizer, budgets)
    # no violation: every block was checked above to be an object with its fields
    return _contract(data, cast(list[dict], blocks), budgets, tokenizer)


def _contract(data: dict, blocks: list[dict], budgets: dict[str, int], tokenizer: str | None) -> PackReport:
    out: list[Violation] = []
    if not blocks:
        out.append(_bad("blocks", "the pack has no blocks: it gives the model nothing"))
    seen_ids: dict[str, int] = {}
    seen_text: dict[str, int] = {}
    for i, b in enumerate(blocks, start=1):
        item, text = b["evidence_item_id"], normalize_text(b["text"])
        if not text:
            out.append(_bad("blocks", "text is empty", i, item))
        elif text in seen_text:
            out.append(_bad("duplicate", f"same content as block {seen_text[text]}", i, item))
        seen_text.setdefault(text, i)
        if item in seen_ids:
            out.append(_bad("duplicate", f"evidence_item_id also in block {seen_ids[item]}", i, item))
        seen_ids.setdefault(item, i)
    if data["evidence_count"] != len(blocks):
        out.append(_bad("evidence_count", f"evidence_count {data['evidence_count']} but {len(blocks)} blocks"))
    policy = data.get("policy") or {}
    join = given if isinstance(given := policy.get("join_with"), str) else DEFAULT_JOIN
    if data["text"] != join.join(b["text"] for b in blocks):
        out.append(_bad("text", f"text is not the blocks joined with {join!r}"))
    if "max_characters" in budgets and len(data["text"]) > budgets["max_characters"]:
        out.append(_bad("budget", f"{len(data['text'])} characters exceed max_characters {budgets['max_characters']}"))
    tokens = None
    if tokenizer is None:
        for name in ("max_tokens", "total_tokens"):
            if data.get(name) is not None:
                out.append(_bad("tokenizer", f"{name} is recorded but not the tokenizer that counts it"))
    else:
        try:
            tok = get_tokenizer(tokenizer)
        except Exception as exc:  # an unknown tokenizer makes every count unverifiable: say so once
            out.append(_bad("token_count", f"tokenizer {tokenizer!r} unusable: {exc}"))
        else:
            tokens, tokenizer = tok.count(data["text"]), tok.id
            if data.get("total_tokens") is not None and data["total_tokens"] != tokens:
                out.append(_bad("token_count", f"total_tokens {data['total_tokens']} but the text has {tokens} "
                                               f"tokens ({tok.id})"))
            if "max_tokens" in budgets and tokens > budgets["max_tokens"]:
                out.append(_bad("budget", f"{tokens} tokens exceed max_tokens {budgets['max_tokens']}"))
    return PackReport(out, len(blocks), len(data["text"]), tokens, tokenizer, budgets)
