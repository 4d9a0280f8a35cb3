"""The index's tables: repos, files, chunks, symbol_refs and search_index.

Gives the indexed repository as a typed RepoRecord (looked up once per command and passed down), the indexer's file
states and bulk writes (files, chunks, call/import references, the stored BM25 postings), how many of some paths a
repository has indexed (`indexed_paths`: does a benchmark ask about it?), and retrieval's reads: chunk
locations and texts, the call graph's references, the postings. The chunk readers that retrieval runs on every question
or over every chunk return plain tuples, not dataclasses: they are its hot path (tens of thousands of rows per load).
Chunk vectors and embedding settings are in vectors.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from gradedesk.core.store.connection import Store, utc_now

_BATCH = 500  # ids per `IN (...)`: well under SQLite's bound-parameter limit

# (chunk_id, repo_id, file_id, file_path, start_line, end_line, symbol_name, kind, content_hash, text, token_count,
# tokenizer): a chunks row as the indexer writes it
ChunkRow = tuple[str, int, int, str, int, int, str | None, str, str, str, int, str]
# (chunk_id, repo_id, ref_kind, name, full_name, line): a symbol_refs row
RefRow = tuple[str, int, str, str, str | None, int | None]
# (chunk_id, file_path, start_line, end_line, symbol_name, kind, content_hash, token_count, rowid)
ChunkLocation = tuple[str, str, int, int, str | None, str, str, int, int]


@dataclass(frozen=True, slots=True)
class RepoRecord:
    """An indexed repository (a repos row)."""
    id: int
    name: str
    root: str  # absolute path at index time
    git_commit: str | None
    tokenizer: str  # the tokenizer id of every chunk's token_count
    indexed_at: str
    index_version: int  # bumped by every index run that changed chunks; keys retrieval's caches


_REPO_COLUMNS = "id, name, root, git_commit, tokenizer, indexed_at, index_version"


def list_repos(store: Store) -> list[RepoRecord]:
    """Every indexed repository, by name."""
    return [RepoRecord(*row) for row in store._conn.execute(f"SELECT {_REPO_COLUMNS} FROM repos ORDER BY name")]


def find_repo(store: Store, name: str) -> RepoRecord | None:
    row = store._conn.execute(f"SELECT {_REPO_COLUMNS} FROM repos WHERE name = ?", (name,)).fetchone()
    return RepoRecord(*row) if row else None


def insert_repo(store: Store, name: str, root: str, git_commit: str | None, tokenizer: str) -> int:
    """A newly indexed repository at index version 1; returns its id."""
    cursor = store._conn.execute(
        "INSERT INTO repos (name, root, git_commit, tokenizer, indexed_at, index_version) VALUES (?, ?, ?, ?, ?, 1)",
        (name, root, git_commit, tokenizer, utc_now()))
    return int(cursor.lastrowid or 0)


def update_repo(store: Store, repo_id: int, root: str, git_commit: str | None, tokenizer: str,
                index_version: int) -> None:
    """Record a re-index of the repository (its indexed_at is now)."""
    store._conn.execute("UPDATE repos SET root = ?, git_commit = ?, tokenizer = ?, indexed_at = ?, index_version = ? "
                       "WHERE id = ?", (root, git_commit, tokenizer, utc_now(), index_version, repo_id))


# files ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FileState:
    """What the index remembers of a file, to know whether it changed."""
    id: int
    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str | None


def file_states(store: Store, repo_id: int) -> dict[str, FileState]:
    """The repository's indexed files by path."""
    return {row[1]: FileState(*row) for row in store._conn.execute(
        "SELECT id, path, size, mtime_ns, sha256, language FROM files WHERE repo_id = ?", (repo_id,))}


def delete_file(store: Store, file_id: int) -> None:
    """Forget a file; its chunks and references go with it (ON DELETE CASCADE)."""
    store._conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def set_file_stat(store: Store, file_id: int, size: int, mtime_ns: int) -> None:
    store._conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id))


