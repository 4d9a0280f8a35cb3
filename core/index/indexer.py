"""Index a repository into store.db: files, symbol-aware chunks with exact token counts, call/import refs, BM25 index.

Incremental: a file whose size and mtime are unchanged is not read again (binary and huge files are remembered as
skipped); one whose bytes hash the same is not re-chunked; a small change updates the stored BM25 postings in place.
Several repositories live in one store (repos.name). Reading, chunking, hashing, chunk ids, exact token counting and
BM25 terms run in two forked worker processes when many files changed (fork: only when >= PARALLEL_MIN_FILES changed,
so a small re-index from a threaded app stays in-process). Their results stream back in file order and are written
while the workers go on (writing them after the last one was a third of the stdlib's wall time). Everything a run
writes (files, chunks, refs and the postings retrieval loads) is one transaction, so a store never holds half an index:
an interrupted run (^C) rolls back.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Generator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gradedesk.core.index.bm25 import Collector, SparseBM25
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.index.chunking import RawChunk, chunk_text, language_of
from gradedesk.core.text.codeterms import code_tokens
from gradedesk.core.errors import UserError
from gradedesk.core.index.repofiles import list_files, read_text_file
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import (FileState, RepoRecord, chunk_count, chunk_order,
                                        chunk_sources, delete_file, file_states, find_repo, insert_chunks, insert_file,
                                        insert_repo, list_repos, postings_current, save_postings, set_file_stat,
                                        stored_postings, update_repo)
from gradedesk.core.text.tokens import get_tokenizer, normalize_id

ANALYZER = "codetokens/2"  # names the BM25 term analyzer; a stored index made by another one is rebuilt
SKIPPED = "skipped"  # files.language of a binary or too-large file: listed, never chunked
UNREADABLE = "unreadable"  # a file that could not be read this time: named in the report, never stored
PARALLEL_MIN_FILES = 200  # below this, worker start-up costs more than it saves


@dataclass
class IndexReport:
    repo_id: int
    name: str
    root: str
    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    chunks: int
    seconds: float
    files_skipped: int = 0  # binary (a NUL byte) or over 1 MB: listed, not chunked
    unreadable: dict[str, str] = field(default_factory=dict)  # path: why it could not be read (its earlier index, if
    # any, is kept)


# (chunk_id, start_line, end_line, symbol_name, kind, content_hash, text, token_count): a chunk as a worker made it
_Chunk = tuple[str, int, int, str | None, str, str, str, int]
# (chunk_id, ref_kind, name, full_name, line): one of its call/import references
_Ref = tuple[str, str, str, str | None, int]


@dataclass
class _FileResult:
    """One file as a worker read it: plain tuples, cheap to send back from the worker."""
    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str
    chunks: list[_Chunk]
    refs: list[_Ref]
    terms: list[tuple[dict[str, int], int]]  # BM25 term counts and document length, per chunk
    problem: str = ""  # why an UNREADABLE file could not be read


def document_terms(file_path: str, symbol_name: str | None, text: str) -> list[str]:
    """What BM25 indexes for a chunk: its path and symbol name ("json encoder" finds json/encoder.py), its text."""
    return code_tokens(f"{file_path} {symbol_name or ''}\n{text}")


def document_counts(file_path: str, symbol_name: str | None, text: str) -> tuple[dict[str, int], int]:
    terms = document_terms(file_path, symbol_name, text)
    return Counter(terms), len(terms)


def _process(job: tuple[str, str, int, int, str, str]) -> _FileResult:
    """Read, chunk, hash, count tokens and BM25 terms of one file (in a worker process: all CPU-bound, all parallel)."""
    rel, full, size, mtime_ns, tokenizer_id, repo_name = job
    try:
        got = read_text_file(full)
    except OSError as exc:
        return _FileResult(rel, size, mtime_ns, "", UNREADABLE, [], [], [], exc.strerror or str(exc))
    if got is None:  # binary or huge: remembered without chunks, so it is not read again while unchanged
        return _FileResult(rel, size, mtime_ns, "", SKIPPED, [], [], [])
    data, text = got
    encoding = get_tokenizer(tokenizer_id).encoding
    chunks: list[_Chunk] = []
    refs: list[_Ref] = []
    occurrences: dict[tuple, int] = {}
    for c in chunk_text(rel, text):
        digest = content_hash(c.text)
        key = (c.kind, c.symbol_name, digest)
        occurrences[key] = occurrences.get(key, 0) + 1
        cid = chunk_id(repo_name, rel, c, digest, occurrences[key])
        # encode_ordinary == Tokenizer.count (encode with disallowed_special=()): special-token text counts as text
        chunks.append((cid, c.start_line, c.end_line, c.symbol_name, c.kind, digest, c.text,
                       len(encoding.encode_ordinary(c.text))))
        refs.extend((cid, ref.kind, ref.name, ref.full_name, ref.line) for ref in c.refs)
    terms = [document_counts(rel, symbol, text) for _, _, _, symbol, _, _, text, _ in chunks]
    return _FileResult(rel, size, mtime_ns, hashlib.sha256(data).hexdigest(), language_of(rel), chunks, refs, terms)


def _git_commit(root: Path) -> str | None:
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.decode().strip() or None


def chunk_id(repo_name: str, path: str, chunk: RawChunk, digest: str, occurrence: int) -> str:
    key = "\0".join([repo_name, path, chunk.kind, chunk.symbol_name or "", digest, str(occurrence)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def resolve_repo(store: Store, name: str | RepoRecord | None) -> RepoRecord:
    """The repository named `name`; with None, the only repository in the store. A RepoRecord is returned as it is:
    a command looks its repository up once and passes the record down."""
    if isinstance(name, RepoRecord):
        return name
    rows = list_repos(store)
    if name is not None:
        for row in rows:
            if row.name == name:
                return row
        known = ", ".join(r.name for r in rows) or "none; run `gradedesk index PATH` first"
        raise UserError(f"{store.path}: no repository named {name!r} (indexed: {known})")
    if len(rows) == 1:
        return rows[0]
    if not rows:
        raise UserError(f"{store.path}: no repository indexed; run `gradedesk index PATH` first")
    raise UserError(f"{store.path}: {len(rows)} repositories indexed ({', '.join(r.name for r in rows)}); "
                    f"choose one with --repo")


def _results(jobs: list[tuple[str, str, int, int, str, str]],
             progress: Callable[[str], None]) -> Generator[_FileResult, None, None]:
    """Each job's result, in job order, as soon as it is made; `progress` ticks once per file."""
    if len(jobs) < PARALLEL_MIN_FILES or (os.cpu_count() or 1) < 2:
        for job in jobs:
            result = _process(job)
            progress(job[0])
            yield result
        return
    # fork: workers need only this module, and forking avoids re-importing the caller's __main__
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    pool = ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 2), mp_context=context, initializer=_worker_start)
    try:
        for job, result in zip(jobs, pool.map(_process, jobs, chunksize=32)):
            progress(job[0])
            yield result
    finally:  # stopped early (^C, an error writing): files not started yet are not read
        pool.shutdown(cancel_futures=True)


