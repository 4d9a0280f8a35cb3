"""The prompt's text layout, its one owner: every writer of a prompt and every reader of a prompt or of an answer's
citations goes through here.

A user message is `Question: ...`, a blank line, `Context:`, a blank line, then the context: evidence blocks joined by
SNIPPET_SEPARATOR. A block is a header line, then the text; a bundle's block says why it was kept, in brackets at the
end of its header (the compiler's reasons, in their brief form) or on a `Reason included: ...` line under it (any
other reason, whole). Three headers:

- a bundle's (`evidence_header`): `[Evidence 2] core/store.py:10-20 :: Store.open [definition via symbol match,
  BM25]` in a prompt, the place in the form answers cite and the symbol left out when the text's own `def`/`class`
  line names it (a header is paid for out of a small budget); `ask` shows it with the method that ranked it best and
  its fused RRF score instead, `... [bm25, fused 0.0164]`, and the full reason on its own line (earlier prompts wrote
  `:: Store.open (lines 10-20)`, before 2026-11 with that bracket and the full reason's line, and before it
  `score: 0.0164`; all are still read);
- a raw hit's (`file_header`): `File: core/store.py (lines 10-20)`;
- the LLM graders' (`grader_header`, blocks joined by a blank line): `[Evidence 2] core/store.py (lines 10-20) ::
  Store.open`.

Answers cite evidence by label (`[Evidence 2]`, `[Evidence 1, 3-4]`, `[E2]`), by file (`File: core/store.py`, with
`:12` or `(lines 3-9)`) or by a bare `core/store.py:12`; the offline answerer writes `cite`, and `place` and
`label_name` write what a citation points at (`core/store.py:12-14`, `Evidence 2`). `read_citations` reads all of
these back, `strip_citations` and `uncited` take them out of a text. Not here, as no reader parses them: the
graders' BEGIN/END sections (core/grading/llm_io.py) and the desk's `[source: ...]` (core/review/blind.py).

Reasons: the compiler's selection reason is a `Reason` record. The bundle stores its full form (`full_reason`: fused
rank, role, every method with its rank, score and what matched, and any cut); a prompt carries its brief form
(`brief_reason`: role, how it was found, by which methods, e.g. `callee via call graph (subclassed by Blueprint),
BM25`) in the header's brackets: about 5 tokens where the full line took about 60, which is what lets a 1,000-token
bundle show ten files. `bundle_block` writes a bundle's block either way; a reason not in the full form (another
pipeline's) is carried whole on its line.

`context_blocks` reads a context back into its blocks (header and text), for measures of what a prompt showed.
Two header readers, on purpose: `read_block_start` is lenient (a prompt's block starts at any line opening with a
label and a path, whatever follows), `parse_header` is strict (a whole line that is a bundle header and nothing else,
as a model copies one into an answer). Paths and symbols are single words here: the layout cannot carry whitespace
in them. The system prompts (core/runs/prompts.py) describe this layout in words; they are versioned stored text, so
a change here bumps their version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from gradedesk.core.text.selection_reason import brief_reason, number_or_none, read_reason

QUESTION_MARK = "Question:"  # opens the line holding the question
CONTEXT_MARK = "Context:"  # the line before the context
REASON_MARK = "Reason included:"  # opens the line under a bundle's header that says why the block was kept
SNIPPET_SEPARATOR = "\n\n---\n\n"  # between the blocks of a context
GRADER_SEPARATOR = "\n\n"  # between the blocks the LLM graders see
NO_FILE = "(no file)"  # a grader's block whose evidence names no file
NO_EVIDENCE = "(no evidence was retrieved)"  # the graders' evidence section when there is none

# the regular expressions below spell the marks above; each is used by one reader of this module
_BLOCK_LABEL_RE = re.compile(r"^\[Evidence (\d+)\] (\S+?)(?::(\d+)(?:-(\d+))?)?(?=\s|$)(?:.*?\(lines (\d+)-(\d+)\))?")
_BLOCK_FILE_RE = re.compile(r"^File: (\S+)(?: \(lines (\d+)-(\d+)\))?")
_HEADER_RE = re.compile(r"\[Evidence (?P<label>\d+)\] (?P<path>\S+?)(?::(?P<c>\d+)(?:-(?P<d>\d+))?)?"
                        r"(?: :: (?P<symbol>\S+))?(?: \(lines (?P<a>\d+)-(?P<b>\d+)\))?"
                        r"(?: \[(?P<method>[\w-]+), (?:fused|score:) (?P<score>-?[\d.]+)\]| \[(?P<reason>[^\[\]]+)\])?")
_FILE_CITATION_RE = re.compile(r"\(?\bFile:\s*[^\s)]+\)?")
_LABEL_REF_RE = re.compile(
    r"\[(?:Evidence|E)\s*(\d+(?:\s*(?:[,;&]|and|[-–])\s*(?:(?:Evidence|E)\s*)?\d+)*)\]", re.IGNORECASE)
_LABEL_PART_RE = re.compile(r"\s*(?:[,;&]|and)\s*", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\d+")
_PATH = r"(?P<path>[^\s`'\"(),;:\[\]]+)"
_LINES = r"(?::(?P<a>\d+)(?:\s*[-–]\s*(?P<b>\d+))?)?"
_FILE_REF_RE = re.compile(
    r"\bFile:\s*`?" + _PATH + _LINES + r"`?(?:\s*\(lines?\s+(?P<c>\d+)(?:\s*[-–]\s*(?P<d>\d+))?\))?", re.IGNORECASE)
_PATH_LINE_RE = re.compile(r"(?<![\w/.:-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,7})"
                           r":(?P<a>\d+)(?:\s*[-–]\s*(?P<b>\d+))?\b")
_LINE_REF_RE = re.compile(r"(\.[A-Za-z]{1,5}):\d+(?:-\d+)?\b|\(?\blines?\s+\d+(?:\s*[-–]\s*\d+)?\)?", re.IGNORECASE)


# the prompt: headers, blocks, the user message ------------------------------------------------------------------------
@dataclass(frozen=True)
class Header:
    """An evidence block's first line: its label (None for a raw `File:` block), its place, and how it was found."""

    label: int | None
    path: str
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    method: str | None = None
    score: float | None = None
    reason: str | None = None  # a reason's brief form (a prompt's bundle header)


