"""Text matching shared by the offline graders (rule grader, offline faithfulness and relevance): no model, rapidfuzz.

Code answers hinge on identifiers and file names, so terms are split in two kinds: code terms (dotted names, snake_case,
CamelCase, calls, paths, numbers) which must match closely, and content words (plain words minus stop words) which
carry the rest of the meaning. A term is present in a text when it occurs as a token, or when some token of the text is
within rapidfuzz ratio FUZZY_CUTOFF of it (plurals, inflections, small typos).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz, process

from gradedesk.core.text.codeterms import PROSE_STOPWORDS

FUZZY_CUTOFF = 88.0
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
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\[])|\n+")
_FILE_CITATION_RE = re.compile(r"\(?\bFile:\s*[^\s)]+\)?")
_CITATION_LABEL_RE = re.compile(r"\[(?:Evidence|E)\s*\d+(?:\s*,\s*\d+)*\]", re.IGNORECASE)
_LINE_REF_RE = re.compile(r"(\.[A-Za-z]{1,5}):\d+(?:-\d+)?\b|\(?\blines?\s+\d+(?:\s*[-–]\s*\d+)?\)?", re.IGNORECASE)
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


def strip_citations(text: str) -> str:
    """Drop evidence labels and line numbers ("[Evidence 11]", "core/store.py:106" keeps the file, "(lines 3-9)"):
    they point at evidence, they are not claims about the code."""
    return _LINE_REF_RE.sub(lambda m: m.group(1) or "", _CITATION_LABEL_RE.sub("", text))


def sentences(text: str) -> list[str]:
    """Claim-sized pieces of an answer: sentences and lines, citations removed, fragments under 3 words dropped."""
    out = []
    for piece in _SENTENCE_RE.split(text):
        piece = strip_citations(_FILE_CITATION_RE.sub("", piece)).strip(" \t-*•:#>")
        if len(piece.split()) >= 3:
            out.append(piece)
    return out


def abstains(text: str) -> bool:
    """Does the text decline to answer ("I don't know", "the evidence is insufficient", ...)?"""
    return bool(_ABSTAIN_RE.search(text))


@dataclass
class Haystack:
    """A text prepared for repeated term look-ups (exact token set first, fuzzy fallback)."""

    text: str

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
        return process.extractOne(t, self.tokens, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF) is not None

    def share(self, terms: list[str]) -> float | None:
        """The share of terms present; None when there are no terms to look for."""
        if not terms:
            return None
        return sum(self.has(t) for t in terms) / len(terms)
