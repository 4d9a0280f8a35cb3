"""Citations written one way while method names are hidden (core/review/blind.py neutral_citations)."""

from __future__ import annotations

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.providers.offline import extractive_answer
from gradedesk.core.review.blind import neutral_citations

EVIDENCE = [Evidence("core/store.py", start_line=1, end_line=40, position=1),
            Evidence("core/tokens.py", start_line=5, end_line=9, position=2)]


def test_every_citation_style_becomes_the_place_it_points_at():
    cases = {
        "Opens it [Evidence 1].": "Opens it [source: core/store.py:1-40].",
        "Opens it (File: core/store.py:3).": "Opens it [source: core/store.py:3].",
        "File: core/tokens.py (lines 5-9) counts": "[source: core/tokens.py:5-9] counts",
        "See `core/tokens.py:6`.": "See [source: core/tokens.py:6].",
        "Both [Evidence 1, 2].": "Both [source: core/store.py:1-40; core/tokens.py:5-9].",
        "Made up [Evidence 7].": "Made up [source: not in the evidence].",
        "No citation here.": "No citation here.",
    }
    for text, shown in cases.items():
        assert neutral_citations(text, EVIDENCE) == shown


def test_a_label_and_the_line_after_it_are_one_source_and_code_is_not_read():
    assert neutral_citations("- `x = 1` [Evidence 1] core/store.py:3", EVIDENCE) == "- `x = 1` [source: core/store.py:3]"
    assert neutral_citations("```\nsee [Evidence 1]\n```", EVIDENCE) == "```\nsee [Evidence 1]\n```"


def test_the_offline_answers_of_both_methods_look_alike_once_neutral():
    question = "Question: How is the store opened?\n\nContext:\n\n"
    line = "def open_store(path): opens the store at path"
    bundled = extractive_answer(f"{question}[Evidence 1] core/store.py :: open_store (lines 3-3) [bm25, score: 0.5]\n"
                                f"Reason included: found by BM25.\n{line}")
    raw = extractive_answer(f"{question}File: core/store.py (lines 3-3)\n{line}")
    assert bundled != raw
    evidence = [Evidence("core/store.py", start_line=3, end_line=3, position=1)]
    assert neutral_citations(bundled, evidence) == neutral_citations(raw, evidence)


def test_what_a_model_copied_of_a_bundled_prompt_is_left_out():
    """gemma3-270m on llama.cpp copies its prompt: evidence headers with their method and score, and the bundle's
    selection reasons, which only a bundled prompt has."""
    from gradedesk.core.review.blind import COPIED, neutral_answer

    copied = ("[Evidence 2] core/tokens.py :: count_tokens (lines 5-9) [bm25, score: 0.0141]\n"
              "Reason included: Fused rank 17 as related evidence, found by BM25 rank 12.\n"
              "def count_tokens(text):")
    shown = f"[source: core/tokens.py:5-9]\n{COPIED}\ndef count_tokens(text):"
    assert neutral_answer(copied, EVIDENCE) == shown
    assert neutral_answer(copied.replace("[Evidence 2]", "[Evidence 17]"), EVIDENCE) == shown  # the place it names
    raw = "File: core/tokens.py (lines 5-9)\ndef count_tokens(text):"  # the raw prompt's header, copied
    assert neutral_answer(raw, EVIDENCE) == "[source: core/tokens.py:5-9]\ndef count_tokens(text):"
