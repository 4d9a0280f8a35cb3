"""Context-pack policies, as Biblicus does them: evidence in, formatted text out, the formatting an explicit policy.

Retrieval returns evidence with provenance, read here as PackItems; a ContextPackPolicy says how they become the text
sent to a model: the separator, the order (rank, score or source), and whether each block starts with metadata lines.
An item with no text or only whitespace is left out. A pack is fitted to a character budget and then a token budget
by dropping trailing blocks (block text is never rewritten). The result records the policy, the budgets and the
tokenizer that counted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.text.tokens import get_tokenizer

ORDERINGS = ("rank", "score", "source")
_FIRST_FIELDS = ("item_id", "source_uri", "score", "stage")  # Biblicus's metadata order; the rest sorted by name
_EXTRA_FIELDS = ("symbol_name", "kind", "rank", "file_path")  # source_uri already has the path and lines


@dataclass(frozen=True)
class ContextPackPolicy:
    join_with: str = "\n\n"
    ordering: str = "rank"  # rank | score | source
    include_metadata: bool = False
    metadata_fields: list[str] | None = None  # extra fields to show; None: all

    def __post_init__(self) -> None:
        if self.ordering not in ORDERINGS:
            raise UserError(f"ordering: {self.ordering!r} is not one of {', '.join(ORDERINGS)}")


@dataclass
class ContextPackBlock:
    evidence_item_id: str
    text: str
    metadata: dict[str, Any] | None = None


@dataclass
class PolicyPack:
    text: str
    evidence_count: int
    blocks: list[ContextPackBlock]
    policy: dict[str, Any]
    max_characters: int | None = None
    max_tokens: int | None = None
    tokenizer: str | None = None
    total_tokens: int | None = None
    dropped_blocks: list[str] = field(default_factory=list)  # evidence ids removed to fit a budget

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PackItem:
    """One retrieval hit as a context-pack policy orders and formats it (Biblicus's evidence item); the evidence that
    graders and the desk read back is core/evidence/record.Evidence."""
    item_id: str
    text: str
    score: float
    rank: int
    source_uri: str
    start_line: int
    stage: str
    extra: dict[str, Any]


def pack_items_from_retrieval(data: Any, source: str = "stdin") -> list[PackItem]:
    """Pack items from `gradedesk retrieve --json` output (an object with "hits", or a bare list of hits)."""
    hits = data.get("hits") if isinstance(data, dict) else data
    if not isinstance(hits, list):
        raise UserError(f"{source}: expected retrieval JSON with a \"hits\" list (gradedesk retrieve ... --json)")
    out = []
    for n, hit in enumerate(hits):
        where = f"{source}: hits[{n}]"
        if not isinstance(hit, dict):
            raise UserError(f"{where}: expected an object, got {type(hit).__name__}")
        item_id = hit.get("chunk_id") or hit.get("item_id")
        if not isinstance(item_id, str) or not item_id:
            raise UserError(f"{where}: chunk_id: missing")
        text = hit.get("text")
        if text is not None and not isinstance(text, str):
            raise UserError(f"{where}: text: must be a string")
        score, rank = hit.get("score", 0.0), hit.get("rank", n + 1)
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            raise UserError(f"{where}: score: must be a number")
        if not isinstance(rank, int) or isinstance(rank, bool):
            raise UserError(f"{where}: rank: must be an integer")
        path, start, end = hit.get("file_path") or "", hit.get("start_line") or 0, hit.get("end_line") or 0
        uri = f"{path}:{start}-{end}" if path and start else (path or hit.get("source_uri") or "none")
        extra = {k: hit[k] for k in _EXTRA_FIELDS if hit.get(k) is not None}
        out.append(PackItem(item_id, text or "", float(score), rank, uri, start if isinstance(start, int) else 0,
                            hit.get("method") or hit.get("stage") or "retrieve", extra))
    return out


def _ordered(evidence: list[PackItem], ordering: str) -> list[PackItem]:
    if ordering == "rank":
        return sorted(evidence, key=lambda e: (e.rank, e.item_id))
    if ordering == "score":
        return sorted(evidence, key=lambda e: (-e.score, e.item_id))
    return sorted(evidence, key=lambda e: (e.extra.get("file_path", e.source_uri), e.start_line, -e.score, e.item_id))


def _metadata(e: PackItem, policy: ContextPackPolicy) -> dict[str, Any]:
    meta: dict[str, Any] = {"item_id": e.item_id, "source_uri": e.source_uri, "score": e.score, "stage": e.stage}
    extra = e.extra if policy.metadata_fields is None else {k: e.extra[k] for k in policy.metadata_fields
                                                              if k in e.extra}
    for key, value in extra.items():
        meta.setdefault(key, value)
    return meta


def _block_text(text: str, metadata: dict[str, Any] | None) -> str:
    if not metadata:
        return text
    keys = [k for k in _FIRST_FIELDS if k in metadata] + sorted(k for k in metadata if k not in _FIRST_FIELDS)
    return "\n".join(f"{k}: {metadata[k]}" for k in keys) + "\n" + text


def build_context_pack(evidence: list[PackItem], policy: ContextPackPolicy) -> PolicyPack:
    blocks = []
    for e in _ordered(evidence, policy.ordering):
        text = e.text.strip()
        if not text:
            continue
        metadata = _metadata(e, policy) if policy.include_metadata else None
        blocks.append(ContextPackBlock(e.item_id, _block_text(text, metadata), metadata))
    return PolicyPack(policy.join_with.join(b.text for b in blocks), len(blocks), blocks, asdict(policy))


def _refit(pack: PolicyPack, policy: ContextPackPolicy, blocks: list[ContextPackBlock]) -> PolicyPack:
    dropped = pack.dropped_blocks + [b.evidence_item_id for b in pack.blocks[len(blocks):]]
    return PolicyPack(policy.join_with.join(b.text for b in blocks), len(blocks), blocks, pack.policy,
                      pack.max_characters, pack.max_tokens, pack.tokenizer, pack.total_tokens, dropped)


def fit_to_character_budget(pack: PolicyPack, policy: ContextPackPolicy, max_characters: int) -> PolicyPack:
    blocks = list(pack.blocks)
    while blocks and len(policy.join_with.join(b.text for b in blocks)) > max_characters:
        blocks.pop()
    fitted = _refit(pack, policy, blocks)
    fitted.max_characters = max_characters
    return fitted


def fit_to_token_budget(pack: PolicyPack, policy: ContextPackPolicy, max_tokens: int,
                        tokenizer: str = "o200k_base") -> PolicyPack:
    tok = get_tokenizer(tokenizer)
    blocks = list(pack.blocks)
    while blocks and tok.count(policy.join_with.join(b.text for b in blocks)) > max_tokens:
        blocks.pop()
    fitted = _refit(pack, policy, blocks)
    fitted.max_tokens, fitted.tokenizer = max_tokens, tok.id
    return fitted


def build_budgeted_pack(evidence: list[PackItem], policy: ContextPackPolicy, max_characters: int | None = None,
                        max_tokens: int | None = None, tokenizer: str = "o200k_base") -> PolicyPack:
    """build_context_pack, then the character budget, then the token budget; the exact token total recorded."""
    for name, value in (("max-characters", max_characters), ("max-tokens", max_tokens)):
        if value is not None and value < 1:
            raise UserError(f"{name}: must be at least 1, got {value}")
    pack = build_context_pack(evidence, policy)
    if max_characters is not None:
        pack = fit_to_character_budget(pack, policy, max_characters)
    if max_tokens is not None:
        pack = fit_to_token_budget(pack, policy, max_tokens, tokenizer)
    tok = get_tokenizer(tokenizer)
    pack.tokenizer, pack.total_tokens = tok.id, tok.count(pack.text)
    return pack