def insert_file(store: Store, repo_id: int, path: str, size: int, mtime_ns: int, sha256: str, language: str) -> int:
    cursor = store._conn.execute(
        "INSERT INTO files (repo_id, path, size, mtime_ns, sha256, language) VALUES (?, ?, ?, ?, ?, ?)",
        (repo_id, path, size, mtime_ns, sha256, language))
    return int(cursor.lastrowid or 0)


# chunks and references: the indexer's writes --------------------------------------------------------------------------
def insert_chunks(store: Store, rows: Sequence[ChunkRow], refs: Sequence[RefRow]) -> None:
    """The chunks of the files an index run changed, and their call/import references, in one bulk insert each."""
    store._conn.executemany(
        "INSERT INTO chunks (chunk_id, repo_id, file_id, file_path, start_line, end_line, symbol_name, kind, "
        "content_hash, text, token_count, tokenizer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store._conn.executemany("INSERT INTO symbol_refs (chunk_id, repo_id, ref_kind, name, full_name, line) "
                           "VALUES (?, ?, ?, ?, ?, ?)", refs)


def chunk_count(store: Store, repo_id: int) -> int:
    return int(store._conn.execute("SELECT count(*) FROM chunks WHERE repo_id = ?", (repo_id,)).fetchone()[0])


def chunk_order(store: Store, repo_id: int) -> list[tuple[int, str]]:
    """(rowid, chunk_id) of the repository's chunks, by rowid: the BM25 documents in order."""
    return store._conn.execute("SELECT rowid, chunk_id FROM chunks WHERE repo_id = ? ORDER BY rowid",
                              (repo_id,)).fetchall()


def chunk_sources(store: Store, chunk_ids: Sequence[str]) -> Iterator[tuple[str, str, str | None, str]]:
    """(chunk_id, file_path, symbol_name, text) of these chunks: what their BM25 terms are made from."""
    for start in range(0, len(chunk_ids), _BATCH):
        batch = list(chunk_ids[start:start + _BATCH])
        yield from store._conn.execute(
            f"SELECT chunk_id, file_path, symbol_name, text FROM chunks WHERE chunk_id IN "
            f"({','.join('?' * len(batch))})", batch)


# chunks: retrieval's reads (hot: plain tuples) ------------------------------------------------------------------------
def chunk_locations(store: Store, repo_id: int) -> Iterator[ChunkLocation]:
    """Every chunk of the repository without its text (retrieval's loaded index keeps these per chunk)."""
    return store._conn.execute(
        "SELECT chunk_id, file_path, start_line, end_line, symbol_name, kind, content_hash, token_count, rowid "
        "FROM chunks WHERE repo_id = ?", (repo_id,))


def chunk_texts(store: Store, rowids: Sequence[int]) -> dict[int, str]:
    """{rowid: text} of these chunks (the hits of one question)."""
    if not rowids:
        return {}
    return dict(store._conn.execute(f"SELECT rowid, text FROM chunks WHERE rowid IN ({','.join('?' * len(rowids))})",
                                   list(rowids)).fetchall())


def chunk_heads(store: Store, repo_id: int, max_chars: int) -> Iterator[tuple[int, str, str | None, str]]:
    """(rowid, file_path, symbol_name, the first max_chars of the text) of every chunk: what is embedded of it."""
    return store._conn.execute("SELECT rowid, file_path, symbol_name, substr(text, 1, ?) FROM chunks WHERE repo_id = ?",
                              (max_chars, repo_id))


def chunks_by_file(store: Store, repo_id: int, paths: Sequence[str] | None = None) -> Iterator[tuple[str, int, str]]:
    """(file_path, start_line, text) of every chunk (of the files named), by file and line: the files rebuilt from
    their chunks."""
    only = f"AND file_path IN ({','.join('?' * len(paths))})" if paths is not None else ""
    return store._conn.execute(
        f"SELECT file_path, start_line, text FROM chunks WHERE repo_id = ? {only} ORDER BY file_path, start_line",
        (repo_id, *(paths or ())))


