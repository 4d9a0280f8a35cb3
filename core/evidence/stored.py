"""The one reader and writer of stored evidence: bundles (tables bundles, bundle_snippets) and an answer's raw hits.

Raw answers keep their evidence as a JSON list of hits whose fields depend on who produced them (`gradedesk run`, an
import); `parse_hits` reads whatever subset of the seed's field names (or their common aliases) is there and keeps the
rest in `extra`, so every reader sees any run's evidence rather than failing on it. A log that recorded only how
many chunks an answer used (the evidence-bundles lesson's comparison log) is stored as {"chunk_count": N}: no hits,
and a note saying so.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from gradedesk.core.evidence.bundle import EvidenceBundle
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.store.bundles import BundleRow, SnippetRow, bundle_rows, insert_bundle
from gradedesk.core.store.connection import Store

HIT_ALIASES = {  # seed field name -> the names producers use for it, preferred first
    "file_path": ("file_path", "path", "file"),
    "start_line": ("start_line", "start"),
    "end_line": ("end_line", "end"),
    "symbol_name": ("symbol_name", "symbol"),
    "chunk_id": ("chunk_id",),
    "retrieval_method": ("retrieval_method", "method", "source"),
    "relevance_score": ("relevance_score", "score", "fused_score"),
    "retrieval_rank": ("retrieval_rank", "rank"),
    "selection_reason": ("selection_reason", "reason"),
    "evidence_role": ("evidence_role", "role"),
    "text": ("text", "content", "snippet"),
    "token_count": ("token_count", "tokens"),
    "content_hash": ("content_hash",),
}
_NUMERIC = {"start_line": int, "end_line": int, "retrieval_rank": int, "token_count": int, "relevance_score": float}
_LIST_COLUMNS = ("retrieval_strategies_used", "coverage_notes", "warnings")
CHUNK_COUNT = "chunk_count"  # evidence of which only the number of chunks is known


# bundles ---------------------------------------------------------------------------------------------------------------
@dataclass
class StoredBundle:
    id: int
    bundle: EvidenceBundle
    evidence: list[Evidence]  # the snippets, in bundle order
    record: dict[str, Any]  # the bundle as stored, for a raw JSON view


def save_bundle(store: Store, bundle: EvidenceBundle) -> int:
    """Store a bundle and its snippets (call inside the caller's transaction); returns bundles.id."""
    return insert_bundle(store, BundleRow(
        bundle.question, bundle.question_type, bundle.total_tokens, bundle.token_budget,
        json.dumps(bundle.retrieval_strategies_used), json.dumps(bundle.coverage_notes), bundle.created_at,
        bundle.compiler_version, json.dumps(bundle.warnings), bundle.tokenizer),
        [SnippetRow(i, **asdict(s)) for i, s in enumerate(bundle.snippets, start=1)])


def _json_list(text: str | None) -> list[str]:
    """A stored JSON list of strings; anything else is kept as text rather than lost."""
    try:
        data = json.loads(text or "[]")
    except json.JSONDecodeError:
        return [text or ""]
    return [d if isinstance(d, str) else json.dumps(d, ensure_ascii=False) for d in data] if isinstance(data, list) \
        else [json.dumps(data, ensure_ascii=False)]


def load_bundle(store: Store, bundle_id: int) -> StoredBundle | None:
    rows = bundle_rows(store, bundle_id)
    if rows is None:
        return None
    row, snippets = rows
    record: dict[str, Any] = {"id": bundle_id, **asdict(row)}
    for name in _LIST_COLUMNS:
        record[name] = _json_list(record[name])
    record["snippets"] = [asdict(s) for s in snippets]
    evidence = [Evidence(s.file_path, s.symbol_name, s.chunk_id, s.start_line, s.end_line, s.text,
                         position=s.position, retrieval_method=s.retrieval_method,
                         relevance_score=s.relevance_score, retrieval_rank=s.retrieval_rank,
                         selection_reason=s.selection_reason, evidence_role=s.evidence_role,
                         token_count=s.token_count, content_hash=s.content_hash) for s in snippets]
    return StoredBundle(bundle_id, EvidenceBundle.from_dict(record), evidence, record)


# raw hits --------------------------------------------------------------------------------------------------------------
def evidence_from_hit(position: int, hit: Any) -> Evidence:
    """A raw hit as Evidence, whatever subset of fields it has; unknown fields are kept in `extra`."""
    if not isinstance(hit, dict):
        return Evidence(None, text=hit if isinstance(hit, str) else json.dumps(hit, ensure_ascii=False),
                        position=position)
    values: dict[str, Any] = {}
    used: set[str] = set()
    for name, aliases in HIT_ALIASES.items():
        for alias in aliases:
            if alias in hit and hit[alias] is not None:
                value = hit[alias]
                if name in _NUMERIC:
                    try:
                        value = _NUMERIC[name](value)
                    except (TypeError, ValueError):
                        continue
                elif not isinstance(value, str):
                    value = json.dumps(value, ensure_ascii=False)
                values[name] = value
                used.add(alias)
                break
    known = {alias for aliases in HIT_ALIASES.values() for alias in aliases}
    extra = {k: v for k, v in hit.items() if k not in used and not (k in known and v is None)}
    return Evidence(values.pop("file_path", None), position=position, extra=extra, **values)


def parse_hits(evidence: str | None) -> tuple[list[Evidence], str | None]:
    """(evidence, problem): a raw answer's evidence JSON as Evidence; `problem` says why it could not be read."""
    if not evidence:
        return [], None
    try:
        data = json.loads(evidence)
    except json.JSONDecodeError as exc:
        return [], f"evidence is not JSON ({exc.msg}); shown as stored"
    if isinstance(data, dict) and set(data) == {CHUNK_COUNT}:
        return [], f"{data[CHUNK_COUNT]} chunks, evidence not recorded"
    if isinstance(data, dict):  # {"hits": [...]} or a single hit
        data = data.get("hits", [data])
    if not isinstance(data, list):
        return [], "evidence is not a list of hits; shown as stored"
    return [evidence_from_hit(i, hit) for i, hit in enumerate(data, start=1)], None


def count_only_evidence(count: int) -> str:
    """The stored evidence of an answer whose log recorded only how many chunks it used."""
    return json.dumps({CHUNK_COUNT: count})


def unrecorded_chunk_count(evidence: str | None) -> int | None:
    """N when the stored evidence says only "N chunks" (count_only_evidence), else None."""
    try:
        data = json.loads(evidence) if evidence else None
    except json.JSONDecodeError:
        return None
    return data[CHUNK_COUNT] if isinstance(data, dict) and set(data) == {CHUNK_COUNT} else None


def files_evidence(evidence_files: str | None) -> list[Evidence]:
    """An answer that names only the files it used (an imported harness log): one Evidence a file."""
    try:
        files = json.loads(evidence_files) if evidence_files else []
    except json.JSONDecodeError:
        return []
    return [Evidence(f, position=i) for i, f in enumerate(files, start=1) if isinstance(f, str)] \
        if isinstance(files, list) else []


# an answer's evidence ----------------------------------------------------------------------------------------------------
def answer_evidence(store: Store, answer: dict) -> list[Evidence]:
    """The ranked evidence of an answer row: bundle snippets by position, else raw hits in rank order, else the files."""
    if answer.get("bundle_id") is not None:
        stored = load_bundle(store, answer["bundle_id"])
        if stored is not None:
            return stored.evidence
    hits, _problem = parse_hits(answer.get("evidence"))
    return hits or files_evidence(answer.get("evidence_files"))
