"""Compile ranked hits into a token-budgeted context pack, and a pack into a contract-checked evidence bundle.

compile_context: hits in rank order, each file's best hit before any file's second; content-level dedup (normalized text
hash, not chunk ids); chunks over a small per-snippet limit (about SNIPPET_FLOOR tokens, or a SNIPPET_SHARE of a larger
budget) cut to the contiguous lines that match the question (the line range stays exact, the definition's first line is
favoured; a cut that repeats a kept snippet gives way to the chunk's first lines), so a small budget shows many files'
best lines rather than a few whole chunks; each snippet gets an evidence role and a selection reason (which methods
found it, what matched: the bundle stores it in full, the prompt carries its brief form, core/text/prompt_layout);
snippets are added while the exact token count of the prompt context (headers, reasons, separators included) stays
within the budget.
Everything dropped or cut is a warning. build_bundle adds coverage notes that say what is present and what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradedesk.core.evidence.bundle import COMPILER_VERSION, EvidenceBundle, EvidenceSnippet, prompt_context, validate
from gradedesk.core.text.prompt_layout import METHOD_WORDS, SNIPPET_SEPARATOR, Found, Reason, full_reason
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.text.codeterms import code_tokens
from gradedesk.core.errors import UserError
from gradedesk.core.text.question import QuestionInfo, analyse_question
from gradedesk.core.retrieval.hybrid import DEFINITION_KINDS, Hit, is_test_path, retrieve
from gradedesk.core.retrieval.vectors import Embedder, embed_question
from gradedesk.core.store.connection import Store
from gradedesk.core.text.tokens import Tokenizer, get_tokenizer

MIN_SLICE_TOKENS = 40  # a cut smaller than this is not worth its header (a header and its brief reason: ~25-35)
# a file's best lines before more files: at 1k a snippet is cut to about 100 tokens (7-8 lines), so a bundle shows
# 8-11 files; 120 missed files ranked 8th-10th when large chunks took the budget (with vectors 1k/4k fell to 0.89),
# 90 added headers for no more recall without vectors, 150 lost files (benchmarks/retrieval_bench.py --natural: tuned
# share, then the kept-aside share as the check). Below 1k: MIN_SLICE_TOKENS and a tenth of the budget (90 at 500), so
# cuts grow with the budget from the smallest one up; from 2k a sixteenth of the budget.
SNIPPET_FLOOR = 100
SNIPPET_SHARE = 16  # above 2k a snippet may take a sixteenth of the budget: 250 tokens at 4k
CANDIDATE_HITS = 40  # hits `ask` retrieves to fill a budget
PER_FILE = 1  # snippets of one file before the other files' hits get their turn (1: measured best, --natural)
# ...except the best hits: a file's second hit that fuses 1st or 2nd is evidence on its own merits (the module a
# question is about, behind its own graph callee). File recall at 1k and 4k unchanged, symbol recall at 1k up on both
# sets (reflex 0.218 -> 0.234, streamlink 0.317 -> 0.341; kept aside too); 3 cost recall at 2k (--natural).
NEVER_WAITS = 2


@dataclass
class Dropped:
    file_path: str
    start_line: int
    end_line: int
    symbol_name: str | None
    evidence_role: str
    why: str  # duplicate | budget
    chunk_id: str = ""  # the candidate left out (explore lists them by chunk id)
    same_as: str = ""  # a duplicate: path:a-b of the kept chunk with the same content


@dataclass
class ContextPack:
    question: str
    question_type: str
    snippets: list[EvidenceSnippet]
    token_budget: int
    total_tokens: int
    tokenizer: str
    retrieval_strategies_used: list[str]
    targets: list[str]  # identifiers the question names
    warnings: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    sliced: int = 0
    files: list[str] = field(default_factory=list)  # file names and paths the question names

    def to_prompt_context(self) -> str:
        return prompt_context(self.snippets)


def _last(name: str | None) -> str:
    return (name or "").rsplit(".", 1)[-1].lower()


def evidence_role(hit: Hit, targets: list[str]) -> str:
    if is_test_path(hit.file_path):
        return "test"
    if hit.relation in ("caller", "callee"):
        return hit.relation
    if hit.kind in DEFINITION_KINDS:
        names = {_last(t) for t in targets}
        if _last(hit.symbol_name) in names or (not targets and hit.rank <= 3):
            return "definition"
        return "related"
    if hit.relation == "importer":
        return "related"
    return "context"


def selection_reason(hit: Hit, role: str, cut: tuple[int, int, int] | None = None) -> str:
    """The full reason the bundle stores (its prompt form is core/text/prompt_layout.prompt_reason's)."""
    found = tuple(Found(METHOD_WORDS.get(m, m), hit.method_ranks[m],
                        hit.method_scores.get(m, 0.0) if m == "bm25" else None, hit.matches.get(m, ""))
                  for m in sorted(hit.method_ranks, key=lambda m: hit.method_ranks[m]))
    return full_reason(Reason(hit.rank, role, found, cut))


def _slice(hit: Hit, text_lines: list[str], terms: set[str], limit: int,
           tok: Tokenizer) -> tuple[int, int, int] | None:
    """The 0-based inclusive line range of the best-matching contiguous slice within `limit` tokens and its exact
    token count, or None."""
    counts = [len(tok.encoding.encode_ordinary(line)) + 1 for line in text_lines]
    # the symbol's own name is in the snippet header already: lines matter for the other terms they match
    terms = terms - set(code_tokens(hit.symbol_name or ""))
    scores: list[float] = [len(terms.intersection(code_tokens(line))) for line in text_lines]
    if hit.kind in DEFINITION_KINDS:
        scores[0] += 0.5  # between equal slices, the one with the signature
    best: tuple[int, int] | None = None
    best_score: float = -1
    window_score: float = 0
    j, window_tokens = -1, 0
    for i in range(len(text_lines)):
        if j < i - 1:
            j, window_tokens, window_score = i - 1, 0, 0
        while j + 1 < len(text_lines) and window_tokens + counts[j + 1] <= limit:
            j += 1
            window_tokens += counts[j]
            window_score += scores[j]
        if j >= i and window_score > best_score:
            best, best_score = (i, j), window_score
        if j >= i:
            window_tokens -= counts[i]
            window_score -= scores[i]
    if best is None:
        return None
    i, j = best
    while i < j and not text_lines[i].strip():
        i += 1
    n_tokens = limit + 1
    while j >= i:
        while j > i and not text_lines[j].strip():
            j -= 1
        n_tokens = tok.count("\n".join(text_lines[i:j + 1]))
        if n_tokens <= limit or j == i:  # per-line counts are close, not exact: trim until the exact count fits
            break
        j -= 1
    return (i, j, n_tokens) if n_tokens <= limit else None


def _cut(hit: Hit, lines: list[str], terms: set[str], limit: int, tok: Tokenizer,
         seen: dict[str, str]) -> tuple[int, int, int] | None:
    """The lines to keep of a chunk over `limit`: those that best match the question; when they repeat a kept snippet
    (plugins share decorators and boilerplate), the chunk's first lines, which name what it defines."""
    cut = _slice(hit, lines, terms, limit, tok)
    if cut is not None and content_hash("\n".join(lines[cut[0]:cut[1] + 1])) in seen:
        return _slice(hit, lines, set(), limit, tok)  # no term scores: the first lines win (the signature's bonus)
    return cut


def _spread(hits: list[Hit]) -> list[Hit]:
    """Rank order, except that a file's hits beyond its first PER_FILE wait until every file had its turn (the best
    NEVER_WAITS hits excepted): a small budget then covers more of the files a question needs instead of one file's
    many chunks."""
    first: list[Hit] = []
    later: list[Hit] = []
    per_file: dict[str, int] = {}
    for hit in sorted(hits, key=lambda h: h.rank):
        per_file[hit.file_path] = per_file.get(hit.file_path, 0) + 1
        (first if per_file[hit.file_path] <= PER_FILE or hit.rank <= NEVER_WAITS else later).append(hit)
    return first + later


def _snippet(hit: Hit, text: str, n_tokens: int, start: int, end: int, role: str, reason: str) -> EvidenceSnippet:
    return EvidenceSnippet(hit.chunk_id, content_hash(text), text, n_tokens, hit.file_path, start, end,
                           hit.symbol_name, hit.method, hit.score, hit.rank, reason, role)


def _drop(pack: ContextPack, item: Hit | EvidenceSnippet, role: str, why: str, same_as: str = "") -> None:
    pack.dropped.append(Dropped(item.file_path, item.start_line, item.end_line, item.symbol_name, role, why,
                                item.chunk_id, same_as))


def _describe(hit: Hit) -> str:
    return f"{hit.file_path}:{hit.start_line}-{hit.end_line}" + (f" ({hit.symbol_name})" if hit.symbol_name else "")


def compile_context(question: str | QuestionInfo, hits: list[Hit], token_budget: int,
                    tokenizer: str = "o200k_base") -> ContextPack:
    """The pack for a question: pass retrieval's QuestionInfo (a text is analysed the same way)."""
    if token_budget <= 0:
        raise UserError(f"token budget: must be a positive number of tokens, got {token_budget}")
    tok = get_tokenizer(tokenizer)
    info = analyse_question(question)
    targets = list(info.identifiers)
    terms = set(info.terms)
    pack = ContextPack(info.text, info.question_type, [], token_budget, 0, tok.id, [], targets,
                       files=list(info.files))
    separator = tok.count(SNIPPET_SEPARATOR)
    slice_limit = max(token_budget // SNIPPET_SHARE, min(SNIPPET_FLOOR, MIN_SLICE_TOKENS + token_budget // 10))
    seen: dict[str, str] = {}
    used = 0
    budget_dropped: list[Hit] = []
    for hit in _spread(hits):
        role = evidence_role(hit, targets)
        digest = content_hash(hit.text)
        if digest in seen:
            _drop(pack, hit, role, "duplicate", seen[digest])
            pack.warnings.append(f"{_describe(hit)} has the same content as {seen[digest]}; kept once")
            continue
        remaining = token_budget - used - (separator if pack.snippets else 0)
        if remaining < MIN_SLICE_TOKENS:
            budget_dropped.append(hit)
            _drop(pack, hit, role, "budget")
            continue
        lines = hit.text.split("\n")
        reason = selection_reason(hit, role)
        label = len(pack.snippets) + 1
        overhead = tok.count(_snippet(hit, "", 0, hit.start_line, hit.end_line, role, reason).prompt_block(label))
        text, start, end = hit.text, hit.start_line, hit.end_line
        n_tokens = hit_tokens = hit.token_count if hit.tokenizer == tok.id else tok.count(text)
        limit = min(slice_limit, remaining - overhead - 1)
        if n_tokens > limit:
            cut = _cut(hit, lines, terms, limit, tok, seen) if limit >= MIN_SLICE_TOKENS else None
            if cut is None:
                budget_dropped.append(hit)
                _drop(pack, hit, role, "budget")
                continue
            i, j, n_tokens = cut
            text, start, end = "\n".join(lines[i:j + 1]), hit.start_line + i, hit.start_line + j
            reason = selection_reason(hit, role, (hit.start_line, hit.end_line, end - start + 1))
            pack.warnings.append(f"{_describe(hit)} cut to lines {start}-{end} ({hit_tokens} tokens would not fit)")
            pack.sliced += 1
        snippet = _snippet(hit, text, n_tokens, start, end, role, reason)
        if snippet.content_hash in seen:  # a slice can equal a kept snippet even when the whole chunks differ
            _drop(pack, hit, role, "duplicate", seen[snippet.content_hash])
            pack.warnings.append(f"{_describe(hit)} cut to the same lines as {seen[snippet.content_hash]}; kept once")
            continue
        pack.snippets.append(snippet)
        seen[digest] = seen[snippet.content_hash] = f"{hit.file_path}:{hit.start_line}-{hit.end_line}"
        # header and text counted apart add up to within a token or two of the block; the exact total is checked below
        used += overhead + n_tokens + 1 + (separator if label > 1 else 0)
    total = tok.count(prompt_context(pack.snippets))
    while total > token_budget and pack.snippets:  # block counts add up closely but not exactly: trust only the whole
        gone = pack.snippets.pop()
        _drop(pack, gone, gone.evidence_role or "related", "budget")
        pack.warnings.append(f"{gone.file_path}:{gone.start_line}-{gone.end_line} removed to keep the exact total "
                             f"within {token_budget} tokens")
        total = tok.count(prompt_context(pack.snippets))
    if budget_dropped:
        first = budget_dropped[0]
        pack.warnings.append(f"{len(budget_dropped)} lower-ranked hit(s) did not fit the {token_budget}-token budget "
                             f"(best of them: {_describe(first)}, rank {first.rank})")
    pack.total_tokens = total
    by_chunk = {h.chunk_id: h for h in hits}
    methods = {m for s in pack.snippets for m in by_chunk[s.chunk_id].method_ranks}
    known = ("bm25", "vector", "symbol", "path", "graph")
    pack.retrieval_strategies_used = [m for m in known if m in methods] + sorted(methods - set(known))
    if len(methods) > 1:
        pack.retrieval_strategies_used.append("rrf_fusion")
    return pack


def coverage_notes(pack: ContextPack) -> list[str]:
    """What the evidence covers and what it does not, in plain sentences."""
    snippets = pack.snippets
    named = [_named_file_note(name, snippets, pack.dropped) for name in pack.files]
    if not snippets:
        why = f"; {len(pack.dropped)} hit(s) did not fit the budget" if pack.dropped else ""
        return [f"no evidence for this question was found in the index{why}"] + named
    notes = []
    for target in pack.targets:
        name = _last(target)
        found = [s for s in snippets if s.evidence_role == "definition" and _last(s.symbol_name) == name]
        if found:
            s = found[0]
            notes.append(f"definition of {target} found ({s.file_path}:{s.start_line}-{s.end_line})")
        elif any(d.evidence_role == "definition" and _last(d.symbol_name) == name for d in pack.dropped):
            notes.append(f"definition of {target} was retrieved but did not fit the token budget")
        else:
            notes.append(f"no definition of {target} found in the evidence")
    notes.extend(named)
    if pack.question_type == "relationship":
        for role, plural in (("caller", "callers"), ("callee", "callees")):
            present = [s.symbol_name or f"{s.file_path}:{s.start_line}" for s in snippets if s.evidence_role == role]
            left_out = sum(1 for d in pack.dropped if d.evidence_role == role and d.why == "budget")
            if present:
                notes.append(f"{len(present)} {plural if len(present) > 1 else role} found: {', '.join(present[:6])}"
                             + (f" ({left_out} more left out for the budget)" if left_out else ""))
            elif left_out:
                notes.append(f"{left_out} {plural} found but left out for the token budget")
            else:
                notes.append(f"no {plural} found in the index")
    tests = [s for s in snippets if s.evidence_role == "test"]
    notes.append(f"{len(tests)} test snippet(s) included" if tests else "no tests in the evidence")
    files = list(dict.fromkeys(s.file_path for s in snippets))
    notes.append(f"evidence from {len(files)} file(s): {', '.join(files[:8])}" + (" ..." if len(files) > 8 else ""))
    if pack.sliced:
        notes.append(f"{pack.sliced} snippet(s) cut to the lines that match; the rest of those chunks is not shown")
    left_out = sum(1 for d in pack.dropped if d.why == "budget")
    if left_out:
        notes.append(f"{left_out} further hit(s) left out for the {pack.token_budget}-token budget")
    return notes


def _names_file(path: str, name: str) -> bool:
    """settings.toml names gradedesk/settings.toml; core/cli/main.py names itself (a file name is matched whole)."""
    return path == name or path.endswith("/" + name)


def _named_file_note(name: str, snippets: list[EvidenceSnippet], dropped: list[Dropped]) -> str:
    shown = [s for s in snippets if _names_file(s.file_path, name)]
    if shown:
        places = ", ".join(f"{s.start_line}-{s.end_line}" for s in shown[:4]) + (" ..." if len(shown) > 4 else "")
        return f"file {name} is in the evidence ({shown[0].file_path}, lines {places})"
    if any(_names_file(d.file_path, name) and d.why == "budget" for d in dropped):
        return f"file {name} was retrieved but did not fit the token budget"
    return f"file {name}, named in the question, is not in the evidence"


def build_bundle(pack: ContextPack) -> EvidenceBundle:
    """The pack as an EvidenceBundle; it always passes core.bundle.validate (anything else is a bug, raised)."""
    bundle = EvidenceBundle(
        question=pack.question, question_type=pack.question_type, snippets=list(pack.snippets),
        total_tokens=pack.total_tokens, token_budget=pack.token_budget,
        retrieval_strategies_used=list(pack.retrieval_strategies_used), coverage_notes=coverage_notes(pack),
        compiler_version=COMPILER_VERSION, warnings=list(pack.warnings), tokenizer=pack.tokenizer)
    problems = validate(bundle)
    if problems:
        raise AssertionError("compiler made an invalid bundle: " + "; ".join(str(p) for p in problems))
    return bundle


def ask(store: Store, question: str, repo: str | None = None, budget: int = 4000,
        embedder: Embedder | None = None) -> EvidenceBundle:
    """retrieve → compile → bundle, under the repository's tokenizer; with an embedder, vector search joins."""
    from gradedesk.core.index.indexer import resolve_repo

    record = resolve_repo(store, repo)
    info = analyse_question(question)
    vector = embed_question(store, record, embedder, info.text) if embedder else None
    hits = retrieve(store, info, repo=record, k=CANDIDATE_HITS, query_vector=vector)
    return build_bundle(compile_context(info, hits, budget, tokenizer=record.tokenizer))
