"""Compile ranked hits into a token-budgeted context pack, and a pack into a contract-checked evidence bundle.

compile_context (compiler 5 on) puts the answer first. Candidates are considered in tiers, each in rank order, the
question's subject before breadth (_subject_first: the definitions of what the question names and the ALWAYS_FIRST best
hits, then top hits two retrieval methods agree on, the subject's callers and callees, the best hits' classes and files,
the files of the top hits, then the rest, a small first hit of each other file before it). Each is
kept whole when it fits within a per-snippet limit (a SNIPPET_SHARE of the budget, a TOP_SHARE for the ALWAYS_FIRST
best hits, at least SNIPPET_FLOOR tokens), else cut: a definition to its
signature and first body lines (a long docstring left out behind an elision line, comment lines left out, blank lines
keeping every line at its number), other text to the contiguous lines that best match the question. A candidate not
kept is left out for one reason of a fixed list (LEFT_OUT_REASONS), each true of the compiler's ledger at that moment: a duplicate of kept
evidence (content-level: normalized text hashes, not chunk ids), displaced (its lines inside kept evidence), did not
fit (its smallest useful cut, header included, needed more than the tokens then free, by the exact count of the context
so far), or taken out last to keep the exact total. Each snippet gets an evidence role and a selection reason (which
methods found it, what matched, any cut: the bundle stores it in full, the prompt carries its brief form,
core/text/prompt_layout). The exact token count of the whole prompt context stays within the budget.
Everything dropped or cut is a warning. build_bundle adds coverage notes that say what is present and what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradedesk.core.evidence.bundle import COMPILER_VERSION, EvidenceBundle, EvidenceSnippet, prompt_context, validate
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR
from gradedesk.core.text.selection_reason import METHOD_WORDS, Cut, Found, Reason, full_reason
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.text.codeterms import code_tokens
from gradedesk.core.evidence.cuts import cut_lines, line_counts, prose_left_out
from gradedesk.core.errors import UserError
from gradedesk.core.text.question import QuestionInfo, analyse_question
from gradedesk.core.retrieval.hybrid import DEFINITION_KINDS, Hit, is_test_path, retrieve, unindexed_files
from gradedesk.core.retrieval.graph import reached_from
from gradedesk.core.retrieval.vectors import Embedder, embed_question
from gradedesk.core.store.connection import Store
from gradedesk.core.text.tokens import Tokenizer, get_tokenizer

MIN_SLICE_TOKENS = 40  # a cut smaller than this is not worth its header (a header and its brief reason: ~25-35)
# A snippet may take up to a SNIPPET_SHARE of the budget (never less than SNIPPET_FLOOR tokens): the best hits come
# near whole, and a small budget still holds several of them (benchmarks/retrieval_bench.py, code coverage on the
# natural sets' tuned share).
SNIPPET_FLOOR = 160
SNIPPET_SHARE = 8
TOP_SHARE = 3  # the ALWAYS_FIRST best hits may take up to a third of the budget each: they answer most often, whole
CANDIDATE_HITS = 40  # hits `ask` retrieves to fill a budget
ALWAYS_FIRST = 3  # the best fused hits are part of the subject: no named definition goes before them
NEAR_RANK = 10  # the top of the ranking raw top-k shows: its files are where breadth looks first
SMALL_HIT = 150  # tokens: a far file's best hit this small shows the file at little cost
# From this budget up, every top-NEAR_RANK hit comes right after the subject: the budget holds raw top-10 (about 1,900
# tokens on the natural sets) twice over, and breadth from the best hits' files had crowded top-10 hits out at 4,000
# (file recall and code coverage both gained on reflex's tuned share). Below it the best hits' classes and files go
# first: they carry more of the answering code per token when little fits.
NEAR_FIRST_BUDGET = 4000

# Why a candidate is not in the bundle: the fixed list. Each is given at the moment the candidate is considered and
# is true of the ledger then (tests/core/evidence/test_ledger.py checks every one).
DUPLICATE = "duplicate"  # its text (whole, or the cut it would get) is the text of kept evidence
DID_NOT_FIT = "did not fit"  # its smallest useful cut, header included, needed more tokens than were free
DISPLACED = "displaced"  # its lines lie inside kept evidence of the same file, kept for a better-ranked hit
OVER_TOTAL = "over total"  # kept, then taken out last: the exact count of the whole context was over the budget
LEFT_OUT_REASONS = (DUPLICATE, DID_NOT_FIT, DISPLACED, OVER_TOTAL)


@dataclass
class Dropped:
    """A candidate left out, and the ledger's numbers at the moment it was: the tokens then free and the tokens its
    smallest useful cut needed (a did-not-fit is true only when need > free)."""
    file_path: str
    start_line: int
    end_line: int
    symbol_name: str | None
    evidence_role: str
    why: str  # one of LEFT_OUT_REASONS
    chunk_id: str = ""  # the candidate left out (explore lists them by chunk id)
    same_as: str = ""  # a duplicate or a displaced hit: path:a-b of the kept evidence
    free: int = 0
    need: int = 0
    rank: int = 0  # fused rank of the candidate
    kept_before: int = 0  # snippets in the bundle at that moment (its first kept_before snippets)


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
    unindexed: tuple[str, ...] = ()  # of those, the ones no indexed file of the repository is

    def to_prompt_context(self) -> str:
        return prompt_context(self.snippets)


def _last(name: str | None) -> str:
    return (name or "").rsplit(".", 1)[-1].lower()


def _owner(name: str) -> str:
    """The class a method belongs to (Clipboard for Clipboard.create), a top-level name itself."""
    return name.split(".", 1)[0]


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


def selection_reason(hit: Hit, role: str, cut: Cut | None = None) -> str:
    """The full reason the bundle stores (its prompt form is core/text/prompt_layout.prompt_reason's)."""
    found = tuple(Found(METHOD_WORDS.get(m, m), hit.method_ranks[m],
                        hit.method_scores.get(m, 0.0) if m == "bm25" else None, hit.matches.get(m, ""))
                  for m in sorted(hit.method_ranks, key=lambda m: hit.method_ranks[m]))
    return full_reason(Reason(hit.rank, role, found, cut))


def _subject_first(hits: list[Hit], roles: dict[str, str], targets: list[str], terms: set[str],
                   budget: int) -> list[Hit]:
    """The order candidates are considered in: the question's subject, then breadth, each tier in rank order.

    0. The subject: the definitions of what the question names (with no names, the best-ranked definitions) and the
       ALWAYS_FIRST best hits, whatever they are.
    1. Hits of the top NEAR_RANK that two retrieval methods each rank in their own top NEAR_RANK (with vectors, the
       lexical and the vector search agreeing): they carried answering code most often after the subject. From
       NEAR_FIRST_BUDGET up, every hit of the top NEAR_RANK.
    2. The subject's callers and callees (graph hits reached from one of its definitions). Graph hits reached from
       other hits are breadth: promoted, they cost code coverage at every budget.
    3. The methods of a best hit's class, then 4. the rest of the best hits' files: the code that answers clusters
       there.
    5. Hits in the files of the top NEAR_RANK hits, or whose names are mostly the question's words.
    6. From every other file, its best-ranked small hit (SMALL_HIT tokens or fewer; a large first hit does not keep
       a small later one back): the file is shown at little cost (file recall), then 7. everything else.
    On the natural sets' tuned share (benchmarks/retrieval_bench.py) a hit of tier 7 carried answering code about once
    in 250, one of tiers 3-5 about once in ten."""
    subject = {_last(h.symbol_name) for h in hits if roles[h.chunk_id] == "definition"} if targets else set()
    best = [h for h in hits if h.rank <= ALWAYS_FIRST]
    top_files = {h.file_path for h in best}
    top_owners = {_owner(h.symbol_name) for h in best if h.symbol_name}
    near_files = {h.file_path for h in hits if h.rank <= NEAR_RANK}
    small_of_file: dict[str, str] = {}  # each file's best-ranked hit of at most SMALL_HIT tokens
    for hit in sorted(hits, key=lambda h: h.rank):
        if hit.token_count <= SMALL_HIT:
            small_of_file.setdefault(hit.file_path, hit.chunk_id)

    def named(hit: Hit) -> bool:
        words = set(code_tokens(hit.symbol_name or ""))
        return bool(words) and 2 * len(words & terms) >= len(words)

    near_first = budget >= NEAR_FIRST_BUDGET

    def tier(hit: Hit) -> int:
        if roles[hit.chunk_id] == "definition" or hit.rank <= ALWAYS_FIRST:
            return 0
        if hit.rank <= NEAR_RANK and (near_first or sum(r <= NEAR_RANK for r in hit.method_ranks.values()) >= 2):
            return 1
        via = reached_from(hit.matches.get("graph", ""))
        if via and _last(via) in subject:
            return 2
        if hit.file_path in top_files:
            return 3 if hit.symbol_name and _owner(hit.symbol_name) in top_owners else 4
        if hit.file_path in near_files or named(hit):
            return 5
        return 6 if small_of_file.get(hit.file_path) == hit.chunk_id else 7

    return sorted(hits, key=lambda h: (tier(h), h.rank))


def _snippet(hit: Hit, text: str, n_tokens: int, start: int, end: int, role: str, reason: str) -> EvidenceSnippet:
    return EvidenceSnippet(hit.chunk_id, content_hash(text), text, n_tokens, hit.file_path, start, end,
                           hit.symbol_name, hit.method, hit.score, hit.rank, reason, role)


def _describe(hit: Hit | Dropped) -> str:
    return f"{hit.file_path}:{hit.start_line}-{hit.end_line}" + (f" ({hit.symbol_name})" if hit.symbol_name else "")


def _place(item: Hit | EvidenceSnippet) -> str:
    return f"{item.file_path}:{item.start_line}-{item.end_line}"


class _Packer:
    """The compiler's ledger while it packs: the tokens used, the kept evidence's texts and lines, every decision."""

    def __init__(self, pack: ContextPack, tok: Tokenizer, terms: set[str]) -> None:
        self.pack, self.tok, self.terms = pack, tok, terms
        self.separator = tok.count(SNIPPET_SEPARATOR)
        budget = pack.token_budget
        self.limit = max(SNIPPET_FLOOR, budget // SNIPPET_SHARE)
        self.top_limit = max(SNIPPET_FLOOR, budget // TOP_SHARE)
        self.used = 0  # the kept blocks' counts added up: within a token or two per block of the exact count
        self.exact_at = -1  # the number of snippets when `used` was last set to the exact count of the context
        self.head, self.head_blocks = 0, 0  # the exact count of the context's first head_blocks blocks, separators in
        self.seen: dict[str, str] = {}  # content hash of kept text (whole chunk and cut) -> the kept evidence's place
        self.kept_lines: dict[str, list[tuple[int, int, str]]] = {}  # file -> (first, last, place) of kept evidence

    def leave_out(self, hit: Hit, role: str, why: str, same_as: str = "", free: int = 0, need: int = 0) -> None:
        self.pack.dropped.append(Dropped(hit.file_path, hit.start_line, hit.end_line, hit.symbol_name, role, why,
                                         hit.chunk_id, same_as, free, need, hit.rank, len(self.pack.snippets)))
        if why == DUPLICATE:
            self.pack.warnings.append(f"{_describe(hit)} has the same content as {same_as}; kept once")
        elif why == DISPLACED:
            self.pack.warnings.append(f"{_describe(hit)} lies inside {same_as}, kept for a better-ranked hit")

    def inside_kept(self, hit: Hit) -> str:
        for first, last, place in self.kept_lines.get(hit.file_path, []):
            if first <= hit.start_line and hit.end_line <= last:
                return place
        return ""

    def exact_free(self) -> int:
        """The tokens free after the exact count of the context so far (counted once per number of snippets).

        Counted in parts, each block once: a tiktoken encoding never makes one token of a newline and the
        non-space character after it (its pre-tokenizer splits there), and every block starts with `[Evidence` after
        the separator's last newline, so the context's count is the count of its head (the blocks before the last,
        separators in) plus the last block's."""
        pack, n = self.pack, len(self.pack.snippets)
        if self.exact_at != n:
            for i in range(self.head_blocks, n - 1):
                self.head += self.tok.count(pack.snippets[i].prompt_block(i + 1) + SNIPPET_SEPARATOR)
            self.head_blocks = max(n - 1, 0)
            self.used = self.head + (self.tok.count(pack.snippets[-1].prompt_block(n)) if n else 0)
            self.exact_at = n
        return pack.token_budget - self.used - (self.separator if n else 0)

    def consider(self, hit: Hit, role: str) -> None:
        pack, tok = self.pack, self.tok
        digest = content_hash(hit.text)
        if digest in self.seen:
            self.leave_out(hit, role, DUPLICATE, self.seen[digest])
            return
        inside = self.inside_kept(hit)
        if inside:
            self.leave_out(hit, role, DISPLACED, inside)
            return
        label = len(pack.snippets) + 1
        free = pack.token_budget - self.used - (self.separator if pack.snippets else 0)
        reason = selection_reason(hit, role)
        overhead = tok.count(_snippet(hit, "", 0, hit.start_line, hit.end_line, role, reason).prompt_block(label))
        lines = hit.text.split("\n")
        n_tokens = hit_tokens = hit.token_count if hit.tokenizer == tok.id else tok.count(hit.text)
        own_limit = self.top_limit if hit.rank <= ALWAYS_FIRST else self.limit
        if overhead + 1 + min(hit_tokens, own_limit) > free:
            free = self.exact_free()  # room is short: decide, and state a did-not-fit, on the exact count
        smallest = overhead + 1 + min(hit_tokens, MIN_SLICE_TOKENS)
        if smallest > free:
            self.leave_out(hit, role, DID_NOT_FIT, free=free, need=smallest)
            return
        text, start, end = hit.text, hit.start_line, hit.end_line
        limit = min(own_limit, free - overhead - 1)
        gap, comments = None, set[int]()
        if hit.kind in DEFINITION_KINDS:  # a definition's prose gives way to its code, whole or cut
            lines, gap, comments = prose_left_out(lines, hit.start_line)
        if gap or n_tokens > limit:
            counts = line_counts(lines, tok)
            cut = cut_lines(hit, lines, counts, self.terms, limit, tok)
            if cut is None:  # its first line alone is longer than the limit: it may take what is free
                need = overhead + 1 + tok.count(lines[0])
                if need > free:
                    self.leave_out(hit, role, DID_NOT_FIT, free=free, need=need)
                    return
                cut = (0, 0, need - overhead - 1)  # the first line, which fits what is free
            i, j, n_tokens = cut
            text, start, end = "\n".join(lines[i:j + 1]), hit.start_line + i, hit.start_line + j
            how = "first" if hit.kind in DEFINITION_KINDS else "match"
            gap = gap if gap and gap[0] <= end else None
            if gap and gap[1] > end:
                gap = (gap[0], end)
            left_out = sum(i <= n <= j for n in comments)
            cut_made = Cut(hit.start_line, hit.end_line, end - start + 1, how, gap, left_out)
            reason = selection_reason(hit, role, cut_made)
            why = f"{hit_tokens} tokens would not fit" if hit_tokens > limit else "whole, it would fit"
            pack.warnings.append(f"{_describe(hit)} cut to lines {start}-{end}{cut_made.prose_left_out()} ({why})")
            pack.sliced += 1
            if content_hash(text) in self.seen:  # a cut can equal kept evidence even when the whole chunks differ
                self.leave_out(hit, role, DUPLICATE, self.seen[content_hash(text)])
                return
        snippet = _snippet(hit, text, n_tokens, start, end, role, reason)
        pack.snippets.append(snippet)
        self.seen[digest] = self.seen[snippet.content_hash] = _place(hit)
        self.kept_lines.setdefault(hit.file_path, []).append((hit.start_line, hit.end_line, _place(hit)))
        # header and text counted apart add up to within a token or two of the block; the exact total is checked last
        self.used += overhead + n_tokens + 1 + (self.separator if label > 1 else 0)


def compile_context(question: str | QuestionInfo, hits: list[Hit], token_budget: int,
                    tokenizer: str = "o200k_base", unindexed: tuple[str, ...] = ()) -> ContextPack:
    """The pack for a question: pass retrieval's QuestionInfo (a text is analysed the same way), and the file names it
    gives that the index does not hold (hybrid.unindexed_files), so a note does not call them missing evidence."""
    if token_budget <= 0:
        raise UserError(f"token budget: must be a positive number of tokens, got {token_budget}")
    tok = get_tokenizer(tokenizer)
    info = analyse_question(question)
    targets = list(info.identifiers)
    pack = ContextPack(info.text, info.question_type, [], token_budget, 0, tok.id, [], targets,
                       files=list(info.files), unindexed=unindexed)
    packer = _Packer(pack, tok, set(info.terms))
    roles = {h.chunk_id: evidence_role(h, targets) for h in hits}
    for hit in _subject_first(hits, roles, targets, set(info.terms), token_budget):
        packer.consider(hit, roles[hit.chunk_id])
    total = tok.count(prompt_context(pack.snippets))
    while total > token_budget and pack.snippets:  # block counts add up closely but not exactly: trust only the whole
        gone = pack.snippets.pop()
        pack.dropped.append(Dropped(gone.file_path, gone.start_line, gone.end_line, gone.symbol_name,
                                    gone.evidence_role or "related", OVER_TOTAL, gone.chunk_id,
                                    rank=gone.retrieval_rank, kept_before=len(pack.snippets)))
        pack.warnings.append(f"{gone.file_path}:{gone.start_line}-{gone.end_line} removed to keep the exact total "
                             f"within {token_budget} tokens")
        total = tok.count(prompt_context(pack.snippets))
    unfit = [d for d in pack.dropped if d.why in (DID_NOT_FIT, OVER_TOTAL)]
    if unfit:
        first = min(unfit, key=lambda d: d.rank)
        pack.warnings.append(f"{len(unfit)} hit(s) did not fit the {token_budget}-token budget "
                             f"(best of them: {_describe(first)}, rank {first.rank})")
    pack.dropped.sort(key=lambda d: d.rank)
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
    named = [_named_file_note(name, snippets, pack.dropped, name in pack.unindexed) for name in pack.files]
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
            left_out = sum(1 for d in pack.dropped if d.evidence_role == role and d.why in (DID_NOT_FIT, OVER_TOTAL))
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
        notes.append(f"{pack.sliced} snippet(s) cut to fit: a definition to its signature and first lines (a long "
                     f"docstring left out), other text to the lines that match; the rest of those chunks is not shown")
    left_out = sum(1 for d in pack.dropped if d.why in (DID_NOT_FIT, OVER_TOTAL))
    if left_out:
        notes.append(f"{left_out} further hit(s) left out for the {pack.token_budget}-token budget")
    return notes


def _names_file(path: str, name: str) -> bool:
    """settings.toml names gradedesk/settings.toml; core/cli/main.py names itself (a file name is matched whole)."""
    return path == name or path.endswith("/" + name)


def _named_file_note(name: str, snippets: list[EvidenceSnippet], dropped: list[Dropped], unindexed: bool) -> str:
    if unindexed:
        return f"file {name}, named in the question, is not a file of the indexed repository"
    shown = [s for s in snippets if _names_file(s.file_path, name)]
    if shown:
        places = ", ".join(f"{s.start_line}-{s.end_line}" for s in shown[:4]) + (" ..." if len(shown) > 4 else "")
        return f"file {name} is in the evidence ({shown[0].file_path}, lines {places})"
    if any(_names_file(d.file_path, name) and d.why in (DID_NOT_FIT, OVER_TOTAL) for d in dropped):
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
    absent = unindexed_files(store, record, info.files)
    return build_bundle(compile_context(info, hits, budget, tokenizer=record.tokenizer, unindexed=absent))
