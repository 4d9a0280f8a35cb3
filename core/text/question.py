"""What kind of question this is, and which code identifiers it names (shared by retrieve and compile).

Rules over the question's words, in priority order: a question about who calls / imports / uses something is a
relationship question; "where is X defined", "which file" is a lookup; overall structure and design is architecture;
"how does / why / explain" is an explanation; everything else general.
"""

from __future__ import annotations

import re

from gradedesk.core.text.codeterms import STOPWORDS

_RELATIONSHIP = re.compile(
    r"\b(calls?|called|callers?|callees?|invok\w*|imports?|imported|importing|uses|used by|depends?( on)?|"
    r"dependen\w*|referenced by|references (to|of)|(what|who|which)( \w+)? references?|relationship|related to|"
    r"interacts?|subclass\w*|inherit\w*|overrid\w*)\b", re.I)  # bare "using"/"references" are too common
_LOOKUP = re.compile(r"\b(where (is|are|does|do)|which (file|module|class|function|method)|defined|definition|"
                     r"signature|find|locate|what (file|module)|return type|default value)\b", re.I)
_ARCHITECTURE = re.compile(r"\b(architecture|overall|structure[ds]?|design|components?|layers?|organi[sz]ed|"
                           r"high[- ]level|overview|subsystems?|pipeline|data flow|end[- ]to[- ]end)\b", re.I)
_EXPLANATION = re.compile(r"\b(how (does|do|is|are|can|should)|why|explain|what happens|describe|walk me through|"
                          r"what is the purpose|purpose of|how come)\b", re.I)

_BACKTICK = re.compile(r"`([^`]+)`")
_CANDIDATE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


_RULES = ((_RELATIONSHIP, "relationship"), (_LOOKUP, "code_lookup"), (_ARCHITECTURE, "architecture"),
          (_EXPLANATION, "explanation"))


def classify_question(question: str) -> str:
    for pattern, question_type in _RULES:
        if pattern.search(question):
            return question_type
    return "general"


def _code_like(word: str, first: bool) -> bool:
    if word.endswith("()") or "." in word or "_" in word.strip("_") or word.startswith("_"):
        return True
    if any(c.isupper() for c in word[1:]) and any(c.islower() for c in word):
        return True  # camelCase / PascalCase with an inner capital
    # a capitalised word mid-sentence may be a class name (Counter, Path); the first word is just a sentence
    return not first and word[:1].isupper() and word.lower() not in STOPWORDS and len(word) > 2


def question_identifiers(question: str) -> list[str]:
    """Identifiers the question names, as written (without a trailing "()"), in order, without repeats."""
    found: list[str] = [m.strip().removesuffix("()") for m in _BACKTICK.findall(question)]
    for i, m in enumerate(_CANDIDATE.finditer(question)):
        word = m.group(0).rstrip(".")
        if _code_like(word, first=(i == 0)):
            found.append(word.removesuffix("()"))
    out: list[str] = []
    for word in found:
        if word and word not in out and re.fullmatch(r"[A-Za-z_][\w.]*", word):
            out.append(word)
    return out