def evidence_header(h: Header) -> str:
    """A bundle's block header: the place (`path:a-b`, the form answers cite), the symbol when known, then in brackets
    the brief reason (a prompt's) or the method and the fused score (4 places; `ask` shows it so)."""
    lines = h.start_line and h.end_line
    parts = [f"[Evidence {h.label}] {place(h.path, h.start_line, h.end_line) if lines else h.path}"]
    if h.symbol:
        parts.append(f" :: {h.symbol}")
    if h.reason:
        parts.append(f" [{h.reason}]")
    elif h.method is not None and h.score is not None:
        parts.append(f" [{h.method}, fused {h.score:.4f}]")
    return "".join(parts)


def file_header(h: Header) -> str:
    """A raw block's header: the place only (label, symbol, method and score are not written)."""
    lines = f" (lines {h.start_line}-{h.end_line})" if h.start_line is not None and h.end_line is not None else ""
    return f"File: {h.path}{lines}"


def grader_header(h: Header) -> str:
    """The LLM graders' block header: the place first, then the symbol; no method or score."""
    where = h.path or NO_FILE
    if h.start_line and h.end_line:
        where += f" (lines {h.start_line}-{h.end_line})"
    if h.symbol:
        where += f" :: {h.symbol}"
    return f"[Evidence {h.label}] {where}"


def bundle_block(h: Header, text: str, reason: str | None) -> str:
    """A bundle's block in a prompt: a full reason goes in brief into the header's brackets, any other on its line."""
    if h.symbol and _defines(text, h.symbol):
        h = replace(h, symbol=None)  # the text's own `def`/`class` line names it: the header need not
    read = read_reason(reason) if reason else None
    if read is not None:
        return block(evidence_header(replace(h, reason=brief_reason(read))), text)
    return block(evidence_header(h), text, reason)


# the layouts bundles were written in: a bundle is counted in its own (core/evidence/bundle.py's validate) --------------
# the seed's to_prompt_context (`[Evidence i] path :: symbol (lines a-b) [method, score: x]`, a `Reason included:` line),
# and any bundle not from gradedesk's compiler
SEED_LAYOUT = "seed"
FUSED_LAYOUT = "gradedesk-compiler/1"  # compiler 1 from 2026-11-24: the seed's, with the fused score
BRACKET_LAYOUT = "gradedesk-compiler/2"  # compiler 2: `(lines a-b)` and the brief reason in brackets
LAYOUT = "gradedesk-compiler/3"  # compiler 3 on: `path:a-b`, no symbol a def line names (bundle_block)
LAYOUT_NAMES = {SEED_LAYOUT: "the seed's to_prompt_context layout",
                FUSED_LAYOUT: "gradedesk compiler 1's layout with fused scores",
                BRACKET_LAYOUT: "gradedesk compiler 2's layout", LAYOUT: "gradedesk's layout (compiler 3 on)"}
_COMPILER_RE = re.compile(r"gradedesk-compiler/(\d+)")


