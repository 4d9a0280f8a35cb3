"""Hybrid retrieval over an indexed repository: BM25, fuzzy symbol and path matching, call-graph expansion; fused.

Each method ranks chunks on its own; reciprocal rank fusion (RRF, k=60) merges them, and every hit keeps its rank and
score under each method that found it plus a short note of what matched, so a bundle can say why it was selected.

- bm25: Okapi BM25 (core.bm25, rank_bm25's numbers) over code-aware terms of path + symbol + text.
- symbol: identifiers the question names (json.dumps, HTTPServer, parse_args) matched against symbol names, exactly
  and with rapidfuzz for near misses.
- path: file names the question names (settings.toml, core/cli/main.py), question words and dotted module names
  matched against file paths (json.encoder → json/encoder.py).
- vector: with a QueryVector (core.retrieval.vectors), the chunks whose stored embeddings are nearest the question's.
- graph (core.retrieval.graph): for relationship questions (core.text.question), the callers (and importers) and callees of the matched
  symbols, from symbol_refs. Then, for every question, a second stage: the definitions that the top fused chunks use
  (the functions and classes they call, the classes they subclass, the names their file imports that they mention, as
  in annotations and `module.Name`) when defined in another file, one chunk per defining file; an answer about a class
  usually needs its base class, the errors it raises, the types it takes and the helpers it calls, which share few
  words with a question.

The loaded index (BM25 postings, chunk metadata, symbol and path tables) is cached per process by (store path, repo id,
index version), so a benchmark of many questions loads it once and a re-index is picked up.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
from rapidfuzz import fuzz, process

from gradedesk.core.index.bm25 import SparseBM25
from gradedesk.core.text.codeterms import STOPWORDS, query_variants, written_forms
from gradedesk.core.index.indexer import ANALYZER, build_search_index, resolve_repo
from gradedesk.core.text.question import QuestionInfo, analyse_question
from gradedesk.core.retrieval.graph import Ranked, relationship_graph, used_definitions
from gradedesk.core.retrieval.vectors import QueryVector, load_vectors, vector_ranked
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import RepoRecord, chunk_locations, chunk_texts, stored_postings

RRF_K = 60
METHOD_ORDER = ("symbol", "bm25", "vector", "path", "graph")  # tie-break for "the strongest method"
CANDIDATES = 50  # per method, before fusion
# a path match alone is weaker evidence; a small embedding model's nearest chunks are a weaker vote than BM25's (0.5 was
# best on the tuning share of the natural-question sets, benchmarks/retrieval_bench.py --natural)
WEIGHTS = {"bm25": 1.0, "symbol": 1.0, "path": 0.8, "graph": 1.0, "vector": 0.5}
TEST_WEIGHT = 0.6  # tests match many words of a question; unless it asks about tests, prefer the code under test
# prose (Markdown/RST sections) and non-Python text (40-line windows) talk about a design in the question's own words;
# unless the question asks about documentation, prefer the code
PROSE_WEIGHT = 0.6
PROSE_KINDS = ("section", "window")
# words that name a kind of thing in every codebase, so a file or folder named after one says nothing about a question
GENERIC_WORDS = frozenset("class classes module modules function functions method methods file files code test tests "
                          "type types object objects data value values name names list string int number default "
                          "defined define work works used return returns read write new old main base util utils "
                          "error errors".split())
DEFINITION_KINDS = ("function", "method", "class")
USED_FROM = 5  # top fused chunks whose used definitions join as graph hits
LEXICAL = {"bm25", "symbol", "path"}


@dataclass
class ChunkLocation:
    chunk_id: str
    file_path: str
    start_line: int
    end_line: int
    symbol_name: str | None
    kind: str


@dataclass
class Hit(ChunkLocation):
    text: str
    content_hash: str
    token_count: int
    score: float  # fused (RRF)
    rank: int  # 1-based
    method: str  # the method that ranked it highest
    method_ranks: dict[str, int]
    method_scores: dict[str, float]
    matches: dict[str, str] = field(default_factory=dict)  # per method: what matched, in words
    relation: str | None = None  # caller | callee | importer, when the call graph found it
    tokenizer: str | None = None  # the tokenizer id of token_count (the repo's); compile recounts under another

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class _Meta(ChunkLocation):  # what the loaded index keeps per chunk; the text is read only for hits
    content_hash: str
    token_count: int
    rowid: int


@dataclass
class LoadedIndex:
    repo_id: int
    version: int
    bm25: SparseBM25
    docs: list[_Meta]
    by_chunk: dict[str, int]
    by_symbol: dict[str, list[int]]  # last dotted part, lower-cased → definition docs
    by_qualified: dict[str, list[int]]  # Class.method, lower-cased → docs
    symbol_names: list[str]  # keys of by_symbol, for fuzzy matching
    qualified_names: list[str]  # keys of by_qualified
    by_file: dict[str, list[int]]
    by_component: dict[str, set[str]]  # path component (file stem, folder) lower-cased → files
    components: list[str]
    is_test: np.ndarray  # per document: test code
    is_prose: np.ndarray  # per document: a PROSE_KINDS chunk outside tests
    prior: np.ndarray  # per document: TEST_WEIGHT for tests, PROSE_WEIGHT for prose, else 1 (a question about neither)


_CACHE: dict[tuple[str, int, int], LoadedIndex] = {}
_CACHE_SIZE = 4


def load_index(store: Store, repo: RepoRecord) -> LoadedIndex:
    key = (str(Path(store.path).resolve()), repo.id, repo.index_version)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    postings = stored_postings(store, repo.id)
    if postings is None or postings.index_version != repo.index_version or postings.analyzer != ANALYZER:
        with store.transaction():  # made by an older gradedesk or an interrupted run: rebuild once, keep it
            build_search_index(store, repo.id)
        postings = stored_postings(store, repo.id)
        assert postings is not None  # just built
    rowids = np.frombuffer(postings.doc_rowids, dtype=np.int64).tolist()
    meta = {r[-1]: _Meta(*r) for r in chunk_locations(store, repo.id)}
    docs = [meta[r] for r in rowids]
    index = _tables(repo.id, repo.index_version, SparseBM25.from_bytes(postings.data), docs)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = index
    return index


def _tables(repo_id: int, version: int, bm25: SparseBM25, docs: list[_Meta]) -> LoadedIndex:
    by_symbol: dict[str, list[int]] = defaultdict(list)
    by_qualified: dict[str, list[int]] = defaultdict(list)
    by_file: dict[str, list[int]] = defaultdict(list)
    by_component: dict[str, set[str]] = defaultdict(set)
    for d, m in enumerate(docs):
        by_file[m.file_path].append(d)
        if m.symbol_name and m.kind in DEFINITION_KINDS:
            qualified = m.symbol_name.lower()
            if not by_qualified[qualified] or m.kind != "class":  # a class's first chunk (its header) stands for it
                by_qualified[qualified].append(d)
            by_symbol[qualified.rsplit(".", 1)[-1]].append(d)
    for path in by_file:
        for part in _components(path):
            by_component[part].add(path)
    test_files = {path for path in by_file if is_test_path(path)}
    is_test = np.asarray([m.file_path in test_files for m in docs], dtype=bool)
    is_prose = np.asarray([m.kind in PROSE_KINDS for m in docs], dtype=bool) & ~is_test
    prior = np.where(is_test, TEST_WEIGHT, np.where(is_prose, PROSE_WEIGHT, 1.0))
    return LoadedIndex(repo_id, version, bm25, docs, {m.chunk_id: d for d, m in enumerate(docs)}, dict(by_symbol),
                       dict(by_qualified), list(by_symbol), list(by_qualified), dict(by_file), dict(by_component),
                       list(by_component), is_test, is_prose, prior)


def _components(path: str) -> list[str]:
    p = PurePosixPath(path)
    parts = [s.lower() for s in p.parts[:-1]]
    if p.stem != "__init__":
        parts.append(p.stem.lower())
    return parts


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path.lower())
    return (any(part in ("test", "tests", "testing") for part in p.parts[:-1]) or p.name.startswith("test_")
            or p.stem.endswith("_test") or p.name == "conftest.py")


def _module_paths(dotted: str) -> list[str]:
    """Files a dotted module name may live in: a.b → a/b.py, a/b/__init__.py."""
    base = dotted.replace(".", "/")
    return [f"{base}.py", f"{base}/__init__.py"]


# the methods -----------------------------------------------------------------------------------------------------

def _prior(index: LoadedIndex, info: QuestionInfo) -> np.ndarray:
    """Per document: how much a hit counts for this question (tests and prose are demoted unless asked about)."""
    if not info.about_tests and not info.about_docs:
        return index.prior
    return np.where(index.is_test & (not info.about_tests), TEST_WEIGHT,
                    np.where(index.is_prose & (not info.about_docs), PROSE_WEIGHT, 1.0))


def _bm25(index: LoadedIndex, terms: list[str], prior: np.ndarray) -> tuple[Ranked, np.ndarray]:
    # a prior on top of the BM25 numbers, so tests and prose do not crowd out the code they are about
    scores = index.bm25.scores(terms) * prior
    nonzero = np.flatnonzero(scores > 0)
    if len(nonzero) > CANDIDATES:
        nonzero = nonzero[np.argpartition(-scores[nonzero], CANDIDATES)[:CANDIDATES]]
    top = sorted(nonzero.tolist(), key=lambda d: (-scores[d], d))
    return [(d, float(scores[d]), "") for d in top], scores


def _symbol(index: LoadedIndex, idents: list[str], bm25: np.ndarray) -> Ranked:
    found: dict[int, tuple[float, str]] = {}

    def add(docs: list[int], score: float, note: str) -> None:
        for d in docs:
            if d not in found or found[d][0] < score:
                found[d] = (score, note)

    for ident in idents:
        parts = ident.split(".")
        last = parts[-1].lower()
        qualified = index.by_qualified.get(ident.lower())
        if qualified:
            add(qualified, 100.0, f"symbol {ident!r} is defined here")
        exact = index.by_symbol.get(last, [])
        qualifier = ".".join(parts[:-1]).lower()
        # json.dumps: the dumps defined under json/ (or Class.method in that class); other modules' dumps only
        # when the qualifier names nothing here
        scoped = [d for d in exact if qualifier and (
            index.docs[d].file_path.lower().startswith(qualifier.replace(".", "/"))
            or (index.docs[d].symbol_name or "").lower().endswith(ident.lower()))]
        for d in scoped or exact:
            add([d], 98.0 if scoped else 90.0, f"symbol name {index.docs[d].symbol_name!r} matches {ident!r}")
        if not exact and not qualified and len(ident) >= 4:
            # a near miss (ParcelStor.ad, parse_wieght): dotted names against qualified names, others against last parts
            table, names = ((index.by_qualified, index.qualified_names) if len(parts) > 1
                            else (index.by_symbol, index.symbol_names))
            for name, ratio, _ in process.extract(ident.lower(), names, scorer=fuzz.ratio, score_cutoff=85, limit=5):
                add(table[name], float(ratio) * 0.9, f"symbol name {name!r} is close to {ident!r} "
                                                     f"({ratio:.0f}% similar)")
    ranked = sorted(found, key=lambda d: (-found[d][0], -bm25[d], d))[:CANDIDATES]
    return [(d, found[d][0], found[d][1]) for d in ranked]


def _path(index: LoadedIndex, question: str, idents: list[str], bm25: np.ndarray,
          named_files: tuple[str, ...] = ()) -> Ranked:
    files: dict[str, tuple[float, str]] = {}

    def add(path: str, score: float, note: str) -> None:
        if path not in files or files[path][0] < score:
            files[path] = (score, note)

    for name in named_files:  # store.db, core/cli/main.py: the file itself (a file the index skipped is not there)
        for path in _suffix_matches(index, name):
            add(path, 100.0, f"file {name!r} is named in the question")

    for ident in idents:
        parts = ident.split(".")
        for n in range(len(parts), 0, -1):  # json.decoder.JSONDecoder → json/decoder.py, then json/__init__.py
            for path in _module_paths(".".join(parts[:n])):
                if path in index.by_file or any(p.endswith("/" + path) for p in _suffix_matches(index, path)):
                    for full in _suffix_matches(index, path):
                        add(full, 100.0 if n == len(parts) else 95.0, f"module {'.'.join(parts[:n])!r} is this file")
    words = {w for w in re.findall(r"[a-z][a-z0-9_]{2,}", question.lower()) if w not in STOPWORDS | GENERIC_WORDS}
    for word in words:
        paths = index.by_component.get(word)
        if paths and len(paths) <= 20:  # a component in hundreds of paths ("test") says nothing
            for path in paths:
                add(path, 90.0 if PurePosixPath(path).stem.lower() == word else 80.0,
                    f"path {path!r} contains {word!r}")
        elif not paths and len(word) >= 5:
            for name, ratio, _ in process.extract(word, index.components, scorer=fuzz.ratio, score_cutoff=88,
                                                   limit=3):
                for path in sorted(index.by_component[name])[:20]:  # sorted: the same hits in every process
                    add(path, float(ratio) * 0.85, f"path {path!r} is close to {word!r} ({ratio:.0f}% similar)")
    out: Ranked = []
    for path, (score, note) in files.items():
        docs = index.by_file[path]
        best = max(docs, key=lambda d: (bm25[d], -d))  # the file's chunk that best matches the question
        out.append((best, score + min(float(bm25[best]), 50.0) / 100.0, note))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out[:CANDIDATES]


def unindexed_files(store: Store, repo: RepoRecord, names: tuple[str, ...]) -> tuple[str, ...]:
    """The file names a question gives that no indexed file of the repository ends with (`store.db`: a user's store,
    not a file of the repository): evidence cannot miss what the index never held."""
    if not names:
        return ()
    index = load_index(store, repo)
    return tuple(name for name in names if not _suffix_matches(index, name))


def _suffix_matches(index: LoadedIndex, path: str) -> list[str]:
    if path in index.by_file:
        return [path]
    return [p for p in index.by_file if p.endswith("/" + path)][:5]


# fusion ------------------------------------------------------------------------------------------------------------

def retrieve(store: Store, question: str | QuestionInfo, repo: str | RepoRecord | None = None, k: int = 10,
             query_vector: QueryVector | None = None) -> list[Hit]:
    """The top k chunks for a question (text, or analysed by analyse_question), fused over every method that applies;
    vector search joins when the question's embedding is given (core.retrieval.vectors.embed_question). `repo` is a
    name, None (the only repository) or the record itself, when the caller has looked it up."""
    repo_row = resolve_repo(store, repo)
    index = load_index(store, repo_row)
    if not index.docs or k <= 0:
        return []
    info = analyse_question(question)
    terms = query_variants(list(info.terms))
    idents = list(info.identifiers)
    prior = _prior(index, info)
    bm25_list, bm25 = _bm25(index, terms, prior)
    lists: dict[str, Ranked] = {"bm25": bm25_list, "symbol": _symbol(index, idents, bm25),
                                "path": _path(index, info.text, idents, bm25, info.files)}
    if query_vector is not None:
        vectors = load_vectors(store, repo_row, query_vector.model, lambda: [m.rowid for m in index.docs])
        lists["vector"] = vector_ranked(vectors, query_vector, CANDIDATES)
    if info.relationship:
        targets = list(dict.fromkeys(
            [index.docs[d].symbol_name or "" for d, _, _ in lists["symbol"][:3]] + idents))
        lists["graph"] = relationship_graph(store, index, info, [t for t in targets if t], bm25)[:CANDIDATES]
    fused: dict[int, float] = defaultdict(float)
    ranks: dict[int, dict[str, int]] = defaultdict(dict)
    scores: dict[int, dict[str, float]] = defaultdict(dict)
    notes: dict[int, dict[str, str]] = defaultdict(dict)

    def fuse(method: str, ranked: Ranked) -> None:
        for r, (d, score, note) in enumerate(ranked, start=1):
            fused[d] += WEIGHTS[method] * prior[d] / (RRF_K + r)
            ranks[d][method] = r
            scores[d][method] = round(score, 6)
            if note:
                notes[d][method] = note

    for method, ranked in lists.items():
        fuse(method, ranked)
    # seeds: the top chunks that matched the question's words or names (a seed found only by vector search is a
    # guess, and the definitions a guess uses would outrank the guess itself)
    seeds = [d for d in fused if ranks[d].keys() & LEXICAL]
    top = sorted(seeds, key=lambda d: (-fused[d], min(ranks[d].values()), d))[:USED_FROM]
    fuse("graph", [hit for hit in used_definitions(store, index, top, bm25)[:CANDIDATES] if "graph" not in ranks[hit[0]]])
    order = sorted(fused, key=lambda d: (-fused[d], min(ranks[d].values()), d))[:k]
    texts = chunk_texts(store, [index.docs[d].rowid for d in order])
    hits = []
    query_terms = list(dict.fromkeys(terms))
    written = written_forms(info.text)
    for rank, d in enumerate(order, start=1):
        m = index.docs[d]
        text = texts[m.rowid]
        method = min(ranks[d], key=lambda name: (ranks[d][name], METHOD_ORDER.index(name)))
        matches = dict(notes[d])
        relation = None
        if "graph" in matches:
            matches["graph"], relation = matches["graph"].rsplit("|", 1)
        if "bm25" in ranks[d]:
            matched = [t for t in query_terms if index.bm25.contains(t, d)]
            shown = list(dict.fromkeys(written.get(t, t) for t in matched))  # `pushed` once, whichever form matched
            matches["bm25"] = "terms " + ", ".join(map(repr, shown[:8]))
        hits.append(Hit(m.chunk_id, m.file_path, m.start_line, m.end_line, m.symbol_name, m.kind, text,
                        m.content_hash, m.token_count, round(fused[d], 6), rank, method, dict(ranks[d]),
                        dict(scores[d]), matches, relation, repo_row.tokenizer))
    return hits
