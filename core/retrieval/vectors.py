"""Vector retrieval: chunk embeddings stored in the store at index time, a question's embedding matched at query time.

embed_repository(store, repo, embedder, ...) embeds every chunk of an indexed repository that has no vector yet under
(model, prefix style) and stores float32 rows in chunk_vectors, keyed by the content hash of the text embedded (path,
symbol, the chunk's text cut to max_chars): a re-index embeds only new or changed chunks. Batches go out from a few
threads at once; each finished batch is committed, so an interrupted run keeps what it embedded and the next run
resumes. repo_embeddings records the settings, so a question is later embedded the way the chunks were.

embed_question(store, repo, embedder, question) -> QueryVector, and vector_ranked(...) ranks the repository's chunks
by cosine similarity: a brute-force numpy scan over the normalised matrix, kept as float32 blobs in the store. Not
sqlite-vec: it is a loadable extension, and many Pythons' sqlite3 cannot load extensions (this project's CI Python
cannot); the scan takes a few milliseconds on a repository of thousands of chunks (benchmarks/retrieval_bench.py
--natural prints it). The embedder is anything with a `model` and `embed(texts, input_type)`
(core/providers/embeddings.OpenAIEmbedder).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from gradedesk.core.config import (EMBEDDINGS_BATCH, EMBEDDINGS_CONCURRENCY, EMBEDDINGS_MAX_CHARS,
                                    EMBEDDINGS_PREFIXES)
from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import RepoRecord, chunk_heads
from gradedesk.core.store.vectors import (EmbeddingSettings, embedding_settings_of, record_embedding, repo_embeddings,
                                          save_vectors, vector_dim, vector_hashes, vectors_by_hash)
from gradedesk.core.text.hashing import content_hash


class Embedder(Protocol):
    model: str

    def embed(self, texts: list[str], input_type: str | None = None) -> np.ndarray: ...


@dataclass
class EmbedReport:
    model: str
    chunks: int
    embedded: int  # sent to the endpoint in this run
    reused: int  # already stored (unchanged text, or the same text elsewhere)
    dim: int
    seconds: float


@dataclass
class QueryVector:
    model: str
    prefixes: str
    vector: np.ndarray  # normalised
    seconds: float  # the embedding call, reported apart from retrieval


def embedding_input(file_path: str, symbol_name: str | None, text: str, max_chars: int) -> str:
    """What is embedded for a chunk: where it is and what it is called, then its text (the start of it)."""
    return f"{file_path} {symbol_name or ''}".rstrip() + "\n" + text[:max_chars]


def _prefixed(texts: list[str], prefixes: str, kind: str) -> tuple[list[str], str | None]:
    query, passage = EMBEDDINGS_PREFIXES[prefixes]
    prefix = query if kind == "query" else passage
    return [prefix + t for t in texts], (kind if prefixes == "input-type" else None)


def check_prefixes(prefixes: str) -> None:
    if prefixes not in EMBEDDINGS_PREFIXES:
        raise UserError(f"--embeddings-prefixes: {prefixes!r} is not one of {', '.join(EMBEDDINGS_PREFIXES)}")


def _chunk_inputs(store: Store, repo_id: int, max_chars: int) -> list[tuple[int, str, str]]:
    """(chunk rowid, content hash of the embedding input, input) for every chunk of the repository."""
    out = []
    for rowid, path, symbol, text in chunk_heads(store, repo_id, max_chars):
        value = embedding_input(path, symbol, text, max_chars)
        out.append((rowid, content_hash(value), value))
    return out


def embed_repository(store: Store, repo: RepoRecord, embedder: Embedder, *, prefixes: str = "none",
                     max_chars: int = EMBEDDINGS_MAX_CHARS, batch_size: int = EMBEDDINGS_BATCH,
                     concurrency: int = EMBEDDINGS_CONCURRENCY, endpoint_host: str | None = None,
                     progress: Callable[[int, int], None] | None = None) -> EmbedReport:
    """Embed the repository's chunks that have no vector yet under (embedder.model, prefixes)."""
    check_prefixes(prefixes)
    for flag, value in (("--embeddings-max-chars", max_chars), ("--embeddings-batch-size", batch_size),
                        ("--embeddings-concurrency", concurrency)):
        if value < 1:
            raise UserError(f"{flag}: must be at least 1, got {value}")
    started = time.perf_counter()
    model = embedder.model
    inputs = _chunk_inputs(store, repo.id, max_chars)
    have = vector_hashes(store, model, prefixes)
    todo = list({h: v for _, h, v in inputs if h not in have}.items())
    todo.sort(key=lambda hv: len(hv[1]))  # batches of like length: servers pad a batch to its longest input
    batches = [todo[i:i + batch_size] for i in range(0, len(todo), batch_size)]
    dim = vector_dim(store, model, prefixes)
    done = 0
    if progress:
        progress(0, len(todo))

    def send(batch: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], np.ndarray]:
        texts, input_type = _prefixed([v for _, v in batch], prefixes, "passage")
        return batch, embedder.embed(texts, input_type)

    pool = ThreadPoolExecutor(max_workers=concurrency)
    pending: set[Future] = set()
    queue = iter(batches)
    try:
        for batch in queue:  # keep `concurrency` batches in flight; store each as it comes back (main thread)
            pending.add(pool.submit(send, batch))
            if len(pending) < concurrency:
                continue
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                dim, done = _store_batch(store, model, prefixes, future.result(), dim, done)
            if progress:
                progress(done, len(todo))
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                dim, done = _store_batch(store, model, prefixes, future.result(), dim, done)
            if progress:
                progress(done, len(todo))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if inputs and dim:
        with store.transaction():
            record_embedding(store, repo.id, model, prefixes, max_chars, dim, endpoint_host)
    return EmbedReport(model, len(inputs), len(todo), len(inputs) - len(todo), dim, time.perf_counter() - started)


