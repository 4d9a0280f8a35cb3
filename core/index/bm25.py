"""Okapi BM25 over a sparse inverted index: the same scores as rank_bm25.BM25Okapi, computed from postings.

rank_bm25 scores a query by scanning every document's term dict (72 ms a query on 22k windows of the stdlib here).
This keeps term → (documents, frequencies) postings in numpy arrays and touches only the documents that contain a
query term. Documents without the term add exactly 0.0 in rank_bm25, so the numbers are the same; the idf table
(including the epsilon floor over the average idf, summed in first-occurrence order) is computed as rank_bm25 does.
The index serializes to bytes so it can be stored beside the chunks and loaded without re-tokenizing.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Iterable

import numpy as np

K1, B, EPSILON = 1.5, 0.75, 0.25  # BM25Okapi's defaults


class SparseBM25:
    def __init__(self, vocab: list[str], idf: np.ndarray, indptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray,
                 doc_len: np.ndarray):
        self.vocab = vocab
        self.term_ids = {t: i for i, t in enumerate(vocab)}
        self.idf = idf
        self.indptr, self.docs, self.tfs = indptr, docs, tfs
        self.doc_len = doc_len
        self.corpus_size = len(doc_len)
        self.avgdl = float(doc_len.sum()) / self.corpus_size if self.corpus_size else 0.0
        # the per-document length normaliser, computed once (the same expression rank_bm25 evaluates per query)
        self._norm = K1 * (1 - B + B * doc_len / self.avgdl) if self.corpus_size else doc_len

    @classmethod
    def build(cls, corpus: Iterable[list[str]]) -> SparseBM25:
        return cls.build_from_counts((Counter(terms), len(terms)) for terms in corpus)

    @classmethod
    def build_from_counts(cls, corpus: Iterable[tuple[dict[str, int], int]]) -> SparseBM25:
        """From (term → frequency in first-occurrence order, document length) per document."""
        vocab: dict[str, int] = {}
        return cls._assemble(vocab, *_collect(corpus, vocab, 0))

    def updated(self, keep: np.ndarray, added: Iterable[tuple[dict[str, int], int]]) -> SparseBM25:
        """This index with only the documents where `keep` is true, then the `added` ones, without re-tokenizing.

        Terms left in no document leave the vocabulary (rank_bm25's idf table has only terms of the corpus). The
        numbers are a fresh build's except the epsilon floor's average idf, which sums the vocabulary in another
        order (a difference in the last bits of a float)."""
        term_of = np.repeat(np.arange(len(self.vocab), dtype=np.int64), np.diff(self.indptr))
        new_index = np.cumsum(keep) - 1  # old document → its position among the kept ones
        mask = keep[self.docs]
        vocab = dict(self.term_ids)
        tids, docs, tfs, lengths = _collect(added, vocab, int(keep.sum()))
        return self._assemble(vocab, np.concatenate([term_of[mask], tids]),
                              np.concatenate([new_index[self.docs[mask]], docs]),
                              np.concatenate([self.tfs[mask].astype(np.int64), tfs]),
                              np.concatenate([self.doc_len[keep], lengths]))

    @classmethod
    def _assemble(cls, vocab: dict[str, int], tids: np.ndarray, docs: np.ndarray, tfs: np.ndarray,
                  lengths: np.ndarray) -> SparseBM25:
        """Postings sorted by term then document; terms in no document dropped, the rest keep their order."""
        df = np.bincount(tids, minlength=len(vocab))
        alive = np.flatnonzero(df > 0)
        remap = np.full(len(vocab), -1, dtype=np.int64)
        remap[alive] = np.arange(len(alive))
        tids = remap[tids]
        order = np.lexsort((docs, tids))
        indptr = np.zeros(len(alive) + 1, dtype=np.int64)
        np.cumsum(df[alive], out=indptr[1:])
        words = list(vocab)
        return cls([words[t] for t in alive], _idf(df[alive].tolist(), len(lengths)), indptr,
                    docs[order].astype(np.int32), tfs[order].astype(np.int32), lengths.astype(np.float64))

    def scores(self, query: list[str]) -> np.ndarray:
        """A score per document, equal to BM25Okapi(corpus).get_scores(query)."""
        score = np.zeros(self.corpus_size)
        for term in query:
            tid = self.term_ids.get(term)
            if tid is None:
                continue  # rank_bm25: idf.get(q) or 0 → adds 0 everywhere
            lo, hi = self.indptr[tid], self.indptr[tid + 1]
            docs = self.docs[lo:hi]
            tf = self.tfs[lo:hi].astype(np.float64)
            score[docs] += self.idf[tid] * (tf * (K1 + 1) / (tf + self._norm[docs]))
        return score

    def contains(self, term: str, doc: int) -> bool:
        """Does document `doc` contain `term`? (postings hold documents in ascending order)"""
        tid = self.term_ids.get(term)
        if tid is None:
            return False
        docs = self.docs[self.indptr[tid]:self.indptr[tid + 1]]
        i = int(np.searchsorted(docs, doc))
        return i < len(docs) and int(docs[i]) == doc

    def term_frequency(self, term: str) -> int:
        tid = self.term_ids.get(term)
        return 0 if tid is None else int(self.indptr[tid + 1] - self.indptr[tid])

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, vocab=np.frombuffer("\n".join(self.vocab).encode("utf-8"), dtype=np.uint8), idf=self.idf,
                 indptr=self.indptr, docs=self.docs, tfs=self.tfs, doc_len=self.doc_len)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> SparseBM25:
        z = np.load(io.BytesIO(data))
        text = z["vocab"].tobytes().decode("utf-8")
        vocab = text.split("\n") if text else []
        return cls(vocab, z["idf"], z["indptr"], z["docs"], z["tfs"], z["doc_len"])


def _collect(corpus: Iterable[tuple[dict[str, int], int]], vocab: dict[str, int],
             first_doc: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(term ids, document ids, frequencies, document lengths) of a corpus; new terms join `vocab` in order."""
    term_ids: list[int] = []
    tfs: list[int] = []
    sizes: list[int] = []
    lengths: list[int] = []
    add = vocab.setdefault
    for counts, length in corpus:  # one list comprehension a document, not a loop a posting: the stdlib has 2.3M
        lengths.append(length)
        sizes.append(len(counts))
        term_ids.extend([add(term, len(vocab)) for term in counts])  # a new term's id is the vocabulary's size
        tfs.extend(counts.values())
    docs = np.repeat(np.arange(first_doc, first_doc + len(sizes), dtype=np.int64), sizes)
    return (np.asarray(term_ids, dtype=np.int64), docs, np.asarray(tfs, dtype=np.int64),
            np.asarray(lengths, dtype=np.float64))


def _idf(df: list[int], n_docs: int) -> np.ndarray:
    # a plain left-to-right sum in vocabulary (first-occurrence) order: rank_bm25's order, so the floor is bit-equal
    idf = [math.log(n_docs - n + 0.5) - math.log(n + 0.5) for n in df]
    if not idf:
        return np.zeros(0)
    average = 0.0
    for value in idf:
        average += value
    eps = EPSILON * (average / len(idf))
    return np.asarray([eps if value < 0 else value for value in idf], dtype=np.float64)
