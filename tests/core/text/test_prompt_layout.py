"""The prompt's text layout (core/text/prompt_layout.py): what its writers write, its parsers read back equal; and a
prompt built by the real writers (raw and bundled) is read back by the real readers (the offline answerer, the claim
splitter, the desk's blind view)."""

from __future__ import annotations

import itertools

import pytest

from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.claims import split_claims
from gradedesk.core.grading.llm_io import format_evidence
from gradedesk.core.providers.offline import extractive_answer
from gradedesk.core.retrieval.hybrid import Hit
from gradedesk.core.review.blind import neutral_answer
from gradedesk.core.runs.prompts import bundle_messages, raw_messages
from gradedesk.core.text.matching import find_citations
from gradedesk.core.text.selection_reason import (METHOD_WORDS, Cut, Found, Reason, brief_reason, full_reason,
                                                   read_reason)
from gradedesk.core.text.prompt_layout import (
    CONTEXT_MARK,
    SNIPPET_SEPARATOR,
    CitationRef,
    Header,
    bundle_block,
    cite,
    enclosed,
    evidence_header,
    file_header,
    grader_header,
    is_citation,
    parse_header,
    parse_question,
    parse_reason,
    place,
    read_block_start,
    read_citations,
    reason_line,
    user_message,
)

PATHS = ["core/store.py", "README.md", "a/b-c/d_e.x.py", "tests/__init__.py", "benchmarks/desk_scale.py"]
LINES = [(10, 20), (1, 1), (None, None)]
SYMBOLS = [None, "open_store", "Store.transaction", "Outer.inner.__call__"]
METHODS = [("bm25", 1.2346), ("symbol", 0.5), ("path", 0.0), ("graph", -0.0312), ("vector-x", 12.0)]
HEADERS = [Header(label, path, a, b, symbol, method, score)
           for label, (path, (a, b), symbol, (method, score)) in enumerate(
               itertools.product(PATHS, LINES, SYMBOLS, METHODS), start=1)]


def place_only(h: Header, label: int | None) -> Header:
    return Header(label, h.path, h.start_line, h.end_line)


def test_every_header_reads_back_as_written():
    assert len(HEADERS) == 300
    for h in HEADERS:
        assert parse_header(evidence_header(h)) == h
        assert parse_header(f"  {evidence_header(h)}\t") == h  # copied into an answer, indented
        assert read_block_start(evidence_header(h)) == place_only(h, h.label)  # a prompt's block starts here
        assert read_block_start(file_header(h)) == place_only(h, None)
        assert read_block_start(grader_header(h)) == place_only(h, h.label)
        assert not h.symbol or grader_header(h).endswith(f" :: {h.symbol}")
        assert parse_header(file_header(h)) is None and parse_header(evidence_header(h) + " and more") is None


BRIEFS = ["definition via symbol match, BM25", "callee via call graph (subclassed by Blueprint), BM25", "test via x"]


def test_every_header_with_a_brief_reason_reads_back_as_written():
    for h, brief in itertools.product(HEADERS[::7], BRIEFS):
        with_reason = Header(h.label, h.path, h.start_line, h.end_line, h.symbol, reason=brief)
        assert evidence_header(with_reason).endswith(f" [{brief}]")
        assert parse_header(evidence_header(with_reason)) == with_reason
        assert read_block_start(evidence_header(with_reason)) == place_only(h, h.label)


ROLES = ["definition", "caller", "callee", "test", "related", "context"]
FOUND = [Found("BM25", 10, 9.2611, "terms 'static', 'serve'"),
         Found("symbol match", 1, None, "symbol 'X' is defined here"),
         Found("call graph", 2, None, "called by Store.open()"),
         Found("vector search", 7, None, "cosine similarity 0.812"),
         Found("path match", 3, None, "file 'a; b.py' is named in the question"), Found("BM25", 1, 0.5, ""),
         Found("bm25_window", 4, None, "")]


@pytest.mark.parametrize("role", ROLES)
def test_every_full_reason_reads_back_and_its_brief_form_names_role_and_methods(role):
    for n, cut in itertools.product(range(len(FOUND) + 1), [None, Cut(52, 73, 15), Cut(52, 73, 15, "first"), Cut(52, 73, 9, "first", (54, 60)),
                                                                       Cut(52, 73, 9, "first", (54, 60), 3), Cut(52, 73, 9, "first", None, 1)]):
        found = tuple(FOUND[:n])
        reason = Reason(n + 1, role, found, cut)
        read = read_reason(full_reason(reason))
        assert read is not None
        assert read == Reason(n + 1, role, tuple(f if f.score is None else Found(f.method, f.rank, round(f.score, 2),
                                                                                   f.note) for f in found), cut)
        brief = brief_reason(reason)
        assert brief.startswith(f"{role} via ") and all(f.method in brief for f in found)
        assert len(brief) < len(full_reason(reason)) and "[" not in brief and "]" not in brief
    assert brief_reason(Reason(1, "callee", (FOUND[2], FOUND[0]))) == \
        "callee via call graph (called by Store.open()), BM25"
    assert brief_reason(Reason(1, "definition", (FOUND[4],))) == "definition via path match (file named)"
    assert set(METHOD_WORDS.values()) <= {f.method for f in FOUND}