def _worker_start() -> None:
    """A worker's objects are one file's at a time and hold no cycles: reference counting frees them. The collector
    would only walk them, and everything the worker inherited, again and again (a fifth of the workers' time)."""
    gc.disable()


def index_repository(store: Store, root: str | os.PathLike, name: str | None = None, tokenizer: str = "o200k_base",
                     progress: Callable[[int, int, str], None] | None = None) -> IndexReport:
    started = time.perf_counter()
    root_path = Path(root).expanduser().resolve()
    if not root_path.is_dir():
        raise UserError(f"{root}: not a folder")
    tokenizer_id = normalize_id(tokenizer)  # loading the encoding waits until a file needs counting
    name = name or root_path.name
    repo = find_repo(store, name)
    force = repo is not None and repo.tokenizer != tokenizer_id  # counts under another tokenizer: redo every file
    old: dict[str, FileState] = {} if repo is None else file_states(store, repo.id)

    paths = list_files(root_path)
    if not paths and repo is None:  # a stored repository whose files all went is indexed: its chunks are removed
        raise UserError(f"{root}: no file to index (the folder is empty or every file in it is ignored); "
                        f"nothing was indexed")
    total = len(paths)
    done = 0

    def tick(path: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, path)

    jobs, unchanged, skipped, unreadable = [], 0, 0, {}
    for rel in paths:
        full = str(root_path / rel)
        try:
            st = os.stat(full)
        except OSError as exc:
            unreadable[rel] = exc.strerror or str(exc)
            continue
        prev = old.get(rel)
        if prev and not force and prev.size == st.st_size and prev.mtime_ns == st.st_mtime_ns:
            if prev.language == SKIPPED:
                skipped += 1
            else:
                unchanged += 1
            tick(rel)
            continue
        jobs.append((rel, full, st.st_size, st.st_mtime_ns, tokenizer_id, name))
    if jobs:
        get_tokenizer(tokenizer_id)  # loaded before the workers fork, so they share it
    listed = set(paths)
    removed = [row for path, row in old.items() if path not in listed]

    indexed = 0
    changed = bool(removed or force)
    with store.transaction():
        repo_id = insert_repo(store, name, str(root_path), _git_commit(root_path), tokenizer_id) if repo is None \
            else repo.id
        for row in removed:
            delete_file(store, row.id)
        known_terms: dict[str, tuple[dict[str, int], int]] = {}
        collected = Collector()  # their postings, gathered while the workers go on
        # written as they come, while the workers make the next ones; closed at once if writing stops (^C, an
        # error), so that the files not started yet are cancelled, not waited for
        with closing(_results(jobs, tick)) as results:
            for r in results:
                if r.language == UNREADABLE:  # named; an earlier index of it stays until it can be read again
                    unreadable[r.path] = r.problem
                    continue
                prev = old.get(r.path)
                if r.language == SKIPPED:
                    skipped += 1
                if prev and not force and prev.sha256 == r.sha256:  # same bytes, new mtime: update the row only
                    set_file_stat(store, prev.id, r.size, r.mtime_ns)
                    unchanged += r.language != SKIPPED
                    continue
                changed = True
                indexed += r.language != SKIPPED
                if prev:
                    delete_file(store, prev.id)  # cascades to chunks and refs
                file_id = insert_file(store, repo_id, r.path, r.size, r.mtime_ns, r.sha256, r.language)
                insert_chunks(store, [(cid, repo_id, file_id, r.path, start, end, symbol, kind, digest, text, n_tokens,
                                       tokenizer_id)
                                      for cid, start, end, symbol, kind, digest, text, n_tokens in r.chunks],
                              [(cid, repo_id, kind, ref, full_name, line) for cid, kind, ref, full_name, line in r.refs])
                known_terms.update(zip((c[0] for c in r.chunks), r.terms))
                collected.extend(r.terms)
        if repo is not None:
            update_repo(store, repo.id, str(root_path), _git_commit(root_path), tokenizer_id,
                        repo.index_version + (1 if changed else 0))
        if not postings_current(store, repo_id, ANALYZER):
            build_search_index(store, repo_id, known_terms, collected)
        n_chunks = chunk_count(store, repo_id)
    return IndexReport(repo_id, name, str(root_path), total, indexed, unchanged, len(removed), n_chunks,
                       round(time.perf_counter() - started, 3), skipped, dict(sorted(unreadable.items())))