def bundle_layouts(compiler_version: str | None) -> tuple[str, ...]:
    """The layouts a bundle of this compiler version can have been written in, the one to report first: gradedesk's
    compiler 1 wrote the seed's headers and from 2026-11-24 the fused score; a bundle gradedesk's compiler did not
    make is the seed's."""
    m = _COMPILER_RE.fullmatch(compiler_version or "")
    version = int(m[1]) if m else 0
    if version >= 3:
        return (LAYOUT,)
    return {2: (BRACKET_LAYOUT,), 1: (SEED_LAYOUT, FUSED_LAYOUT)}.get(version, (SEED_LAYOUT,))


def layout_block(layout: str, h: Header, text: str, reason: str | None) -> str:
    """A bundle's block as the layout wrote it (`h` with its symbol, lines, method and score)."""
    if layout == LAYOUT:
        return bundle_block(replace(h, method=None, score=None), text, reason)
    head = f"[Evidence {h.label}] {h.path}" + (f" :: {h.symbol}" if h.symbol else "")
    if h.start_line and h.end_line:
        head += f" (lines {h.start_line}-{h.end_line})"
    if layout == BRACKET_LAYOUT:
        read = read_reason(reason) if reason else None
        return block(f"{head} [{brief_reason(read)}]", text) if read else block(head, text, reason)
    score = f"{'score:' if layout == SEED_LAYOUT else 'fused'} {h.score or 0.0:.4f}"
    return block(f"{head} [{h.method}, {score}]", text, reason)


_DEF_NAME = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


def _defines(text: str, symbol: str) -> bool:
    """Does one of the text's first lines define the symbol (its last dotted part), after any decorators? (One compiled
    pattern: a pattern per symbol overflowed re's cache and was a fifth of `ask`'s time.)"""
    name = symbol.rsplit(".", 1)[-1]
    return any(m.group(1) == name for m in _DEF_NAME.finditer("\n".join(text.split("\n", 4)[:4])))


def reason_line(reason: str) -> str:
    return f"{REASON_MARK} {reason}"


def block(header: str, text: str, reason: str | None = None) -> str:
    """An evidence block: the header line, the selection reason's line when there is one, the text."""
    lines = [header]
    if reason:
        lines.append(reason_line(reason))
    lines.append(text)
    return "\n".join(lines)


def grader_evidence(blocks: list[tuple[Header, str]]) -> str:
    """The evidence section the LLM graders see: each (header, text) as a block, trailing whitespace dropped."""
    if not blocks:
        return NO_EVIDENCE
    return GRADER_SEPARATOR.join(block(grader_header(h), text).rstrip() for h, text in blocks)


def user_message(question: str, context: str) -> str:
    return f"{QUESTION_MARK} {question}\n\n{CONTEXT_MARK}\n\n{context}"


def parse_question(line: str) -> str | None:
    """The question a `Question:` line holds; None for any other line."""
    return line[len(QUESTION_MARK):].strip() if line.startswith(QUESTION_MARK) else None


def parse_reason(line: str) -> str | None:
    """The selection reason a `Reason included:` line holds; None for any other line."""
    return line[len(REASON_MARK):].removeprefix(" ") if line.startswith(REASON_MARK) else None


def _int(value: str | None) -> int | None:
    return int(value) if value else None


def _lines(a: str | None, b: str | None, old_a: str | None, old_b: str | None) -> tuple[int | None, int | None]:
    """A header's line range: `path:a-b` (`path:a` for one line), or the `(lines a-b)` headers had before 2026-11-25."""
    if a:
        return int(a), int(b or a)
    return _int(old_a), _int(old_b)


def read_block_start(line: str) -> Header | None:
    """Where a prompt's block starts: a line opening with `[Evidence i] path` (its lines wherever they follow) or with
    `File: path`. Gives the label, path and lines only."""
    if m := _BLOCK_LABEL_RE.match(line):
        first, last = _lines(m.group(3), m.group(4), m.group(5), m.group(6))
        return Header(int(m.group(1)), m.group(2), first, last)
    if f := _BLOCK_FILE_RE.match(line):
        return Header(None, f.group(1), _int(f.group(2)), _int(f.group(3)))
    return None


def context_blocks(context: str) -> list[tuple[Header, str]]:
    """A prompt's context read back as its blocks: each block's header (label, path, lines) and the text under it,
    without its `Reason included:` line. A part between separators that does not open with a block's first line is
    the previous block's text (a markdown file's own `---` line), and text before the first block is no block's."""
    blocks: list[tuple[Header, str]] = []
    for part in context.split(SNIPPET_SEPARATOR):
        first, _, rest = part.partition("\n")
        header = read_block_start(first)
        if header is None:
            if blocks:
                blocks[-1] = (blocks[-1][0], blocks[-1][1] + SNIPPET_SEPARATOR + part)
            continue
        reason, _, after = rest.partition("\n")
        blocks.append((header, after if parse_reason(reason) is not None else rest))
    return blocks