@pytest.mark.parametrize("text", ["Defines open_store, named in the question.", "Fused rank 1 as definition evidence.",
                                  "Fused rank x as definition evidence, found by BM25 rank 1."])
def test_other_reasons_are_not_read_as_full_reasons(text):
    assert read_reason(text) is None


def test_the_headers_are_written_as_the_prompts_show_them():
    h = Header(2, "core/store.py", 10, 20, "Store.open", "bm25", 0.81234)
    assert evidence_header(h) == "[Evidence 2] core/store.py:10-20 :: Store.open [bm25, fused 0.8123]"
    assert evidence_header(Header(3, "a.py", 7, 7)) == "[Evidence 3] a.py:7"
    assert file_header(h) == "File: core/store.py (lines 10-20)"
    assert grader_header(h) == "[Evidence 2] core/store.py (lines 10-20) :: Store.open"
    assert grader_header(Header(1, "")) == "[Evidence 1] (no file)"


@pytest.mark.parametrize("line,header", [
    ("[Evidence 2] core/store.py:10-20 :: Store.open [definition via BM25]",
     Header(2, "core/store.py", 10, 20, "Store.open", reason="definition via BM25")),
    ("[Evidence 3] a.py:7 [callee via call graph (called by f)]", Header(3, "a.py", 7, 7, reason="callee via call graph (called by f)")),
    # the forms earlier prompts wrote, still read
    ("[Evidence 2] core/store.py :: Store.open (lines 10-20) [definition via BM25]",
     Header(2, "core/store.py", 10, 20, "Store.open", reason="definition via BM25")),
    ("[Evidence 4] b.py (lines 1-5) [bm25, score: 0.5]", Header(4, "b.py", 1, 5, method="bm25", score=0.5)),
])
def test_every_header_form_reads_back(line, header):
    assert parse_header(line) == header
    assert read_block_start(line) == Header(header.label, header.path, header.start_line, header.end_line)


def test_a_symbol_the_text_defines_is_left_out_of_the_prompt_header():
    h = Header(1, "a.py", 3, 9, "Box.open")
    assert bundle_block(h, "@cache\nasync def open(self):\n    pass", None).startswith("[Evidence 1] a.py:3-9\n")
    assert bundle_block(h, "    x = self.opener()\n    return x", None).startswith("[Evidence 1] a.py:3-9 :: Box.open\n")
    assert bundle_block(h, "def opener():\n    pass", None).startswith("[Evidence 1] a.py:3-9 :: Box.open\n")


@pytest.mark.parametrize("reason", ["Defines open_store, named in the question.", "x :: y (lines 1-2)", ""])
def test_a_reason_and_a_question_read_back(reason):
    assert parse_reason(reason_line(reason)) == reason
    question = f"What does open_store do? {reason}".strip()
    first, blank, context_mark, *rest = user_message(question, "File: a.py\nx = 1").split("\n")
    assert (parse_question(first), blank, context_mark) == (question, "", CONTEXT_MARK)
    assert rest == ["", "File: a.py", "x = 1"]
    assert parse_question(reason_line(reason)) is None and parse_reason(first) is None


@pytest.mark.parametrize("label,path,line", itertools.product([None, 1, 12], PATHS, [None, 1, 340]))
def test_every_citation_reads_back_as_written(label, path, line):
    text = cite(label, path, line)
    refs = [(r.labels, r.path, r.first_line, r.last_line) for r in read_citations(text)]
    where = [((), path, line, line)] if line is not None or label is None else []
    assert refs == ([((label,), None, None, None)] if label is not None else []) + where
    assert read_citations(f"as shown {text}.")[0].text in text
    if label is None:
        assert is_citation(text.strip("()"))
        [ref] = read_citations(text)
        assert enclosed(text, ref) == (0, len(text))  # the parentheses cite with it


@pytest.mark.parametrize("path,first,last",
                         [("core/store.py", 3, 9), ("a/b-c/d_e.x.py", 12, 12), ("README.md", 7, None)])
def test_a_place_reads_back_as_written(path, first, last):
    written = place(path, first, last)
    assert read_citations(written) == [CitationRef(0, len(written), written, (), path, first, last or first)]
    assert place(path) == path


# the real writers and readers -----------------------------------------------------------------------------------------
QUESTION = "How does open_store apply the schema?"
SOURCES = [  # path, first line, symbol, text
    ("core/store/connection.py", 40, "open_store", "def open_store(path):\n    conn = _connect(path)\n"
                                                   "    for statement in _statements(schema_sql()):\n"
                                                   "        conn.execute(statement)"),
    ("core/text/tokens.py", 1, None, "import tiktoken\nVALUE = 1"),
    ("README.md", 12, None, "Run `gradedesk demo`: open_store applies the schema once.\n\nThe store is one file."),
]


