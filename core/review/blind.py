"""Blind first with method names hidden: an answer's citations are shown one way (neutral_answer). A bundled answer
cites `[Evidence 2]` and a raw one `File: core/store.py`, which would tell them apart, and a model that copies its
prompt's layout copies a bundle's selection reasons. (When the machine grades are shown is visibility.py's.) No
textual here.
"""

from __future__ import annotations

import re

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.text.matching import find_citations
from gradedesk.core.text.prompt_layout import CitationRef, enclosed, file_header, parse_header, parse_reason, place


_SPACE = re.compile(r"[ \t]*")
COPIED = "[a line copied from the prompt]"


def _uncopied(line: str) -> str:
    unindented = line.lstrip()
    if parse_reason(unindented) is not None:
        return COPIED
    header = parse_header(line)  # a bundled prompt's evidence header, copied into an answer on a line of its own
    if header is not None:  # written as a raw prompt's header is: the place, no symbol, method or score
        return line[:len(line) - len(unindented)] + file_header(header)
    return line


def neutral_answer(text: str, evidence: list[Evidence]) -> str:
    """The answer as the desk shows it while method names are hidden: citations written one way (neutral_citations),
    and what a model copied of a bundled prompt's layout (small models do: an evidence header with its method and
    score, a selection-reason line) written as a raw prompt's or left out, since only a bundle's prompt has them."""
    return neutral_citations("\n".join(_uncopied(line) for line in text.split("\n")), evidence)


def changed_lines(written: str, shown: str) -> list[bool]:
    """For each line of `shown` (neutral_answer of `written`), whether it differs from the answer as written, so the
    desk can say so on that line. neutral_answer keeps one line per line; should a rewritten citation ever have
    spanned lines, a shown line is changed when the answer has no such line."""
    shown_lines, written_lines = shown.split("\n"), written.split("\n")
    if len(shown_lines) == len(written_lines):
        return [s != w for s, w in zip(shown_lines, written_lines)]
    as_written = set(written_lines)
    return [line not in as_written for line in shown_lines]


def _source(ref: CitationRef, by_position: dict[int, Evidence]) -> str:
    if ref.labels:
        places = [by_position[n].location if n in by_position else "not in the evidence" for n in ref.labels]
        return "; ".join(dict.fromkeys(places))
    return place(ref.path or "", ref.first_line, ref.last_line)


def neutral_citations(text: str, evidence: list[Evidence]) -> str:
    """The answer with every citation written `[source: path:lines]`, whatever its style (`[Evidence 2]`,
    `(File: core/store.py:12)`, `core/store.py:12`): a label becomes the place of the evidence it names. A label
    followed by a place in the same file (`[Evidence 1] core/store.py:3`) is one source, the more exact one."""
    by_position = {e.position: e for e in evidence if e.position is not None}
    spans: list[tuple[int, int, str, set[str]]] = []  # start, end, source, the files it points at
    for ref in find_citations(text):
        start, end = enclosed(text, ref)
        files = ({by_position[n].file_path or "" for n in ref.labels if n in by_position} if ref.labels
                 else {ref.path or ""})
        source = _source(ref, by_position)
        if spans and _SPACE.fullmatch(text[spans[-1][1]:start]) and (
                source == spans[-1][2] or (not ref.labels and files <= spans[-1][3])):
            start = spans.pop()[0]
        spans.append((start, end, source, files))
    out, at = [], 0
    for start, end, source, _ in spans:
        out.append(text[at:start] + f"[source: {source}]")
        at = end
    out.append(text[at:])
    return "".join(out)
