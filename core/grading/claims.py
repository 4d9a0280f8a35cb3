"""An answer's claims and what each one cites. Pure: no store.

The answer is cut into claims by core/text/matching.py (`pieces`: sentences and list items; fenced code and quoted
lines whole), the same pieces the offline faithfulness scorer checks. Each claim's citations are resolved against the
evidence the answer was given, as core/evidence/stored.py `answer_evidence` reads it (bundle snippets by position,
else raw hits by rank):

- `[Evidence i]` is the evidence at position i;
- `File: path` and `path:line` are the evidence items of that file (the same path, or one ending in it at a `/`), and
  with lines, those whose line range holds them.

A citation that resolves to nothing is invalid and says why: a label or a file that is not in the evidence, or lines
outside what the evidence shows of that file. That is an exact, cheap hallucination signal. For a person checking a
claim, `focus_lines` names the evidence lines to look at: the cited lines, else the lines of the cited evidence that
match the claim best, else (a claim that cites nothing) the best-matching lines of all the evidence, as a suggestion.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.retrieval_evals import norm_path
from gradedesk.core.text.matching import Haystack, find_citations, key_terms, pieces
from gradedesk.core.text.prompt_layout import CitationRef, label_name, place, uncited

SPLITTER = "claims/1"  # bump when splitting or resolving changes: claims stored by an older version are recomputed
FOCUS_LINES = 3  # evidence lines suggested for a claim
MATCH_SHARE = 0.5  # share of a claim's key terms a line must hold to be suggested
MAX_NAMED_LINES = 40  # of a cited line range, the lines highlighted


@dataclass(frozen=True)
class Citation:
    text: str  # as written, e.g. "[Evidence 2]" or "File: core/store.py:12"
    target: str  # what it points at: "Evidence 2", "core/store.py:12"
    evidence: tuple[int, ...]  # positions of the evidence it resolves to (empty when invalid)
    lines: tuple[int, int] | None = None  # first and last line cited, when it names lines
    problem: str | None = None  # why it is invalid; None when valid

    @property
    def valid(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class Claim:
    index: int  # 1-based, in answer order
    kind: str  # sentence, item, code, quote
    text: str  # as written, citations included
    start: int  # character span in the answer
    end: int
    citations: tuple[Citation, ...] = ()

    @property
    def cited(self) -> bool:
        return bool(self.citations)

    @property
    def invalid(self) -> int:
        return sum(not c.valid for c in self.citations)

    @property
    def evidence(self) -> tuple[int, ...]:
        """Positions of the evidence its valid citations point at, in order."""
        return tuple(dict.fromkeys(p for c in self.citations for p in c.evidence))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Claim:
        citations = tuple(Citation(c["text"], c["target"], tuple(c["evidence"]),
                                   tuple(c["lines"]) if c.get("lines") else None, c.get("problem"))
                          for c in d.get("citations", ()))
        return cls(d["index"], d["kind"], d["text"], d["start"], d["end"], citations)


@dataclass(frozen=True)
class EvidenceLine:
    position: int  # of the evidence item
    line: int  # its line number in the file (or, when the evidence has no line numbers, 1 for its first line)


def _position(i: int, e: Evidence) -> int:
    return e.position if e.position is not None else i


def _same_file(cited: str, path: str | None) -> bool:
    if not path:
        return False
    a, b = norm_path(cited.strip("`")).lstrip("/"), norm_path(path).lstrip("/")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _resolve_labels(ref: CitationRef, positions: set[int]) -> list[Citation]:
    out = []
    for n in ref.labels:
        ok = n in positions
        problem = None if ok else f"{label_name(n)} is not in the evidence ({_count(positions)})"
        out.append(Citation(ref.text, label_name(n), (n,) if ok else (), problem=problem))
    return out


def _count(positions: set[int]) -> str:
    if not positions:
        return "the answer had no evidence"
    return f"it has {len(positions)} item{'s' if len(positions) != 1 else ''}"


def _resolve_file(ref: CitationRef, evidence: list[tuple[int, Evidence]]) -> Citation:
    path = ref.path or ""
    lines = (ref.first_line, ref.last_line or ref.first_line) if ref.first_line is not None else None
    target = place(path, ref.first_line, ref.last_line)
    exact = [(p, e) for p, e in evidence if e.file_path and norm_path(e.file_path) == norm_path(path)]
    same = exact or [(p, e) for p, e in evidence if _same_file(path, e.file_path)]
    if not same:
        return Citation(ref.text, target, (), lines, f"{path} is not in the evidence")
    if lines is None:
        return Citation(ref.text, target, tuple(p for p, _ in same), None)
    ranged = [(p, e.start_line, e.end_line) for p, e in same if e.start_line is not None and e.end_line is not None]
    if not ranged:  # the evidence does not say which lines it holds: the file is all we can check
        return Citation(ref.text, target, tuple(p for p, _ in same), lines)
    holding = [p for p, first, last in ranged if first <= lines[1] and lines[0] <= last]
    if not holding:
        shown = ", ".join(f"{first}-{last}" for _, first, last in ranged)
        what = f"line {lines[0]} of {path} is" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]} of {path} are"
        return Citation(ref.text, target, (), lines, f"{what} not in the evidence (it shows lines {shown})")
    return Citation(ref.text, target, tuple(holding), lines)


def resolve(ref: CitationRef, evidence: list[Evidence]) -> list[Citation]:
    """A citation as written, resolved against the answer's evidence (a label list gives one citation a label)."""
    numbered = [(_position(i, e), e) for i, e in enumerate(evidence, start=1)]
    if ref.labels:
        return _resolve_labels(ref, {p for p, _ in numbered})
    return [_resolve_file(ref, numbered)]


