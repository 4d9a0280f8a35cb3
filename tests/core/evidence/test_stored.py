"""core/evidence/stored.py: evidence of any shape read robustly."""

from __future__ import annotations

import json

from gradedesk.core.evidence.stored import parse_hits


def test_evidence_of_any_shape_is_shown_robustly():
    snippets, problem = parse_hits(json.dumps([{"path": "a.py", "start": "3", "end": 9, "score": 0.5,
                                                           "content": "x = 1", "custom": [1], "symbol_name": None}, "plain text"]))
    assert problem is None
    assert (snippets[0].file_path, snippets[0].start_line, snippets[0].relevance_score, snippets[0].text) == \
        ("a.py", 3, 0.5, "x = 1")
    assert snippets[0].extra == {"custom": [1]} and snippets[1].text == "plain text"
    assert parse_hits("{not json")[1].startswith("evidence is not JSON")
    assert parse_hits(json.dumps({"hits": [{"text": "t"}]}))[0][0].text == "t"
    assert parse_hits(None) == ([], None)
