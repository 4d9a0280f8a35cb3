"""The prompt's text layout, its one owner: every writer of a prompt and every reader of a prompt or of an answer's
citations goes through here.

A user message is `Question: ...`, a blank line, `Context:`, a blank line, then the context: evidence blocks joined by
SNIPPET_SEPARATOR. A block is a header line, a `Reason included: ...` line when the bundle says why it kept the block,
then the text. Three headers:

- a bundle's (`evidence_header`): `[Evidence 2] core/store.py :: Store.open (lines 10-20) [bm25, fused 0.0164]`
  (the method that ranked it best and its fused RRF score; each method's own score is in the reason line; prompts
  written before said `score: 0.0164`, and are still read);
- a raw hit's (`file_header`): `File: core/store.py (lines 10-20)`;
- the LLM graders' (`grader_header`, blocks joined by a blank line): `[Evidence 2] core/store.py (lines 10-20) ::
  Store.open`.

Answers cite evidence by label (`[Evidence 2]`, `[Evidence 1, 3-4]`, `[E2]`), by file (`File: core/store.py`, with
`:12` or `(lines 3-9)`) or by a bare `core/store.py:12`; the offline answerer writes `cite`, and `place` and
`label_name` write what a citation points at (`core/store.py:12-14`, `Evidence 2`). `read_citations` reads all of
these back, `strip_citations` and `uncited` take them out of a text. Not here, as no reader parses them: the
graders' BEGIN/END sections (core/grading/llm_io.py) and the desk's `[source: ...]` (core/review/blind.py).

Two header readers, on purpose: `read_block_start` is lenient (a prompt's block starts at any line opening with a
label and a path, whatever follows), `parse_header` is strict (a whole line that is a bundle header and nothing else,
as a model copies one into an answer). Paths and symbols are single words here: the layout cannot carry whitespace
in them. The system prompts (core/runs/prompts.py) describe this layout in words; they are versioned stored text, so
a change here bumps their version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUESTION_MARK = "Question:"  # opens the line holding the question
CONTEXT_MARK = "Context:"  # the line before the context
REASON_MARK = "Reason included:"  # opens the line under a bundle's header that says why the block was kept
SNIPPET_SEPARATOR = "\n\n---\n\n"  # between the blocks of a context
GRADER_SEPARATOR = "\n\n"  # between the blocks the LLM graders see
NO_FILE = "(no file)"  # a grader's block whose evidence names no file
NO_EVIDENCE = "(no evidence was retrieved)"  # the graders' evidence section when there is none

# the regular expressions below spell the marks above; each is used by one reader of this module
_BLOCK_LABEL_RE = re.compile(r"^\[Evidence (\d+)\] (\S+)(?:.*?\(lines (\d+)-(\d+)\))?")
_BLOCK_FILE_RE = re.compile(r"^File: (\S+)(?: \(lines (\d+)-(\d+)\))?")
_HEADER_RE = re.compile(r"\[Evidence (?P<label>\d+)\] (?P<path>\S+)(?: :: (?P<symbol>\S+))?"
                        r"(?: \(lines (?P<a>\d+)-(?P<b>\d+)\))?"
                        r"(?: \[(?P<method>[\w-]+), (?:fused|score:) (?P<score>-?[\d.]+)\])?")
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


def evidence_header(h: Header) -> str:
    """A bundle's block header: symbol and lines when known, then always the method and the fused score (4 places)."""
    parts = [f"[Evidence {h.label}] {h.path}"]
    if h.symbol:
        parts.append(f" :: {h.symbol}")
    if h.start_line and h.end_line:
        parts.append(f" (lines {h.start_line}-{h.end_line})")
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


def _float(value: str | None) -> float | None:
    """A score as written; None when absent or not a number (`1.2.3` still reads as a header, with no score)."""
    try:
        return float(value) if value else None
    except ValueError:
        return None


def read_block_start(line: str) -> Header | None:
    """Where a prompt's block starts: a line opening with `[Evidence i] path` (its lines wherever they follow) or with
    `File: path`. Gives the label, path and lines only."""
    if m := _BLOCK_LABEL_RE.match(line):
        return Header(int(m.group(1)), m.group(2), _int(m.group(3)), _int(m.group(4)))
    if f := _BLOCK_FILE_RE.match(line):
        return Header(None, f.group(1), _int(f.group(2)), _int(f.group(3)))
    return None


def parse_header(line: str) -> Header | None:
    """A line that is a bundle's header and nothing else (surrounding whitespace aside), every field read back."""
    m = _HEADER_RE.fullmatch(line.strip())
    if m is None:
        return None
    return Header(int(m["label"]), m["path"], _int(m["a"]), _int(m["b"]), m["symbol"], m["method"], _float(m["score"]))


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
