"""Text matching shared by the offline graders (rule grader, offline faithfulness and relevance): no model, rapidfuzz.

Code answers hinge on identifiers and file names, so terms are split in two kinds: code terms (dotted names, snake_case,
CamelCase, calls, paths, numbers) which must match closely, and content words (plain words minus stop words) which
carry the rest of the meaning. A term is present in a text when it occurs as a token, or when some token of the text is
within rapidfuzz ratio FUZZY_CUTOFF of it (plurals, inflections, small typos).

An answer is cut into claim-sized pieces once, here (`pieces`): sentences and list items, with fenced code blocks and
quoted lines kept whole, and never cut inside `inline code`. `sentences` (the offline scorers' claims) and the claims a
person marks at the desk (core/grading/claims.py) are the same pieces. `find_citations` reads what a piece cites
(the forms of core/text/prompt_layout.py: `[Evidence i]` labels, `File: path` with `:line` or `(lines a-b)`, bare
`path:line`); what is quoted as code is not read as a citation.

Fuzzy look-ups cost (terms x tokens): each Haystack spends at most FUZZY_BUDGET token comparisons, after which terms
must match exactly. Ordinary answers and evidence never reach it (a few thousand tokens against a few dozen terms);
a pathological pair (a 50,000-character gold against a 200,000-character answer) is graded in seconds, not minutes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz import fuzz, process

from gradedesk.core.text.codeterms import PROSE_STOPWORDS
from gradedesk.core.text.prompt_layout import CitationRef, is_citation, read_citations, uncited

FUZZY_CUTOFF = 88.0
FUZZY_BUDGET = 2_000_000  # token comparisons per Haystack (about 0.2 s)
_SUFFIXES = ("s", "es", "d", "ed", "ing")

_CODE_RE = re.compile(
    r"`[^`\n]{1,80}`"                                    # anything in backticks
    r"|[A-Za-z_][\w]*(?:[./][A-Za-z_][\w-]*)+(?:\(\))?"  # dotted names and paths: core/store.py, Store.transaction
    r"|[A-Za-z_]\w*\(\)"                                  # calls: open_store()
    r"|\b[a-z]\w*_\w+\b|\b_\w+\b"                          # snake_case, _private
    r"|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[a-z]+[A-Z]\w*\b"     # CamelCase, camelCase
    r"|\b[A-Z]{2,}\w*\b"                                  # ALL_CAPS constants
    r"|\b\d[\d_]*(?:\.\d+)?\b"                            # numbers, 10_000 too
)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_TOKEN_RE = re.compile(r"[A-Za-z_][\w]*(?:[./][A-Za-z_][\w]*)*|\d[\d_]*(?:\.\d+)?")
_PART_RE = re.compile(r"[./_]")
_ABSTAIN_RE = re.compile(
    r"\b(i (?:do not|don't|cannot|can't) (?:know|tell|determine|say|answer)|not enough (?:information|evidence|context)"
    r"|(?:evidence|context|information) (?:is |was )?(?:insufficient|not sufficient|does not (?:say|show|contain|mention))"
    r"|insufficient (?:evidence|context|information)|unable to (?:answer|determine)|no (?:relevant )?evidence)\b",
    re.IGNORECASE)


def code_terms(text: str) -> list[str]:
    """Distinct code-like terms in order (backticks and trailing "()" stripped, sentence-final dots dropped)."""
    out: dict[str, None] = {}
    for m in _CODE_RE.finditer(text):
        term = m.group(0).strip("`").removesuffix("()").rstrip(".").strip()
        if len(term) > 1 and any(ch.isalnum() for ch in term):  # a backtick pair around `");` names nothing
            out[term] = None
    return list(out)


def content_words(text: str) -> list[str]:
    """Distinct lower-cased plain words of three letters or more that are not stop words or code terms."""
    out: dict[str, None] = {}
    for m in _WORD_RE.finditer(_CODE_RE.sub(" ", text)):
        word = m.group(0).lower()
        if len(word) >= 3 and word not in PROSE_STOPWORDS:
            out[word] = None
    return list(out)


def key_terms(text: str) -> list[str]:
    """What a claim is about: its code terms, then its content words."""
    return code_terms(text) + content_words(text)


def sentences(text: str) -> list[str]:
    """The answer's claim-sized pieces as plain text: citations removed, fragments under 3 words dropped."""
    out = []
    for piece in pieces(text):
        plain = uncited(text[piece.start:piece.end]).strip(" \t-*•:#>")
        if len(plain.split()) >= 3:
            out.append(plain)
    return out


