"""Exploring one question: retrieve once, compile the bundle at any budget, and say what a budget step changed.

`retrieve_question` gets the hits a run works from (the compiler's CANDIDATE_HITS candidates; the raw side is their top
RAW_K, as `run` gives the raw answer). `compile_at` compiles them at one budget, as `ask` and `run` do, and lists the
candidates the bundle does not hold whole, with the reason the compiler recorded (compile.Dropped) or the lines a cut
kept. `step` marks each snippet against the bundle of the budget before, by chunk id and line range. The explore
screen (tui/screens/explore.py) and `gradedesk explore` show these; nothing here draws.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from gradedesk.core.config import RAW_K
from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.evidence.compile import (CANDIDATE_HITS, DISPLACED, DUPLICATE, OVER_TOTAL, Dropped,
                                              build_bundle, compile_context)
from gradedesk.core.retrieval.hybrid import Hit, retrieve, unindexed_files
from gradedesk.core.retrieval.vectors import Embedder, embed_question
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import RepoRecord, list_repos
from gradedesk.core.store.run_records import run_row
from gradedesk.core.text.question import QuestionInfo, analyse_question

BUDGET_STEPS = (500, 1000, 2000, 4000, 8000)  # what + and - step through
METHODS = ("bm25", "symbol", "path", "graph", "vector")  # the order a hit's methods are listed in


@dataclass(frozen=True)
class Retrieval:
    """A question's candidates, in fused rank order; every budget compiles from these same hits."""
    info: QuestionInfo
    repo: str
    tokenizer: str
    hits: list[Hit]
    vector_model: str | None = None  # vector search joined with this model's stored vectors
    embed_ms: float | None = None  # the question's embedding, apart from retrieval
    retrieve_ms: float = 0.0
    unindexed: tuple[str, ...] = ()  # file names the question gives that the index does not hold

    @property
    def raw(self) -> list[Hit]:
        """What a run's raw answer sees: the top RAW_K hits."""
        return self.hits[:RAW_K]

    @property
    def candidates_note(self) -> str:
        if len(self.hits) < CANDIDATE_HITS:
            return f"retrieval found {len(self.hits)} hit(s); the compiler takes up to {CANDIDATE_HITS}"
        return f"the compiler saw the top {CANDIDATE_HITS} hits; hits beyond rank {CANDIDATE_HITS} are never seen"


def run_repo(store: Store, run_id: int) -> RepoRecord | None:
    """The repository a run retrieved from (None: an imported run, or one whose repository is gone)."""
    repo_id = run_row(store, run_id).repo_id
    return next((r for r in list_repos(store) if r.id == repo_id), None)


def retrieve_question(store: Store, question: str, repo: str | RepoRecord | None = None,
                      embedder: Embedder | None = None) -> Retrieval:
    from gradedesk.core.index.indexer import resolve_repo

    record = resolve_repo(store, repo)
    info = analyse_question(question)
    vector = embed_question(store, record, embedder, info.text) if embedder else None
    started = time.perf_counter()
    hits = retrieve(store, info, repo=record, k=CANDIDATE_HITS, query_vector=vector)
    return Retrieval(info, record.name, record.tokenizer, hits, vector.model if vector else None,
                     vector.seconds * 1000 if vector else None, (time.perf_counter() - started) * 1000,
                     unindexed_files(store, record, info.files))


@dataclass(frozen=True)
class LeftOut:
    """A candidate the bundle does not hold whole, and why (the compiler's own record)."""
    chunk_id: str
    rank: int | None  # fused rank of the candidate
    location: str  # path:a-b of the chunk
    symbol_name: str | None
    role: str
    reason: str


@dataclass(frozen=True)
class Compiled:
    budget: int
    bundle: EvidenceBundle
    left_out: list[LeftOut]
    compile_ms: float = 0.0


def _where(item: Hit | EvidenceSnippet | Dropped) -> str:
    return f"{item.file_path}:{item.start_line}-{item.end_line}"


def left_out_words(d: Dropped, kept_label: int | None, budget: int) -> str:
    """The compiler's left-out reason (compile.LEFT_OUT_REASONS) in words, with the ledger's numbers."""
    kept = f"evidence {kept_label} ({d.same_as})" if kept_label else d.same_as
    if d.why == DUPLICATE:
        return f"duplicate of {kept}"
    if d.why == DISPLACED:
        return f"inside {kept}, kept for a better-ranked hit"
    if d.why == OVER_TOTAL:
        return f"taken out last to keep the exact total within {budget:,} tokens"
    return f"did not fit: its smallest cut needs {d.need:,} tokens, {d.free:,} were free of {budget:,}"


