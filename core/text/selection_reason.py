"""A compiler's selection reason, its one owner: the `Reason` record (fused rank, evidence role, the methods that found
the evidence with their ranks, scores and what matched, and any `Cut`), the full form a bundle stores (`full_reason`,
read back by `read_reason`) and the brief form a prompt carries in a block header's brackets (`brief_reason`, about 5
tokens where the full line takes about 60). core/text/prompt_layout.py writes them into blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


METHOD_WORDS = {"bm25": "BM25", "symbol": "symbol match", "path": "path match", "graph": "call graph",
                "vector": "vector search"}
_BRIEF_NOTES = {"call graph": lambda note: note,  # how the graph reached it: "subclassed by Blueprint"
                "path match": lambda note: "file named" if note.endswith("is named in the question") else ""}
_FULL_REASON_RE = re.compile(r"Fused rank (?P<rank>\d+) as (?P<role>\w+) evidence, found by (?P<found>.+?)"
                             r"(?:; cut from lines (?P<a>\d+)-(?P<b>\d+) to (?:the (?P<n>\d+) lines that best match "
                             r"the question|its first (?P<first>\d+) lines)(?:, docstring lines (?P<e>\d+)-(?P<f>\d+) left out)?"
                             r"(?:, (?P<comments>\d+) comment lines? left out)?)?\.")
_FOUND_SPLIT_RE = re.compile(r"; (?=[\w -]+ rank \d+)")
_FOUND_RE = re.compile(r"(?P<method>[\w -]+?) rank (?P<rank>\d+)(?: \(score (?P<score>-?[\d.]+)\))?"
                       r"(?:(?: on |: )(?P<note>.*))?")


@dataclass(frozen=True)
class Found:
    """One retrieval method's part in a reason: its words (METHOD_WORDS), its rank, its own score when it is BM25's,
    and what matched."""

    method: str
    rank: int
    score: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Reason:
    """Why the compiler kept a block: its fused rank, its evidence role, the methods that found it (best first), and
    the chunk's lines and the number kept when it was cut."""

    rank: int
    role: str
    found: tuple[Found, ...]
    cut: Cut | None = None


@dataclass(frozen=True)
class Cut:
    """A chunk cut to fit: its first and last line, the number of lines kept, and which: `first` (a definition's
    signature and the body in order, compiler 5 on) or `match` (the lines that best match the question); `elided`: the
    docstring lines a first-lines cut left out (an `elision_line` stands in their place); `comments`: the comment lines
    within the kept lines it left out (each a blank line in its place)."""

    first: int
    last: int
    kept: int
    how: str = "match"
    elided: tuple[int, int] | None = None
    comments: int = 0

    def words(self) -> str:
        which = f"its first {self.kept} lines" if self.how == "first" else \
            f"the {self.kept} lines that best match the question"
        return f"cut from lines {self.first}-{self.last} to {which}{self.prose_left_out()}"

    def prose_left_out(self) -> str:
        """`, docstring lines a-b left out, 3 comment lines left out` (empty when the cut left no prose out)."""
        gap = f", docstring lines {self.elided[0]}-{self.elided[1]} left out" if self.elided else ""
        if self.comments:
            gap += f", {self.comments} comment line{'s' if self.comments > 1 else ''} left out"
        return gap


ELISION = "… docstring lines {a}-{b} left out"  # stands for the docstring lines a cut left out; blank lines follow it


def elision_line(indent: str, first: int, last: int) -> str:
    """The line a cut writes in place of docstring lines first-last; the lines after it up to `last` stay blank, so
    every line of the text keeps its number."""
    return indent + ELISION.format(a=first, b=last)


def _found_text(f: Found) -> str:
    if f.score is not None:  # BM25: its own score, and the terms it matched
        return f"{f.method} rank {f.rank} (score {f.score:.2f})" + (f" on {f.note}" if f.note else "")
    return f"{f.method} rank {f.rank}" + (f": {f.note}" if f.note else "")


def full_reason(r: Reason) -> str:
    """The stored reason: `Fused rank 1 as callee evidence, found by call graph rank 1: subclassed by Blueprint; BM25
    rank 10 (score 9.26) on terms 'static', 'serve'; cut from lines 52-73 to the 15 lines that best match the
    question.`"""
    found = "; ".join(map(_found_text, r.found)) or "retrieved"
    text = f"Fused rank {r.rank} as {r.role} evidence, found by {found}"
    if r.cut:
        text += f"; {r.cut.words()}"
    return text + "."


@lru_cache(maxsize=4096)  # a bundle's prompt is written several times while it is packed and checked
def read_reason(text: str) -> Reason | None:
    """A full reason read back; None for any other text."""
    m = _FULL_REASON_RE.fullmatch(text.strip())
    if m is None:
        return None
    found = []
    if m["found"] != "retrieved":
        for part in _FOUND_SPLIT_RE.split(m["found"]):
            f = _FOUND_RE.fullmatch(part)
            if f is None:
                return None
            found.append(Found(f["method"], int(f["rank"]), number_or_none(f["score"]), f["note"] or ""))
    cut = None
    if m["a"]:
        first = m["first"] is not None
        elided = (int(m["e"]), int(m["f"])) if m["e"] else None
        cut = Cut(int(m["a"]), int(m["b"]), int(m["first"] if first else m["n"]), "first" if first else "match",
                  elided, int(m["comments"] or 0))
    return Reason(int(m["rank"]), m["role"], tuple(found), cut)


def brief_reason(r: Reason) -> str:
    """The prompt's reason: role, how it was found and by which methods, `callee via call graph (subclassed by
    Blueprint), BM25`; ranks, scores, matched terms and cuts stay in the full reason (the header gives the lines)."""
    methods = []
    for f in r.found:
        note = _BRIEF_NOTES.get(f.method, lambda _: "")(f.note)
        methods.append(f"{f.method} ({note})" if note else f.method)
    return f"{r.role} via {', '.join(methods) or 'retrieval'}"


def number_or_none(value: str | None) -> float | None:
    """A score as written; None when absent or not a number (`1.2.3` still reads as a header, with no score)."""
    try:
        return float(value) if value else None
    except ValueError:
        return None
