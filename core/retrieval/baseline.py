"""The baseline that hybrid retrieval must beat: plain BM25 over fixed 40-line windows of every indexed file.

Plain means no code-aware terms (lower-cased \\w+ runs), no symbols, no paths, no call graph. Files are rebuilt
from the stored chunks (chunks cover every non-blank line), so the baseline needs only the store. The windows and
their BM25 postings are cached per process like the hybrid index.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gradedesk.core.index.bm25 import SparseBM25
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.index.chunking import WINDOW_LINES
from gradedesk.core.text.codeterms import plain_tokens
from gradedesk.core.index.indexer import resolve_repo
from gradedesk.core.retrieval.hybrid import Hit
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import RepoRecord, chunks_by_file
from gradedesk.core.text.tokens import get_tokenizer

METHOD = "bm25_window"


@dataclass
class _Window:
    file_path: str
    start_line: int
    end_line: int
    text: str


_CACHE: dict[tuple[str, int, int], tuple[list[_Window], SparseBM25]] = {}


def file_texts(store: Store, repo_id: int, paths: list[str] | None = None) -> dict[str, list[str]]:
    """Each indexed file's lines (of the files named), rebuilt from its chunks (lines no chunk covers were blank)."""
    files: dict[str, list[str]] = {}
    for path, start, text in chunks_by_file(store, repo_id, paths):
        lines = files.setdefault(path, [])
        if len(lines) < start - 1:
            lines.extend([""] * (start - 1 - len(lines)))
        lines.extend(text.split("\n"))
    return files


def _windows(store: Store, repo: RepoRecord) -> tuple[list[_Window], SparseBM25]:
    key = (str(Path(store.path).resolve()), repo.id, repo.index_version)
    if key not in _CACHE:
        windows = []
        for path, lines in file_texts(store, repo.id).items():
            for start in range(0, len(lines), WINDOW_LINES):
                text = "\n".join(lines[start:start + WINDOW_LINES])
                if text.strip():
                    windows.append(_Window(path, start + 1, min(len(lines), start + WINDOW_LINES), text))
        _CACHE.clear()  # one baseline at a time: it is only for benchmarks
        _CACHE[key] = (windows, SparseBM25.build(plain_tokens(w.text) for w in windows))
    return _CACHE[key]


def baseline_retrieve(store: Store, question: str, repo: str | RepoRecord | None = None, k: int = 10) -> list[Hit]:
    repo_row = resolve_repo(store, repo)
    windows, bm25 = _windows(store, repo_row)
    terms = plain_tokens(question)
    scores = bm25.scores(terms)
    matched_docs = np.flatnonzero(scores > 0)
    top = sorted(matched_docs.tolist(), key=lambda d: (-scores[d], d))[:k]
    tok = get_tokenizer(repo_row.tokenizer)
    hits = []
    for rank, d in enumerate(top, start=1):
        w = windows[d]
        present = set(plain_tokens(w.text))
        matched = [t for t in dict.fromkeys(terms) if t in present]
        wid = hashlib.sha256(f"{repo_row.name}\0{w.file_path}\0{w.start_line}".encode()).hexdigest()[:32]
        score = float(scores[d])
        hits.append(Hit(wid, w.file_path, w.start_line, w.end_line, None, "window", w.text, content_hash(w.text),
                        tok.count(w.text), round(score, 6), rank, METHOD, {METHOD: rank}, {METHOD: round(score, 6)},
                        {METHOD: "terms " + ", ".join(repr(t) for t in matched[:8])}, tokenizer=tok.id))
    return hits
