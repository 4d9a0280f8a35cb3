"""The question analysed once (QuestionInfo) and the one stop-word vocabulary, with its code/prose parameter."""

from __future__ import annotations

from gradedesk.core.text.codeterms import PROSE_STOPWORDS, STOPWORDS, code_tokens, identifier_parts
from gradedesk.core.text.matching import content_words
from gradedesk.core.text.question import analyse_question


def test_the_analysis_says_which_way_to_walk_the_call_graph():
    callers = analyse_question("What calls ship_parcel?")
    assert callers.relationship and callers.wants_callers and not callers.wants_callees
    assert callers.identifiers == ("ship_parcel",) and callers.terms == tuple(code_tokens("What calls ship_parcel?"))
    callees = analyse_question("What does ship_parcel call?")
    assert callees.relationship and callees.wants_callees and not callees.wants_callers
    assert analyse_question("Which modules import json and depend on it?").wants_imports
    # plain "using"/"references" make no relationship question, so no call-graph expansion either
    assert not analyse_question("How is the cache built using a dict?").relationship
    assert not analyse_question("How are weak references removed?").relationship
    assert analyse_question("Which test covers parse_weight?").about_tests
    assert analyse_question(callers) is callers
    # software talk names no code: it is left out of the search terms (it would match prose about design)
    assert analyse_question("What architectural role does the prefetch handler play?").terms == ("prefetch", "handler",
                                                                                               "play")
    assert analyse_question("Where do the docs explain parsing?").about_docs


def test_code_keeps_english_words_that_are_identifiers_and_prose_drops_them():
    assert code_tokens("datetime.now make_archive") == ["datetime", "now", "make_archive", "make", "archive"]
    assert {"now", "make", "else"} <= PROSE_STOPWORDS and not {"now", "make", "else"} & STOPWORDS
    assert "self" in STOPWORDS and "function" in PROSE_STOPWORDS and "function" not in STOPWORDS
    assert content_words("The function now makes a sorted index") == ["sorted", "index"]
    assert identifier_parts("HTTPServer_v2") == ["http", "server", "v", "2"]