def abstains(text: str) -> bool:
    """Does the text decline to answer ("I don't know", "the evidence is insufficient", ...)?"""
    return bool(_ABSTAIN_RE.search(text))


@dataclass
class Haystack:
    """A text prepared for repeated term look-ups (exact token set first, fuzzy fallback)."""

    text: str
    fuzzy_left: int = field(default=FUZZY_BUDGET, repr=False)

    @cached_property
    def tokens(self) -> list[str]:
        found = dict.fromkeys(_TOKEN_RE.findall(self.text.lower()))
        for tok in list(found):
            if "." in tok or "/" in tok or "_" in tok:  # core/store.py also offers "store", open_store "open"
                found.update(dict.fromkeys(_PART_RE.split(tok)))
        return list(found)

    @cached_property
    def token_set(self) -> frozenset[str]:
        return frozenset(self.tokens)

    @cached_property
    def flat(self) -> str:
        """Lower-cased with runs of whitespace as one space: quoted code matches however it was re-spaced."""
        return " ".join(self.text.lower().split())

    def has(self, term: str) -> bool:
        t = " ".join(term.lower().split())
        if t in self.token_set or (len(t) > 3 and t in self.flat):
            return True
        if " " in t:  # a quoted fragment: present when every name and number in it is
            parts = [p for p in _TOKEN_RE.findall(t) if len(p) > 1]
            return bool(parts) and all(p in self.token_set for p in parts)
        if any(t + suffix in self.token_set for suffix in _SUFFIXES):  # "set" is in "sets"
            return True
        if len(t) < 4 or not self.tokens:  # short terms must match exactly: fuzzy "id" ~ "if" means nothing
            return False
        if self.fuzzy_left < len(self.tokens):  # the budget is spent: exact matches only from here on
            return False
        self.fuzzy_left -= len(self.tokens)
        return process.extractOne(t, self.tokens, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF) is not None

    def share(self, terms: list[str]) -> float | None:
        """The share of terms present; None when there are no terms to look for."""
        if not terms:
            return None
        return sum(self.has(t) for t in terms) / len(terms)


# claim-sized pieces and what they cite -------------------------------------------------------------------------------
PIECE_KINDS = ("sentence", "item", "code", "quote")

_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+$")
_FENCE_RE = re.compile(r"\s*(```|~~~)")
_ITEM_RE = re.compile(r"\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_QUOTE_RE = re.compile(r"\s*>")
# a heading, a horizontal rule, a table's rule row: not claims
_SKIP_RE = re.compile(r"\s*#{1,6}\s|\s*(?:[-*_]\s*){3,}$|\s*\|?[\s:|-]*-[\s:|-]*\|[\s:|-]*$")
_TICKS_RE = re.compile(r"`+")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\[*_\"'])")
_ALNUM_RE = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True)
class Piece:
    """A claim-sized piece of an answer: its character span and its kind (sentence, item, code, quote)."""

    start: int
    end: int
    kind: str


def mask_code(text: str) -> str:
    """The text with what is quoted as code blanked (same length, newlines kept): fenced blocks whole, `inline` spans
    inside their backticks, unless the span holds nothing but a citation (`core/store.py:12`)."""
    out = list(text)
    fence = None
    for m in _LINE_RE.finditer(text):
        opening = _FENCE_RE.match(m.group())
        if fence or opening:
            out[m.start():m.end()] = [c if c == "\n" else " " for c in m.group()]
            if opening and fence is None:
                fence = opening.group(1)
            elif fence and m.group().strip().startswith(fence):
                fence = None
    for start, end, ticks in _code_spans("".join(out)):
        if not is_citation(text[start + ticks:end - ticks]):
            out[start + ticks:end - ticks] = " " * (end - start - 2 * ticks)
    return "".join(out)


