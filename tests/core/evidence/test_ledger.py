"""The compiler's ledger on real questions about a real index (gradedesk's own source, as the demo indexes it), at
budgets from 500 to 8,000 tokens: every candidate is kept or left out with a reason from the fixed list, and each
reason is true of the ledger at the moment it was given; the best hits are never left out for lower-ranked ones; every
bundle passes the validator; explore never says "did not fit" while the hit's smallest cut had room."""

from __future__ import annotations

import re

import pytest

from gradedesk.core.demo import source_root
from gradedesk.core.evidence.bundle import prompt_context, validate
from gradedesk.core.evidence.compile import (CANDIDATE_HITS, DID_NOT_FIT, DISPLACED, DUPLICATE, LEFT_OUT_REASONS,
                                             OVER_TOTAL, build_bundle, compile_context)
from gradedesk.core.evidence.explore import compile_at, retrieve_question
from gradedesk.core.index.indexer import index_repository
from gradedesk.core.retrieval.hybrid import retrieve
from gradedesk.core.runs.questions import bundled_questions_path, load_questions
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR
from gradedesk.core.text.question import analyse_question
from gradedesk.core.text.tokens import get_tokenizer

DID_NOT_FIT_WORDS = re.compile(r"did not fit: its smallest cut needs (?P<need>[\d,]+) tokens, (?P<free>-?[\d,]+) were "
                               r"free of [\d,]+")
BUDGETS = (500, 700, 1000, 1500, 2000, 3000, 4000, 6000, 8000)
EXTRA = ["where is the request context pushed?", "How does the desk save a grade?",
         "What calls compile_context and what does it call?"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """Each question's candidates and its pack at every budget."""
    path = tmp_path_factory.mktemp("ledger") / "store.db"
    with open_store(path) as store:
        index_repository(store, source_root(), name="gradedesk")
        questions = [q.question for q in load_questions(bundled_questions_path())][:8] + EXTRA
        out = []
        for question in questions:
            info = analyse_question(question)
            hits = retrieve(store, info, repo="gradedesk", k=CANDIDATE_HITS)
            out.append((question, hits, {b: compile_context(info, hits, b) for b in BUDGETS}))
        yield store, out


def test_every_candidate_is_kept_or_left_out_once_with_a_reason_true_at_that_moment(compiled):
    _, questions = compiled
    tok = get_tokenizer("o200k_base")
    separator = tok.count(SNIPPET_SEPARATOR)
    for question, hits, packs in questions:
        by_chunk = {h.chunk_id: h for h in hits}
        for budget, pack in packs.items():
            kept = [s.chunk_id for s in pack.snippets]
            left = [d.chunk_id for d in pack.dropped]
            assert sorted(kept + left) == sorted(by_chunk), (question, budget)
            places = {f"{s.file_path}:{by_chunk[s.chunk_id].start_line}-{by_chunk[s.chunk_id].end_line}": s
                      for s in pack.snippets}
            for d in pack.dropped:
                assert d.why in LEFT_OUT_REASONS
                hit = by_chunk[d.chunk_id]
                if d.why == DID_NOT_FIT:
                    before = pack.snippets[:d.kept_before]
                    assert d.kept_before <= len(pack.snippets)
                    used = tok.count(prompt_context(before)) + (separator if before else 0)
                    assert d.free == budget - used and d.need > d.free, (question, budget, d)
                elif d.why == DUPLICATE:
                    kept_as = places[d.same_as]
                    kept_hit = by_chunk[kept_as.chunk_id]
                    assert content_hash(hit.text) in (content_hash(kept_hit.text), kept_as.content_hash) \
                        or d.same_as in places, (question, budget, d)
                    assert content_hash(hit.text) == content_hash(kept_hit.text) or hit.text != kept_hit.text
                elif d.why == DISPLACED:
                    kept_as = by_chunk[places[d.same_as].chunk_id]
                    assert kept_as.file_path == hit.file_path and kept_as.rank < hit.rank
                    assert kept_as.start_line <= hit.start_line and hit.end_line <= kept_as.end_line
                else:
                    assert d.why == OVER_TOTAL and d.kept_before == len(pack.snippets)


def test_the_three_best_hits_are_in_every_bundle_of_1000_tokens_or_more(compiled):
    _, questions = compiled
    for question, hits, packs in questions:
        for budget, pack in packs.items():
            if budget < 1000:
                continue
            kept = {s.chunk_id for s in pack.snippets}
            same = {d.chunk_id for d in pack.dropped if d.why in (DUPLICATE, DISPLACED)}
            for hit in hits[:3]:
                assert hit.chunk_id in kept | same, (question, budget, hit.rank)


def test_every_bundle_from_500_to_8000_tokens_passes_the_validator(compiled):
    _, questions = compiled
    for _, _, packs in questions:
        for pack in packs.values():
            assert validate(build_bundle(pack)) == []


def test_explore_never_says_did_not_fit_while_the_smallest_cut_had_room(compiled):
    store, questions = compiled
    for question, _, _ in questions[-3:]:
        retrieval = retrieve_question(store, question, "gradedesk")
        for budget in (500, 1000, 4000):
            compiled_at = compile_at(retrieval, budget)
            for left in compiled_at.left_out:
                said = DID_NOT_FIT_WORDS.fullmatch(left.reason)
                assert said or not left.reason.startswith("did not fit"), left.reason
                if said:
                    assert int(said["need"].replace(",", "")) > int(said["free"].replace(",", "")), left.reason
