"""The bundle tables: bundles (an evidence bundle's own fields) and bundle_snippets (its snippets, by position).

Gives a bundle's rows as stored (BundleRow, SnippetRow: the list columns still JSON text) and writes them; turning them
into an EvidenceBundle is core/evidence/stored.py's work. Field order is the tables' column order: a row's asdict is
the raw JSON view the desk shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, fields

from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class BundleRow:
    question: str
    question_type: str
    total_tokens: int
    token_budget: int
    retrieval_strategies_used: str  # JSON list
    coverage_notes: str  # JSON list
    created_at: str
    compiler_version: str
    warnings: str  # JSON list
    tokenizer: str


@dataclass(frozen=True, slots=True)
class SnippetRow:
    # after position, the fields of core/evidence/bundle.EvidenceSnippet in its order, repeated here because the store
    # may not import evidence: the writer converts with SnippetRow(position, **asdict(snippet))
    position: int  # 1-based: the [Evidence i] label
    chunk_id: str
    content_hash: str
    text: str
    token_count: int
    file_path: str
    start_line: int
    end_line: int
    symbol_name: str | None
    retrieval_method: str
    relevance_score: float
    retrieval_rank: int
    selection_reason: str | None
    evidence_role: str | None


_BUNDLE_COLUMNS = ", ".join(f.name for f in fields(BundleRow))
_SNIPPET_COLUMNS = ", ".join(f.name for f in fields(SnippetRow))


def insert_bundle(store: Store, bundle: BundleRow, snippets: Sequence[SnippetRow]) -> int:
    """Store a bundle and its snippets (inside the caller's transaction); returns bundles.id."""
    bundle_id = int(store._conn.execute(
        f"INSERT INTO bundles ({_BUNDLE_COLUMNS}) VALUES ({', '.join('?' * len(fields(BundleRow)))})",
        astuple(bundle)).lastrowid or 0)
    store._conn.executemany(
        f"INSERT INTO bundle_snippets (bundle_id, {_SNIPPET_COLUMNS}) "
        f"VALUES (?, {', '.join('?' * len(fields(SnippetRow)))})",
        [(bundle_id, *astuple(s)) for s in snippets])
    return bundle_id


def bundle_rows(store: Store, bundle_id: int) -> tuple[BundleRow, list[SnippetRow]] | None:
    """A stored bundle and its snippets in position order; None when there is no such bundle."""
    row = store._conn.execute(f"SELECT {_BUNDLE_COLUMNS} FROM bundles WHERE id = ?", (bundle_id,)).fetchone()
    if row is None:
        return None
    snippets = [SnippetRow(*s) for s in store._conn.execute(
        f"SELECT {_SNIPPET_COLUMNS} FROM bundle_snippets WHERE bundle_id = ? ORDER BY position", (bundle_id,))]
    return BundleRow(*row), snippets


def delete_bundles(store: Store, bundle_ids: Iterable[int]) -> None:
    """Remove bundles (and their snippets) that no answer holds any longer."""
    store._conn.executemany("DELETE FROM bundles WHERE id = ?", [(b,) for b in bundle_ids])
