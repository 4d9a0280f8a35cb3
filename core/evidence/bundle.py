"""Evidence bundles: the formal, provenance-carrying form of a context pack, and the contract every bundle must keep.

A bundle is what the "bundled" answer is made from: each snippet says where it came from (file, lines, symbol), how it
was found (retrieval method, score, rank), why it was kept (selection reason) and what it is for (evidence role); the
bundle says what kind of question it serves, what is covered and what is missing, and how many tokens it costs under a
named tokenizer. `validate` checks the context-pack contract and returns every violation, never just the first.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, UTC
from typing import Any

from gradedesk.core.text.hashing import content_hash
from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.text.prompt_layout import (
    LAYOUT_NAMES, SNIPPET_SEPARATOR, Header, bundle_block, bundle_layouts, evidence_header, layout_block,
)
from gradedesk.core.text.tokens import get_tokenizer, normalize_id

# 2: brief reasons, no method/score in prompt headers; 3: `path:a-b`, no symbol a def line names; 4: cuts of ~100
# tokens below 2k, and the two best hits never wait behind other files; 5: rank order, the subject first, a left-out
# reason from a fixed list, definitions cut to their first lines; 6: a definition's cut leaves comment lines out too
# 7: acronyms are words, breadth by a best hit's class then its file; 8: breadth by agreeing methods, the top-10 files,
# a small first hit of every other file
COMPILER_VERSION = "gradedesk-compiler/10"
QUESTION_TYPES = ("code_lookup", "explanation", "relationship", "architecture", "general")
EVIDENCE_ROLES = ("definition", "caller", "callee", "test", "related", "context")


def utc_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class EvidenceSnippet:
    chunk_id: str
    content_hash: str
    text: str
    token_count: int
    file_path: str
    start_line: int
    end_line: int
    symbol_name: str | None
    retrieval_method: str
    relevance_score: float
    retrieval_rank: int
    selection_reason: str | None = None
    evidence_role: str | None = None

    def _header(self, index: int) -> Header:
        return Header(index, self.file_path, self.start_line, self.end_line, self.symbol_name)

    def scored_header(self, index: int) -> str:
        """The header with the best method and the fused score, for people (`ask`); a prompt's carries the reason."""
        return evidence_header(replace(self._header(index), method=self.retrieval_method, score=self.relevance_score))

    def prompt_block(self, index: int) -> str:
        """The block a prompt carries: the reason in its brief form (the stored one keeps the detail)."""
        return bundle_block(self._header(index), self.text, self.selection_reason)

    def written_block(self, index: int, layout: str) -> str:
        """The block as a compiler of that layout wrote it (prompt_layout.layout_block)."""
        header = replace(self._header(index), method=self.retrieval_method, score=self.relevance_score)
        return layout_block(layout, header, self.text, self.selection_reason)


@dataclass
class EvidenceBundle:
    question: str
    question_type: str
    snippets: list[EvidenceSnippet]
    total_tokens: int
    token_budget: int
    retrieval_strategies_used: list[str]
    coverage_notes: list[str]
    created_at: str = field(default_factory=utc_iso)
    compiler_version: str = COMPILER_VERSION
    warnings: list[str] = field(default_factory=list)
    tokenizer: str = field(default_factory=lambda: normalize_id(DEFAULT_ENCODING))

    def to_prompt_context(self) -> str:
        return prompt_context(self.snippets)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvidenceBundle:
        known = {f.name for f in fields(EvidenceSnippet)}
        snippets = [EvidenceSnippet(**{k: v for k, v in s.items() if k in known}) for s in data.get("snippets", [])]
        names = {f.name for f in fields(cls)} - {"snippets"}
        return cls(snippets=snippets, **{k: v for k, v in data.items() if k in names})

    @classmethod
    def from_json(cls, text: str) -> EvidenceBundle:
        return cls.from_dict(json.loads(text))

    def recount(self) -> EvidenceBundle:
        """Set every token count (snippets and total) exactly under the bundle's tokenizer."""
        tok = get_tokenizer(self.tokenizer)
        for s in self.snippets:
            s.token_count = tok.count(s.text)
        self.total_tokens = tok.count(self.to_prompt_context())
        return self


def prompt_context(snippets: list[EvidenceSnippet]) -> str:
    return SNIPPET_SEPARATOR.join(s.prompt_block(i) for i, s in enumerate(snippets, start=1))