def compile_at(retrieval: Retrieval, budget: int) -> Compiled:
    """The bundle `ask` and `run` would make at `budget`, and the candidates it left out or cut."""
    started = time.perf_counter()
    pack = compile_context(retrieval.info, retrieval.hits, budget, tokenizer=retrieval.tokenizer,
                           unindexed=retrieval.unindexed)
    bundle = build_bundle(pack)
    by_chunk = {h.chunk_id: h for h in retrieval.hits}
    kept_at = {_where(by_chunk[s.chunk_id]): i for i, s in enumerate(bundle.snippets, start=1)}
    out: list[LeftOut] = []
    for d in pack.dropped:
        hit = by_chunk.get(d.chunk_id)
        out.append(LeftOut(d.chunk_id, hit.rank if hit else None, _where(hit or d),
                           d.symbol_name, d.evidence_role, left_out_words(d, kept_at.get(d.same_as), budget)))
    for s in bundle.snippets:
        hit = by_chunk[s.chunk_id]
        if (s.start_line, s.end_line) != (hit.start_line, hit.end_line):
            out.append(LeftOut(s.chunk_id, hit.rank, _where(hit), s.symbol_name, s.evidence_role or "",
                               f"cut to lines {s.start_line}-{s.end_line} (of {hit.start_line}-{hit.end_line})"))
    out.sort(key=lambda x: (x.rank is None, x.rank or 0))
    return Compiled(budget, bundle, out, (time.perf_counter() - started) * 1000)


MARKS = ("new", "grown", "cut", "shifted", "same")  # against the budget before; shifted: as many lines, others


@dataclass(frozen=True)
class Step:
    """What a budget step did to the bundle, snippet by snippet (by chunk id and line range)."""
    before: int | None  # the budget before (None: the question's first bundle)
    after: int
    marks: dict[str, str]  # chunk id -> one of MARKS
    gone: list[EvidenceSnippet] = field(default_factory=list)  # in the bundle before, not in this one
    tokens: int = 0  # tokens this bundle uses more (negative: fewer) than the one before

    def count(self, mark: str) -> int:
        return sum(1 for m in self.marks.values() if m == mark)

    @property
    def summary(self) -> str:
        if self.before is None:
            return f"first bundle at {self.after:,} tokens: {len(self.marks)} snippet(s)"
        parts = [f"{self.count(m)} {m}" for m in MARKS if self.count(m)]
        if self.gone:
            parts.append(f"{len(self.gone)} gone")
        cost = f"cost {self.tokens:+,} tokens"
        return f"{self.before:,} → {self.after:,}: {', '.join(parts) or 'no snippets'}; {cost}"


def _mark(old: EvidenceSnippet | None, new: EvidenceSnippet) -> str:
    if old is None:
        return "new"
    if (old.start_line, old.end_line) == (new.start_line, new.end_line):
        return "same"
    old_n, new_n = old.end_line - old.start_line, new.end_line - new.start_line
    return "grown" if new_n > old_n else "cut" if new_n < old_n else "shifted"


def step(before: Compiled | None, after: Compiled) -> Step:
    if before is None:
        return Step(None, after.budget, {s.chunk_id: "new" for s in after.bundle.snippets})
    old = {s.chunk_id: s for s in before.bundle.snippets}
    marks = {s.chunk_id: _mark(old.get(s.chunk_id), s) for s in after.bundle.snippets}
    gone = [s for s in before.bundle.snippets if s.chunk_id not in marks]
    return Step(before.budget, after.budget, marks, gone, after.bundle.total_tokens - before.bundle.total_tokens)


def next_budget(budget: int, direction: int) -> int:
    """The next step of BUDGET_STEPS above (direction 1) or below (-1) `budget`; at either end, the end."""
    if direction > 0:
        return next((b for b in BUDGET_STEPS if b > budget), BUDGET_STEPS[-1])
    return next((b for b in reversed(BUDGET_STEPS) if b < budget), BUDGET_STEPS[0])


@dataclass(frozen=True)
class MethodRank:
    method: str
    rank: int
    score: float
    note: str  # what matched; for graph hits the edge that brought them ("called by X")


def method_ranks(hit: Hit) -> list[MethodRank]:
    """Each method that found the hit, with its rank and score: the numbers `retrieve --json` prints."""
    order = [m for m in METHODS if m in hit.method_ranks] + sorted(set(hit.method_ranks) - set(METHODS))
    return [MethodRank(m, hit.method_ranks[m], hit.method_scores.get(m, 0.0), hit.matches.get(m, "")) for m in order]