def parse_header(line: str) -> Header | None:
    """A line that is a bundle's header and nothing else (surrounding whitespace aside), every field read back."""
    m = _HEADER_RE.fullmatch(line.strip())
    if m is None:
        return None
    first, last = _lines(m["c"], m["d"], m["a"], m["b"])
    return Header(int(m["label"]), m["path"], first, last, m["symbol"], m["method"], number_or_none(m["score"]), m["reason"])


# citations in answers -------------------------------------------------------------------------------------------------
def label_name(n: int) -> str:
    """An evidence label as a name, without its brackets: `Evidence 2`."""
    return f"Evidence {n}"


def place(path: str, first: int | None = None, last: int | None = None) -> str:
    """`path`, `path:12` or `path:12-14` (a range of one line is written as that line)."""
    if first is None:
        return path
    return f"{path}:{first}" + (f"-{last}" if last not in (None, first) else "")


def cite(label: int | None, path: str, line: int | None = None) -> str:
    """A citation of a line: `[Evidence 2] core/store.py:12` for a labelled block, `(File: core/store.py:12)` for a
    raw one (the path alone when the line is not known)."""
    where = place(path, line)
    return f"[{label_name(label)}] {where}" if label is not None else f"(File: {where})"


@dataclass(frozen=True)
class CitationRef:
    """A citation as written, with its span in the piece searched: evidence labels, or a file with optional lines."""

    start: int
    end: int
    text: str
    labels: tuple[int, ...] = ()
    path: str | None = None
    first_line: int | None = None
    last_line: int | None = None


def is_citation(text: str) -> bool:
    """Is the text (surrounding whitespace aside) one citation and nothing else?"""
    return any(r.fullmatch(text.strip()) for r in (_LABEL_REF_RE, _FILE_REF_RE, _PATH_LINE_RE))


def _label_numbers(body: str) -> tuple[int, ...]:
    """'1, 3-5' -> (1, 3, 4, 5); 'Evidence 2 and Evidence 4' -> (2, 4). A range over 50 labels is read as its ends."""
    out: list[int] = []
    for part in _LABEL_PART_RE.split(body):
        ends = [int(n) for n in _NUMBER_RE.findall(part)]
        if len(ends) == 2 and 0 <= ends[1] - ends[0] <= 50:
            out.extend(range(ends[0], ends[1] + 1))
        else:
            out.extend(ends)
    return tuple(dict.fromkeys(out))


def read_citations(text: str, masked: str | None = None) -> list[CitationRef]:
    """The citations in a text, in order of appearance. `masked`: the same text (same length) with what must not be
    read as a citation blanked, e.g. quoted code; the spans and texts returned are the unmasked text's."""
    masked = text if masked is None else masked
    refs: list[CitationRef] = []
    for m in _LABEL_REF_RE.finditer(masked):
        refs.append(CitationRef(m.start(), m.end(), text[m.start():m.end()], labels=_label_numbers(m.group(1))))
    taken: list[tuple[int, int]] = []
    for m in _FILE_REF_RE.finditer(masked):
        path = m.group("path").rstrip(".")
        first = _int(m.group("a") or m.group("c"))
        last = _int(m.group("b") or m.group("d")) or first
        refs.append(CitationRef(m.start(), m.end(), text[m.start():m.end()].rstrip("."), path=path,
                                first_line=first, last_line=last))
        taken.append((m.start(), m.end()))
    for m in _PATH_LINE_RE.finditer(masked):
        if any(a <= m.start() < b for a, b in taken):
            continue
        first = int(m.group("a"))
        refs.append(CitationRef(m.start(), m.end(), text[m.start():m.end()], path=m.group("path"), first_line=first,
                                last_line=_int(m.group("b")) or first))
    return sorted(refs, key=lambda r: r.start)


def enclosed(text: str, ref: CitationRef) -> tuple[int, int]:
    """The span of a citation read in `text`, with the parentheses or backticks around it when it has a pair of them:
    `(File: x.py:3)` and `` `x.py:3` `` are one citation each."""
    if text[ref.start - 1:ref.start] + text[ref.end:ref.end + 1] in ("()", "``"):
        return ref.start - 1, ref.end + 1
    return ref.start, ref.end


def strip_citations(text: str) -> str:
    """Drop evidence labels and line numbers ("[Evidence 11]", "core/store.py:106" keeps the file, "(lines 3-9)"):
    they point at evidence, they are not claims about the code."""
    return _LINE_REF_RE.sub(lambda m: m.group(1) or "", _LABEL_REF_RE.sub("", text))


def uncited(text: str) -> str:
    """The text without its citations (labels, `File: path` blocks, line numbers)."""
    return strip_citations(_FILE_CITATION_RE.sub("", text))