@dataclass(frozen=True)
class CountedLayout:
    """The prompt context a bundle's total_tokens is checked against: the layout it was written in, and its tokens."""
    layout: str  # a key of prompt_layout.LAYOUT_NAMES
    tokens: int

    @property
    def name(self) -> str:
        return LAYOUT_NAMES[self.layout]


def written_layout(bundle: EvidenceBundle) -> CountedLayout:
    """The layout the bundle was written in, by its compiler_version (the seed's for a bundle gradedesk's compiler did
    not make); of a version that wrote two, the one whose count is the bundle's total_tokens."""
    tok = get_tokenizer(bundle.tokenizer)
    counted = []
    for layout in bundle_layouts(bundle.compiler_version):
        text = SNIPPET_SEPARATOR.join(s.written_block(i, layout) for i, s in enumerate(bundle.snippets, start=1))
        counted.append(CountedLayout(layout, tok.count(text)))
    return next((c for c in counted if c.tokens == bundle.total_tokens), counted[0])


@dataclass(frozen=True)
class Violation:
    rule: str  # provenance, token_count, duplicate, content_hash, budget, selection_reason, evidence_role, schema
    message: str
    snippet: int | None = None  # 1-based [Evidence i] label, None for the bundle as a whole
    chunk_id: str | None = None
    unit: str = "evidence"  # what `snippet` counts: a bundle's evidence, or a context pack's block

    def __str__(self) -> str:
        where = "bundle" if self.unit == "evidence" else "pack"
        if self.snippet:
            where = f"{self.unit} {self.snippet}" + (f" ({self.chunk_id})" if self.chunk_id else "")
        return f"{where}: {self.rule}: {self.message}"


