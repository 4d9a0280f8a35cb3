"""A word diff of two texts: which words only the first has (deleted), which only the second (inserted), which both.

For two long answers that are nearly the same, where reading them side by side hides the few words that differ. Words
and punctuation are compared (difflib, no junk heuristic: a common word is still a word); whitespace is not, so a
line wrapped otherwise is no difference, and the text shared by both is given as the second writes it. Pure text work,
no textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

Kind = Literal["same", "deleted", "inserted"]

_TOKEN = re.compile(r"(\w+|[^\w\s]+)(\s*)")


@dataclass(frozen=True)
class DiffPart:
    kind: Kind
    text: str  # the words, with the whitespace that follows each as written


@dataclass(frozen=True)
class WordDiff:
    parts: list[DiffPart]
    words_a: int
    words_b: int
    deleted: int  # words only in the first text
    inserted: int  # words only in the second

    @property
    def same_share(self) -> float:
        """The share of the longer text's words that both have (1.0 for two empty texts)."""
        longest = max(self.words_a, self.words_b)
        return 1.0 if longest == 0 else (longest - max(self.deleted, self.inserted)) / longest


def _tokens(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Leading whitespace, then (word, the whitespace after it) for each word or run of punctuation."""
    lead = text[:len(text) - len(text.lstrip())]
    return lead, [(m.group(1), m.group(2)) for m in _TOKEN.finditer(text)]


def word_diff(a: str, b: str) -> WordDiff:
    _, tokens_a = _tokens(a)
    lead_b, tokens_b = _tokens(b)
    words_a, words_b = [w for w, _ in tokens_a], [w for w, _ in tokens_b]
    parts: list[DiffPart] = [DiffPart("same", lead_b)] if lead_b else []
    deleted = inserted = 0

    def add(kind: Kind, tokens: list[tuple[str, str]]) -> None:
        text = "".join(w + space for w, space in tokens)
        if not text:
            return
        if parts and parts[-1].kind == kind:
            parts[-1] = DiffPart(kind, parts[-1].text + text)
        else:
            parts.append(DiffPart(kind, text))

    for op, i1, i2, j1, j2 in SequenceMatcher(None, words_a, words_b, autojunk=False).get_opcodes():
        if op == "equal":
            add("same", tokens_b[j1:j2])
            continue
        if i2 > i1:
            if parts and not parts[-1].text[-1:].isspace() and i1 and tokens_a[i1 - 1][1]:
                add("same", [("", tokens_a[i1 - 1][1])])  # B glued what A kept apart: keep A's words apart
            add("deleted", tokens_a[i1:i2])
            deleted += i2 - i1
        if j2 > j1:
            add("inserted", tokens_b[j1:j2])
            inserted += j2 - j1
    return WordDiff(parts, len(words_a), len(words_b), deleted, inserted)
