"""The vector tables: chunk_vectors (an embedding per model, prefix style and embedded text's hash) and repo_embeddings
(which model embedded a repository, and how).

Gives the stored vectors as float32 bytes by content hash, their writes, and a repository's EmbeddingSettings, so a
question is embedded the way the chunks were. The chunks themselves are read through index.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gradedesk.core.store.connection import Store, utc_now


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """How a repository's chunks were embedded with one model (a repo_embeddings row)."""
    model: str
    prefixes: str  # query/passage prefix style
    max_chars: int  # of each chunk's text embedded
    dim: int
    embedded_at: str  # of the last index run that embedded; keys retrieval's caches


_SETTINGS_COLUMNS = "model, prefixes, max_chars, dim, embedded_at"


def embedding_settings_of(store: Store, repo_id: int, model: str) -> EmbeddingSettings | None:
    row = store._conn.execute(f"SELECT {_SETTINGS_COLUMNS} FROM repo_embeddings WHERE repo_id = ? AND model = ?",
                             (repo_id, model)).fetchone()
    return EmbeddingSettings(*row) if row else None


def repo_embeddings(store: Store, repo_id: int) -> list[EmbeddingSettings]:
    """Every model the repository was embedded with."""
    return [EmbeddingSettings(*row) for row in store._conn.execute(
        f"SELECT {_SETTINGS_COLUMNS} FROM repo_embeddings WHERE repo_id = ?", (repo_id,))]


def record_embedding(store: Store, repo_id: int, model: str, prefixes: str, max_chars: int, dim: int,
                     endpoint_host: str | None) -> None:
    """Record (or replace) the settings the repository was just embedded with; embedded_at is now."""
    store._conn.execute(
        "INSERT INTO repo_embeddings (repo_id, model, prefixes, max_chars, dim, endpoint_host, embedded_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo_id, model) DO UPDATE SET prefixes = excluded.prefixes, "
        "max_chars = excluded.max_chars, dim = excluded.dim, endpoint_host = excluded.endpoint_host, "
        "embedded_at = excluded.embedded_at",
        (repo_id, model, prefixes, max_chars, dim, endpoint_host, utc_now()))


def vector_hashes(store: Store, model: str, prefixes: str) -> set[str]:
    """The content hashes that have a vector under (model, prefixes)."""
    return {r[0] for r in store._conn.execute("SELECT content_hash FROM chunk_vectors WHERE model = ? AND prefixes = ?",
                                             (model, prefixes))}


def vector_dim(store: Store, model: str, prefixes: str) -> int:
    """The dimension of the vectors stored under (model, prefixes); 0 when there are none."""
    row = store._conn.execute("SELECT dim FROM chunk_vectors WHERE model = ? AND prefixes = ? LIMIT 1",
                             (model, prefixes)).fetchone()
    return int(row[0]) if row else 0


def vectors_by_hash(store: Store, model: str, prefixes: str) -> dict[str, bytes]:
    """{content hash: float32 little-endian vector} under (model, prefixes)."""
    return dict(store._conn.execute("SELECT content_hash, vector FROM chunk_vectors WHERE model = ? AND prefixes = ?",
                                   (model, prefixes)))


def save_vectors(store: Store, model: str, prefixes: str, dim: int, vectors: Sequence[tuple[str, bytes]]) -> None:
    """Store (content hash, float32 vector bytes) pairs; a hash already there is replaced."""
    store._conn.executemany(
        "INSERT OR REPLACE INTO chunk_vectors (model, prefixes, content_hash, dim, vector) VALUES (?, ?, ?, ?, ?)",
        [(model, prefixes, h, dim, blob) for h, blob in vectors])