def split_claims(answer: str | None, evidence: list[Evidence]) -> list[Claim]:
    """The answer's claims, in order, each with its citations resolved against `evidence`."""
    text = answer or ""
    out = []
    for n, piece in enumerate(pieces(text), start=1):
        body = text[piece.start:piece.end]
        citations = tuple(c for ref in find_citations(body) for c in resolve(ref, evidence))
        out.append(Claim(n, piece.kind, body, piece.start, piece.end, citations))
    return out


# which evidence lines to look at --------------------------------------------------------------------------------------
class LineIndex:
    """The evidence's lines, each prepared once for term look-ups (a claim mode shows many claims over one evidence)."""

    def __init__(self, evidence: list[Evidence]) -> None:
        self.lines: list[tuple[EvidenceLine, Haystack]] = []
        for i, e in enumerate(evidence, start=1):
            first = e.start_line if e.start_line is not None else 1
            for offset, line in enumerate(e.text.split("\n")):
                if line.strip():
                    self.lines.append((EvidenceLine(_position(i, e), first + offset), Haystack(line)))

    def best(self, text: str, positions: tuple[int, ...] | None = None, limit: int = FOCUS_LINES) -> list[EvidenceLine]:
        """The lines (of the evidence at `positions`, or of all) holding most of the text's key terms, at least
        MATCH_SHARE of them; ties in evidence order."""
        terms = key_terms(uncited(text))
        if not terms:
            return []
        scored = []
        for order, (where, hay) in enumerate(self.lines):
            if positions is not None and where.position not in positions:
                continue
            share = hay.share(terms) or 0.0
            if share >= MATCH_SHARE:
                scored.append((-share, order, where))
        return [where for _, _, where in sorted(scored)[:limit]]


@dataclass(frozen=True)
class Focus:
    """What to show beside a claim: the evidence it cites, and the lines to look at (a suggestion when uncited)."""

    evidence: tuple[int, ...]
    lines: tuple[EvidenceLine, ...]
    suggested: bool  # the claim cites nothing (valid): the lines are the best matches, not a citation


def focus_lines(claim: Claim, index: LineIndex) -> Focus:
    cited = claim.evidence
    if not cited:
        return Focus((), tuple(index.best(claim.text)), True)
    named = tuple(EvidenceLine(p, n) for c in claim.citations if c.valid and c.lines for p in c.evidence
                  for n in range(c.lines[0], min(c.lines[1], c.lines[0] + MAX_NAMED_LINES - 1) + 1))
    return Focus(cited, named or tuple(index.best(claim.text, cited)), False)