def build_search_index(store: Store, repo_id: int, known: dict[str, tuple[dict[str, int], int]] | None = None,
                       collected: Collector | None = None) -> None:
    """(Re)build the repo's BM25 postings. `known` has the terms of the chunks this run inserted, in the order it
    inserted them; `collected`, the same terms already collected in that order. Then the stored index is updated
    (deleted chunks out, new ones in) when the change is small, instead of re-tokenizing every chunk; when the
    repository's chunks are exactly the new ones, the collected postings are the index; otherwise, or without
    `known`, it is built afresh from the stored chunks."""
    rows = chunk_order(store, repo_id)
    old = stored_postings(store, repo_id)
    if known is not None and old is not None and old.analyzer == ANALYZER and len(known) * 2 < len(rows):
        inserted = {rowid for rowid, cid in rows if cid in known}  # a deleted chunk's rowid may be reused
        current = {rowid for rowid, _ in rows}
        old_rowids = np.frombuffer(old.doc_rowids, dtype=np.int64)
        keep = np.asarray([r in current and r not in inserted for r in old_rowids.tolist()], dtype=bool)
        kept = set(old_rowids[keep].tolist())
        added = [(rowid, cid) for rowid, cid in rows if rowid not in kept]
        counts = _counts(store, [cid for _, cid in added], known)
        bm25 = SparseBM25.from_bytes(old.data).updated(keep, (counts[cid] for _, cid in added))
        doc_rowids = old_rowids[keep].tolist() + [rowid for rowid, _ in added]
    elif collected is not None and known is not None and len(known) == len(rows) and list(known) == [
            cid for _, cid in rows]:  # a first index: documents in row order are the chunks in the order they came
        bm25 = SparseBM25.build_collected(collected)
        doc_rowids = [rowid for rowid, _ in rows]
    else:
        counts = _counts(store, [cid for _, cid in rows], known or {})
        bm25 = SparseBM25.build_from_counts(counts[cid] for _, cid in rows)
        doc_rowids = [rowid for rowid, _ in rows]
    save_postings(store, repo_id, ANALYZER, np.asarray(doc_rowids, dtype=np.int64).tobytes(), bm25.to_bytes())


def _counts(store: Store, chunk_ids: list[str],
            known: dict[str, tuple[dict[str, int], int]]) -> dict[str, tuple[dict[str, int], int]]:
    """BM25 term counts of these chunks: from `known`, else tokenized from their stored text."""
    out = {cid: known[cid] for cid in chunk_ids if cid in known}
    for cid, path, symbol, text in chunk_sources(store, [cid for cid in chunk_ids if cid not in out]):
        out[cid] = document_counts(path, symbol, text)
    return out
