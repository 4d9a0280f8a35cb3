"""Bundles at every budget from 500 to 8,000 tokens, compiled from real questions on a real index (gradedesk's own
source, as the demo indexes it): each passes the validator, stored and read back too, and every reason in the prompt
names its snippet's role and method, while the stored reason keeps the full detail."""

from __future__ import annotations

import pytest

from gradedesk.core.demo import source_root
from gradedesk.core.evidence.bundle import EvidenceBundle, validate
from gradedesk.core.evidence.compile import ask
from gradedesk.core.evidence.stored import load_bundle, save_bundle
from gradedesk.core.index.indexer import index_repository
from gradedesk.core.runs.questions import bundled_questions_path, load_questions
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR, parse_header
from gradedesk.core.text.selection_reason import METHOD_WORDS, read_reason
from gradedesk.core.text.tokens import get_tokenizer

BUDGETS = (500, 700, 1000, 1500, 2000, 3000, 4000, 6000, 8000)


@pytest.fixture(scope="module")
def own_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("own") / "store.db"
    with open_store(path) as store:
        index_repository(store, source_root(), name="gradedesk")
        # a lookup, an explanation, a relationship question and more: every kind of reason and role turns up
        questions = [q.question for q in load_questions(bundled_questions_path())][:8]
        yield store, questions


@pytest.mark.parametrize("budget", BUDGETS)
def test_every_bundle_passes_the_validator_and_names_role_and_method_in_its_prompt(own_index, budget):
    store, questions = own_index
    for question in questions:
        bundle = ask(store, question, repo="gradedesk", budget=budget)
        assert bundle.snippets, question
        assert validate(bundle) == []
        assert validate(EvidenceBundle.from_json(bundle.to_json())) == []
        stored = load_bundle(store, save_bundle(store, bundle))
        assert stored is not None and validate(stored.bundle) == []
        assert stored.bundle.to_prompt_context() == bundle.to_prompt_context()
        blocks = bundle.to_prompt_context().split(SNIPPET_SEPARATOR)
        assert len(blocks) == len(bundle.snippets)
        for i, (block, s) in enumerate(zip(blocks, bundle.snippets), start=1):
            header = parse_header(block.split("\n", 1)[0])
            assert header is not None and header.label == i and header.path == s.file_path, block
            # the prompt's reason: the role and the snippet's method, in words
            assert header.reason is not None and header.reason.startswith(f"{s.evidence_role} via "), header
            assert METHOD_WORDS[s.retrieval_method] in header.reason, (header.reason, s.retrieval_method)
            # the stored reason: every detail, read back to the same role and the same best method
            full = read_reason(s.selection_reason or "")
            assert full is not None and full.role == s.evidence_role and full.rank == s.retrieval_rank
            assert METHOD_WORDS[s.retrieval_method] in [f.method for f in full.found]
            assert len(s.selection_reason or "") > len(header.reason)


def test_a_small_budget_spends_most_of_its_tokens_on_evidence(own_index):
    """At 1,000 tokens a bundle's headers and reasons (the prompt's lines that are not evidence) take well under the
    ~45% they took when each block carried its full reason."""
    store, questions = own_index
    shares = []
    for question in questions:
        bundle = ask(store, question, repo="gradedesk", budget=1000)
        tok = get_tokenizer(bundle.tokenizer)
        layout = sum(tok.count(s.prompt_block(i).removesuffix(s.text)) for i, s in enumerate(bundle.snippets, 1))
        shares.append(layout / bundle.total_tokens)
    assert sum(shares) / len(shares) < 0.35
