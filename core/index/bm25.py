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
from array import array
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
        collected = Collector()
        collected.extend(corpus)
        return cls.build_collected(collected)

    @classmethod
    def build_collected(cls, collected: Collector) -> SparseBM25:
        """From documents collected one at a time (the same index as build_from_counts over them)."""
        return cls._assemble(collected.vocab, *collected.arrays(0))

    def updated(self, keep: np.ndarray, added: Iterable[tuple[dict[str, int], int]]) -> SparseBM25:
        """This index with only the documents where `keep` is true, then the `added` ones, without re-tokenizing.

        Terms left in no document leave the vocabulary (rank_bm25's idf table has only terms of the corpus). The
        numbers are a fresh build's except the epsilon floor's average idf, which sums the vocabulary in another
        order (a difference in the last bits of a float)."""
        term_of = np.repeat(np.arange(len(self.vocab), dtype=np.int64), np.diff(self.indptr))
        new_index = np.cumsum(keep) - 1  # old document → its position among the kept ones
        mask = keep[self.docs]
        collected = Collector(dict(self.term_ids))
        collected.extend(added)
        tids, docs, tfs, lengths = collected.arrays(int(keep.sum()))
        return self._assemble(collected.vocab, np.concatenate([term_of[mask], tids]),
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


class Collector:
    """Documents' term counts gathered in document order, one at a time (an indexer adds each file's as it comes):
    the postings' raw arrays, new terms joining the vocabulary in order of first occurrence (rank_bm25's order)."""

    def __init__(self, vocab: dict[str, int] | None = None):
        self.vocab: dict[str, int] = {} if vocab is None else vocab
        self._term_ids = array("q")
        self._tfs = array("q")
        self._sizes: list[int] = []
        self._lengths: list[int] = []

    def add(self, counts: dict[str, int], length: int) -> None:
        """The next document: term → frequency in first-occurrence order, and its length."""
        vocab = self.vocab
        self._lengths.append(length)
        self._sizes.append(len(counts))
        # one list comprehension a document, not a loop a posting (the stdlib has 2.2M): a new term's id is the
        # vocabulary's size
        self._term_ids.extend([vocab.setdefault(term, len(vocab)) for term in counts])
        self._tfs.extend(counts.values())

    def extend(self, corpus: Iterable[tuple[dict[str, int], int]]) -> None:
        for counts, length in corpus:
            self.add(counts, length)

    def arrays(self, first_doc: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(term ids, document ids numbered from first_doc, frequencies, document lengths)."""
        docs = np.repeat(np.arange(first_doc, first_doc + len(self._sizes), dtype=np.int64), self._sizes)
        return (np.frombuffer(self._term_ids, dtype=np.int64), docs, np.frombuffer(self._tfs, dtype=np.int64),
                np.asarray(self._lengths, dtype=np.float64))


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