def hits() -> list[Hit]:
    return [Hit(chunk_id=f"c{i}", file_path=path, start_line=first, end_line=first + text.count("\n"),
                symbol_name=symbol, kind="function", text=text, content_hash=f"h{i}", token_count=1, score=1 / i,
                rank=i, method="bm25", method_ranks={}, method_scores={})
            for i, (path, first, symbol, text) in enumerate(SOURCES, start=1)]


def bundle(compiler_reasons: bool = False) -> EvidenceBundle:
    """A bundle whose reasons are another pipeline's (whole, on their line) or the compiler's (brief, in the header)."""
    def reason(rank: int) -> str:
        return full_reason(Reason(rank, "definition", (Found("BM25", rank, 3.5, "terms 'schema'"),))) \
            if compiler_reasons else f"open_store applies the schema {rank}"

    snippets = [EvidenceSnippet(h.chunk_id, h.content_hash, h.text, 1, h.file_path, h.start_line, h.end_line,
                                h.symbol_name, h.method, h.score, h.rank, reason(h.rank), "definition")
                for h in hits()]
    return EvidenceBundle(QUESTION, "code_lookup", snippets, 0, 1000, ["bm25"], [], created_at="x")


def evidence() -> list[Evidence]:
    return [Evidence(h.file_path, h.symbol_name, h.chunk_id, h.start_line, h.end_line, h.text, position=h.rank)
            for h in hits()]


@pytest.mark.parametrize("kind", ["raw", "bundled", "bundled, compiler's reasons"])
def test_a_prompt_built_by_the_writers_is_read_back_by_the_readers(kind):
    messages = raw_messages(QUESTION, hits()) if kind == "raw" else \
        bundle_messages(QUESTION, bundle(compiler_reasons=kind != "bundled"))
    user = messages[1]["content"]
    lines = user.split("\n")
    assert parse_question(lines[0]) == QUESTION
    blocks = user.split(f"{CONTEXT_MARK}\n\n", 1)[1].split(SNIPPET_SEPARATOR)
    assert len(blocks) == len(SOURCES)
    for i, (block, h) in enumerate(zip(blocks, hits()), start=1):
        first, *rest = block.split("\n")
        if kind == "raw":
            assert read_block_start(first) == Header(None, h.file_path, h.start_line, h.end_line)
            assert "\n".join(rest) == h.text
        elif kind == "bundled":  # the text's def line names the symbol: the header leaves it out
            assert parse_header(first) == Header(i, h.file_path, h.start_line, h.end_line)
            assert parse_reason(rest[0]) == f"open_store applies the schema {i}" and "\n".join(rest[1:]) == h.text
        else:
            assert parse_header(first) == Header(i, h.file_path, h.start_line, h.end_line, reason="definition via BM25")
            assert "\n".join(rest) == h.text

    # the offline answerer reads the prompt; its citations resolve, each to the line it quotes
    answer = extractive_answer(user)
    claims = split_claims(answer, evidence())
    cited = [(c, claim) for claim in claims for c in claim.citations]
    assert cited and all(c.valid for c, _ in cited)
    for c, claim in cited:
        if c.lines:
            [position] = c.evidence
            e = evidence()[position - 1]
            assert e.text.split("\n")[c.lines[0] - e.start_line].strip() in claim.text
    assert "applies the schema 1" not in answer  # a bundle's reason line is not a source line
    assert "via BM25" not in answer  # nor is a header's brief reason

    # the desk's blind view: a copied bundle header reads as the raw prompt's, every citation one way
    copied = "\n".join(block.split("\n")[0] for block in blocks)
    assert neutral_answer(copied, evidence()) == neutral_answer(
        "\n".join(file_header(Header(None, h.file_path, h.start_line, h.end_line)) for h in hits()), evidence())
    assert all(r.labels == () for r in find_citations(neutral_answer(answer, evidence())))


def test_the_graders_evidence_is_written_with_the_grader_header():
    text = format_evidence(evidence())
    starts = [h for line in text.split("\n") if (h := read_block_start(line)) is not None]
    assert starts == [Header(e.position, e.file_path, e.start_line, e.end_line) for e in evidence()]
    first = grader_header(Header(1, "core/store/connection.py", 40, 43, "open_store"))
    assert text.startswith(f"{first}\ndef open_store")
    assert format_evidence([]) == "(no evidence was retrieved)"


def test_raw_and_bundled_answers_read_alike_once_their_citations_are_neutral():
    raw = extractive_answer(raw_messages(QUESTION, hits())[1]["content"])
    bundled = extractive_answer(bundle_messages(QUESTION, bundle())[1]["content"])
    assert raw != bundled
    assert neutral_answer(raw, evidence()) == neutral_answer(bundled, evidence())