def _store_batch(store: Store, model: str, prefixes: str, result: tuple[list[tuple[str, str]], np.ndarray],
                 dim: int, done: int) -> tuple[int, int]:
    batch, vectors = result
    if dim and vectors.shape[1] != dim:
        raise UserError(f"embeddings model {model!r} returned {vectors.shape[1]}-dimensional vectors where the store "
                        f"holds {dim}-dimensional ones for it; is another model served under that name?")
    with store.transaction():
        save_vectors(store, model, prefixes, vectors.shape[1],
                     [(h, vectors[i].astype("<f4").tobytes()) for i, (h, _) in enumerate(batch)])
    return vectors.shape[1], done + len(batch)


def missing_vectors(store: Store, repo: RepoRecord) -> dict[str, int]:
    """Per embeddings model the repository was embedded with: how many of its chunks have no vector (changed since)."""
    out: dict[str, int] = {}
    for settings in repo_embeddings(store, repo.id):
        have = vector_hashes(store, settings.model, settings.prefixes)
        missing = sum(1 for _, h, _ in _chunk_inputs(store, repo.id, settings.max_chars) if h not in have)
        if missing:
            out[settings.model] = missing
    return out


# query time ---------------------------------------------------------------------------------------------------------

def embedding_settings(store: Store, repo: RepoRecord, model: str) -> EmbeddingSettings:
    """How the repository was embedded with `model`; one clear error when it was not."""
    settings = embedding_settings_of(store, repo.id, model)
    if settings is None:
        known = [s.model for s in repo_embeddings(store, repo.id)]
        raise UserError(f"{store.path}: repository {repo.name!r} has no vectors from embeddings model {model!r} "
                        f"(embedded: {', '.join(known) or 'none'}); run `gradedesk index {repo.root} "
                        f"--embeddings-model {model} ...` first")
    return settings


def embed_question(store: Store, repo: RepoRecord, embedder: Embedder, question: str) -> QueryVector:
    """The question's vector, embedded the way the repository's chunks were (same prefix style)."""
    settings = embedding_settings(store, repo, embedder.model)
    texts, input_type = _prefixed([question], settings.prefixes, "query")
    started = time.perf_counter()
    vector = embedder.embed(texts, input_type)[0]
    seconds = time.perf_counter() - started
    if len(vector) != settings.dim:
        raise UserError(f"embeddings model {embedder.model!r} returned a {len(vector)}-dimensional query vector; "
                        f"the chunks were embedded with {settings.dim} dimensions")
    return QueryVector(embedder.model, settings.prefixes, vector, seconds)


@dataclass
class VectorIndex:
    matrix: np.ndarray  # (documents, dim), zero rows for chunks without a vector
    present: np.ndarray  # bool per document
    missing: int


_CACHE: dict[tuple, VectorIndex] = {}
_CACHE_SIZE = 4


def load_vectors(store: Store, repo: RepoRecord, model: str, rowids: Callable[[], list[int]]) -> VectorIndex:
    """The repository's vectors under `model`, row d for the chunk with rowid rowids()[d] (cached per process)."""
    settings = embedding_settings(store, repo, model)
    key = (str(Path(store.path).resolve()), repo.id, repo.index_version, model, settings.embedded_at)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    by_rowid = {rowid: h for rowid, h, _ in _chunk_inputs(store, repo.id, settings.max_chars)}
    stored = vectors_by_hash(store, model, settings.prefixes)
    rows = rowids()
    matrix = np.zeros((len(rows), settings.dim), dtype=np.float32)
    present = np.zeros(len(rows), dtype=bool)
    for d, rowid in enumerate(rows):
        blob = stored.get(by_rowid.get(rowid, ""))
        if blob is not None and len(blob) == 4 * settings.dim:
            matrix[d] = np.frombuffer(blob, dtype="<f4")
            present[d] = True
    index = VectorIndex(matrix, present, int(len(rows) - present.sum()))
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = index
    return index


def vector_ranked(index: VectorIndex, query: QueryVector, limit: int) -> list[tuple[int, float, str]]:
    """(document, cosine similarity, what matched) for the `limit` nearest chunks that have a vector."""
    if not index.present.any():
        return []
    scores = index.matrix @ query.vector.astype(np.float32)
    scores[~index.present] = -np.inf
    nearest = np.argpartition(-scores, min(limit, len(scores) - 1))[:limit]
    top = sorted((int(d) for d in nearest if index.present[d]), key=lambda d: (-scores[d], d))
    return [(d, float(scores[d]), f"cosine similarity {scores[d]:.3f} ({query.model})") for d in top]
