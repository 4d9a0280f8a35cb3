"""A question analysed once: its type, the identifiers it names, its terms, and which way to walk the call graph.

analyse_question(text) -> QuestionInfo. Retrieval computes it and passes it on to compile, so both read the same
analysis. The type comes from rules over the question's words, in priority order: a question about who calls /
imports / uses something is a relationship question (the one relationship detector: only these expand the call
graph); "where is X defined", "which file" is a lookup; overall structure and design is architecture; "how does /
why / explain" is an explanation; everything else general.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gradedesk.core.text.codeterms import QUESTION_STOPWORDS, STOPWORDS, code_tokens

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

# which way a relationship question walks the call graph: towards callers ("what calls X", the default), callees
# ("what does X call"), and whether importers count
_IMPORT_WORDS = re.compile(r"\b(import\w*|uses|used by|depend\w*)\b", re.I)
_EXPLICIT_CALLER_WORDS = re.compile(r"\b(callers?|called (by|from)|used (by|in)|who calls|what calls)\b", re.I)
_CALLEE_WORDS = re.compile(r"\b(does \S+ call|callees?|what (functions|methods) does|calls made by|depends? on)\b",
                           re.I)
_TEST_WORDS = re.compile(r"\btest", re.I)
_DOC_WORDS = re.compile(r"\b(docs?|documentation|documented|readme|changelog|guide|tutorial|manual)\b", re.I)

_BACKTICK = re.compile(r"`([^`]+)`")
_CANDIDATE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


# a dotted word that ends like a file name ("store.db", "setup.py") names a file, not an identifier
_FILE_NAME = re.compile(r"[\w./-]+\.(py|pyi|md|rst|txt|json|jsonl|toml|ya?ml|cfg|ini|sql|db|sqlite3?|csv|html|js|ts|"
                        r"css|sh|lock)", re.I)

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
    # an acronym (HTTP, JSON) is a word of the domain, not a name of the code
    return not first and word[:1].isupper() and not word.isupper() and word.lower() not in STOPWORDS and len(word) > 2


def question_identifiers(question: str) -> list[str]:
    """Identifiers the question names, as written (without a trailing "()"), in order, without repeats."""
    found: list[str] = [m.strip().removesuffix("()") for m in _BACKTICK.findall(question)]
    for i, m in enumerate(_CANDIDATE.finditer(question)):
        word = m.group(0).rstrip(".")
        if _code_like(word, first=(i == 0)):
            found.append(word.removesuffix("()"))
    out: list[str] = []
    for word in found:
        if word and word not in out and re.fullmatch(r"[A-Za-z_][\w.]*", word) and not _FILE_NAME.fullmatch(word):
            out.append(word)
    return out


def question_files(question: str) -> list[str]:
    """File names and paths the question names ("store.db", "core/cli/main.py"), in order, without repeats."""
    return list(dict.fromkeys(m.group(0).strip("./") for m in _FILE_NAME.finditer(question)
                              if not m.group(0).startswith(".")))


@dataclass(frozen=True)
class QuestionInfo:
    text: str
    question_type: str  # relationship | code_lookup | architecture | explanation | general
    identifiers: tuple[str, ...]  # as written, in order (question_identifiers)
    terms: tuple[str, ...]  # search terms: code terms (code_tokens) but software talk, in order, repeats kept
    about_tests: bool  # names tests: test code is not demoted
    about_docs: bool  # names documentation: prose is not demoted
    wants_imports: bool  # relationship: importers count as well as callers
    wants_callers: bool
    wants_callees: bool
    files: tuple[str, ...] = ()  # file names and paths the question names (question_files)

    @property
    def relationship(self) -> bool:
        return self.question_type == "relationship"


def analyse_question(question: str | QuestionInfo) -> QuestionInfo:
    """The analysis of a question; an already analysed one is returned as it is."""
    if isinstance(question, QuestionInfo):
        return question
    callees = bool(_CALLEE_WORDS.search(question))
    # "what does X call" also reads as "what ... call": only explicit caller words add callers to a callee question
    callers = not callees or bool(_EXPLICIT_CALLER_WORDS.search(question))
    return QuestionInfo(question, classify_question(question), tuple(question_identifiers(question)),
                        tuple(t for t in code_tokens(question) if t not in QUESTION_STOPWORDS),
                        bool(_TEST_WORDS.search(question)), bool(_DOC_WORDS.search(question)),
                        bool(_IMPORT_WORDS.search(question)), callers, callees, tuple(question_files(question)))
