"""Code-aware words: the one stop-word vocabulary and the one identifier splitter, for BM25 and for prose about code.

`parse_file` → "parse_file", "parse", "file"; `HTTPServer` → "httpserver", "http", "server".
So a question in plain words ("parse a file") and one naming the identifier both match. Lower-cased; a plural "s" is
dropped ("permissions" meets "permission", "floats" meets "float"); English stop words and one-letter tokens are dropped
(they carry no signal and make the postings of every query long).

Two stop-word lists are built from named parts, because code and prose differ on purpose: STOPWORDS (code terms, BM25)
keeps English words that are also common identifiers (`now`, `make`, `else`, `one`, `use`) and drops `self`/`get`,
which every Python file is full of; PROSE_STOPWORDS (the offline graders' content words, the offline answerer's line
terms) drops those English words and the words every question or answer about code uses (`function`, `file`, `calls`).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
PLAIN_WORD = re.compile(r"\w+")

# English words that name no topic and no common identifier
_FUNCTION_WORDS = frozenset("""
a an and are as at be been but by can could did do does doing done for from had has have how i if in into is it its
me my no not of on or our should so than that the their them then there these they this those to was we were what
when where which who whom why will with would you your about after before also any each just may might more most must
other over same some such through under until up very via while all both few only own too out
""".split())
# English words that are also identifiers or their parts (datetime.now, make_archive, else, one): stop words in prose only
_IDENTIFIER_WORDS = frozenset("""
above again because being below between down during either else every further having he her here hers him his however
itself let like made make makes many much nor now off once one she thus upon us way whether whose within without yes yet
""".split())
# noise in code: every method's first parameter and the accessor verbs
_CODE_NOISE = frozenset("self get gets got".split())
# words every question or answer about code uses, so they say nothing about which code or which claim
_CODE_TALK = frozenset("""
answer call called calls class code evidence file files function functions method question return returns see use used
uses using value
""".split())

# words a question uses to talk about software in general ("the architectural role of the mechanism that implements
# ..."): they name no code, and they match prose documents about design rather than the code a question asks about
_SOFTWARE_TALK = frozenset("""
architectural architecture role roles mechanism mechanisms approach purpose responsible responsibility responsibilities
implementation implementations implement implements implemented codebase specific multiple various particular certain
underlying overall enable enables enabling ensure ensures ensuring effect effects affect affects influence impact
behavior behaviour behaviors behaviours design designed concern concerns
""".split())

STOPWORDS = _FUNCTION_WORDS | _CODE_NOISE  # code terms: BM25 over chunks and questions, identifiers in a question
PROSE_STOPWORDS = _FUNCTION_WORDS | _IDENTIFIER_WORDS | _CODE_TALK  # content words of questions, answers, evidence
QUESTION_STOPWORDS = STOPWORDS | _SOFTWARE_TALK  # a question's search terms (documents keep these words)

_cache: dict[str, tuple[str, ...]] = {}


def identifier_parts(word: str) -> list[str]:
    """The snake_case and camelCase parts of an identifier, lower-cased: `HTTPServer_v2` → http, server, v, 2."""
    return [p.lower() for piece in word.split("_") if piece for p in _CAMEL.findall(piece)]


def split_identifier(word: str) -> tuple[str, ...]:
    """The whole identifier (lower-cased), then its snake_case/camelCase parts; no stop words, no 1-letter parts."""
    hit = _cache.get(word)
    if hit is not None:
        return hit
    lowered = word.lower().strip("_")
    parts = identifier_parts(word)
    out: list[str] = []
    if len(lowered) > 1 and lowered not in STOPWORDS:
        out.append(_singular(lowered))
    if len(parts) > 1:
        out.extend(_singular(p) for p in parts if len(p) > 1 and p not in STOPWORDS and p != lowered)
    result = tuple(out)
    if len(_cache) < 500_000:  # bounded: a huge corpus must not grow the cache without limit
        _cache[word] = result
    return result


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        return word[:-1]
    return word


def written_forms(text: str) -> dict[str, str]:
    """The text's words that are BM25 terms only with their plural `s` cut off or as query_variants' base forms, keyed
    by that term (`applie` -> `applies`, `pushe` -> `pushed`): a reason shows people the question's words, not the
    index's forms."""
    out: dict[str, str] = {}
    for word in _WORD.findall(text):
        lowered = word.lower().strip("_")
        singular = _singular(lowered)
        if singular != lowered:
            out.setdefault(singular, lowered)
        for base in query_variants([lowered])[1:]:  # `pushe` and `push`, searched for `pushed`
            out.setdefault(base, lowered)
    return out


def code_tokens(text: str) -> list[str]:
    """BM25 terms of a text (code or prose)."""
    out: list[str] = []
    cache = _cache
    for word in _WORD.findall(text):
        tokens = cache.get(word)  # inline cache hit: this loop runs for every word of the corpus
        out.extend(split_identifier(word) if tokens is None else tokens)
    return out


def query_variants(tokens: list[str]) -> list[str]:
    """The question's terms plus the base forms of -ed/-ing words ("saved" → "save", "parsing" → "parse"), so a
    question's verb meets the identifier it names; forms no document has add nothing to a BM25 score."""
    out = list(tokens)
    for t in tokens:
        if t.endswith("ed") and len(t) > 4:
            out.extend(v for v in (t[:-1], t[:-2]) if v not in out)
        elif t.endswith("ing") and len(t) > 5:
            out.extend(v for v in (t[:-3], t[:-3] + "e") if v not in out)
    return out


def plain_tokens(text: str) -> list[str]:
    """The baseline's tokens: lower-cased \\w+ runs, nothing code-aware."""
    return PLAIN_WORD.findall(text.lower())