# symbol_refs: the call graph ------------------------------------------------------------------------------------------
def referring_chunks(store: Store, repo_id: int, name: str, kinds: Sequence[str]) -> list[tuple[str, str]]:
    """(chunk_id, ref_kind) of up to 500 chunks that call (or import, by `kinds`) the name."""
    sql = (f"SELECT DISTINCT chunk_id, ref_kind FROM symbol_refs WHERE repo_id = ? AND name = ? AND ref_kind IN "
           f"({','.join('?' * len(kinds))}) LIMIT 500")
    return store._conn.execute(sql, (repo_id, name, *kinds)).fetchall()


def called_names(store: Store, chunk_id: str) -> list[str]:
    """The names a chunk calls, each once."""
    return [r[0] for r in store._conn.execute(
        "SELECT DISTINCT name FROM symbol_refs WHERE chunk_id = ? AND ref_kind = 'call'", (chunk_id,))]


def calls_in_order(store: Store, chunk_ids: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(chunk_id, called name) of these chunks' calls, in line order."""
    return store._conn.execute(
        f"SELECT chunk_id, name FROM symbol_refs WHERE chunk_id IN ({','.join('?' * len(chunk_ids))}) "
        "AND ref_kind = 'call' ORDER BY line", list(chunk_ids))


def imported_names(store: Store, repo_id: int, files: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(file_path, name) for each name the import statements of these files bind."""
    return store._conn.execute(
        f"SELECT c.file_path, s.name FROM chunks c JOIN symbol_refs s ON s.chunk_id = c.chunk_id WHERE c.repo_id = ? "
        f"AND c.file_path IN ({','.join('?' * len(files))}) AND s.ref_kind = 'import'", [repo_id, *files])


# search_index: the stored BM25 postings ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StoredPostings:
    """A repository's stored BM25 index, as the bytes retrieval loads."""
    index_version: int  # the repos.index_version it was built for
    analyzer: str
    doc_rowids: bytes  # int64 chunks.rowid per document
    data: bytes  # SparseBM25.to_bytes()


def stored_postings(store: Store, repo_id: int) -> StoredPostings | None:
    row = store._conn.execute("SELECT index_version, analyzer, doc_rowids, data FROM search_index WHERE repo_id = ?",
                             (repo_id,)).fetchone()
    return StoredPostings(*row) if row else None


def postings_current(store: Store, repo_id: int, analyzer: str) -> bool:
    """Are the stored postings built for the repository's index version by this analyzer?"""
    row = store._conn.execute("SELECT count(*) FROM search_index WHERE repo_id = ? AND analyzer = ? "
                             "AND index_version = (SELECT index_version FROM repos WHERE id = ?)",
                             (repo_id, analyzer, repo_id)).fetchone()
    return bool(row[0])


def save_postings(store: Store, repo_id: int, analyzer: str, doc_rowids: bytes, data: bytes) -> None:
    """Replace the repository's postings, stamped with its current index version."""
    store._conn.execute("DELETE FROM search_index WHERE repo_id = ?", (repo_id,))
    store._conn.execute(
        "INSERT INTO search_index (repo_id, index_version, analyzer, built_at, doc_rowids, data) "
        "VALUES (?, (SELECT index_version FROM repos WHERE id = ?), ?, ?, ?, ?)",
        (repo_id, repo_id, analyzer, utc_now(), doc_rowids, data))


def indexed_paths(store: Store, repo_name: str, paths: list[str]) -> set[str]:
    """Which of `paths` (a benchmark's expected files) the repository named `repo_name` has indexed."""
    marks = ",".join("?" * len(paths))
    return {str(r["path"]) for r in store._query(f"SELECT f.path FROM files f JOIN repos r ON r.id = f.repo_id "
                                                  f"WHERE r.name = ? AND f.path IN ({marks})", (repo_name, *paths))}
