"""Bundle and context-pack files as other pipelines write them: the lesson's bundle, Biblicus packs, every violation."""

from __future__ import annotations

import json

from gradedesk.core.evidence.bundle import (
    BUNDLE_FIELDS, SNIPPET_FIELDS, EvidenceBundle, EvidenceSnippet, read_bundle, validate, written_layout,
)
from gradedesk.core.evidence.pack_check import PACK_FIELDS, check_pack, is_pack
from gradedesk.core.evidence.policy import ContextPackPolicy, PackItem, build_budgeted_pack
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.text.prompt_layout import BRACKET_LAYOUT, FUSED_LAYOUT, LAYOUT, SEED_LAYOUT
from gradedesk.core.text.tokens import count_tokens
from tests.fixtures import REPO_ROOT
from tests.fixtures.lesson_files import lesson_bundle_json, lesson_snippet


def rules(violations) -> list[tuple[str, int | None]]:
    return [(v.rule, v.snippet) for v in violations]


def test_the_lessons_bundle_is_read_as_written_and_passes_the_contract():
    data = json.loads(lesson_bundle_json([lesson_snippet(1, "def invalidate(self):\n    self._data.clear()"),
                                          lesson_snippet(2, "cache.invalidate()", evidence_role="caller")]))
    assert isinstance(data["coverage_notes"], str) and "tokenizer" not in data
    read = read_bundle(data)
    assert read.violations == [] and not read.tokenizer_named
    assert read.bundle.coverage_notes == ["Found definition of invalidate; no callers found"]
    assert read.bundle.tokenizer == "tiktoken/o200k_base"
    assert validate(read.bundle) == []


def test_a_broken_lesson_bundle_lists_each_violation():
    snippets = [lesson_snippet(1, "def f():\n    pass", file_path="", selection_reason=None),
                lesson_snippet(2, "def f():\n    pass", evidence_role="vibes"),
                lesson_snippet(3, "x = 1", token_count=99, start_line=9, end_line=2)]
    snippets[2].content_hash = snippets[0].content_hash  # one hash on two different texts
    data = json.loads(lesson_bundle_json(snippets, budget=10, total_tokens=3))
    found = rules(validate(read_bundle(data).bundle))
    assert found == [("provenance", 1), ("selection_reason", 1), ("duplicate", 2), ("evidence_role", 2),
                     ("provenance", 3), ("token_count", 3), ("content_hash", 3), ("token_count", None),
                     ("budget", None)]


def test_a_bundle_without_snippets_or_question_is_refused_alike():
    data = json.loads(lesson_bundle_json([lesson_snippet(1, "x = 1")]))
    del data["snippets"], data["question"]
    assert [str(v) for v in read_bundle(data).violations] == ["bundle: schema: question: missing",
                                                              "bundle: schema: snippets: missing"]


def test_the_docs_state_the_field_tables():
    page = (REPO_ROOT / "docs" / "repository-and-model.md").read_text(encoding="utf-8")
    for table in (BUNDLE_FIELDS, SNIPPET_FIELDS, PACK_FIELDS):
        for name, (required, kind) in table.items():
            row = f"| `{name}` | {'required' if required else 'optional'} | {kind.replace('|', 'or')} |"
            assert row in page, row


def pack(texts: list[str], **budgets) -> dict:
    evidence = [PackItem(f"c{i}", t, 1.0 / i, i, f"a.py:{i}-{i}", i, "bm25", {}) for i, t in enumerate(texts, 1)]
    return build_budgeted_pack(evidence, ContextPackPolicy(), **budgets).to_dict()


def test_a_context_pack_is_recognised_and_checked_as_one():
    built = pack(["def f(): pass", "def g(): pass"], max_tokens=500)
    assert is_pack(built)
    report = check_pack(built)
    assert report.violations == [] and (report.blocks, report.tokenizer) == (2, "tiktoken/o200k_base")
    assert report.budgets == {"max_tokens": 500}
    biblicus = {"text": built["text"], "evidence_count": 2, "blocks": built["blocks"]}
    report = check_pack(biblicus)
    assert report.violations == [] and report.tokenizer is None and report.budgets == {}


def test_a_broken_context_pack_lists_each_violation():
    built = pack(["def f(): pass", "def g(): pass"], max_tokens=500)
    built["blocks"].append({"evidence_item_id": "c1", "text": "def f(): pass", "metadata": None})
    built["blocks"].append({"evidence_item_id": "c9", "text": "  ", "metadata": None})
    built.update(evidence_count=2, total_tokens=1, max_tokens=2, tokenizer="tiktoken/o200k_base")
    found = rules(check_pack(built).violations)
    assert found == [("duplicate", 3), ("duplicate", 3), ("blocks", 4), ("evidence_count", None),
                     ("text", None), ("token_count", None), ("budget", None)]
    assert rules(check_pack({"text": "", "evidence_count": 0, "blocks": [], "max_tokens": 5}).violations) == [
        ("blocks", None), ("tokenizer", None)]
    assert [str(v) for v in check_pack({"text": 1, "blocks": [3]}).violations] == [
        "pack: schema: text: must be str, got int", "pack: schema: evidence_count: missing",
        "block 1: schema: must be an object, got int"]


def _old_bundle(version: str, header: str, reason_line: bool) -> EvidenceBundle:
    """A bundle as an older compiler stored it: one block written by hand in that compiler's layout."""
    text = "def f():\n    return 1"
    reason = "Fused rank 1 as definition evidence, found by BM25 rank 1 (score 3.00)."
    s = EvidenceSnippet("c1", content_hash(text), text, count_tokens(text), "a.py", 1, 2, "f", "bm25", 0.0164, 1,
                        reason, "definition")
    block = "\n".join([header, *([f"Reason included: {reason}"] if reason_line else []), text])
    return EvidenceBundle("What is f?", "code_lookup", [s], count_tokens(block), 500, ["bm25"], [],
                          compiler_version=version)


def test_a_bundle_is_counted_in_the_layout_its_compiler_wrote():
    seed = _old_bundle("gradedesk-compiler/1", "[Evidence 1] a.py :: f (lines 1-2) [bm25, score: 0.0164]", True)
    fused = _old_bundle("gradedesk-compiler/1", "[Evidence 1] a.py :: f (lines 1-2) [bm25, fused 0.0164]", True)
    bracket = _old_bundle("gradedesk-compiler/2", "[Evidence 1] a.py :: f (lines 1-2) [definition via BM25]", False)
    ours = _old_bundle("gradedesk-compiler/4", "[Evidence 1] a.py:1-2 [definition via BM25]", False)
    for bundle, layout in ((seed, SEED_LAYOUT), (fused, FUSED_LAYOUT), (bracket, BRACKET_LAYOUT), (ours, LAYOUT)):
        assert validate(bundle) == [] and written_layout(bundle).layout == layout, bundle.compiler_version
    assert ours.total_tokens == count_tokens(ours.to_prompt_context())  # gradedesk's own is its prompt
    bracket.compiler_version = "gradedesk-compiler/4"  # counted in another layout, it is wrong, and says where
    (wrong,) = validate(bracket)
    assert wrong.rule == "token_count" and wrong.message.endswith("counted in gradedesk's layout (compiler 3 on)")


def test_a_bundle_naming_no_compiler_is_counted_in_the_seeds_layout():
    data = json.loads(lesson_bundle_json([lesson_snippet(1, "def invalidate(self):\n    self._data.clear()")]))
    del data["compiler_version"]
    bundle = read_bundle(data).bundle
    assert validate(bundle) == [] and written_layout(bundle).name == "the seed's to_prompt_context layout"