def inline_code(text: str) -> str:
    """`text` quoted as one CommonMark code span, whatever backticks it holds (a longer run of backticks around it)."""
    fence = "`" * (max((len(m.group()) for m in _TICKS_RE.finditer(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _code_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, backticks) of each `inline` code span, as CommonMark reads them: a run of backticks opens a span
    that the next run of as many backticks on the same line closes (``a ` b`` quotes a backtick); a run that is never
    closed is a plain backtick."""
    spans = []
    runs = list(_TICKS_RE.finditer(text))
    i = 0
    while i < len(runs):
        opener = runs[i]
        closer = next((j for j in range(i + 1, len(runs)) if "\n" in text[opener.end():runs[j].start()]
                       or len(runs[j].group()) == len(opener.group())), None)
        if closer is not None and "\n" not in text[opener.end():runs[closer].start()]:
            spans.append((opener.start(), runs[closer].end(), len(opener.group())))
            i = closer + 1
        else:
            i += 1
    return spans


def _blocks(text: str) -> list[list]:
    """[kind, start, end] of the answer's paragraph lines, list items, fenced code blocks and quotes, in order."""
    blocks: list[list] = []
    current: list | None = None
    fence = None
    for m in _LINE_RE.finditer(text):
        line = m.group().rstrip("\n")
        start, end = m.start(), m.start() + len(line)
        indent = len(line) - len(line.lstrip())
        if fence:
            assert current is not None  # a fence opens together with its code block
            current[2] = end
            if line.strip().startswith(fence):
                current, fence = None, None
            continue
        if opening := _FENCE_RE.match(line):
            fence, current = opening.group(1), ["code", start + indent, end]
            blocks.append(current)
        elif not line.strip() or _SKIP_RE.match(line):
            current = None
        elif _QUOTE_RE.match(line):
            if current is None or current[0] != "quote":
                current = ["quote", start + indent, end]
                blocks.append(current)
            current[2] = end
        elif item := _ITEM_RE.match(line):
            current = ["item", start + item.end(), end]
            blocks.append(current)
        elif current is not None and current[0] in ("sentence", "item") and _continues(current, text, line, indent):
            current[2] = end
        else:
            current = ["sentence", start + indent, end]
            blocks.append(current)
    return blocks


def _continues(block: list, text: str, line: str, indent: int) -> bool:
    """Does `line` carry on the block before it (an indented item body, a wrapped sentence) rather than start anew?"""
    if block[0] == "item" and indent > 0:
        return True
    return not text[block[1]:block[2]].rstrip().endswith((".", "!", "?", ":")) and line.lstrip()[:1].islower()


def pieces(text: str) -> list[Piece]:
    """The answer cut into claims: sentences of paragraphs and of list items; fenced code blocks and runs of quoted
    lines whole; headings and rules left out. A piece that is nothing but a citation joins the piece before it."""
    masked = mask_code(text)
    out: list[Piece] = []
    for kind, start, end in _blocks(text):
        cuts = [start]
        if kind in ("sentence", "item"):
            cuts += [m.end() for m in _SENTENCE_END_RE.finditer(masked, start, end)]
        for a, b in zip(cuts, cuts[1:] + [end]):
            piece = text[a:b].rstrip()
            if not _ALNUM_RE.search(piece):
                continue
            if not _ALNUM_RE.search(uncited(piece)) and out:  # "... shown. [Evidence 2]"
                out[-1] = Piece(out[-1].start, a + len(piece), out[-1].kind)
                continue
            out.append(Piece(a, a + len(piece), kind))
    return out


def find_citations(text: str) -> list[CitationRef]:
    """What a piece of an answer cites, in order of appearance (code quoted in it is not read)."""
    return read_citations(text, mask_code(text))
