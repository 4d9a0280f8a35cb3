"""How a chunk is cut to fit a snippet's limit: a definition to its signature and first body lines, its prose left out
(a long docstring's body behind an elision line, comment lines), other text to the contiguous lines that best match the
question. Blank lines stand in for what is left out, so every kept line keeps its number; counts are exact tokens of
the repository's tokenizer."""

from __future__ import annotations

import re

from gradedesk.core.retrieval.hybrid import DEFINITION_KINDS, Hit
from gradedesk.core.text.codeterms import code_tokens
from gradedesk.core.text.selection_reason import elision_line
from gradedesk.core.text.tokens import Tokenizer


def line_counts(lines: list[str], tok: Tokenizer) -> list[int]:
    return [len(tok.encoding.encode_ordinary(line)) + 1 for line in lines]


def _trim(lines: list[str], i: int, j: int, limit: int, tok: Tokenizer) -> tuple[int, int, int] | None:
    """Lines i..j without blank edges, shortened at the end until their exact count is within `limit`."""
    while i < j and not lines[i].strip():
        i += 1
    n_tokens = limit + 1
    while j >= i:
        while j > i and not lines[j].strip():
            j -= 1
        n_tokens = tok.count("\n".join(lines[i:j + 1]))
        if n_tokens <= limit or j == i:  # per-line counts are close, not exact: trim until the exact count fits
            break
        j -= 1
    return (i, j, n_tokens) if n_tokens <= limit else None


def _first_lines(lines: list[str], counts: list[int], limit: int, tok: Tokenizer) -> tuple[int, int, int] | None:
    """A definition's cut: its first lines (decorators, signature, then the body in order) within `limit` tokens."""
    j, used = -1, 0
    while j + 1 < len(lines) and used + counts[j + 1] <= limit:
        j += 1
        used += counts[j]
    return _trim(lines, 0, j, limit, tok) if j >= 0 else None


def _best_window(hit: Hit, lines: list[str], counts: list[int], terms: set[str], limit: int,
                 tok: Tokenizer) -> tuple[int, int, int] | None:
    """Prose and module text's cut: the contiguous lines within `limit` tokens that match most question terms."""
    terms = terms - set(code_tokens(hit.symbol_name or ""))  # the header names the symbol already
    scores = [len(terms.intersection(code_tokens(line))) for line in lines]
    best: tuple[int, int] | None = None
    best_score = -1
    window_score = 0
    j, window_tokens = -1, 0
    for i in range(len(lines)):
        if j < i - 1:
            j, window_tokens, window_score = i - 1, 0, 0
        while j + 1 < len(lines) and window_tokens + counts[j + 1] <= limit:
            j += 1
            window_tokens += counts[j]
            window_score += scores[j]
        if j >= i and window_score > best_score:
            best, best_score = (i, j), window_score
        if j >= i:
            window_tokens -= counts[i]
            window_score -= scores[i]
    return None if best is None else _trim(lines, best[0], best[1], limit, tok)


_DEF_LINE = re.compile(r"\s*(?:async\s+def|def|class)\b")
_DOC_OPEN = re.compile(r"(\s*)[rRuUbB]{0,2}(\"\"\"|\'\'\')")
ELIDE_FROM = 4  # docstrings this long (lines) give way to their first line and an elision line


def _docstring(lines: list[str]) -> tuple[int, int] | None:
    """0-based first and last line of a definition's docstring (its text's own def/class), found line by line."""
    k = next((n for n, line in enumerate(lines) if _DEF_LINE.match(line)), None)
    if k is None:
        return None
    while k < len(lines) and not lines[k].split("#", 1)[0].rstrip().endswith(":"):  # a signature over several lines
        k += 1
    n = k + 1
    while n < len(lines) and not lines[n].strip():
        n += 1
    opened = _DOC_OPEN.match(lines[n]) if n < len(lines) else None
    if opened is None:
        return None
    quote = opened.group(2)
    if quote in lines[n][opened.end():]:
        return n, n
    last = next((m for m in range(n + 1, len(lines)) if quote in lines[m]), None)
    return None if last is None else (n, last)


def prose_left_out(lines: list[str], first_line: int) -> tuple[list[str], tuple[int, int] | None, set[int]]:
    """A definition's lines as a cut shows them: a long docstring's body left out (its first line stays, the summary,
    and an elision line names the lines left out) and comment lines left out (0-based, returned), each a blank line in
    its place so every later line keeps its number. The lines that answer are code (benchmarks/retrieval_bench.py:
    leaving comments out bought code coverage at every budget on the natural sets' tuned share)."""
    doc = _docstring(lines)
    gap = None
    if doc is not None and doc[1] - doc[0] + 1 >= ELIDE_FROM:
        i, j = doc
        indent = _DOC_OPEN.match(lines[i]).group(1)  # type: ignore[union-attr]  # _docstring matched this line
        gap = (first_line + i + 1, first_line + j)
        lines = lines[:i + 1] + [elision_line(indent, *gap)] + [""] * (j - i - 1) + lines[j + 1:]
    comments = {n for n, line in enumerate(lines) if line.lstrip().startswith("#")}
    return [("" if n in comments else line) for n, line in enumerate(lines)], gap, comments


def cut_lines(hit: Hit, lines: list[str], counts: list[int], terms: set[str], limit: int,
         tok: Tokenizer) -> tuple[int, int, int] | None:
    """The lines to keep of a chunk over `limit`: a definition's signature and first body lines (what it is and does,
    in the order it does it), other text's lines that best match the question."""
    if hit.kind in DEFINITION_KINDS:
        return _first_lines(lines, counts, limit, tok)
    return _best_window(hit, lines, counts, terms, limit, tok)