# Every field of a bundle file, required or optional, and the JSON it must hold: the one table the schema check reads
# (docs/repository-and-model.md's "Evidence bundle fields" states it; a test keeps the two in step). A contract rule may still ask more of an
# optional field: selection_reason and evidence_role may be absent from the schema's view, but the contract flags them.
BUNDLE_FIELDS: dict[str, tuple[bool, str]] = {
    "question": (True, "str"), "question_type": (True, "str"), "snippets": (True, "list"),
    "total_tokens": (True, "int"), "token_budget": (True, "int"),
    "retrieval_strategies_used": (False, "list[str]"), "coverage_notes": (True, "str | list[str]"),
    "created_at": (False, "str"), "compiler_version": (False, "str"), "warnings": (False, "list[str]"),
    "tokenizer": (False, "str"),
}
SNIPPET_FIELDS: dict[str, tuple[bool, str]] = {
    "chunk_id": (True, "str"), "content_hash": (True, "str"), "text": (True, "str"), "token_count": (True, "int"),
    "file_path": (True, "str"), "start_line": (True, "int"), "end_line": (True, "int"),
    "symbol_name": (False, "str | None"), "retrieval_method": (True, "str"), "relevance_score": (True, "float"),
    "retrieval_rank": (True, "int"), "selection_reason": (False, "str | None"), "evidence_role": (False, "str | None"),
}
_FITS = {"str": lambda v: isinstance(v, str), "None": lambda v: v is None,
         "list": lambda v: isinstance(v, list), "dict": lambda v: isinstance(v, dict),
         "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
         "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
         "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)}


def field_problems(data: dict, table: dict[str, tuple[bool, str]], skip: set[str]) -> list[tuple[str, str]]:
    out = []
    for name, (required, kind) in table.items():
        if name in skip:
            continue
        if name not in data:
            if required:
                out.append((name, "missing"))
        elif not any(_FITS[k](data[name]) for k in kind.split(" | ")):
            out.append((name, f"must be {kind.removesuffix(' | None')}, got {type(data[name]).__name__}"))
    return out


def schema_violations(data: Any) -> list[Violation]:
    """Missing or mistyped fields of a bundle read from JSON (checked before `from_dict`, which trusts its input)."""
    if not isinstance(data, dict):
        return [Violation("schema", f"expected a JSON object, got {type(data).__name__}")]
    out = [Violation("schema", f"{name}: {why}") for name, why in field_problems(data, BUNDLE_FIELDS, {"snippets"})]
    snippets = data.get("snippets")
    if snippets is None:
        return out + [Violation("schema", "snippets: missing")]
    if not isinstance(snippets, list):
        return out + [Violation("schema", f"snippets: must be a list, got {type(snippets).__name__}")]
    for i, s in enumerate(snippets, start=1):
        if not isinstance(s, dict):
            out.append(Violation("schema", f"must be an object, got {type(s).__name__}", i))
            continue
        chunk_id = s.get("chunk_id") if isinstance(s.get("chunk_id"), str) else None
        out += [Violation("schema", f"{name}: {why}", i, chunk_id)
                for name, why in field_problems(s, SNIPPET_FIELDS, set())]
    return out


@dataclass
class BundleFile:
    """A bundle file read for checking: the bundle (None when its schema is broken) and what was assumed."""
    bundle: EvidenceBundle | None
    violations: list[Violation]
    tokenizer_named: bool  # False: the file names no tokenizer and counts are checked with the default


def read_bundle(data: Any) -> BundleFile:
    """A bundle as another pipeline writes it: coverage_notes may be one string (the lesson's EvidenceBundle writes a
    string), a file that names no tokenizer is counted with the default one, and one that names no compiler_version
    in the seed's layout (`written_layout`)."""
    violations = schema_violations(data)
    if violations:
        return BundleFile(None, violations, isinstance(data, dict) and "tokenizer" in data)
    data = dict(data)
    if isinstance(data["coverage_notes"], str):
        data["coverage_notes"] = [data["coverage_notes"]]
    data.setdefault("retrieval_strategies_used", [])
    data.setdefault("compiler_version", "")  # gradedesk's compiler always names itself: this one is another's
    data["snippets"] = [{"symbol_name": None, **s} for s in data["snippets"]]
    return BundleFile(EvidenceBundle.from_dict(data), [], "tokenizer" in data)


def validate(bundle: EvidenceBundle) -> list[Violation]:
    """Every violation of the context-pack contract, each with the snippet it concerns.

    content_hash is checked for consistency, whatever function made it (sha256, md5, sha1...): one hash on two
    different texts is a violation; the same text twice is a duplicate, whatever its hashes say."""
    out: list[Violation] = []
    try:
        tok = get_tokenizer(bundle.tokenizer)
    except Exception as exc:  # an unknown tokenizer makes every count unverifiable: say so once
        return [Violation("token_count", f"tokenizer {bundle.tokenizer!r} unusable: {exc}")]
    seen: dict[str, int] = {}  # normalized text -> first snippet with it
    hashed: dict[str, tuple[int, str]] = {}  # the producer's content_hash -> (first snippet, its normalized text)
    for i, s in enumerate(bundle.snippets, start=1):

        def bad(rule: str, message: str, i: int = i, chunk_id: str | None = s.chunk_id) -> None:
            out.append(Violation(rule, message, i, chunk_id))

        if not (s.file_path or "").strip():
            bad("provenance", "file_path is missing")
        if not isinstance(s.start_line, int) or not isinstance(s.end_line, int) or s.start_line < 1:
            bad("provenance", f"line range {s.start_line}-{s.end_line} is not a pair of line numbers from 1")
        elif s.start_line > s.end_line:
            bad("provenance", f"line range {s.start_line}-{s.end_line} has start after end")
        if not (s.retrieval_method or "").strip():
            bad("provenance", "retrieval_method is missing")
        actual = tok.count(s.text)
        if s.token_count != actual:
            bad("token_count", f"token_count {s.token_count} but the text has {actual} tokens ({tok.id})")
        same = content_hash(s.text)  # gradedesk's own hash of the normalized text: what "the same content" means
        if not (s.content_hash or "").strip():
            bad("content_hash", "content_hash is missing")
        elif s.content_hash in hashed and hashed[s.content_hash][1] != same:
            bad("content_hash", f"same content_hash as evidence {hashed[s.content_hash][0]} but different text")
        else:
            hashed.setdefault(s.content_hash, (i, same))
        if same in seen:
            bad("duplicate", f"same content as evidence {seen[same]}")
        else:
            seen[same] = i
        if not (s.selection_reason or "").strip():
            bad("selection_reason", "selection_reason is missing")
        if not (s.evidence_role or "").strip():
            bad("evidence_role", "evidence_role is missing")
        elif s.evidence_role not in EVIDENCE_ROLES:
            bad("evidence_role", f"evidence_role {s.evidence_role!r} is not one of {', '.join(EVIDENCE_ROLES)}")
    counted = written_layout(bundle)
    if bundle.total_tokens != counted.tokens:
        out.append(Violation("token_count", f"total_tokens {bundle.total_tokens} but the prompt context has "
                                            f"{counted.tokens} tokens ({tok.id}), counted in {counted.name}"))
    if counted.tokens > bundle.token_budget:
        out.append(Violation("budget", f"{counted.tokens} tokens exceed the budget of {bundle.token_budget} "
                                       f"(counted in {counted.name})"))
    return out
